"""Three judgments where x beats y: no two systems can be told apart, and every output says so
with finite, honestly wide numbers (no zero-width interval, no second cluster, no recommended model)."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.data import Comparisons
from humeval.experiments import bootstrap
from humeval.experiments.bootstrap import fewest_separating
from humeval.ranking import BradleyTerry, ExpectedWins


def three():
    return Comparisons(a=np.zeros(3, dtype=int), b=np.ones(3, dtype=int), outcome=np.ones(3, dtype=int),
                       systems=("x", "y"))


def test_fewest_separating_is_the_sign_test():
    """n unanimous judgments of one pair: two-sided p = 2 · 2⁻ⁿ; at 95% p(5) = 0.0625, p(6) = 0.03125."""
    assert fewest_separating(0.95) == 6
    assert fewest_separating(0.99) == 8  # p(7) = 0.0156 > 0.01, p(8) = 0.0078
    assert fewest_separating(0.5) == 3  # p(2) = 0.5, not below 0.5; p(3) = 0.25


@pytest.mark.parametrize("model", [BradleyTerry(), ExpectedWins()])
def test_three_judgments_give_one_cluster_and_wide_finite_intervals(model):
    result = bootstrap(model, three(), n=50, random_state=0)
    table = result.table()
    assert result.too_few and "too few judgments to separate anything" in result.too_few_note()
    assert np.all(np.isfinite(table[["lower", "upper"]].to_numpy()))
    assert np.all(table["upper"] - table["lower"] > 0)
    assert list(table["cluster"]) == [1, 1] and list(table["rank_hi"]) == [2, 2]
    # every interval covers both estimates
    assert np.all(table["lower"] <= table["score"].min()) and np.all(table["upper"] >= table["score"].max())
    if isinstance(model, BradleyTerry):  # and the model's own ± 1.96 std (posterior, N(0, 1) prior)
        fitted = BradleyTerry().fit(three())
        assert table.loc["x", "upper"] == pytest.approx(fitted.scores_["x"] + 1.959964 * fitted.scores_std_["x"])


def test_six_unanimous_judgments_may_separate():
    c = Comparisons(a=np.zeros(6, dtype=int), b=np.ones(6, dtype=int), outcome=np.ones(6, dtype=int),
                    systems=("x", "y"))
    assert not bootstrap(BradleyTerry(), c, n=20, random_state=0).too_few


@pytest.fixture
def three_file(tmp_path):
    path = tmp_path / "three.csv"
    path.write_text("model_a,model_b,winner\nx,y,model_a\nx,y,model_a\nx,y,model_a\n")
    return path


@pytest.mark.parametrize("how", [["--bootstrap", "100"], ["--intervals", "fisher"]])
def test_rank_says_too_few_judgments(three_file, how):
    result = CliRunner().invoke(cli, ["rank", str(three_file), "-m", "bt", *how])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "too few judgments to separate anything: 3 comparisons" in text
    rows = json.loads(CliRunner().invoke(cli, ["rank", str(three_file), "-m", "bt", *how, "--json"]).stdout)
    rows = rows["(no track)"]
    assert {r["cluster"] for r in rows} == {1}
    assert all(r["upper"] - r["lower"] > 1 for r in rows)


def test_report_recommends_no_model_from_one_held_out_comparison(three_file, tmp_path):
    out = tmp_path / "r.json"
    result = CliRunner().invoke(cli, ["report", str(three_file), "-o", str(out), "--bootstrap", "50", "--quiet",
                                      "--model", "bt,davidson"])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    summary = " ".join(report["summary"]) if isinstance(report["summary"], list) else str(report["summary"])
    assert "Recommended model" not in summary and "too few judgments to choose a model" in summary
    # three comparisons are too few to hold any out: no learning curve at all (never a size the data lack)
    assert not [t for s in report["sections"] for t in s["tables"] if "Mean test perplexity" in t["title"]]
    assert "the smallest track holds 3 comparisons, too few to hold any out" in summary
    text = json.dumps(report)
    assert "too few judgments to separate anything" in text
