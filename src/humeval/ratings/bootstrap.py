"""Bootstrap intervals of system scores from ratings: resample segments, annotators, or both.

A resample draws N segments (and/or J annotators) with replacement; a unit drawn k times
weighs k, so the replay is a weighted mean over the fixed coded arrays (no table is rebuilt):
segment weights w_i enter the system mean Σ_i w_i m_si / Σ_i w_i, annotator weights v_j the
segment mean Σ v_j x_r / Σ v_j. The z-normalisation is not redone per resample (each
annotator's mean and s.d. are taken as known), so the interval covers sampling of segments
and annotators, not the uncertainty of the normalisers. Interval = percentiles (1 ± c)/2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from humeval.errors import InputError
from humeval.ratings._kernels import bootstrap_cells, bootstrap_ratings
from humeval.ratings.aggregate import Aggregate

BY = ("segment", "judge", "both")
CHUNK = 100  # resamples drawn at once (keeps the index arrays small)


@dataclass
class Intervals:
    samples: np.ndarray  # (n, systems) resampled system scores, oriented (higher is better)
    lo: np.ndarray
    hi: np.ndarray
    by: str
    confidence: float
    undefined: int  # resampled scores without a value (a system none of whose segments was drawn)


def bootstrap_scores(agg: Aggregate, n: int = 1000, by: str = "segment", confidence: float = 0.95,
                     random_state=0, source: str = "ratings") -> Intervals:
    """``n`` bootstrap resamples of every system's score (see the module docstring)."""
    if by not in BY:
        raise ValueError(f"by must be one of {', '.join(BY)}, not {by!r}")
    if n < 1:
        raise ValueError("n must be at least 1")
    rng = np.random.default_rng(random_state)
    n_items, n_sys, n_judges = len(agg.items), len(agg.systems), len(agg.judges)
    if by != "segment" and (n_judges == 0 or (agg.judge < 0).any()):
        raise InputError(source, None, "resampling annotators needs an annotator id on every rating",
                         "use --resample segment")
    parts = []
    for start in range(0, n, CHUNK):
        size = min(CHUNK, n - start)
        if by == "segment":
            draws = rng.integers(0, n_items, size=(size, n_items), dtype=np.int64)
            parts.append(bootstrap_cells(draws, agg.cell_item, agg.cell_system, agg.cell_value, n_items, n_sys))
        else:
            judges = rng.integers(0, n_judges, size=(size, n_judges), dtype=np.int64)
            items = rng.integers(0, n_items, size=(size, n_items), dtype=np.int64) if by == "both" \
                else np.empty((size, 0), dtype=np.int64)
            parts.append(bootstrap_ratings(items, judges, agg.rating_cell, agg.judge, agg.value, agg.cell_item,
                                           agg.cell_system, n_items, n_judges, n_sys))
    samples = np.concatenate(parts)
    undefined = int(np.isnan(samples).sum())
    tail = (1 - confidence) / 2 * 100
    with np.errstate(invalid="ignore"):
        lo, hi = np.nanpercentile(samples, [tail, 100 - tail], axis=0)
    return Intervals(samples, lo, hi, by, confidence, undefined)
