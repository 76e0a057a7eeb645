"""Writes the generated reference pages (``python docs/cli_reference.py``): docs/reference/cli.md,
every ``humeval`` command's ``--help`` walked from the click tree,
docs/reference/model-capabilities.md, the model registry's capability table
(``humeval.ranking.MODELS``), and docs/reference/models/FAMILY.md, one page per model family
(``FAMILIES``) with each model's registry tags and its class's and module's docstrings.
tests/test_docs.py checks the committed pages are current."""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parent / "reference" / "cli.md"
MODELS_PAGE = PAGE.with_name("model-capabilities.md")
FAMILY_DIR = PAGE.parent / "models"
API_PAGE = "../api/ranking.md"  # the generated API page of the model classes, relative to a family page
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

    rows = ["# Model capabilities", "",
            "Generated from the model registry (`humeval.ranking.MODELS`, `python docs/cli_reference.py`).",
            "*Predicts*: gives held-out probabilities (`compare-models` can judge it by perplexity); *prior*: has",
            "the Gaussian ability prior `--l2`; *seeded*: sampled or randomised (`--random-state`); *order*: plays",
            "comparisons in an order (`--order`). The models themselves are described in [Models](models.md);",
            "each family's tags, formulas and sources are on its page: "
            + ", ".join(f"[{title}](models/{slug}.md)" for slug, title, _, _ in FAMILIES) + ".", "",
            "| `--model` | class | kind | predicts | prior | seeded | order | what it is |", "|---|---|---|---|---|---|---|---|"]
    for name, cls in MODELS.items():
        model = cls()
        params = model.get_params()
        doc = " ".join((cls.__doc__ or "").split())
        # the first sentence ("Bojar et al. 2011" stays whole), pipes escaped for the table
        first = re.split(r"(?<! al)\.\s+(?=[A-Z])", doc)[0].rstrip(".").replace("|", "\\|") + "." if doc else ""
        kind = "heuristic" if name in HEURISTICS else "preference model"
        rows.append(f"| `{name}` | `{cls.__name__}` | {kind} | {_yes(hasattr(model, 'predict_proba'))} | "
                    f"{_yes('l2' in params)} | {_yes('random_state' in params)} | "
                    f"{', '.join(getattr(model, 'orders', ()))} | {first} |")
    return "\n".join(rows)


# The model families: (page, title, which registry entries (name, tags) belong, what they share).
# A model goes to the first family that takes it; ``family_pages`` refuses a model none takes.
FAMILIES = [
    ("bradley-terry", "The Bradley–Terry family",
     lambda name, t: t.analytic or (t.scale == "log-odds" and not t.ratings),
     "Pairwise models on the log-odds (or probit) scale fitted by maximum likelihood with a Gaussian prior: "
     "Bradley–Terry, its tie models (Davidson, Rao–Kupper), Thurstone–Mosteller and Crowd-BT."),
    ("joint", "One scale for comparisons and ratings", lambda name, t: t.ratings,
     "Comparisons and ratings of the same systems fitted together, one ability per system."),
    ("plackett-luce", "Plackett–Luce", lambda name, t: t.bootstrap_unit == "ranking",
     "Models of whole k-way rankings (with ties), resampled as rankings."),
    ("irt", "Item response theory", lambda name, t: t.chains,
     "Hopkins & May's (2013) item-response models, fitted by Gibbs sampling."),
    ("rating-systems", "TrueSkill and Elo", lambda name, t: bool(t.orders),
     "Online rating systems: the comparisons are played in an order (`--order`)."),
    ("baselines", "Hopkins & May's baselines", lambda name, t: t.hopkins_may,
     "The uniform and simple Bayesian preference models of Hopkins & May (2013, §5–6)."),
    ("heuristics", "The WMT heuristics", lambda name, t: not t.preference,
     "Scores without a probability model, as the WMT campaigns ranked systems."),
]

