"""WMT's source-based DA (+SQM) out of English, collected in Appraise (WMT20–22), as its scripts rank it.

Two versions of the same procedure, on Appraise's segment-level export (``appraise-csv`` or the
document-level ``esa`` reader, read with ``controls=True`` so that ``Ratings.kind`` says
SYSTEM (TGT) / REPEAT (CHK) / BAD_REF (BAD) / REF):

``variant="wmt22"``: ``humaneval/DA+SQM/make_rankings.py`` of wmt-conference/wmt22-news-systems
("creates the same scores" as the WMT22 findings tables), with its default options:

1. **Rows**: ``TGT`` only (CHK repeats, BAD and REF controls left out); document-level scores are
   not in a segment-level file. The published file is already quality-controlled ("filtered").
2. **z** per (annotator, language pair) over those rows: mean and sample sd (pandas ``std``,
   n − 1); annotators whose sd is 0 or undefined (one rating) are dropped.
3. **Segment score** = mean over the (system, document, segment) ratings (z and raw); **system**
   = mean of its segment scores.
4. **Test**: for each ordered pair (x, y), the segments both have; one-sided Mann–Whitney U
   (``scipy.stats.mannwhitneyu(z_x, z_y, alternative="greater")``) of their segment z-scores.
   x **wins** over y when p < 0.05 *and* x's system z is higher (the "matched" comparison).
5. **Rank range** ``losses + 1`` – ``n − wins``; **clusters**: rows by z, best first; a running
   minimum of the wins (never reset), and a boundary after row i when it equals the number of
   rows below.

``variant="wmt21"``: Appraise's ``Campaign/management/commands/ComputeWMT21Results.py``
(AppraiseDev/Appraise), which ranked WMT21's out-of-English pairs; it differs in

- rows ``TGT`` **and** ``CHK`` (repeats count as ratings, in z and in the segment means);
- sd with ``(n − 1) or 1`` and a zero sd replaced by 1 (no annotator dropped);
- the Mann–Whitney test only for x at or above y in the z order
  (``combinations_with_replacement`` over the sorted systems), so wins count lower systems only,
  with no separate z check; rank range and clusters as above.

Quality control (which annotators count) is upstream of both: ``humeval.ratings.wmt_qc``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from humeval.data.tables import Ratings
from humeval.ratings.quality import kind_names
from humeval.ratings.rank import RatingsRanking

PROTOCOL = "wmt-da-appraise"
VARIANTS = ("wmt22", "wmt21")
ALPHA = 0.05
ROWS = {"wmt22": ("SYSTEM", "TGT", ""), "wmt21": ("SYSTEM", "TGT", "REPEAT", "CHK", "")}
STEPS = (
    "rows: TGT only (wmt22, make_rankings.py) or TGT and CHK (wmt21, ComputeWMT21Results.py); BAD and REF out",
    "z per annotator and language pair over those rows, sample sd; wmt22 drops annotators with sd 0 or one "
    "rating, wmt21 divides by 1 instead",
    "segment score = mean of the (system, segment) ratings; system score = mean of its segment scores",
    "one-sided Mann–Whitney U on the segment z-scores of the segments both systems have; a win at p < 0.05 "
    "when the winner's z is higher (wmt22) or it stands above in the z order (wmt21)",
    "rank range losses + 1 – n − wins; a cluster boundary after row i when the running minimum of the wins "
    "equals the number of rows below",
)


def standardise(ratings: Ratings, rows: np.ndarray, variant: str) -> tuple[pd.DataFrame, dict[str, int], list[str]]:
    """The rated rows as a frame (judge, system, item, raw, z) with each annotator's z over ``rows``."""
    df = pd.DataFrame({"judge": ratings.judge[rows], "system": ratings.system[rows], "item": ratings.item[rows],
                       "raw": np.asarray(ratings.score, dtype=np.float64)[rows]})
    stats_ = df.groupby("judge")["raw"].agg(["mean", "std", "size"])
    skipped, notes = {}, []
    if variant == "wmt22":
        bad = stats_.index[~(stats_["std"] > 0)]  # `scores[scores['std'] > 0]`: NaN (one rating) and 0 both out
        if len(bad):
            lost = df["judge"].isin(bad)
            skipped[f"ratings of {len(bad)} annotators with sd 0 or a single rating (make_rankings.py drops them)"] = \
                int(lost.sum())
            df = df[~lost]
        sd = stats_["std"]
    else:
        # ComputeWMT21Results: s² = Σ(x − mean)² / ((n − 1) or 1), then `z_d = sd or 1`
        sd = np.sqrt(df.groupby("judge")["raw"].apply(lambda x: ((x - x.mean()) ** 2).sum()) /
                     (stats_["size"] - 1).where(stats_["size"] > 1, 1))
        sd = sd.where(sd > 0, 1.0)
        if (stats_["size"] == 1).any() or (sd == 1.0).any():
            notes.append("annotators with one rating or sd 0 are divided by 1, as ComputeWMT21Results does")
    df = df.assign(z=(df["raw"] - df["judge"].map(stats_["mean"])) / df["judge"].map(sd))
    return df, skipped, notes


