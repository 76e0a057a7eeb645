"""Writes the generated reference pages (``python docs/cli_reference.py``): docs/reference/cli.md,
every ``humeval`` command's ``--help`` walked from the click tree, and
docs/reference/model-capabilities.md, the model registry's capability table
(``humeval.ranking.MODELS``). tests/test_docs.py checks the committed pages are current."""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parent / "reference" / "cli.md"
MODELS_PAGE = PAGE.with_name("model-capabilities.md")
WIDTH = 100


def _help(path: list[str]) -> str:
    from click.testing import CliRunner

    from humeval.cli import cli
    result = CliRunner().invoke(cli, [*path, "--help"], terminal_width=WIDTH, prog_name="humeval")
    assert result.exit_code == 0, result.output
    return result.output.rstrip()


def page() -> str:
    """The reference page's Markdown."""
    import click

    from humeval.cli import cli
    parts = ["# Command-line reference", "",
             "Generated from the commands themselves (`python docs/cli_reference.py`); each section is the",
             "command's `--help`. A shorter overview is [the command line at a glance](command-line.md).", "",
             "## humeval", "", "```text", _help([]), "```", ""]

    def walk(command: click.Command, path: list[str]):
        parts.extend([f"## humeval {' '.join(path)}", "", "```text", _help(path), "```", ""])
        if isinstance(command, click.Group):
            for name in command.list_commands(None):
                walk(command.get_command(None, name), [*path, name])

    for name in cli.list_commands(None):
        walk(cli.get_command(None, name), [name])
    return "\n".join(parts)


def models_page() -> str:
    """One row per ``humeval rank --model`` name: its class, what it can do, its first sentence."""
    from humeval.ranking import HEURISTICS, MODELS

    def yes(flag):
        return "yes" if flag else ""

    rows = ["# Model capabilities", "",
            "Generated from the model registry (`humeval.ranking.MODELS`, `python docs/cli_reference.py`).",
            "*Predicts*: gives held-out probabilities (`compare-models` can judge it by perplexity); *prior*: has",
            "the Gaussian ability prior `--l2`; *seeded*: sampled or randomised (`--random-state`); *order*: plays",
            "comparisons in an order (`--order`). The models themselves are described in [Models](models.md).", "",
            "| `--model` | class | kind | predicts | prior | seeded | order | what it is |", "|---|---|---|---|---|---|---|---|"]
    for name, cls in MODELS.items():
        model = cls()
        params = model.get_params()
        doc = " ".join((cls.__doc__ or "").split())
        # the first sentence ("Bojar et al. 2011" stays whole), pipes escaped for the table
        first = re.split(r"(?<! al)\.\s+(?=[A-Z])", doc)[0].rstrip(".").replace("|", "\\|") + "." if doc else ""
        kind = "heuristic" if name in HEURISTICS else "preference model"
        rows.append(f"| `{name}` | `{cls.__name__}` | {kind} | {yes(hasattr(model, 'predict_proba'))} | "
                    f"{yes('l2' in params)} | {yes('random_state' in params)} | "
                    f"{', '.join(getattr(model, 'orders', ()))} | {first} |")
    return "\n".join(rows)


if __name__ == "__main__":
    for path, text in ((PAGE, page()), (MODELS_PAGE, models_page())):
        path.write_text(text + "\n", encoding="utf-8")
        print(f"wrote {path}")
