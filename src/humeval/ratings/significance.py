"""Is system a better than system b? Every ordered pair, tested on segment scores.

``p[a, b]`` is the one-sided p-value of "a is better than b" (higher segment scores).

- **wilcoxon** (WMT since 2017): Wilcoxon rank-sum / Mann–Whitney U on the two systems' segment
  scores, unpaired. U_a = #{x_a > x_b} + ½ #{x_a = x_b}; normal approximation with tie and
  continuity correction: z = (U_a − n_a n_b / 2 − ½) / √(n_a n_b / 12 · ((n + 1) − Σ(t³ − t) /
  (n (n − 1)))), p = 1 − Φ(z). This is R's ``wilcox.test(x, y, alternative="greater")`` with
  ties or n ≥ 50, and ``scipy.stats.mannwhitneyu(..., method="asymptotic")``; on WMT20 de-en it
  reproduces the official ``adwilcox-deen.csv`` p-values.
- Paired, on the segments both systems were rated on (d_i = m_ai − m_bi):
  **signed-rank** (``scipy.stats.wilcoxon``, zeros dropped), **paired-bootstrap** (Koehn 2004:
  resample segments; p = (1 + #{d̄* ≤ 0}) / (B + 1)), **permutation** (flip the sign of each
  d_i at random; p = (1 + #{mean(±d) ≥ d̄}) / (B + 1)). A resample uses one draw of segments
  (or signs) for all pairs, so the pairs are tested on the same replicates.

Corrections treat the S(S − 1)/2 unordered pairs as the family, each tested in the direction
its data point to (the smaller of p[a, b], p[b, a]): **holm** (step-down, family-wise error)
or **bh** (Benjamini–Hochberg, false discovery rate). The other direction keeps max(its p,
the adjusted p), so it never becomes significant.
"""

from __future__ import annotations

import math

import numpy as np

from humeval.ratings._kernels import rank_sum_all_pairs
from humeval.ratings.aggregate import Aggregate

TESTS = ("wilcoxon", "signed-rank", "paired-bootstrap", "permutation")
CORRECTIONS = ("none", "holm", "bh")
CHUNK = 100


def pvalues(agg: Aggregate, test: str = "wilcoxon", n: int = 1000, random_state=0,
            correction: str = "none", alpha: float = 0.05) -> tuple[np.ndarray, list[str]]:
    """The (systems × systems) matrix of one-sided p-values and notes on what was tested.

    A resampling test with B replicates gives p ≥ 1/(B + 1), and Holm multiplies the smallest
    p by the m pairs: when m/(B + 1) ≥ ``alpha`` (without correction or with BH: 1/(B + 1) ≥
    ``alpha``) no pair could ever be significant, so B is raised to ``resamples_needed`` and a
    note says so, rather than reporting "no differences" that the test could not have found.
    """
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; choose one of {', '.join(TESTS)}")
    notes: list[str] = []
    if test in ("paired-bootstrap", "permutation"):
        pairs = len(agg.systems) * (len(agg.systems) - 1) // 2
        floor = (pairs if correction == "holm" else 1) / (n + 1)  # the smallest p the test can give
        if floor >= alpha:
            needed = resamples_needed(len(agg.systems), correction, alpha)
            notes.append(f"{n:,} resamples raised to {needed:,}: with {n:,} the smallest p-value "
                         f"{'after Holm over ' + str(pairs) + ' pairs ' if correction == 'holm' else ''}is "
                         f"{floor:.3g} ≥ {alpha:g}, so no difference could have been found")
            n = needed
    if test == "wilcoxon":
        p = rank_sum(agg.cell_system, agg.cell_value, len(agg.systems))
        notes.append("one-sided Wilcoxon rank-sum on segment scores (WMT)")
    else:
        m, present = dense(agg)
        common = present.astype(np.float64) @ present.T.astype(np.float64)
        few = int(np.triu(common < 2, 1).sum())
        if few:
            notes.append(f"{few} pair(s) share fewer than 2 segments: not significant (p = 1)")
        if test == "signed-rank":
            p = signed_rank(m, present)
        else:
            p = resampled(m, present, test, n, random_state)
        notes.append(f"one-sided {test} on the segments both systems were rated on"
                     + (f" ({n:,} resamples)" if test != "signed-rank" else ""))
    p = correct(p, correction)
    if correction != "none":
        notes.append(f"p-values corrected for {len(agg.systems) * (len(agg.systems) - 1) // 2} pairs "
                     f"({'Holm' if correction == 'holm' else 'Benjamini–Hochberg'})")
    return p, notes


def resamples_needed(k: int, correction: str = "none", alpha: float = 0.05) -> int:
    """Resamples B for which the smallest resampled p-value, 1/(B + 1), times Holm's factor m
    (pairs of ``k`` systems; 1 without correction or with BH) lies ten times below ``alpha``:
    B = ⌈10 · factor / alpha⌉."""
    factor = k * (k - 1) // 2 if correction == "holm" else 1
    return int(math.ceil(10 * factor / alpha))