TAG_COLUMNS = [  # (column, the tag's text) for the capability table
    ("kind", lambda t: t.kind),
    ("weighted", lambda t: _yes(t.weighted)),
    ("bootstrap", lambda t: t.bootstrap + (" (quick)" if t.quick_bootstrap else "") + f" by {t.bootstrap_unit}"),
    ("analytic", lambda t: _yes(t.analytic)),
    ("covariates", lambda t: _yes(t.covariates)),
    ("prior", lambda t: _yes(t.prior)),
    ("tie parameter", lambda t: _yes(t.tie_parameter)),
    ("std", lambda t: _yes(t.std)),
    ("seeded", lambda t: _yes(not t.deterministic)),
    ("judges", lambda t: _yes(t.judges)),
    ("orders", lambda t: ", ".join(t.orders)),
    ("variants", lambda t: ", ".join(t.variants)),
]


def _yes(flag) -> str:
    return "yes" if flag else ""


def _description(obj) -> str:
    """A docstring up to its first numpydoc section (``Parameters`` and its underline)."""
    import inspect
    doc = inspect.getdoc(obj) or ""
    return re.split(r"^\S.*\n-{3,}$", doc, maxsplit=1, flags=re.M)[0].strip()


def family_of(name: str, declared) -> str:
    for slug, _, member, _ in FAMILIES:
        if member(name, declared):
            return slug
    raise ValueError(f"model {name!r} belongs to no family in docs/cli_reference.py's FAMILIES")


def family_pages() -> dict[str, str]:
    """``{"bradley-terry.md": markdown, …}``: one page per family, its models' registry tags in one
    table, then each model's scale, class docstring (formula and source) and API link, and the
    docstrings of the modules that define them."""
    import importlib

    from humeval.ranking import REGISTRY
    members: dict[str, list] = {slug: [] for slug, *_ in FAMILIES}
    for name, (cls, declared) in REGISTRY.items():
        members[family_of(name, declared)].append((name, cls, declared))
    pages = {}
    for slug, title, _, summary in FAMILIES:
        models = members[slug]
        rows = [f"# {title}", "",
                f"Generated from the model registry (`humeval.ranking.registry`, `python docs/cli_reference.py`). {summary}",
                "The tags are what each model declares it can do (`humeval.ranking.tags(name)`; their meaning is in",
                f"[`Tags`]({API_PAGE}#humeval.ranking.registry.Tags)); all models side by side: "
                "[model capabilities](../model-capabilities.md).", "",
                "| `--model` | class | " + " | ".join(c for c, _ in TAG_COLUMNS) + " |",
                "|---|---|" + "---|" * len(TAG_COLUMNS)]
        for name, cls, declared in models:
            anchor = f"{cls.__module__}.{cls.__name__}"
            rows.append(f"| `{name}` | [`{cls.__name__}`]({API_PAGE}#{anchor}) | "
                        + " | ".join(text(declared) for _, text in TAG_COLUMNS) + " |")
        rows.append("")
        for name, cls, declared in models:
            anchor = f"{cls.__module__}.{cls.__name__}"
            rows += [f"## `{name}`: {cls.__name__}", "",
                     f"Scale: {declared.scale}. API: [`{anchor}`]({API_PAGE}#{anchor}).", "",
                     _description(cls), ""]
        modules = list(dict.fromkeys(cls.__module__ for _, cls, _ in models))
        for module in modules:
            rows += [f"## The module `{module}`", "", _description(importlib.import_module(module)), ""]
        pages[f"{slug}.md"] = "\n".join(rows).rstrip()
    return pages


def pages() -> dict[Path, str]:
    """Every generated page by its path."""
    return {PAGE: page(), MODELS_PAGE: models_page(), **{FAMILY_DIR / n: t for n, t in family_pages().items()}}


if __name__ == "__main__":
    FAMILY_DIR.mkdir(exist_ok=True)
    generated = pages()
    for stale in set(FAMILY_DIR.glob("*.md")) - set(generated):
        stale.unlink()
    for path, text in generated.items():
        path.write_text(text + "\n", encoding="utf-8")
        print(f"wrote {path}")
