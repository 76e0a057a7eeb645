"""System scores from ratings, as WMT publishes them (one track and one criterion at a time).

For every rating r of system s on segment i by annotator j:

- **raw**: x_r = the score as given (DA 0–100, ESA 0–100, Likert, …).
- **z** (Graham et al. 2017; the WMT DA scripts): z_r = (x_r − μ_j) / σ_j with μ_j, σ_j the mean
  and sample standard deviation (n − 1) of *all* of annotator j's ratings in the track
  (WMT21's ``make_rankings.py``: ``groupby(annotator).agg(mean, std)``).
- **mqm**: x_r = −Σ weight(severity, category) over the errors rater j marked in segment i
  (Freitag et al. 2021; the weights are ``humeval.data.readers.mqm.MQMWeights``, applied when
  the file is read), so 0 = no error and higher is better.
- **esa**: the 0–100 score an ESA annotator gives after marking error spans (Kocmi et al. 2024),
  averaged like raw DA.

Then, as WMT does, a *segment* score is the mean over the ratings of (s, i) and the *system*
score the mean of its segment scores: score_s = (1/|I_s|) Σ_{i∈I_s} mean_{r∈(s,i)} x_r.
Nothing here prints: skips are counted in ``Aggregate.skipped``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from humeval.data.tables import Ratings
from humeval.errors import InputError
from humeval.ratings.quality import ORIGINAL, kind_names

MODELS = ("z-mean", "raw", "mqm", "esa")
HUMAN = r"^(human|ref)"  # WMT's HUMAN.0, Google's Human-A.0, WMT23's refA
ESA_SCALE = (0.0, 100.0)


@dataclass
class Aggregate:
    """Ratings of one track, coded and checked, with their segment (cell) means.

    Per rating: ``system``, ``item``, ``judge`` (codes), ``raw`` (the score as given, oriented
    so higher is better) and ``value`` (what is averaged: raw or z). Per cell (system, segment):
    ``cell_system``, ``cell_item``, ``cell_value`` (mean of ``value``), ``cell_raw``,
    ``cell_count``; ``rating_cell`` maps each rating to its cell.
    """

    systems: tuple[str, ...]
    items: tuple[str, ...]
    judges: tuple[str, ...]
    model: str
    system: np.ndarray
    item: np.ndarray
    judge: np.ndarray
    raw: np.ndarray
    value: np.ndarray
    sign: float = 1.0  # −1 when the file's scores are lower-is-better (they were negated)
    skipped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    scale: str = ""  # the ratings' declared scale ("z" when the file already holds z-scores)
    raw_known: bool = True  # False when the file holds z-scores only: no raw mean to show

    def __post_init__(self):
        n_items = max(len(self.items), 1)
        key = self.system.astype(np.int64) * n_items + self.item
        cells, self.rating_cell = _distinct(key, len(self.systems) * n_items)
        self.cell_system = (cells // n_items).astype(np.int32)
        self.cell_item = (cells % n_items).astype(np.int32)
        self.cell_count = np.bincount(self.rating_cell, minlength=len(cells))
        self.cell_value = np.bincount(self.rating_cell, self.value, len(cells)) / self.cell_count
        self.cell_raw = np.bincount(self.rating_cell, self.raw, len(cells)) / self.cell_count

    def system_means(self, values: np.ndarray | None = None) -> np.ndarray:
        """Mean over each system's segments of the cell means (``cell_value`` by default)."""
        values = self.cell_value if values is None else values
        n = np.bincount(self.cell_system, minlength=len(self.systems))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.bincount(self.cell_system, values, len(self.systems)) / n

    @property
    def score_name(self) -> str:
        """The column the systems are ranked by: z for z-mean and for the raw mean of a file that
        already holds z-scores (WMT20's ``Z.SCR``), else the model's name."""
        return "z" if self.model == "z-mean" or (self.model == "raw" and self.scale == "z") else self.model

    def table(self) -> pd.DataFrame:
        """Per system: segments, ratings, and the means: raw and z for z-mean, else the model's
        score (raw, mqm, esa) in the file's own units."""
        n_seg = np.bincount(self.cell_system, minlength=len(self.systems))
        n_rat = np.bincount(self.system, minlength=len(self.systems))
        df = pd.DataFrame({"segments": n_seg, "ratings": n_rat}, index=pd.Index(self.systems, name="system"))
        if self.model == "z-mean":
            if self.raw_known:
                df["raw"] = self.sign * self.system_means(self.cell_raw)
            df["z"] = self.system_means()
        else:
            df[self.score_name] = self.sign * self.system_means()
        return df


