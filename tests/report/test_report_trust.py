"""The report's fragility and rank-set table (``humeval.report.trust``) equals what
``rank --robustness --rank-sets`` prints with the same model, resamples and seed."""

import json
import shlex

import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.data.export import pairwise_frame, write
from humeval.simulate import simulate_competition


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    sim = simulate_competition(n_systems=5, n_items=120, n_judges=6, n_judgments=500, design="pairs", random_state=7)
    path = tmp_path_factory.mktemp("trust") / "campaign.csv"
    write(pairwise_frame(sim.comparisons), path)
    return path


def _report(campaign, tmp_path, models):
    out = tmp_path / "r.json"
    result = CliRunner().invoke(cli, ["report", str(campaign), "-o", str(out), "--model", models, "--bootstrap", "60",
                                      "--trials", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())


def _trust(report):
    for section in report["sections"]:
        for table in section["tables"]:
            if "how sure is each rank" in table["title"]:
                return section, table
    raise KeyError("no trust table")


def test_fragility_and_rank_sets_equal_the_rank_command(campaign, tmp_path):
    report = _report(campaign, tmp_path, "bt,independent-pairs")
    section, table = _trust(report)
    assert "--robustness --rank-sets" in table["command"]
    assert "AMIP" in table["how"] and "Mogstad" in table["how"] and "at once" in table["how"]
    args = shlex.split(table["command"])[1:]
    result = CliRunner().invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    (track,) = [k for k in shown if not k.startswith("(")]
    printed = {r["system"]: r for r in shown[track]}
    assert len(table["rows"]) == len(printed)
    flips = 0
    for row in table["rows"]:
        cli_row = printed[row["system"]]
        for column in ("rank set", "marginal", "top1"):
            assert row[column] == cli_row[column], (row, cli_row)
        assert row["to flip"] == cli_row.get("to flip"), (row, cli_row)
        flips += row["to flip"] is not None
    assert flips == len(table["rows"]) - 1  # every system but the last has a next one to be overtaken by
    top = [r for r in shown["(robustness)"][track] if r["conclusion"].startswith("top: ")][0]
    assert any(f"falls by dropping {top['dropped']:,} of" in note for note in section["notes"])


def test_without_the_bradley_terry_family_only_rank_sets(campaign, tmp_path):
    report = _report(campaign, tmp_path, "independent-pairs")
    _, table = _trust(report)
    assert "to flip" not in table["rows"][0] and "rank set" in table["rows"][0]
    assert "no 'to flip' column" in table["how"]


def test_two_comparisons_give_no_rank_sets_and_a_robustness_table_not_the_bug_line(tmp_path):
    """Once the 'bug' line: rank sets from 12 complete resamples of 20, and AMIP's refit after
    dropping every judgment (nothing left: every system level, so the order is reversed)."""
    data = tmp_path / "two.csv"
    data.write_text("model_a,model_b,winner\nA,B,model_a\nB,C,model_b\n")
    sets = CliRunner().invoke(cli, ["rank", str(data), "-m", "bt", "--bootstrap", "20", "--rank-sets"])
    assert sets.exit_code == 0 and "rank sets: none" in sets.output and "too few" in sets.output, sets.output
    robust = CliRunner().invoke(cli, ["rank", str(data), "-m", "bt", "--robustness", "--json"])
    assert robust.exit_code == 0, robust.output
    rows = {r["conclusion"]: r for r in json.loads(robust.output)["(robustness)"]["(no track)"]}
    top = next(r for c, r in rows.items() if c.startswith("top: "))
    assert top["dropped"] == 2 and top["share"] == 1.0  # both judgments: nothing is left to order A above C


def test_a_missing_count_is_a_dash_not_pandas_na():
    """The last system's 'to flip' (no next system) is an Int64 NA: written as the other missing numbers."""
    import pandas as pd

    from humeval.cli.common import cell
    from humeval.report.render import number
    assert number(pd.NA, "count") == "–" and cell(pd.NA) == "-"
    assert number(pd.array([3, None], dtype="Int64")[0], "count") == "3"


def test_a_small_share_is_not_rounded_to_zero():
    """2 of 5,375 judgments is 0.037 %, not "0.0%" (WMT10 Czech-English's rank 1 falls so)."""
    from humeval.report.render import share
    assert share(2 / 5375) == "0.037%" and share(0.25) == "25.0%" and share(0.0) == "0.0%"
