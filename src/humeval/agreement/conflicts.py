"""Conflicting pairwise judgments turned into ties (Denkowski & Lavie 2010, §3.2).

"When two conflicting judgments exist, it is guaranteed that the metric will correctly replicate
one and fail to replicate the other, invalidating both data points. Conflicting judgments could
be normalized by converting each pair of conflicting judgments into a single tie judgment."

For every group of judgments of the same pair of systems on the same segment (and, with
``across_judges=False``, by the same judge — an annotator contradicting themself), with x
judgments preferring one system and y the other, min(x, y) conflicting pairs become min(x, y)
ties; the |x − y| judgments left over keep their verdict and ties stay ties. So the group keeps
x + y + t − min(x, y) judgments. Comparisons without a segment (item −1) are never grouped: two
judgments of one pair on unknown segments need not concern the same translations.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.data.tables import Comparisons


def resolve_conflicts(comparisons: Comparisons, across_judges: bool = False) -> tuple[Comparisons, int]:
    """(comparisons with each conflicting pair of judgments made one tie, number of pairs resolved).

    ``across_judges=False`` (default): only one annotator's own contradictions (same judge, same
    segment, same two systems); ``True``: conflicts between any annotators of the same segment,
    the case the paper describes when combining several annotators."""
    c = comparisons
    decided = (c.outcome != 0) & (c.item >= 0)
    if not decided.any():
        return c, 0
    low, high = np.minimum(c.a, c.b), np.maximum(c.a, c.b)
    low_wins = np.where(c.outcome == 1, c.a, c.b) == low
    keys = {"track": c.track, "item": c.item, "low": low, "high": high}
    if not across_judges:
        keys["judge"] = c.judge
    frame = pd.DataFrame(keys).loc[decided]
    frame["low_wins"] = low_wins[decided]
    group = list(keys)
    nth = frame.groupby(group + ["low_wins"], sort=False).cumcount().to_numpy()
    wins = frame.groupby(group, sort=False)["low_wins"].transform("sum").to_numpy()
    size = frame.groupby(group, sort=False)["low_wins"].transform("size").to_numpy()
    pairs = np.minimum(wins, size - wins)
    conflicted = nth < pairs
    rows = np.flatnonzero(decided)
    to_tie = rows[conflicted & frame["low_wins"].to_numpy()]
    to_drop = rows[conflicted & ~frame["low_wins"].to_numpy()]
    outcome = c.outcome.copy()
    outcome[to_tie] = 0
    keep = np.ones(len(c), dtype=bool)
    keep[to_drop] = False
    resolved = c.take(keep)
    resolved._cols["outcome"] = outcome[keep]
    return resolved, int(len(to_tie))
