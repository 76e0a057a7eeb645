"""Every command's --help as a user reads it (issue 27: `metric tune --help` printed a literal \\b)."""

import click
from click.testing import CliRunner

from humeval.cli import cli


def commands(group=cli, prefix=()):
    for name, command in group.commands.items():
        yield (*prefix, name)
        if isinstance(command, click.Group):
            yield from commands(command, (*prefix, name))


def test_no_help_prints_click_markers():
    seen = 0
    for words in commands():
        result = CliRunner().invoke(cli, [*words, "--help"])
        assert result.exit_code == 0, (words, result.output)
        assert "\\b" not in result.output and "\b" not in result.output, words
        seen += 1
    assert seen > 20
    tune = CliRunner().invoke(cli, ["metric", "tune", "--help"]).output
    # the \b block keeps the example's lines as written
    assert "  Example:\n    D=mlqe-pe/et-en/post-editing\n    humeval metric tune --tokenize none" in tune
