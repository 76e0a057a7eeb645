import numpy as np
import pandas as pd
import pytest

from humeval.data import Comparisons
from humeval.experiments.grm_study import (baseline_balance, baseline_by_metric, budget_study, noise_study, propose_baseline,
                                           randomize_judges)
from humeval.simulate import simulate_competition


def test_propose_baseline():
    c = Comparisons(a=[0, 0, 1, 1, 2, 2], b=[1, 2, 2, 0, 0, 1], outcome=[1, 1, 1, 2, 2, 2], systems=("A", "B", "C"))
    # A wins everything, C loses everything, B is in the middle
    assert propose_baseline(c) == "B"
    assert propose_baseline(metric_scores=pd.Series({"A": 30.0, "B": 10.0, "C": 21.0})) == "C"
    with pytest.raises(ValueError, match="give comparisons or metric scores"):
        propose_baseline()


@pytest.fixture(scope="module")
def campaign():
    return simulate_competition(n_systems=6, n_items=300, n_judges=15, n_judgments=900, design="rankings",
                                random_state=2)


def test_budget_study_shape_and_truthful_gold(campaign):
    c = campaign.comparisons
    gold = campaign.truth.abilities  # the simulator's truth stands in for the bootstrap gold
    study = budget_study(c, gold, baselines=["sys01", "sys02"], budgets=(200, 800), trials=2, random_state=0)
    assert len(study) == 2 * 2 * (2 * 2 + 3) and set(study.model) == {
        "GRM", "Expected Wins", "IRT-Gaussian (H&M)", "TrueSkill (active)", "Two-stage (Baba & Kashima)"}
    big = study[study.budget == 800].groupby("model").pearson.mean()
    assert (big > 0.8).all()
    balance = baseline_balance(c, study)
    assert list(balance.columns) == ["wins", "ties", "losses", "pearson", "ndcg"]
    # shares of each system's comparisons, counted here from the rows; fewest wins first
    for name, row in balance.iterrows():
        s = c.systems.index(name)
        mine = (c.a == s) | (c.b == s)
        won = ((c.a == s) & (c.outcome == 1)) | ((c.b == s) & (c.outcome == 2))
        tied = mine & (c.outcome == 0)
        assert (row.wins, row.ties, row.losses) == pytest.approx((won.sum() / mine.sum(), tied.sum() / mine.sum(),
                                                                  (mine.sum() - won.sum() - tied.sum()) / mine.sum()))
    assert balance.index[0] == campaign.truth.abilities.idxmin() and balance.index[-1] == campaign.truth.abilities.idxmax()
    grm = study[(study.model == "GRM") & (study.budget == 800)]
    assert balance.loc["sys01", "pearson"] == pytest.approx(grm[grm.baseline == "sys01"].pearson.mean())
    assert np.isnan(balance.loc["sys03", "pearson"])  # not a baseline of the study


def test_baseline_by_metric_is_figure_4():
    study = pd.DataFrame({"model": ["GRM"] * 4 + ["Expected Wins"], "baseline": ["A", "A", "B", "C", ""],
                          "budget": [800, 800, 800, 800, 800], "pearson": [0.8, 0.6, 0.9, 0.5, 0.99],
                          "ndcg": [0.9, 0.9, 0.95, 0.7, 1.0], "trial": [0, 1, 0, 0, 0]})
    metric = pd.Series({"A": 30.0, "B": 21.0, "C": 10.0, "D": 23.0})  # mean 21, best 30: (m − 21) / 9
    table = baseline_by_metric(metric, study)
    assert list(table.index) == ["B", "A", "C"]  # nearest the mean first; D was not a baseline
    assert table["metric (mean 0, best 1)"].tolist() == pytest.approx([0.0, 1.0, -11 / 9])
    assert table.loc["A", "pearson"] == pytest.approx(0.7) and table.loc["C", "ndcg"] == pytest.approx(0.7)


def test_random_judges_hurt(campaign):
    c = campaign.comparisons
    rng = np.random.default_rng(0)
    noisy = randomize_judges(c, 0.4, rng)
    # 40 % of 15 judges = 6 answer uniformly at random (each of ~600 answers changes with probability ~2/3)
    changed = np.unique(noisy.judge[noisy.outcome != c.outcome])
    assert len(changed) == 6
    random_rows = np.isin(noisy.judge, changed)
    np.testing.assert_array_equal(noisy.outcome[~random_rows], c.outcome[~random_rows])
    shares = np.bincount(noisy.outcome[random_rows], minlength=3) / random_rows.sum()
    np.testing.assert_allclose(shares, 1 / 3, atol=0.03)
    table = noise_study(c, campaign.truth.abilities, ["sys03"], shares=(0.0, 0.8), budget=3000, trials=2)
    assert table.loc[0.8, ("pearson", "Expected Wins")] < table.loc[0.0, ("pearson", "Expected Wins")]
    assert ("pearson", "Expected Wins − GRM") in table.columns


def test_cli_study_with_baseline_by_metric(campaign, tmp_path):
    import json

    from click.testing import CliRunner

    from humeval.cli import cli
    from humeval.data.export import pairwise_frame, write
    sim = tmp_path / "sim.csv"
    write(pairwise_frame(campaign.comparisons), sim)
    # sys04 is nearest the mean of the metric (mean 21): with --baselines auto it becomes a baseline
    metric = tmp_path / "bleu.csv"
    metric.write_text("system,score\nsys01,30\nsys02,10\nsys03,25\nsys04,20.5\nsys05,19\nsys06,21.5\nother,99\n")
    result = CliRunner().invoke(cli, ["grm", "study", str(sim), "--budgets", "300", "--trials", "1", "--noise", "",
                                      "--gold-resamples", "5", "--no-two-stage", "--baseline-by-metric", str(metric),
                                      "--json"])
    assert result.exit_code == 0, result.output
    table = json.loads(result.output)["baseline_by_metric"]
    assert "sys04" in {row["baseline"] for row in table}
    assert {r["model"] for r in json.loads(result.output)["budget_study"]} == {
        "GRM", "Expected Wins", "IRT-Gaussian (H&M)", "TrueSkill (active)"}
    metric.write_text("system,score\nsys01,high\n")
    bad = CliRunner().invoke(cli, ["grm", "study", str(sim), "--baseline-by-metric", str(metric)])
    assert bad.exit_code == 2 and "'high' is not a finite number" in bad.output and "bleu.csv:2:" in bad.output


def test_gold_scores_report_progress(campaign):
    """grm study's progress bar follows the gold-score bootstrap (issue 27)."""
    from humeval.experiments.grm_study import gold_scores
    calls = []
    gold = gold_scores(campaign.comparisons, n=20, random_state=0, progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[-1] == (20, 20) and len(gold) == 6
    assert gold.equals(gold_scores(campaign.comparisons, n=20, random_state=0))  # the same numbers with or without
