"""Correlations "grouped by item, then averaged", as the WMT22–24 metrics tasks compute them
(google-research/mt-metrics-eval, ``stats.AverageCorrelation``).

Scores are (systems × items) matrices, NaN where a score is missing; ``to_matrix`` builds them
from Series indexed by (item, system). With ``average_by``:

- ``none``: one statistic over every (system, item) entry (system level: a vector of systems);
- ``item``: the statistic over the systems of each item (column), then the mean over items;
- ``system``: the statistic over the items of each system (row), then the mean over systems.

Filtering as mt-metrics-eval does: an entry counts only where the humans have a score (and,
here, the metric too); a group with no entry left is dropped; a group whose statistic is
undefined (NaN: fewer than 2–3 entries, or constant scores) is dropped from the mean, or
counts as 0 with ``nan_as_zero`` (mt-metrics-eval's ``replace_nans_with_zeros``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from humeval.metaeval.correlation import kendall, pearson, spearman

AVERAGE_BY = ("none", "item", "system")
STATISTICS = {"pearson": pearson, "spearman": spearman, "kendall": kendall}


def to_matrix(scores: dict[str, pd.Series], systems=None, items=None):
    """Align Series indexed by (item, system) into one (systems × items) matrix each (NaN where
    missing). Returns (matrices by name, systems, items)."""
    index = pd.MultiIndex.from_tuples([], names=["item", "system"])
    for s in scores.values():
        index = index.union(s.index)
    items = list(items) if items is not None else sorted(set(index.get_level_values(0)), key=_natural)
    systems = list(systems) if systems is not None else sorted(set(index.get_level_values(1)))
    row = {s: k for k, s in enumerate(systems)}
    col = {i: k for k, i in enumerate(items)}
    out = {}
    for name, s in scores.items():
        m = np.full((len(systems), len(items)), np.nan)
        r = np.array([row.get(v, -1) for v in s.index.get_level_values(1)], dtype=int)
        c = np.array([col.get(v, -1) for v in s.index.get_level_values(0)], dtype=int)
        ok = (r >= 0) & (c >= 0)
        m[r[ok], c[ok]] = s.to_numpy(dtype=float)[ok]
        out[name] = m
    return out, systems, items


def _natural(value):
    text = str(value)
    return (0, int(text), "") if text.isdigit() else (1, 0, text)


def groups(gold, metric, average_by: str = "none", *more, empty: bool = False):
    """(gold, metric, *more) vectors of each group, entries without a gold or metric score left out;
    groups left empty are skipped (or yielded as empty vectors with ``empty``)."""
    if average_by not in AVERAGE_BY:
        raise ValueError(f"average_by must be one of {', '.join(AVERAGE_BY)}, not {average_by!r}")
    arrays = [np.asarray(a, dtype=float) for a in (gold, metric, *more)]
    keep = ~np.isnan(arrays[0])
    for a in arrays[1:]:
        keep &= ~np.isnan(a)
    if average_by == "none" or arrays[0].ndim == 1:
        yield tuple(a[keep] for a in arrays)
        return
    axis_views = arrays if average_by == "system" else [a.T for a in arrays]
    keep = keep if average_by == "system" else keep.T
    for k in range(keep.shape[0]):
        if empty or keep[k].any():
            yield tuple(a[k][keep[k]] for a in axis_views)


def group_values(gold, metric, statistic=pearson, average_by: str = "none", empty: bool = False) -> np.ndarray:
    """The statistic of each non-empty group (NaN where undefined); with ``empty``, of every
    row (system) or column (item), NaN for those left empty."""
    statistic = STATISTICS.get(statistic, statistic)
    with warnings.catch_warnings():  # a group of constant scores has no correlation: NaN, left out of the mean
        warnings.simplefilter("ignore")
        return np.array([statistic(g, m) if len(g) else np.nan
                         for g, m in groups(gold, metric, average_by, empty=empty)], dtype=float)


def average(values: np.ndarray, nan_as_zero: bool = False) -> float:
    values = np.nan_to_num(values) if nan_as_zero else values[~np.isnan(values)]
    return float(values.mean()) if len(values) else float("nan")


def correlation(gold, metric, statistic=pearson, average_by: str = "none", nan_as_zero: bool = False) -> float:
    """``statistic`` of the metric with the humans, averaged by ``average_by`` (module docstring)."""
    return average(group_values(gold, metric, statistic, average_by), nan_as_zero)
