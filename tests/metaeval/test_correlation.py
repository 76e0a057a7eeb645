import numpy as np
import pandas as pd
import pytest

from humeval.data import Comparisons
from humeval.metaeval import (bootstrap_interval, kendall, kendall_like, ndcg, pairwise_accuracy, pearson,
                              permutation_test, rank_consistency, spearman, weighted_pearson, williams_test)


def test_correlations_by_hand():
    """x = 1..5, y = (1, 3, 2, 4, 4) (one tie in y).
    Pearson: ȳ = 2.8, Σ dx·dy = 3.6 − 0.2 + 0 + 1.2 + 2.4 = 7, Σ dx² = 10, Σ dy² = 6.8 -> 7/√68.
    Spearman: ranks of y (1, 3, 2, 4.5, 4.5): Σ dx·dy = 8.5, Σ dy² = 9.5 -> 8.5/√95.
    Kendall: of 10 pairs 8 concordant, 1 discordant (2–3), 1 tied in y -> τ-b = 7/√(10·9);
    τ-c = 2(C − D)/(n²(m − 1)/m) with m = min(5, 4) distinct values = 14/18.75."""
    x, y = [1, 2, 3, 4, 5], [1, 3, 2, 4, 4]
    assert pearson(x, y) == pytest.approx(7 / np.sqrt(68), abs=1e-12)
    assert spearman(x, y) == pytest.approx(8.5 / np.sqrt(95), abs=1e-12)
    assert kendall(x, y, "b") == pytest.approx(7 / np.sqrt(90), abs=1e-12)
    assert kendall(x, y, "c") == pytest.approx(14 / 18.75, abs=1e-12)
    assert kendall(x, y) == kendall(x, y, "b")
    # weights (2, 1, 1, 1, 1): x̄_w = 8/3, ȳ_w = 2.5; Σ w dx dy = 10, Σ w dx² = 40/3, Σ w dy² = 9.5
    assert weighted_pearson(x, y, [2, 1, 1, 1, 1]) == pytest.approx(10 / np.sqrt(40 / 3 * 9.5), abs=1e-12)
    assert weighted_pearson(x, y, [2, 1, 1, 1, 1]) == pytest.approx(pearson([1] + x, [1] + y))  # = that row twice
    assert weighted_pearson(x, y, np.ones(5)) == pytest.approx(7 / np.sqrt(68), abs=1e-12)
    # rows with a missing value on either side are left out; too few rows give NaN
    assert pearson([1, 2, np.nan, 4], [2, 4, 5, 8]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, np.nan, 5, 4], [1, 3, 2, 7, 4, 4]) == pytest.approx(8.5 / np.sqrt(95), abs=1e-12)
    assert np.isnan(pearson([1, 2], [2, 1])) and np.isnan(kendall([1], [1]))
    with pytest.raises(ValueError, match=r"differ in length \(2 and 3\)"):
        pearson([1, 2], [1, 2, 3])


def test_kendall_like_and_rank_consistency_by_hand():
    # item s1: A > B, A > C, B = C (human tie), C > B on s2
    c = Comparisons(a=[0, 0, 1, 2], b=[1, 2, 2, 1], outcome=[1, 1, 0, 1], item=[0, 0, 0, 1],
                    systems=("A", "B", "C"), items=("s1", "s2"))
    scores = pd.Series({("s1", "A"): 0.9, ("s1", "B"): 0.5, ("s1", "C"): 0.9, ("s2", "B"): 0.3, ("s2", "C"): 0.2})
    # decided pairs: (A over B) concordant; (A over C) metric tie; (C over B on s2) discordant
    assert kendall_like(c, scores) == pytest.approx((1 - 2) / 3)  # tie penalised
    assert kendall_like(c, scores, metric_ties="discard") == pytest.approx(0.0)
    assert rank_consistency(c, scores) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="metric_ties must be 'penalize' or 'discard', not 'half'"):
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
    # r12 = .5, r13 = .3, r23 = .4, n = 20: K = 1 − .25 − .09 − .16 + 2·.5·.3·.4 = .62;
    # t = .2·√(19·1.4) / √(2·.62·19/17 + (.8²/4)·.6³) = 1.031504 / 1.191823 = 0.86548; tables give
    # t(17 df) = 0.863 at one-sided p = .20
    t, p = williams_test(0.5, 0.3, 0.4, 20)
    assert t == pytest.approx(0.2 * np.sqrt(26.6) / np.sqrt(2 * 0.62 * 19 / 17 + 0.16 * 0.216), abs=1e-12)
    assert t == pytest.approx(0.86548, abs=1e-5) and p == pytest.approx(0.20, abs=2e-3)
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
