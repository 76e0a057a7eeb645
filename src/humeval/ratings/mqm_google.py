"""Google's MQM scoring (Freitag et al. 2021, "Experts, Errors, and Context", §3.3 and Table 2).

A segment's MQM score is the weighted count of the errors a rater marked in it:

    MQM(s, r) = Σ_e w(severity_e, category_e),   w = 25  Major Non-translation
                                                     5   any other Major error
                                                     1   Minor error
                                                     0.1 Minor Fluency/Punctuation
                                                     0   Neutral / No-error

(weights fixed in the paper: Minor 1, Major 5 chosen for the best stability/discrimination; the two
exceptions as stated in the paper and the data repository's README). Google's released
``*.avg_seg_scores.tsv`` give −MQM per (system, segment) averaged over its raters; the
system-level MQM (the repository README's tables) is the mean of those segment averages over the
segments the system was rated on; lower is better.

``humeval.data.readers.mqm`` applies the weights while reading (``MQMWeights``); this module is
the procedure on its output: ``google_segment_scores`` and ``google_mqm``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from humeval.data.judgments import Judgments
from humeval.data.readers.mqm import MQMWeights
from humeval.data.tables import Ratings

PROTOCOL = "google-mqm"
WEIGHTS = MQMWeights()  # Freitag et al. 2021: major 5, minor 1, minor Fluency/Punctuation 0.1, non-translation 25
_HUMAN = re.compile(r"^(ref|human)", re.IGNORECASE)


@dataclass
class GoogleMQM:
    """``table``: systems best (lowest MQM) first: ``mqm`` (mean over rated segments of the
    per-segment mean over raters), ``segments``, ``ratings``, ``raters`` (NaN when the file names
    none), ``rank``, ``note``."""

    track: str | None
    table: pd.DataFrame
    set_aside: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    protocol: str = PROTOCOL


def google_segment_scores(ratings: Ratings | Judgments) -> pd.DataFrame:
    """−MQM per (track, system, segment), averaged over its raters: Google's ``avg_seg_scores`` layout
    (columns ``track``, ``system``, ``item``, ``score``, ``ratings``: how many were averaged)."""
    df = _frame(ratings)
    grouped = df.groupby(["track", "system", "item"], dropna=False, sort=False)
    out = grouped["score"].mean().reset_index()
    out["ratings"] = grouped.size().to_numpy()
    return out


def google_mqm(ratings: Ratings | Judgments, track: str | None = None) -> GoogleMQM:
    """Rank one track's systems by Google's system-level MQM (module doc).

    Parameters
    ----------
    ratings : Ratings or Judgments
        As ``humeval.read`` gives them for a per-error MQM TSV (scores −MQM, weights applied by
        the reader) or a segment-average file. Judgments also bring the reader's skips and the
        weights it used.
    track : str, optional
        Needed when the ratings hold several tracks.

    Returns
    -------
    GoogleMQM
    """
    set_aside, notes = {}, []
    if isinstance(ratings, Judgments):
        set_aside = {f"{reason} (reader)": n for reason, n in ratings.report.skipped.items()}
        used = [n for n in ratings.report.notes if n.startswith("weights: ")]
        if used and used[0] != f"weights: {WEIGHTS}":
            notes.append(f"the reader applied other weights than Freitag et al. 2021 ({used[0]}): "
                         "not Google's MQM")
    seg = google_segment_scores(ratings)
    tracks = sorted({t for t in seg["track"] if isinstance(t, str)})
    if track is None and len(tracks) > 1:
        raise ValueError(f"the ratings hold {len(tracks)} tracks ({', '.join(tracks)}): name one with track=")
    if track is not None:
        seg = seg[seg["track"] == track]
        if seg.empty:
            raise ValueError(f"no ratings of track {track!r} (tracks: {', '.join(tracks) or 'none'})")
    else:
        track = tracks[0] if tracks else None
    by_system = seg.groupby("system")
    mqm = -by_system["score"].mean()
    table = pd.DataFrame({"mqm": mqm, "segments": by_system.size(), "ratings": by_system["ratings"].sum()})
    raters = _frame(ratings)
    if track is not None:
        raters = raters[raters["track"] == track]
    known = raters.groupby("system")["judge"].nunique().reindex(table.index)
    table["raters"] = known.where(known > 0).to_numpy()  # NaN: a segment-average file names no raters
    table = table.sort_values("mqm", kind="stable")
    table.index.name = "system"
    table["rank"] = np.arange(1, len(table) + 1)
    table["note"] = ["human translation" if _HUMAN.match(s) else "" for s in table.index]
    if table["segments"].nunique() > 1:
        notes.append(f"systems were rated on different numbers of segments ({table['segments'].min():,}–"
                     f"{table['segments'].max():,}): each system's MQM averages its own segments, as Google's")
    notes.append("Google MQM (Freitag et al. 2021): weighted errors per segment (major 5, minor 1, minor "
                 "Fluency/Punctuation 0.1, major Non-translation 25), averaged over raters, then over segments; "
                 "lower is better")
    return GoogleMQM(track, table, set_aside, notes)


def _frame(ratings: Ratings | Judgments) -> pd.DataFrame:
    if isinstance(ratings, Judgments):
        ratings = ratings.ratings
    if not isinstance(ratings, Ratings):
        raise TypeError(f"expected Ratings or Judgments, got {type(ratings).__name__}")
    if "MQM" not in ratings.criteria and not (ratings.scale or "").startswith("-MQM"):
        raise ValueError("these are not MQM ratings (criterion MQM, as humeval's MQM readers give them)")
    df = ratings.to_pandas()
    for column in ("track", "system", "item", "judge"):  # plain labels, not pandas categories
        df[column] = df[column].astype(object).where(df[column].notna(), None)
    return df
