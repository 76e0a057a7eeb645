"""The WMT-style ranking of one track's ratings: scores, intervals, pairwise tests, clusters."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from humeval.data.tables import Ratings
from humeval.ratings.aggregate import HUMAN, aggregate
from humeval.ratings.bootstrap import bootstrap_scores
from humeval.ratings.clusters import clusters, wins
from humeval.ratings.significance import pvalues


@dataclass
class RatingsRanking:
    """``table``: systems best first with segments, ratings, raw, z (z-mean), score, [lo, hi],
    wins, cluster. ``pvalues``: one-sided p of "row better than column", same order."""

    table: pd.DataFrame
    pvalues: pd.DataFrame
    model: str
    score: str  # the column the table is ranked by
    test: str
    alpha: float
    skipped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    protocol: str = "humeval"  # the named procedure that produced it (``humeval.ratings.protocols``)
    segments: pd.DataFrame | None = None  # per (system, segment) scores, when the procedure keeps them
    # with a bootstrap: the systems' scores, higher is better, and their resamples (resamples × systems), for the
    # rank confidence sets (``humeval.experiments.rank_sets.ratings_rank_sets``)
    estimate: pd.Series | None = None
    samples: np.ndarray | None = None


def default_model(ratings) -> str:
    """mqm for MQM files, esa for ESA files (WMT24 ranks by the raw ESA mean), z-mean when
    annotators are known, raw otherwise."""
    if "MQM" in ratings.criteria or ratings.scale.startswith("-MQM"):
        return "mqm"
    if "ESA" in ratings.criteria:
        return "esa"
    return "z-mean" if (ratings.judge >= 0).any() else "raw"


def rank_ratings(ratings: Ratings, model: str = "z-mean", test: str = "wilcoxon", correction: str = "none",
                 alpha: float = 0.05, n_boot: int = 0, resample: str = "segment", confidence: float = 0.95,
                 n_resamples: int = 1000, human: bool = True, human_pattern: str = HUMAN,
                 scale: tuple[float, float] | None = None, redup: pd.DataFrame | None = None,
                 cluster_rule: str = "all-below", random_state=0, source: str = "ratings") -> RatingsRanking:
    """Rank the systems of one track (one criterion) as WMT does.

    Scores by ``model`` (see ``humeval.ratings.aggregate``); every ordered pair tested with
    ``test`` (see ``humeval.ratings.significance``; ``n_resamples`` for the resampling tests),
    corrected by ``correction``; clusters by ``cluster_rule`` at level ``alpha``; with
    ``n_boot`` > 0, percentile intervals from resampling ``resample`` units.
    """
    agg = aggregate(ratings, model, human=human, human_pattern=human_pattern, scale=scale, redup=redup,
                    source=source)
    table = agg.table()
    oriented = agg.system_means()
    notes = list(agg.notes)
    samples = None
    if agg.sign < 0:
        notes.append("the file's scores are lower-is-better; ranked with the best (lowest) first")
    if n_boot:
        boot = bootstrap_scores(agg, n_boot, resample, confidence, random_state, source)
        unit = 1.0 if model == "z-mean" else agg.sign
        lo, hi = boot.lo * unit, boot.hi * unit
        samples = boot.samples
        table["lo"], table["hi"] = np.minimum(lo, hi), np.maximum(lo, hi)
        notes.append(f"{n_boot:,} bootstrap resamples of {resample}s; {confidence:.0%} percentile intervals")
        if boot.undefined:
            notes.append(f"{boot.undefined:,} resampled scores undefined (no segment of the system drawn), "
                         "left out of the percentiles")
    p, test_notes = pvalues(agg, test, n_resamples, random_state, correction, alpha)
    notes += test_notes
    order = np.lexsort((np.arange(len(oriented)), -oriented))
    significant = p < alpha
    table["wins"] = wins(significant)
    table = table.iloc[order]
    table["cluster"] = clusters(significant, order, cluster_rule)
    names = [agg.systems[i] for i in order]
    pv = pd.DataFrame(p[np.ix_(order, order)], index=pd.Index(names, name="system"), columns=names)
    notes.append(f"clusters: a line where every system above is significantly better (p < {alpha:g}) than every "
                 "system below" if cluster_rule == "all-below" else
                 f"clusters: a new cluster where a system is significantly worse (p < {alpha:g}) than all above")
    return RatingsRanking(table, pv, model, agg.score_name, test, alpha, dict(agg.skipped), notes,
                          estimate=pd.Series(oriented, index=pd.Index(list(agg.systems), name="system")),
                          samples=samples)


def rank_tracks(ratings: Ratings, ranker=None, **options) -> dict[str, RatingsRanking]:
    """``rank_ratings`` (or ``ranker``) for each track and criterion (named "track" or "track / criterion")."""
    ranker = ranker or rank_ratings
    out = {}
    for track, part in ratings.by_track().items():
        criteria = part.criteria
        if len(criteria) <= 1:
            out[track] = ranker(part, **options)
            continue
        for code, name in enumerate(criteria):
            sub = part.take(part.criterion == code).compact()
            if len(sub):
                out[f"{track} / {name}"] = ranker(sub, **options)
    return out
