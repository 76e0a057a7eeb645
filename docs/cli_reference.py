"""Writes docs/reference/cli.md: every ``humeval`` command's ``--help``, walked from the click
tree (``python docs/cli_reference.py``). tests/test_docs.py checks the committed page is current."""

from __future__ import annotations

from pathlib import Path

PAGE = Path(__file__).resolve().parent / "reference" / "cli.md"
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


if __name__ == "__main__":
    PAGE.write_text(page() + "\n", encoding="utf-8")
    print(f"wrote {PAGE}")