def aggregate(ratings: Ratings, model: str = "z-mean", human: bool = True, human_pattern: str = HUMAN,
              scale: tuple[float, float] | None = None, redup: pd.DataFrame | None = None,
              min_segments: int = 2, source: str = "ratings") -> Aggregate:
    """Check and code one track's ratings for ``model`` (z-mean, raw, mqm, esa).

    - ``scale`` (lo, hi): ratings outside it are an ``InputError`` naming a few; by default it
      is read from ``ratings.scale`` when that says "LO-HI" (0–100 for ESA; ≤ 0 for MQM).
    - ``human=False`` leaves systems matching ``human_pattern`` out of the ranking; they still
      count in each annotator's mean and deviation, as in WMT, since the annotator saw them.
    - ``redup``: WMT's "redup" (re-duplication). Identical outputs of several systems were
      rated once; a frame with columns item, system, copy_of gives ``system`` the ratings of
      ``copy_of`` on ``item``.
    - An annotator with one rating (or with all ratings equal) has no z: their ratings are left
      out and counted. Ratings without an annotator id are left out of z and counted.
    - Quality-control rows (``Ratings.kind`` BAD_REF, REPEAT, REF: see ``humeval.ratings.quality``)
      are counted and left out: only system outputs (SYSTEM, or unmarked) are ranked.
    - A system rated on fewer than ``min_segments`` segments is left out and counted: its mean
      has no spread, so no interval or test.
    """
    if model not in MODELS:
        raise ValueError(f"unknown ratings model {model!r}; choose one of {', '.join(MODELS)}")
    if len(ratings) == 0:
        raise InputError(source, None, "no ratings to rank", "check the file and --track")
    if redup is not None:
        ratings = redup_ratings(ratings, redup, source)
    sign = 1.0 if ratings.higher_is_better else -1.0
    score = np.asarray(ratings.score, dtype=np.float64)
    skipped: dict[str, int] = {}
    notes: list[str] = []
    keep = np.isfinite(score) & (ratings.system >= 0) & (ratings.item >= 0)
    _count(skipped, "ratings without a number, system or segment", (~keep).sum())
    control = ~np.isin(kind_names(ratings), ORIGINAL + ("",))
    _count(skipped, "quality-control ratings (degraded outputs, repeats, references), not ranked", (keep & control).sum())
    keep &= ~control
    lo_hi = scale if scale is not None else default_scale(ratings, model)
    if lo_hi is not None:
        check_scale(ratings, score, keep, lo_hi, source)
    oriented = sign * score
    value = oriented.copy()
    raw_known = True
    if model == "z-mean" and ratings.scale == "z":
        # the file holds z-scores already (WMT's *-good-stnd.csv): standardising them again would
        # change them, and their mean is not a raw score
        raw_known = False
        notes.append("z: the file holds z-scores already (standardised by its publisher): used as given, not "
                     "standardised again; segment means, then system means (WMT); raw means unavailable "
                     "(WMT's to-English files: --protocol wmt-da-toen --worker-stats *-trk-mean-sd.txt)")
    elif model == "z-mean":
        value, ok, why = znorm(oriented, ratings.judge, keep)
        for reason, n in why.items():
            _count(skipped, reason, n)
        if not ok[keep].any():
            raise InputError(source, None, "no rating has a z-score: z-normalisation needs annotator ids and at "
                             "least two different scores per annotator", "use --model raw")
        keep &= ok
        notes.append("z: each annotator's ratings standardised by their own mean and sample s.d.; "
                     "segment means, then system means (WMT)")
    if not human:
        pattern = re.compile(human_pattern, re.IGNORECASE)
        is_human = np.array([bool(pattern.search(s)) for s in ratings.systems] + [False])[ratings.system]
        dropped = sorted({ratings.systems[c] for c in np.unique(ratings.system[keep & is_human])})
        if dropped:
            notes.append(f"left out as human references: {', '.join(dropped)}")
        keep &= ~is_human
    agg = _build(ratings, model, keep, oriented, value, sign, skipped, notes)
    agg.raw_known = raw_known
    n_seg = np.bincount(agg.cell_system, minlength=len(agg.systems))
    few = (n_seg > 0) & (n_seg < min_segments)
    if few.any():
        names = [f"{agg.systems[s]} ({n_seg[s]} segment{'s' if n_seg[s] > 1 else ''})" for s in np.nonzero(few)[0]]
        skipped = dict(skipped)
        _count(skipped, f"systems rated on fewer than {min_segments} segments, left out: {', '.join(names)}",
               int(few.sum()))
        drop = few[agg.system]
        agg = _build_from(agg, ~drop, skipped)
    if len(agg.systems) < 1 or len(agg.system) == 0:
        raise InputError(source, None, "no system has ratings left to rank", "see the skipped counts")
    return agg


