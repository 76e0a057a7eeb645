"""Is metric A's agreement with the humans significantly better than metric B's, for every pair of
metrics, and WMT's significance clusters of metrics (mt-metrics-eval ``ComputeSigMatrix`` /
``AssignRanks``; Freitag et al. 2022–24).

``p[a, b]`` is the one-sided p-value of "metric a agrees better than metric b" under the
statistic (``pearson``, ``spearman``, ``kendall``, or the tie-calibrated ``acc_eq`` / ``tau_eq``)
averaged by ``average_by`` (``humeval.metaeval.grouped``), on the entries where the humans and
both metrics have a score.

- **permutation** (PERM-BOTH, Deutsch et al. 2021, as mt-metrics-eval's ``PermutationSigDiff``):
  z-score both metrics' scores, swap the two metrics' scores of each entry with probability ½,
  recompute both statistics; p[a, b] = #{stat_a* − stat_b* ≥ δ} / B with δ the observed
  difference (no +1, as mt-metrics-eval). Pearson is computed for all replicates at once (``swapped_pearson``).
- **bootstrap**: resample items (systems with ``average_by="system"`` or system-level scores)
  with replacement; p[a, b] = (1 + #{stat_a* − stat_b* ≤ 0}) / (B + 1). Every metric is scored on
  the same replicates; for item- or system-averaged statistics a replicate is a weighted mean of
  the per-group values (computed once).

Clusters (``assign_ranks``): metrics sorted by the statistic, best first; metric i starts a new
cluster when some metric of the current cluster is significantly better than it (p ≤ α). This is
mt-metrics-eval's rule; it differs from the ratings clusters (``humeval.ratings.clusters``), which
need every system above (or every pair across the line) to differ.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from humeval.metaeval.grouped import STATISTICS, correlation, group_values
from humeval.metaeval.ties import VARIANTS, tie_calibrated_accuracy

METHODS = ("permutation", "bootstrap")
CHUNK = 50


def statistic_value(gold, metric, statistic: str = "pearson", average_by: str = "none") -> float:
    """One metric's agreement with the humans: a correlation or a tie-calibrated accuracy."""
    if statistic in VARIANTS:
        return tie_calibrated_accuracy(gold, metric, average_by, statistic)[0]
    if statistic not in STATISTICS:
        raise ValueError(f"unknown statistic {statistic!r}; choose one of {', '.join([*STATISTICS, *VARIANTS])}")
    return correlation(gold, metric, STATISTICS[statistic], average_by)


@dataclass
class MetricSignificance:
    """``table``: metrics best first with the statistic, its rank (cluster) and wins; ``pvalues``:
    p of "row better than column" in the same order."""
    table: pd.DataFrame
    pvalues: pd.DataFrame
    statistic: str
    average_by: str
    method: str
    alpha: float
    notes: list[str] = field(default_factory=list)