def wmt_da_appraise(ratings: Ratings, source: str = "ratings", variant: str = "wmt22",
                    alpha: float = ALPHA) -> RatingsRanking:
    """WMT's Appraise DA ranking of one language pair (see the module doc)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant {variant!r}: choose one of {', '.join(VARIANTS)}")
    kinds = kind_names(ratings)
    score = np.asarray(ratings.score, dtype=np.float64)
    valid = np.isfinite(score) & (ratings.system >= 0) & (ratings.item >= 0) & (ratings.judge >= 0)
    rows = valid & np.isin(kinds, ROWS[variant])
    skipped: dict[str, int] = {}
    if (~valid).any():
        skipped["ratings without a number, system, segment or annotator"] = int((~valid).sum())
    for name in sorted(set(kinds[valid & ~rows])):
        skipped[f"{name} rows (not rated rows in the {variant} procedure)"] = int((valid & ~rows & (kinds == name)).sum())
    df, lost, notes = standardise(ratings, rows, variant)
    skipped.update(lost)
    if not (kinds != "").any():
        notes.append("the file does not say which rows are controls: every row is taken as a TGT rating")
    segments = df.groupby(["system", "item"])[["raw", "z"]].mean().reset_index()
    system = segments.groupby("system")[["raw", "z"]].mean()
    # make_rankings sorts by z (pandas sort, descending); ComputeWMT21Results keys a dict by the z value, so two
    # systems with the same z overwrite each other there: ties are kept here, ordered by name, and noted
    order = sorted(system.index, key=lambda s: (-system.loc[s, "z"], ratings.systems[s]))
    if system["z"].duplicated().any():
        notes.append("systems with identical z: ComputeWMT21Results would keep only one of them; kept here, by name")
    k = len(order)
    seg_z = {s: part.set_index("item")["z"] for s, part in segments.groupby("system")}
    p = np.full((k, k), np.nan)
    for i, x in enumerate(order):
        for j, y in enumerate(order):
            if i == j or (variant == "wmt21" and j < i):  # wmt21 tests x against the systems below it only
                continue
            shared = seg_z[x].index.intersection(seg_z[y].index)  # the "matched" segments both systems have
            if len(shared):
                p[i, j] = float(stats.mannwhitneyu(seg_z[x].loc[shared], seg_z[y].loc[shared],
                                                   alternative="greater").pvalue)
    z = system.loc[order, "z"].to_numpy()
    win = p < alpha
    if variant == "wmt22":
        win &= z[:, None] > z[None, :]  # make_rankings: `win = (p < P_THRESH) & z_win`
    wins, losses = win.sum(axis=1), win.sum(axis=0)
    cluster, current, running = np.ones(k, dtype=np.int64), 1, k
    for i in range(k):
        cluster[i] = current
        running = min(running, int(wins[i]))  # min_wins_current_cluster: a running minimum, never reset
        if running == k - (i + 1):
            current += 1
    names = [ratings.systems[s] for s in order]
    segs = segments.groupby("system").size()
    table = pd.DataFrame({"segments": segs.loc[order].to_numpy(),
                          "ratings": df.groupby("system").size().loc[order].to_numpy(),
                          "raw": system.loc[order, "raw"].to_numpy(), "z": z, "wins": wins, "losses": losses},
                         index=pd.Index(names, name="system"))
    table["rank"] = [f"{lo}-{hi}" if lo != hi else f"{lo}" for lo, hi in zip(losses + 1, k - wins)]
    table["cluster"] = cluster
    pv = pd.DataFrame(p, index=pd.Index(names, name="system"), columns=names)
    notes += [f"WMT Appraise DA ({variant}): z per annotator over the "
              f"{'TGT' if variant == 'wmt22' else 'TGT and CHK'} rows; segment = mean of its ratings; system = mean "
              "of its segments",
              f"one-sided Mann–Whitney U on the segments both systems have; a win at p < {alpha:g}"
              + (" with the higher z" if variant == "wmt22" else " over a system below"),
              "clusters: a boundary where the running minimum of the wins equals the number of systems below"]
    segments_out = segments.assign(system=[ratings.systems[s] for s in segments["system"]],
                                   item=[ratings.items[i] for i in segments["item"]])
    return RatingsRanking(table, pv, "z-mean", "z", "mann-whitney (matched segments)", alpha, skipped, notes,
                          PROTOCOL, segments_out)
