"""Pairwise tests against scipy and hand-counted cases; corrections against statsmodels."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from humeval.data.tables import Ratings
from humeval.ratings import aggregate, benjamini_hochberg, correct, holm, pvalues, rank_sum


def groups_with_ties(seed=0, k=5):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 60, k)
    values = [np.round(rng.normal(i * 0.2, 1, n), 1) for i, n in enumerate(sizes)]  # rounded: many ties
    group = np.concatenate([np.full(len(v), g) for g, v in enumerate(values)])
    return values, group, np.concatenate(values)


def test_rank_sum_equals_scipy_mannwhitneyu_with_ties():
    values, group, flat = groups_with_ties()
    p = rank_sum(group, flat, len(values))
    for a, b in itertools.permutations(range(len(values)), 2):
        expected = stats.mannwhitneyu(values[a], values[b], alternative="greater", method="asymptotic").pvalue
        assert p[a, b] == pytest.approx(expected, rel=1e-9, abs=1e-15), (a, b)
    assert (np.diag(p) == 1).all()


def test_rank_sum_constant_samples_give_no_evidence_not_nan():
    p = rank_sum(np.array([0, 0, 1, 1]), np.array([1.0, 1.0, 1.0, 1.0]), 2)
    assert (p == 1).all()


def ratings_of(matrix):
    """Ratings from a systems x segments matrix (NaN = unrated), one annotator per cell."""
    rows = [(f"S{s}", f"i{i}", f"j{s}{i}", v) for (s, i), v in np.ndenumerate(matrix) if np.isfinite(v)]
    return Ratings.from_pandas(pd.DataFrame(rows, columns=["system", "item", "judge", "score"]))


def test_signed_rank_equals_scipy_wilcoxon_on_shared_segments():
    rng = np.random.default_rng(1)
    m = rng.normal(0, 1, (3, 40)) + np.array([[0.5], [0.2], [0.0]])
    m[0, :5] = np.nan  # S0 misses five segments: the pairs with S0 use the other 35
    agg = aggregate(ratings_of(m), "raw")
    p, notes = pvalues(agg, "signed-rank")
    both = np.isfinite(m[0]) & np.isfinite(m[2])
    assert p[0, 2] == pytest.approx(stats.wilcoxon(m[0, both] - m[2, both], alternative="greater").pvalue)
    assert p[2, 0] == pytest.approx(stats.wilcoxon(m[0, both] - m[2, both], alternative="less").pvalue)
    assert p[1, 2] == pytest.approx(stats.wilcoxon(m[1] - m[2], alternative="greater").pvalue)


def test_permutation_p_counts_sign_flips_as_extreme_as_observed():
    # Three segments, d = (1, 2, 3): of the 8 sign patterns only (+, +, +) reaches the observed sum 6,
    # so with B flips p -> (1 + B/8) / (B + 1); the other direction: all 8 patterns are <= 6.
    m = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    agg = aggregate(ratings_of(m), "raw", min_segments=1)
    p, _ = pvalues(agg, "permutation", n=20000, random_state=4)
    assert p[0, 1] == pytest.approx((1 + 20000 / 8) / 20001, abs=0.006)
    assert p[1, 0] == pytest.approx(1.0)


def test_paired_bootstrap_finds_a_clear_difference_and_not_a_null_one():
    rng = np.random.default_rng(2)
    base = rng.normal(0, 1, 200)
    m = np.vstack([base + 0.5 + rng.normal(0, 0.3, 200), base + rng.normal(0, 0.3, 200),
                   base + rng.normal(0, 0.3, 200)])
    p, _ = pvalues(aggregate(ratings_of(m), "raw"), "paired-bootstrap", n=500, random_state=0)
    assert p[0, 1] == pytest.approx(1 / 501) and p[0, 2] == pytest.approx(1 / 501)
    assert p[1, 0] == 1.0
    d = m[1] - m[2]  # null pair: the share of resamples below zero is near Φ(-t)
    t = d.mean() / (d.std(ddof=1) / np.sqrt(len(d)))
    assert min(p[1, 2], p[2, 1]) == pytest.approx(stats.norm.sf(abs(t)), abs=0.05)


def test_holm_and_bh_equal_statsmodels():
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    p = np.array([0.01, 0.04, 0.03, 0.2, 0.001, 0.04])
    np.testing.assert_allclose(holm(p), multipletests(p, method="holm")[1])
    np.testing.assert_allclose(benjamini_hochberg(p), multipletests(p, method="fdr_bh")[1])


def test_correction_adjusts_each_pair_once_in_the_direction_of_the_data():
    p = np.array([[1.0, 0.01, 0.02], [0.99, 1.0, 0.04], [0.98, 0.96, 1.0]])
    out = correct(p, "holm")
    # family of 3 pairs: 0.01*3, max(0.02*2, 0.03), max(0.04*1, 0.04)
    assert [out[0, 1], out[0, 2], out[1, 2]] == pytest.approx([0.03, 0.04, 0.04])
    assert out[1, 0] == 0.99 and out[2, 1] == 0.96
    assert (correct(p, "none") == p).all()