def compare_metrics(gold, metrics: dict, statistic: str = "pearson", average_by: str = "none",
                    method: str = "permutation", n: int = 1000, alpha: float = 0.05,
                    random_state=0) -> MetricSignificance:
    """Every pair of metrics tested (module docstring); ``gold`` and each metric are aligned
    (systems × items) matrices or system vectors, NaN where missing."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    names = list(metrics)
    values = np.array([statistic_value(gold, metrics[k], statistic, average_by) for k in names])
    order = np.lexsort((np.arange(len(names)), -np.nan_to_num(values, nan=-np.inf)))
    names = [names[k] for k in order]
    values = values[order]
    rng = np.random.default_rng(random_state)
    if method == "bootstrap":
        p = bootstrap_pvalues(gold, [metrics[k] for k in names], statistic, average_by, n, rng)
    else:
        p = np.ones((len(names), len(names)))
        for a in range(len(names)):
            for b in range(a + 1, len(names)):
                p[a, b], p[b, a] = permutation_pvalues(gold, metrics[names[a]], metrics[names[b]], statistic,
                                                       average_by, n, rng)
    ranks = assign_ranks(p, alpha)
    significant = p <= alpha
    np.fill_diagonal(significant, False)
    table = pd.DataFrame({statistic: values, "rank": ranks, "wins": significant.sum(axis=1)},
                         index=pd.Index(names, name="metric"))
    notes = [(f"{method} test ({n:,} resamples), one-sided; rank: a new cluster where a metric of the current "
              f"cluster is significantly better (p ≤ {alpha:g}), as mt-metrics-eval")]
    return MetricSignificance(table, pd.DataFrame(p, index=table.index, columns=names), statistic, average_by,
                              method, alpha, notes)


def assign_ranks(p: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """Cluster rank of each metric, metrics in decreasing order of the statistic (module docstring)."""
    ranks = np.ones(len(p), dtype=int)
    current, start = 1, 0
    for i in range(len(p)):
        if (p[start:i, i] <= alpha).any():
            current, start = current + 1, i
        ranks[i] = current
    return ranks


def _units(gold, average_by: str) -> int:
    gold = np.asarray(gold)
    return gold.shape[0] if gold.ndim == 1 or average_by == "system" else gold.shape[1]


def _take(matrix, idx, average_by: str):
    matrix = np.asarray(matrix, dtype=float)
    return matrix[idx] if matrix.ndim == 1 or average_by == "system" else matrix[:, idx]


def bootstrap_pvalues(gold, metrics: list, statistic: str, average_by: str, n: int, rng) -> np.ndarray:
    """p[a, b] from ``n`` bootstrap replicates shared by all metrics (module docstring)."""
    units = _units(gold, average_by)
    draws = rng.integers(0, units, size=(n, units))
    k = len(metrics)
    samples = np.empty((n, k))
    grouped = statistic in STATISTICS and average_by != "none" and np.asarray(gold).ndim == 2
    for j, metric in enumerate(metrics):
        if grouped:  # a replicate is a weighted mean of the per-group values
            per_group = group_values(gold, metric, statistic, average_by, empty=True)
            ok = ~np.isnan(per_group)
            weights = np.zeros((n, units))
            np.add.at(weights, (np.repeat(np.arange(n), units), draws.ravel()), 1.0)
            weights[:, ~ok] = 0
            with np.errstate(invalid="ignore", divide="ignore"):
                samples[:, j] = weights @ np.nan_to_num(per_group) / weights.sum(axis=1)
        else:
            for r in range(n):
                samples[r, j] = statistic_value(_take(gold, draws[r], average_by), _take(metric, draws[r], average_by),
                                                statistic, average_by)
    p = np.ones((k, k))
    for a in range(k):
        for b in range(k):
            if a != b:
                d = samples[:, a] - samples[:, b]
                d = d[~np.isnan(d)]
                p[a, b] = (1 + np.sum(d <= 0)) / (len(d) + 1)
    return p


def _zscore(x: np.ndarray) -> np.ndarray:
    sd = x.std()
    return (x - x.mean()) / sd if sd > 0 else x - x.mean()


def permutation_pvalues(gold, metric_a, metric_b, statistic: str, average_by: str, n: int, rng) -> tuple[float, float]:
    """PERM-BOTH p-values of "a agrees better than b" and of "b better than a", from the same
    replicates (module docstring)."""
    gold, a, b = (np.asarray(x, dtype=float) for x in (gold, metric_a, metric_b))
    keep = ~(np.isnan(gold) | np.isnan(a) | np.isnan(b))
    if keep.sum() < 2:
        return 1.0, 1.0
    za, zb = np.full(a.shape, np.nan), np.full(b.shape, np.nan)
    za[keep], zb[keep] = _zscore(a[keep]), _zscore(b[keep])
    g = np.where(keep, gold, np.nan)
    if statistic == "pearson":  # the unswapped pattern gives both observed values at once
        ra, rb = swapped_pearson(g, za, zb, np.zeros((1, *keep.shape), dtype=bool), average_by)
        delta = float(ra[0] - rb[0])
    else:
        delta = statistic_value(g, za, statistic, average_by) - statistic_value(g, zb, statistic, average_by)
    if np.isnan(delta):
        return 1.0, 1.0
    above = below = 0
    for start in range(0, n, CHUNK):
        size = min(CHUNK, n - start)
        cells = size * keep.size  # fair coin flips, eight from each random byte
        swap = np.unpackbits(rng.integers(0, 256, size=(cells + 7) // 8, dtype=np.uint8))[:cells]
        swap = swap.reshape(size, *keep.shape).astype(bool)
        if statistic == "pearson":
            ra, rb = swapped_pearson(g, za, zb, swap, average_by)
            diff = ra - rb
        else:
            ha, hb = np.where(swap, zb, za), np.where(swap, za, zb)
            diff = np.array([statistic_value(g, x, statistic, average_by) - statistic_value(g, y, statistic, average_by)
                             for x, y in zip(ha, hb)])
        above += int(np.sum(diff >= delta - 1e-12))
        below += int(np.sum(-diff >= -delta - 1e-12))
    return above / n, below / n


def swapped_pearson(gold: np.ndarray, a: np.ndarray, b: np.ndarray, swap: np.ndarray,
                    average_by: str = "none") -> tuple[np.ndarray, np.ndarray]:
    """Pearson's r of the two hybrids x = where(swap, b, a) and y = where(swap, a, b) with ``gold``,
    averaged by ``average_by``, for each of the B swap patterns (shape (B, *gold.shape)) at once;
    entries where gold, a or b is NaN are left out. The hybrids' sums are the unswapped sums plus
    swap-weighted sums of d = b − a (x = a + s d, y = b − s d, s² = s), so a replicate costs five
    weighted sums instead of building both hybrids."""
    keep = ~(np.isnan(gold) | np.isnan(a) | np.isnan(b))
    if gold.ndim == 1 or average_by == "none":
        gold, a, b, keep, swap = gold.reshape(-1, 1), a.reshape(-1, 1), b.reshape(-1, 1), keep.reshape(-1, 1), \
            swap.reshape(len(swap), -1, 1)
    elif average_by == "system":
        gold, a, b, keep, swap = gold.T, a.T, b.T, keep.T, np.swapaxes(swap, 1, 2)
    w = keep.astype(float)
    n = w.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        g = np.where(keep, gold, 0.0)
        gc = (g - g.sum(axis=0) / n) * w
        a, b = np.where(keep, a, 0.0), np.where(keep, b, 0.0)
        d = b - a
        weighted = np.einsum("bsi,ksi->kbi", swap.astype(float), np.stack([d, gc * d, a * d, d * d, b * d]))
        s_d, s_gd, s_ad, s_dd, s_bd = weighted
        var_g = (gc ** 2).sum(axis=0)
        x_sum, x_g, x_sq = a.sum(axis=0) + s_d, (gc * a).sum(axis=0) + s_gd, (a * a).sum(axis=0) + 2 * s_ad + s_dd
        y_sum, y_g, y_sq = b.sum(axis=0) - s_d, (gc * b).sum(axis=0) - s_gd, (b * b).sum(axis=0) - 2 * s_bd + s_dd
        r_x = x_g / np.sqrt(var_g * (x_sq - x_sum ** 2 / n))
        r_y = y_g / np.sqrt(var_g * (y_sq - y_sum ** 2 / n))
    out = []
    for r in (r_x, r_y):
        r[:, n <= 2] = np.nan
        r[~np.isfinite(r)] = np.nan
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a replicate with no defined group: NaN
            out.append(np.nanmean(r, axis=1))
    return out[0], out[1]


__all__ = [
    "METHODS",
    "MetricSignificance",
    "assign_ranks",
    "compare_metrics",
    "permutation_pvalues",
    "statistic_value",
    "swapped_pearson",
]
