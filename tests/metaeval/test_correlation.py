import numpy as np
import pandas as pd
import pytest
from scipy import stats

from humeval.data import Comparisons
from humeval.metaeval import (bootstrap_interval, kendall, kendall_like, ndcg, pairwise_accuracy, pearson,
                              permutation_test, rank_consistency, spearman, weighted_pearson, williams_test)


def test_correlations_match_scipy():
    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    y = x + rng.normal(size=200)
    y[:20] = np.round(y[:20])  # some ties
    assert pearson(x, y) == pytest.approx(stats.pearsonr(x, y).statistic)
    assert spearman(x, y) == pytest.approx(stats.spearmanr(x, y).statistic)
    for variant in ("b", "c"):
        assert kendall(x, y, variant) == pytest.approx(stats.kendalltau(x, y, variant=variant).statistic)
    assert weighted_pearson(x, y, np.ones(200)) == pytest.approx(pearson(x, y))
    # weight 2 on a row is the same as that row twice
    w = np.ones(200)
    w[0] = 2
    assert weighted_pearson(x, y, w) == pytest.approx(pearson(np.r_[x, x[0]], np.r_[y, y[0]]))
    assert pearson([1, 2, np.nan, 4], [2, 4, 5, 8]) == pytest.approx(1.0)


def test_kendall_like_and_rank_consistency_by_hand():
    # item s1: A > B, A > C, B = C (human tie), C > B on s2
    c = Comparisons(a=[0, 0, 1, 2], b=[1, 2, 2, 1], outcome=[1, 1, 0, 1], item=[0, 0, 0, 1],
                    systems=("A", "B", "C"), items=("s1", "s2"))
    scores = pd.Series({("s1", "A"): 0.9, ("s1", "B"): 0.5, ("s1", "C"): 0.9, ("s2", "B"): 0.3, ("s2", "C"): 0.2})
    # decided pairs: (A over B) concordant; (A over C) metric tie; (C over B on s2) discordant
    assert kendall_like(c, scores) == pytest.approx((1 - 2) / 3)  # tie penalised
    assert kendall_like(c, scores, metric_ties="discard") == pytest.approx(0.0)
    assert rank_consistency(c, scores) == pytest.approx(1 / 3)
    with pytest.raises(ValueError):
        kendall_like(c, scores, metric_ties="half")


def test_pairwise_accuracy_and_ndcg():
    human = pd.Series({"A": 3.0, "B": 2.0, "C": 1.0, "D": 1.0})
    metric = pd.Series({"A": 0.7, "B": 0.9, "C": 0.1, "D": 0.2})
    # pairs without a human tie: AB (wrong), AC, AD, BC, BD (right) -> 4 / 5
    assert pairwise_accuracy(metric, human) == pytest.approx(4 / 5)
    gold = pd.Series({"A": 3.0, "B": 2.0, "C": 0.0})
    assert ndcg(gold, gold) == pytest.approx(1.0)
    assert ndcg(pd.Series({"A": 1.0, "B": 2.0, "C": 0.0}), gold) == pytest.approx((2 + 3 / np.log2(3)) / (3 + 2 / np.log2(3)))


def test_williams_test():
    t, p = williams_test(0.6, 0.6, 0.5, 100)
    assert t == 0 and p == pytest.approx(0.5)
    t1, _ = williams_test(0.7, 0.5, 0.6, 80)
    t2, _ = williams_test(0.5, 0.7, 0.6, 80)
    assert t1 > 0 and t2 == pytest.approx(-t1)
    # size: when A and B are equally good, p < 0.05 about 5 % of the time
    rng = np.random.default_rng(0)
    rejections = 0
    for _ in range(400):
        human = rng.normal(size=60)
        a, b = human + rng.normal(size=60), human + rng.normal(size=60)
        _, p = williams_test(pearson(human, a), pearson(human, b), pearson(a, b), 60)
        rejections += p < 0.05
    assert 0.02 < rejections / 400 < 0.09


def test_permutation_test_and_bootstrap():
    rng = np.random.default_rng(1)
    human = rng.normal(size=150)
    good, bad = human + rng.normal(0, 0.5, 150), human + rng.normal(0, 2.0, 150)
    difference, p = permutation_test(human, good, bad, n=300)
    assert difference > 0.2 and p < 0.01
    _, p_same = permutation_test(human, good, good, n=100)
    assert p_same == 1.0
    low, high = bootstrap_interval(pearson, human, good, n=300)
    assert low < pearson(human, good) < high and high - low < 0.2
