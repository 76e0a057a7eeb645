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


def test_sacrebleu_warnings_become_one_line_of_ours(tmp_path):
    """Issue 27: sacrebleu's three-line tokenized-period warning is one note, after the table."""
    import logging
    hyp = [f"the cat number {i} sat on the mat ." for i in range(120)]
    ref = [f"the cat number {i} sat on a mat ." for i in range(120)]
    (tmp_path / "h.txt").write_text("\n".join(hyp) + "\n")
    (tmp_path / "r.txt").write_text("\n".join(ref) + "\n")
    before = (logging.getLogger("sacrebleu").handlers[:], logging.getLogger("sacrebleu").propagate)
    result = CliRunner().invoke(cli, ["metric", "score", "--hyp", str(tmp_path / "h.txt"), "--ref",
                                      str(tmp_path / "r.txt"), "--metrics", "bleu"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if "sacrebleu" in line]
    assert len(lines) == 1 and lines[0].startswith("note: sacrebleu: That's 100 lines that end in a tokenized period")
    assert "If you insist" not in result.stderr and "forgot to detokenize" not in result.stderr
    assert "detokenize them" in " ".join(result.stderr.split())
    assert (logging.getLogger("sacrebleu").handlers, logging.getLogger("sacrebleu").propagate) == before  # put back
