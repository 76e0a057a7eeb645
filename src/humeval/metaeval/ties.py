"""Pairwise accuracy with ties and tie calibration (Deutsch, Foster & Freitag 2023, "Ties Matter";
mt-metrics-eval's ``KendallWithTiesOpt``), soft pairwise accuracy and pairwise confidence error
(Thompson et al. 2024).

Over the pairs (i, j) of entries in a group (``average_by`` as in ``humeval.metaeval.grouped``:
``item`` = pairs of systems on the same item), with human difference Δh and metric difference
Δm, the metric ties a pair when |Δm| ≤ ε:

    C  = #{Δh ≠ 0, |Δm| > ε, sign Δm = sign Δh}   D = #{Δh ≠ 0, |Δm| > ε, sign Δm ≠ sign Δh}
    T_h = #{Δh = 0, |Δm| > ε}   T_m = #{Δh ≠ 0, |Δm| ≤ ε}   T_hm = #{Δh = 0, |Δm| ≤ ε}

    acc_eq (mt-metrics-eval's "acc23") = (C + T_hm) / (C + D + T_h + T_m + T_hm)
    τ_eq ("tau23") = (C + T_hm − D − T_h − T_m) / (C + D + T_h + T_m + T_hm) = 2 acc_eq − 1

Tie calibration picks the ε ≥ 0 that maximises the statistic. Sweep: sort the pairs by |Δm|;
raising ε past a pair's |Δm| turns it from "decided" (right iff it is C) into "tied" (right iff
Δh = 0), so the statistic at every candidate ε (0 and each distinct |Δm|) is a running sum of
those gains: O(P log P) for P pairs instead of a pass over the pairs per candidate. With
``average_by`` item or system the statistic is computed per group and averaged (each group's
pairs weigh 1 / (its pairs × groups)), with one ε for all groups, as mt-metrics-eval does.

Soft pairwise accuracy (system level): SPA = mean over system pairs i < j of 1 − |p^h_ij − p^m_ij|,
p_ij the one-sided p-value of "i better than j" from a paired permutation test over the
segments, once on human and once on metric scores (``humeval.ratings.significance.resampled``).
Pairwise confidence error (mt-metrics-eval's ``pce.py``, Brian Thompson 2024): PCE = mean over the
same pairs of |p^h_ij − p^m_ij| = 1 − SPA; mt-metrics-eval's ``compute_one_minus_pce`` is SPA.
Both need segment-level scores (the p-values come from testing each system pair over segments); a
pair sharing fewer than 2 scored segments gets p = 1 under both.
"""

from __future__ import annotations

import numpy as np

from humeval.metaeval.grouped import AVERAGE_BY
from humeval.ratings.significance import resampled

VARIANTS = ("acc_eq", "tau_eq")
MAX_PAIRS = 10_000_000  # ~250 MB of working arrays


def pair_differences(gold, metric, average_by: str = "none"):
    """(Δh, Δm, group) of every within-group pair of entries that both have a human and metric score."""
    if average_by not in AVERAGE_BY:
        raise ValueError(f"average_by must be one of {', '.join(AVERAGE_BY)}, not {average_by!r}")
    gold, metric = np.asarray(gold, dtype=float), np.asarray(metric, dtype=float)
    if gold.ndim == 1 or average_by == "none":
        keep = ~(np.isnan(gold) | np.isnan(metric))
        g, m = gold[keep], metric[keep]
        _check_size(len(g) * (len(g) - 1) // 2, average_by)
        i, j = np.triu_indices(len(g), 1)
        return g[i] - g[j], m[i] - m[j], np.zeros(len(i), dtype=np.int64)
    if average_by == "system":
        gold, metric = gold.T, metric.T  # rows are then items, pairs taken within each column
    rows, cols = gold.shape
    _check_size(rows * (rows - 1) // 2 * cols, average_by)
    a, b = np.triu_indices(rows, 1)
    dh = (gold[a] - gold[b]).ravel()
    dm = (metric[a] - metric[b]).ravel()
    group = np.tile(np.arange(cols), len(a))
    ok = ~(np.isnan(dh) | np.isnan(dm))
    return dh[ok], dm[ok], group[ok]


def _check_size(pairs: int, average_by: str) -> None:
    if pairs > MAX_PAIRS:
        raise ValueError(f"{pairs:,} pairs with average_by={average_by!r}; group the pairs "
                         f"(average_by='item') to keep them below {MAX_PAIRS:,}")


def tie_calibrated_accuracy(gold, metric, average_by: str = "none", variant: str = "acc_eq",
                            epsilon: float | None = None) -> tuple[float, float]:
    """(statistic, ε): acc_eq or τ_eq at the optimal tie threshold ε (or at the given ``epsilon``)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, not {variant!r}")
    dh, dm, group = pair_differences(gold, metric, average_by)
    return sweep(dh, dm, group, variant, epsilon)


def sweep(dh, dm, group, variant: str = "acc_eq", epsilon: float | None = None) -> tuple[float, float]:
    """The statistic at the best ε (or at ``epsilon``) from pair differences (module docstring)."""
    if len(dh) == 0:
        return float("nan"), float("nan")
    sizes = np.bincount(group)
    n_groups = int((sizes > 0).sum())
    weight = 1.0 / (sizes[group] * n_groups)
    decided_right = (dh != 0) & (np.sign(dm) == np.sign(dh))
    tied_right = dh == 0
    scale, shift = (1.0, 0.0) if variant == "acc_eq" else (2.0, -1.0)
    size = np.abs(dm)
    if epsilon is not None:
        right = np.where(size <= epsilon, tied_right, decided_right)
        return float(scale * np.sum(weight * right) + shift), float(epsilon)
    order = np.argsort(size, kind="stable")
    size = size[order]
    gains = (weight * (tied_right.astype(float) - decided_right))[order]
    base = float(np.sum(weight * decided_right))  # nothing tied (ε below every |Δm|)
    running = base + np.cumsum(gains)
    ends = np.r_[np.nonzero(np.diff(size))[0], len(size) - 1]  # last pair at each distinct |Δm|
    candidates, values = size[ends], running[ends]
    if candidates[0] > 0:  # ε = 0 ties nothing here
        candidates, values = np.r_[0.0, candidates], np.r_[base, values]
    best = int(np.argmax(values))
    return float(scale * values[best] + shift), float(candidates[best])


def soft_pairwise_accuracy(gold, metric, n: int = 1000, random_state=0) -> float:
    """SPA (module docstring) from (systems × segments) human and metric scores (NaN = missing)."""
    return 1.0 - pairwise_confidence_error(gold, metric, n, random_state)


def pairwise_confidence_error(gold, metric, n: int = 1000, random_state=0) -> float:
    """PCE = mean over system pairs i < j of |p^h_ij − p^m_ij| (module docstring) from
    (systems × segments) human and metric scores (NaN = missing); NaN with fewer than 2 systems."""
    gold, metric = np.asarray(gold, dtype=float), np.asarray(metric, dtype=float)
    present = ~(np.isnan(gold) | np.isnan(metric))
    p_h = resampled(np.where(present, gold, 0.0), present, "permutation", n, random_state)
    p_m = resampled(np.where(present, metric, 0.0), present, "permutation", n, random_state)
    a, b = np.triu_indices(len(gold), 1)
    return float(np.mean(np.abs(p_h[a, b] - p_m[a, b]))) if len(a) else float("nan")
