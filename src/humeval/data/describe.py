"""Per-track summaries of what a file holds (what ``humeval info`` shows)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.data.judgments import Judgments

TOTAL = "(all)"


def describe(judgments: Judgments) -> dict[str, pd.DataFrame]:
    """One DataFrame per kind of judgment present, one row per track plus a total row."""
    out = {}
    if judgments.comparisons is not None:
        out["comparisons"] = _comparisons(judgments)
    if judgments.ratings is not None:
        out["ratings"] = _per_track(judgments.ratings, _ratings_row)
    if judgments.post_edits is not None:
        out["post_edits"] = _per_track(judgments.post_edits, _edits_row)
    return out


def _per_track(table, row) -> pd.DataFrame:
    rows = [{"track": name, **row(part)} for name, part in table.by_track().items()]
    if len(rows) > 1:
        rows.append({"track": TOTAL, **row(table)})
    return _frame(rows)


def _frame(rows: list[dict]) -> pd.DataFrame:
    """Rows by track; an empty table gives an empty frame (no tracks), not an error."""
    return pd.DataFrame(rows).set_index("track") if rows else pd.DataFrame(index=pd.Index([], name="track"))


def _comparisons(judgments: Judgments) -> pd.DataFrame:
    rankings = judgments.rankings
    parts = rankings.by_track() if rankings is not None else judgments.comparisons.by_track()
    rows = []
    for name, part in parts.items():
        if rankings is not None:
            comparisons, skipped = part.expand(return_skipped=True)
            extra = {"rankings": len(part)}
        else:
            comparisons, skipped, extra = part, {}, {}
        rows.append({"track": name, **_comparisons_row(comparisons, extra, sum(skipped.values()))})
    if len(rows) > 1:
        total = {k: sum(r[k] for r in rows) for k in ("comparisons", "ties", "pairs skipped")}
        if any("both-bad ties" in r for r in rows):
            total["both-bad ties"] = sum(r.get("both-bad ties", 0) for r in rows)
        total["tie rate"] = total["ties"] / total["comparisons"] if total["comparisons"] else np.nan
        whole = judgments.comparisons.summary()
        total.update({k: whole.get(k, 0) for k in ("systems", "judges", "items")})
        if rankings is not None:
            total["rankings"] = len(rankings)
        rows.append({"track": TOTAL, **total})
    return _frame(rows)


def _comparisons_row(c, extra, skipped) -> dict:
    s = c.summary()
    n = _whole(c.weight.sum()) if c.weighted else len(c)  # a streamed row stands for `weight` comparisons
    ties = _whole(c.weight[c.outcome == 0].sum()) if c.weighted else int((c.outcome == 0).sum())
    bad = _whole(c.weight[c.bothbad].sum()) if c.weighted else int(c.bothbad.sum())
    both = {"both-bad ties": bad} if c.bothbad.any() else {}  # arena: "tie (bothbad)"
    return {"systems": s.get("systems", 0), "judges": s.get("judges", 0), "items": s.get("items", 0),
            **extra, "comparisons": n, "ties": ties, **both, "tie rate": ties / n if n else np.nan,
            "pairs skipped": skipped}


def _whole(x: float):
    return int(x) if float(x).is_integer() else float(x)


def _ratings_row(r) -> dict:
    s = r.summary()
    return {"systems": s.get("systems", 0), "judges": s.get("judges", 0), "items": s.get("items", 0),
            "criteria": ", ".join(r.criteria) or "-", "scores": len(r),
            "mean": float(np.mean(r.score)) if len(r) else np.nan,
            "sd": float(np.std(r.score, ddof=1)) if len(r) > 1 else np.nan}


def _edits_row(p) -> dict:
    s = p.summary()
    row = {"systems": s.get("systems", 0), "editors": s.get("editors", 0), "items": s.get("items", 0),
           "post-edits": len(p)}
    for code, action in enumerate(p.actions):
        row[action] = int((p.action == code).sum())
    hter = p.hter[~np.isnan(p.hter)]
    if hter.size:
        row["mean HTER"] = float(hter.mean())
    return row