def _build(ratings, model, keep, oriented, value, sign, skipped, notes) -> Aggregate:
    sys_codes, systems = _recode(ratings.system[keep], ratings.systems)
    item_codes, items = _recode(ratings.item[keep], ratings.items)
    judge_codes, judges = _recode(ratings.judge[keep], ratings.judges)
    return Aggregate(systems, items, judges, model, sys_codes, item_codes, judge_codes,
                     oriented[keep], value[keep], sign, skipped, notes, ratings.scale or "")


def _build_from(agg: Aggregate, keep: np.ndarray, skipped) -> Aggregate:
    sys_codes, systems = _recode(agg.system[keep], agg.systems)
    item_codes, items = _recode(agg.item[keep], agg.items)
    judge_codes, judges = _recode(agg.judge[keep], agg.judges)
    return Aggregate(systems, items, judges, agg.model, sys_codes, item_codes, judge_codes,
                     agg.raw[keep], agg.value[keep], agg.sign, skipped, agg.notes, agg.scale, agg.raw_known)


def _distinct(key: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, return_inverse=True)`` for keys in 0..size-1, by counting when that is cheap."""
    if size > 4 * len(key) + 1_000_000:
        return np.unique(key, return_inverse=True)
    present = np.bincount(key, minlength=size) > 0
    rank = np.cumsum(present) - 1
    return np.flatnonzero(present), rank[key]


def _recode(codes: np.ndarray, labels: tuple[str, ...]) -> tuple[np.ndarray, tuple[str, ...]]:
    """Codes 0..k-1 for the labels in use; -1 (unknown) stays -1."""
    used = np.flatnonzero(np.bincount(codes[codes >= 0], minlength=len(labels)))
    lookup = np.full(len(labels) + 1, -1, dtype=np.int32)
    lookup[used] = np.arange(len(used), dtype=np.int32)
    return lookup[codes], tuple(labels[i] for i in used)


def _count(skipped: dict, reason: str, n) -> None:
    if int(n) > 0:
        skipped[reason] = skipped.get(reason, 0) + int(n)


def znorm(score: np.ndarray, judge: np.ndarray, keep: np.ndarray | None = None):
    """z_r = (x_r − μ_j) / σ_j per annotator j (sample s.d., n − 1), over the kept ratings.

    Returns (z, ok, skipped): ``ok`` is False where z is undefined (no annotator id, an
    annotator with one rating, or one whose ratings are all equal); z is 0 there, never NaN.
    """
    keep = np.ones(len(score), dtype=bool) if keep is None else keep
    known = keep & (judge >= 0)
    codes = np.where(known, judge, 0)
    k = int(judge.max()) + 1 if len(judge) and judge.max() >= 0 else 1
    w = known.astype(np.float64)
    n = np.bincount(codes, w, k)
    s1 = np.bincount(codes, w * score, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s1 / n
        dev = np.where(known, score - mean[codes], 0.0)
        var = np.bincount(codes, dev * dev, k) / (n - 1)
        sd = np.sqrt(var)
    defined = (n >= 2) & (sd > 1e-12 * np.maximum(1.0, np.abs(mean)))
    ok = known & defined[codes]
    z = np.where(ok, dev / np.where(defined, sd, 1.0)[codes], 0.0)
    skipped = {
        "ratings without an annotator id (z needs one)": int((keep & (judge < 0)).sum()),
        "ratings of annotators with a single rating (z undefined)": int((known & (n[codes] == 1)).sum()),
        "ratings of annotators who gave one score throughout (s.d. 0, z undefined)":
            int((known & (n[codes] >= 2) & ~defined[codes]).sum()),
    }
    return z, ok, {k: v for k, v in skipped.items() if v}


_RANGE = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?:-|–|to|\.\.)\s*(-?\d+(?:\.\d+)?)\s*$")


def default_scale(ratings: Ratings, model: str) -> tuple[float, float] | None:
    """The declared range: "LO-HI" in ``ratings.scale``; 0–100 for ESA; (−inf, 0] for MQM."""
    match = _RANGE.match(ratings.scale or "")
    if match:
        return float(match.group(1)), float(match.group(2))
    if model == "esa":
        return ESA_SCALE
    if model == "mqm":
        return (-np.inf, 0.0) if ratings.higher_is_better else (0.0, np.inf)
    return None


def check_scale(ratings: Ratings, score: np.ndarray, keep: np.ndarray, lo_hi, source: str) -> None:
    """An ``InputError`` naming up to three ratings outside [lo, hi] and how many there are."""
    lo, hi = lo_hi
    bad = keep & ((score < lo) | (score > hi))
    if not bad.any():
        return
    rows = np.nonzero(bad)[0][:3]
    label = lambda labels, code: labels[code] if code >= 0 else "?"
    examples = "; ".join(f"system {label(ratings.systems, ratings.system[r])}, segment "
                         f"{label(ratings.items, ratings.item[r])}: {score[r]:g}" for r in rows)
    raise InputError(source, None, f"{int(bad.sum()):,} rating(s) outside the declared scale {lo:g} to {hi:g} "
                     f"(e.g. {examples})", "correct or remove them, or declare the right scale (--scale LO,HI)")


def redup_ratings(ratings: Ratings, duplicates: pd.DataFrame, source: str = "ratings") -> Ratings:
    """WMT's re-duplication: give ``system`` the ratings ``copy_of`` got on ``item``.

    ``duplicates`` has columns item, system, copy_of (labels). Returns the ratings with the
    copies appended; a copy_of with no rating on that item is an ``InputError``.
    """
    need = {"item", "system", "copy_of"}
    if not need <= set(duplicates.columns):
        raise InputError(source, None, f"redup needs columns item, system, copy_of; got {', '.join(duplicates.columns)}",
                         "give one row per (item, system) that shared another system's output")
    df = ratings.to_pandas()
    df["item"], df["system"] = df["item"].astype(str), df["system"].astype(str)
    dup = duplicates.astype({"item": str, "system": str, "copy_of": str})
    copies = dup.merge(df.rename(columns={"system": "copy_of"}), on=["item", "copy_of"], how="left")
    missing = copies["score"].isna()
    if missing.any():
        row = copies[missing].iloc[0]
        raise InputError(source, None, f"redup: {int(missing.sum())} duplicate(s) point to unrated outputs "
                         f"(e.g. {row['copy_of']} on segment {row['item']})", "check the duplicates table")
    copies = copies.drop(columns="copy_of")
    out = pd.concat([df, copies[df.columns]], ignore_index=True)
    for col in ("judge", "track", "criterion"):
        out[col] = out[col].astype(object)
    return Ratings.from_pandas(out, scale=ratings.scale, higher_is_better=ratings.higher_is_better)
