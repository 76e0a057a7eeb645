"""The signed-rank p-value every Wilcoxon test in humeval uses: hand-enumerated sign flips, the
normal approximation by hand, and scipy's own default where scipy is new enough to have it."""

import itertools

import numpy as np
import pytest
import scipy
from scipy import stats

from humeval.agreement.scales import signed_rank_p


def flips_p(d, alternative):
    """W⁺'s exact p over all 2^n sign flips, enumerated by hand (zeros dropped, average ranks)."""
    d = np.asarray([x for x in d if x != 0], dtype=float)
    order = sorted(abs(x) for x in d)
    rank = {v: np.mean([k + 1 for k, w in enumerate(order) if w == v]) for v in order}
    r = np.array([rank[abs(x)] for x in d])
    observed = r[d > 0].sum()
    null = [sum(r[k] for k in range(len(d)) if s[k] > 0) for s in itertools.product((1, -1), repeat=len(d))]
    ge, le = np.mean([w >= observed - 1e-9 for w in null]), np.mean([w <= observed + 1e-9 for w in null])
    return {"greater": ge, "less": le, "two-sided": min(1.0, 2 * min(ge, le))}[alternative]


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_small_samples_are_exact(alternative):
    # no ties and no zeros: W⁺ = 15 is the largest of 2^5 equally likely values, P = 1/32
    assert signed_rank_p([1, 2, 3, 4, 5], alternative) == pytest.approx({"greater": 1 / 32, "less": 1.0,
                                                                          "two-sided": 2 / 32}[alternative])
    # ties (|1| twice) and a zero: every one of the 2^4 flips of the non-zero differences counted
    for d in ([1, 1, 2, -3, 0], [2, 2, 2, -1, 3, 0, 0, 5], [-1, -1, 4]):
        assert signed_rank_p(d, alternative) == pytest.approx(flips_p(d, alternative), abs=1e-12)


def test_larger_samples_use_the_tie_corrected_normal_approximation():
    d = np.array([1.0] * 20 + [-1.0] * 8 + [2.0] * 6 + [0.0] * 3)  # 34 non-zero, ties: groups of 28 and 6
    n, t = 34, np.array([28, 6])
    w_plus = 20 * 14.5 + 6 * 31.5  # |d| = 1 takes ranks 1..28 (mean 14.5), |d| = 2 ranks 29..34 (mean 31.5)
    z = (w_plus - n * (n + 1) / 4) / np.sqrt((n * (n + 1) * (2 * n + 1) - np.sum(t ** 3 - t) / 2) / 24)
    assert signed_rank_p(d, "greater") == pytest.approx(stats.norm.sf(z), rel=1e-12)
    assert signed_rank_p(d, "two-sided") == pytest.approx(2 * stats.norm.sf(z), rel=1e-12)


def test_no_difference_is_no_evidence():
    assert signed_rank_p(np.zeros(5)) == signed_rank_p(np.zeros(40), "two-sided") == 1.0


@pytest.mark.skipif(tuple(int(x) for x in scipy.__version__.split(".")[:2]) < (1, 15),
                    reason="scipy before 1.15 has another default method (the exact table even with ties)")
def test_it_is_scipys_default_method():
    rng = np.random.default_rng(0)
    for trial in range(60):
        n = int(rng.integers(2, 70))
        d = rng.integers(-4, 5, n).astype(float) if trial % 2 else rng.normal(size=n)
        if not np.any(d != 0):
            continue
        for alternative in ("greater", "less", "two-sided"):
            assert signed_rank_p(d, alternative) == pytest.approx(stats.wilcoxon(d, alternative=alternative).pvalue,
                                                                 rel=1e-9, abs=1e-12)
