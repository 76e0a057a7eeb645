"""Every command's --help as a user reads it (issue 27: `metric tune --help` printed a literal \\b)."""

import click
import pytest
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


def test_cli_tables_write_numbers_as_the_report_does():
    """Issue 27: one number format: kappa 0.8 and 0.63 were "0.8" and "0.63" in the CLI, "0.800" and
    "0.630" in the report; the CLI's tables now use the report's ``number`` by column kind."""
    import numpy as np
    import pandas as pd
    from rich.console import Console

    from humeval.cli.common import render
    df = pd.DataFrame({"kappa": [0.8, 0.63], "perplexity": [2.8, 2.4567], "score": [0.8, 1234.56],
                       "tie rate": [0.1234, 0.2], "p (above chance)": [2.45e-6, 0.0312], "pairs": [1000, 20],
                       "std": [np.nan, 0.5]}, index=["a", "b"])
    console = Console(width=200, record=True)
    console.print(render(df, "t"))
    text = console.export_text()
    row_a = [line for line in text.splitlines() if line.strip().startswith("a ")][0].split()
    row_b = [line for line in text.splitlines() if line.strip().startswith("b ")][0].split()
    cells_a = [c for c in row_a if c not in ("│", "a")]
    cells_b = [c for c in row_b if c not in ("│", "b")]
    assert cells_a == ["0.800", "2.800", "0.8", "12.3%", "<", "0.0001", "1,000", "-"]
    assert cells_b == ["0.630", "2.457", "1,235", "20.0%", "0.031", "20", "0.5"]


def test_dask_logs_and_warnings_become_one_line_each(capsys):
    """Issue 27: Dask's warnings flooded stderr; under --backend dask they are counted and said once."""
    import logging
    import warnings

    from humeval.cli.common import third_party_notes
    finish = third_party_notes(("distributed",), ("distributed",))
    for _ in range(3):
        logging.getLogger("distributed.utils_perf").warning("full garbage collections took 12% CPU time recently")
    warnings.warn_explicit("Sending large graph of size 9.5 MiB.", UserWarning, "/x/site-packages/distributed/client.py", 1)
    with pytest.warns(UserWarning, match="ours"):  # not a third party's: left to Python
        warnings.warn_explicit("ours", UserWarning, "/x/humeval/ranking/bt.py", 1)
    finish()
    lines = capsys.readouterr().err.splitlines()
    joined = " ".join(lines)
    assert "note: distributed: full garbage collections took 12% CPU time recently (3 times)" in joined
    assert "note: distributed: Sending large graph of size 9.5 MiB." in joined
    assert "note: distributed: ours" not in joined and joined.count("garbage") == 1


def test_rank_help_names_every_protocol():
    """``rank --help`` lists the --protocol names by hand (the registry is not imported for --help):
    each registered protocol must be among them (wmt25 and wmt-da-appraise were missing)."""
    from humeval.ratings.protocols import PROTOCOLS
    text = " ".join(CliRunner().invoke(cli, ["rank", "--help"]).output.split())
    missing = [name for name in (*PROTOCOLS, "wmt15-trueskill", "wmt16-trueskill") if name not in text]
    assert not missing, missing
