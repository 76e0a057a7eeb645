"""One agreement table for everything a judgments file holds (what ``humeval agreement`` prints
and the report shows)."""

from __future__ import annotations

import pandas as pd

from humeval.agreement.rankings import ranking_agreement
from humeval.agreement.scales import rating_agreement, scale_points


def agreement_table(judgments, exclude=(), drop_ties: bool = False, expected: str = "observed") -> pd.DataFrame:
    """Rows: (track, kind of judgment, inter/intra …) with P(A), P(E), kappa and pairs. Rankings
    per track and pooled over all tracks ("(all)"); ratings per track and criterion, and per
    criterion pooled over all tracks (pairs only within a track; P(E) from the pooled scores).
    ``expected``: the chance agreement (``ranking_agreement``, ``rating_agreement``); "wmt" is
    for rankings, "uniform" (WMT07) for both."""
    rows = []
    if judgments.comparisons is not None:
        parts = judgments.comparisons.by_track()
        if len(parts) > 1:
            parts["(all)"] = judgments.comparisons
        for track, part in parts.items():
            for kind, a in ranking_agreement(part, exclude, drop_ties, expected).items():
                rows.append({"track": track, "judgments": "rankings", "agreement": kind, **a.as_dict()})
    if judgments.ratings is not None:
        parts = judgments.ratings.by_track()
        if len(parts) > 1:
            parts["(all)"] = judgments.ratings
        scale_expected = "observed" if expected == "wmt" and judgments.comparisons is not None else expected
        for track, part in parts.items():
            criteria = list(enumerate(part.criteria))
            if (part.criterion < 0).any():  # scores without a criterion (a file with one score column)
                criteria.append((-1, "scores" if not criteria else "(no criterion)"))
            for code, criterion in criteria:
                whole = judgments.ratings.take(judgments.ratings.criterion == code)  # the file's scale, every track
                points = scale_points(whole) if scale_expected == "uniform" else None
                for kind, a in rating_agreement(part.take(part.criterion == code), scale_expected, points).items():
                    rows.append({"track": track, "judgments": criterion, "agreement": kind, **a.as_dict()})
    return pd.DataFrame(rows, columns=["track", "judgments", "agreement", "method", "P(A)", "P(E)", "kappa", "pairs"])
