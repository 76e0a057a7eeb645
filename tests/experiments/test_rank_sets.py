"""Rank confidence sets (Mogstad, Romano, Shaikh & Wilhelm 2024): the critical values are the
normal ones where they are known, the stepdown only narrows, and on 200 simulated campaigns with
known abilities the simultaneous, marginal and top-1 sets cover the truth at least nominally."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from conftest import shared_file
from humeval.data import Comparisons
from humeval.experiments import bootstrap
from humeval.experiments import rank_sets as rs
from humeval.ranking import BradleyTerry

THETA = np.array([0.4, 0.25, 0.1, 0.0, -0.3, -0.45])
NAMES = tuple("ABCDEF")


def campaign(seed, n=1500):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 6, n)
    b = (a + rng.integers(1, 6, n)) % 6
    outcome = np.where(rng.random(n) < 1 / (1 + np.exp(-(THETA[a] - THETA[b]))), 1, 2)
    return Comparisons(a=a, b=b, outcome=outcome, systems=NAMES)


def test_two_systems_critical_value_is_the_normal_quantile():
    """One pair: max |Z| is |N(0, 1)|, so c = Φ⁻¹(0.975) = 1.96 (10,000 draws: ± 0.05); d̂ = 0.5, se = √(0.04 + 0.05) = 0.3:
    t = 1.67 < 1.96, ranks [1, 2]; d̂ = 0.7: t = 2.33, ranks 1 and 2."""
    cov = np.array([[0.04, 0.0], [0.0, 0.05]])
    out = rs.rank_sets(pd.Series({"x": 0.5, "y": 0.0}), cov=cov)
    assert out.attrs["critical"] == pytest.approx(norm.ppf(0.975), abs=0.05)
    # one-sided over both orders of the one pair: max(Z, −Z) = |Z| again
    assert out.attrs["critical_one_sided"] == pytest.approx(norm.ppf(0.975), abs=0.05)
    assert out[["sim_lower", "sim_upper"]].values.tolist() == [[1, 2], [1, 2]]
    assert out.top1.tolist() == [True, True]
    sure = rs.rank_sets(pd.Series({"x": 0.7, "y": 0.0}), cov=cov)
    assert sure[["sim_lower", "sim_upper", "marg_lower", "marg_upper"]].values.tolist() == [[1, 1, 1, 1], [2, 2, 2, 2]]
    assert sure.top1.tolist() == [True, False]


def test_stepdown_only_narrows():
    model = BradleyTerry().fit(campaign(3))
    n = len(model.systems_)
    cov = model.covariance().to_numpy()[:n, :n]
    step = rs.rank_sets(model.scores_, cov=cov)
    single = rs.rank_sets(model.scores_, cov=cov, stepdown=False)
    assert (step.sim_lower >= single.sim_lower).all() and (step.sim_upper <= single.sim_upper).all()
    assert (step.marg_upper - step.marg_lower <= step.sim_upper - step.sim_lower).all()  # marginal ⊆ simultaneous


def test_coverage_on_simulated_campaigns(monkeypatch):
    """200 campaigns of 1,500 comparisons of six systems whose abilities are 0.1–0.3 apart: the
    simultaneous sets hold every true rank at once, each marginal set its system's rank, the
    top-1 set the true best, in at least 95 % of campaigns less the Monte Carlo error (2 × 1.5 %);
    the sets are informative (mean width under 3 of the 5 possible)."""
    monkeypatch.setattr(rs, "DRAWS", 4000)
    truth = 1 + (THETA[None, :] > THETA[:, None]).sum(axis=1)
    joint, marginal, top, width = [], [], [], []
    for seed in range(200):
        model = BradleyTerry().fit(campaign(seed))
        out = rs.model_rank_sets(model, random_state=seed).reindex(NAMES)
        joint.append(((out.sim_lower <= truth) & (truth <= out.sim_upper)).all())
        marginal.append(((out.marg_lower <= truth) & (truth <= out.marg_upper)).mean())
        top.append(out.top1.iloc[0])
        width.append((out.sim_upper - out.sim_lower).mean())
    assert np.mean(joint) >= 0.92 and np.mean(marginal) >= 0.92 and np.mean(top) >= 0.92
    assert np.mean(width) < 3


def test_bootstrap_samples_and_analytic_agree():
    c = campaign(7, 3000)
    model = BradleyTerry().fit(c)
    result = bootstrap(model, c, n=400, random_state=0)
    from_boot = rs.rank_sets(result.estimate, samples=result.samples)
    analytic = rs.model_rank_sets(model)
    pd.testing.assert_series_equal(from_boot["rank"], analytic["rank"])
    assert (np.abs(from_boot.sim_lower - analytic.sim_lower) <= 1).all()
    assert (np.abs(from_boot.sim_upper - analytic.sim_upper) <= 1).all()


def test_refusals():
    with pytest.raises(ValueError, match="one of them"):
        rs.rank_sets(pd.Series({"x": 1.0, "y": 0.0}))
    with pytest.raises(ValueError, match="too few"):
        rs.rank_sets(pd.Series({"x": 1.0, "y": 0.0}), samples=np.zeros((5, 2)))


def test_wmt10_beside_clusters():
    from click.testing import CliRunner

    from humeval.cli import cli
    path = shared_file("wmt10-rankings/wmt10/data_RNK.csv")
    result = CliRunner().invoke(cli, ["rank", str(path), "--track", "German-English", "-m", "bt", "--intervals",
                                      "fisher", "--rank-sets"])
    assert result.exit_code == 0, result.output
    assert "rank set" in result.output and "top1" in result.output and "cluster" in result.output