def rank_sum(group: np.ndarray, values: np.ndarray, k: int) -> np.ndarray:
    """One-sided rank-sum p-values p[a, b] ("a higher than b") of every pair of groups."""
    order = np.lexsort((values, group))
    sorted_values = values[order]
    counts = np.bincount(group, minlength=k)
    stop = np.cumsum(counts)
    start = stop - counts
    u, tie = rank_sum_all_pairs(sorted_values, start.astype(np.int64), stop.astype(np.int64))
    n1, n2 = counts[:, None].astype(np.float64), counts[None, :].astype(np.float64)
    n = n1 + n2
    with np.errstate(invalid="ignore", divide="ignore"):
        sigma = np.sqrt(n1 * n2 / 12 * ((n + 1) - tie / (n * (n - 1))))
        z = (u - n1 * n2 / 2 - 0.5) / sigma
    p = 0.5 * _erfc(z / math.sqrt(2))
    p[~np.isfinite(p)] = 1.0  # no spread at all (or an empty group): no evidence
    np.fill_diagonal(p, 1.0)
    return p


def _erfc(x: np.ndarray) -> np.ndarray:
    from scipy.special import erfc
    return erfc(x)


def dense(agg: Aggregate) -> tuple[np.ndarray, np.ndarray]:
    """Segment scores as a (systems × segments) matrix (0 where unrated) and its mask."""
    m = np.zeros((len(agg.systems), len(agg.items)))
    present = np.zeros(m.shape, dtype=bool)
    m[agg.cell_system, agg.cell_item] = agg.cell_value
    present[agg.cell_system, agg.cell_item] = True
    return m, present


def signed_rank(m: np.ndarray, present: np.ndarray) -> np.ndarray:
    """p[a, b] from ``scipy.stats.wilcoxon(d, alternative="greater")`` on the shared segments, with
    scipy ≥ 1.15's default method on every scipy (``agreement.scales.signed_rank_p``)."""
    from humeval.agreement.scales import signed_rank_p
    k = len(m)
    p = np.ones((k, k))
    for a in range(k):
        for b in range(a + 1, k):
            both = present[a] & present[b]
            d = m[a, both] - m[b, both]
            if (d != 0).sum() < 1 or both.sum() < 2:
                continue
            greater, less = signed_rank_p(d, "greater"), signed_rank_p(d, "less")
            p[a, b], p[b, a] = greater, less
    return p


def resampled(m: np.ndarray, present: np.ndarray, test: str, n: int, random_state) -> np.ndarray:
    """Paired bootstrap or sign-flip permutation p-values of every pair, B = ``n`` replicates."""
    k, n_items = m.shape
    a, b = np.triu_indices(k, 1)
    both = present[a] & present[b]  # (pairs, segments)
    d = np.where(both, m[a] - m[b], 0.0)
    rng = np.random.default_rng(random_state)
    low = np.zeros(len(a))  # replicates at or below 0 (bootstrap) / at or below the observed (permutation)
    high = np.zeros(len(a))
    observed = d.sum(axis=1)
    tol = 1e-9 * np.abs(d).sum(axis=1)  # summation order differs between the replicates and the observed sum
    d_t, both_t = d.T.copy(), both.T.astype(np.float64)
    for start in range(0, n, CHUNK):
        size = min(CHUNK, n - start)
        if test == "permutation":
            signs = rng.integers(0, 2, size=(size, n_items)).astype(np.float64) * 2 - 1
            stat = signs @ d_t
            high += (stat >= observed - tol).sum(axis=0)
            low += (stat <= observed + tol).sum(axis=0)
        else:
            draws = rng.integers(0, n_items, size=(size, n_items))
            flat = (draws + np.arange(size)[:, None] * n_items).ravel()
            weights = np.bincount(flat, minlength=size * n_items).reshape(size, n_items).astype(np.float64)
            num, den = weights @ d_t, weights @ both_t
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = num / den
            low += (mean <= 0).sum(axis=0)
            high += (mean >= 0).sum(axis=0)
    p = np.ones((k, k))
    shared = both.sum(axis=1)
    ok = shared >= 2
    if test == "permutation":  # a > b: sign flips as large as observed; b > a: as small
        p[a[ok], b[ok]] = (1 + high[ok]) / (n + 1)
        p[b[ok], a[ok]] = (1 + low[ok]) / (n + 1)
    else:  # a > b fails in replicates where a's mean is not above b's
        p[a[ok], b[ok]] = (1 + low[ok]) / (n + 1)
        p[b[ok], a[ok]] = (1 + high[ok]) / (n + 1)
    return p


def correct(p: np.ndarray, method: str = "none") -> np.ndarray:
    """Holm or Benjamini–Hochberg over the unordered pairs (see the module docstring)."""
    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; choose one of {', '.join(CORRECTIONS)}")
    if method == "none" or len(p) < 2:
        return p.copy()
    a, b = np.triu_indices(len(p), 1)
    forward = p[a, b] <= p[b, a]
    lo = np.where(forward, a, b)  # the direction the data point to
    hi = np.where(forward, b, a)
    adjusted = holm(p[lo, hi]) if method == "holm" else benjamini_hochberg(p[lo, hi])
    out = p.copy()
    out[lo, hi] = adjusted
    out[hi, lo] = np.maximum(p[hi, lo], adjusted)
    return out


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values: max_{j ≤ i} min(1, (m − j + 1) p_(j)) in sorted order."""
    m = len(p)
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.maximum.accumulate(scaled)
    return out


def benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    """BH adjusted p-values: min_{j ≥ i} min(1, m p_(j) / j) in sorted order."""
    m = len(p)
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, p[order] * m / np.arange(1, m + 1))
    out = np.empty(m)
    out[order] = np.minimum.accumulate(scaled[::-1])[::-1]
    return out
