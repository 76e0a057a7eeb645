"""Prediction-powered rank sets (Chatzi et al. 2024): win probabilities by PPI++ (equal to
``ppi_mean`` when two systems meet in every battle), rank sets and clusters by hand, and the
simultaneous coverage of the true ranks on simulated campaigns with a biased judge."""

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from scipy.stats import chi2

from humeval.data.tables import Comparisons
from humeval.experiments.ppi import ppi_mean
from humeval.experiments.ppi_ranks import chatzi_rank_sets, ppi_rank_sets, win_rates
from humeval.simulate.judged import judged_battles


def test_two_systems_win_rate_is_the_ppi_mean():
    rng = np.random.default_rng(5)
    n, N = 80, 600
    y = (rng.random(n) < 0.6).astype(float)
    yhat_all = np.where(rng.random(n + N) < 0.8, np.r_[y, (rng.random(N) < 0.6)], 1 - np.r_[y, np.zeros(N)])
    flip = rng.random(n + N) < 0.5  # either system shown first
    a, b = np.where(flip, 1, 0), np.where(flip, 0, 1)
    out = lambda v: np.where((v == 1) ^ flip[:len(v)], 1, 2).astype(np.int8)  # v = 1: "A" (code 0) preferred
    items = tuple(f"q{i}" for i in range(n + N))
    human = Comparisons(a=a[:n], b=b[:n], outcome=out(y), item=np.arange(n), items=items, systems=("A", "B"))
    judge = Comparisons(a=a, b=b, outcome=out(yhat_all), item=np.arange(n + N), items=items, systems=("A", "B"))
    got = win_rates(human, judge)["ppi"]
    want = ppi_mean(y, yhat_all[:n], yhat_all[n:])
    assert got.loc["A", "score"] == pytest.approx(want.estimate, abs=1e-12)
    assert got.attrs["lam"] == pytest.approx(want.lam, abs=1e-12)
    assert np.sqrt(got.attrs["cov"][0, 0]) == pytest.approx(want.se, abs=1e-12)
    assert got.loc["B", "score"] == pytest.approx(1 - want.estimate, abs=1e-12)
    alone = win_rates(human, judge)["human"]
    assert alone.loc["A", "score"] == pytest.approx(y.mean())


def test_rank_sets_and_clusters_by_hand():
    scores = pd.Series([0.7, 0.5, 0.3], index=["x", "y", "z"])
    # c = χ²₃(0.95) = 7.815; se 0.05 each: a difference is sure beyond √(7.815 · 0.005) = 0.198
    sure = chatzi_rank_sets(scores, np.diag([0.05 ** 2] * 3))
    assert sure[["lower", "upper", "cluster"]].values.tolist() == [[1, 1, 1], [2, 2, 2], [3, 3, 3]]
    assert np.sqrt(chi2.ppf(0.95, 3) * 2 * 0.05 ** 2) == pytest.approx(0.1977, abs=1e-4)
    # se 0.06: the threshold is 0.237, so only x above z is sure
    loose = chatzi_rank_sets(scores, np.diag([0.06 ** 2] * 3))
    assert loose[["lower", "upper", "cluster"]].values.tolist() == [[1, 2, 1], [1, 3, 1], [2, 3, 1]]


def _true_ranks(truth):
    beta = truth.to_numpy()
    k = len(beta)
    theta = np.array([np.mean([expit(beta[m] - beta[o]) for o in range(k) if o != m]) for m in range(k)])
    return {s: 1 + int((theta > theta[i]).sum()) for i, s in enumerate(truth.index)}, theta


def test_rank_sets_cover_the_true_ranks_and_the_judge_alone_does_not():
    campaigns = 100
    covered = {"human": 0, "judge": 0, "ppi": 0}
    span = {"human": 0.0, "ppi": 0.0}
    marginal, units = 0, 0
    for r in range(campaigns):
        truth, h, j = judged_battles(n_human=300, n_judge=3000, random_state=r)
        ranks, theta = _true_ranks(truth)
        sets = ppi_rank_sets(h, j)
        for name, table in sets.items():
            covered[name] += all(table.loc[s, "lower"] <= ranks[s] <= table.loc[s, "upper"] for s in ranks)
            if name in span:
                span[name] += float((table.upper - table.lower).mean()) / campaigns
        rates = win_rates(h, j)["ppi"]
        se = np.sqrt(np.diag(rates.attrs["cov"]))
        marginal += int(np.sum(np.abs(rates["score"].to_numpy() - theta) <= 1.959964 * se))
        units += len(theta)
    assert covered["ppi"] / campaigns >= 0.95 and covered["human"] / campaigns >= 0.95
    assert covered["judge"] / campaigns < 0.85  # the favoured system and the position bias mislead it
    assert span["ppi"] < 0.9 * span["human"]  # narrower sets for the same human battles
    assert 0.92 <= marginal / units <= 0.98  # each win probability's 95 % interval
