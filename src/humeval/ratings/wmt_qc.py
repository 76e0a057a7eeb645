"""WMT's "good annotator" filter, recomputed from a raw per-annotator file with control rows.

Graham et al. (2017, §4) and the WMT17–22 findings keep an annotator (an MTurk worker in the
to-English campaigns; an Appraise account out of English) when their scores of degraded
references (``BAD_REF``, Appraise ``BAD``) are significantly lower than their scores of the
originals those copies degrade, at p < 0.05. Each degraded rating is paired with the same
annotator's rating of the original (same track, system and segment; ``quality.control_pairs``).
Two readings of "the test":

- ``test="signed-rank"`` (default): one-sided Wilcoxon signed-rank of original − degraded > 0 over
  the pairs (``scipy.stats.wilcoxon``, zero differences dropped), as Graham et al. describe it
  and as Appraise's ``ComputeAnnotatorMetrics`` computes it (``quality.annotator_qc``);
- ``test="rank-sum"``: one-sided Mann–Whitney U of the same originals against the degraded
  scores, unpaired (``scipy.stats.mannwhitneyu(original, degraded, alternative="greater")``);
- ``test="paired-t"``: the test Graham's published MTurk scripts run (ygraham/direct-assessment,
  ``proc-hits/quality-control.R``: ``t.test(score_b, score_a, alt="less", paired=TRUE)`` on each
  worker's BAD_REF/SYSTEM pairs, ``repeats.py``), i.e. the one-sided paired t-test of
  t = mean(d) / (sd(d)/√n), d = original − degraded, on n − 1 degrees of freedom
  (``scipy.stats.ttest_rel(original, degraded, alternative="greater")``). Its filter
  (``filter-pval-paired.pl``) keeps p **≤** 0.05, not < 0.05, and a worker whose t-test R refuses
  (constant differences: "data are essentially constant", or fewer than 2 pairs) is printed with no
  p-value and so never kept; both quirks are reproduced below at their lines.

The annotator is **kept** when its p < ``alpha`` (``paired-t``: p ≤ ``alpha``); without degraded
pairs it is not kept. The test
is run over every pair the file holds for that annotator, all tracks pooled, as WMT pooled a
worker's HITs; on a z-score file it gives the same answer as on raw scores only within one track
(z is an increasing affine map per annotator and track), so pooled tracks should be raw scores.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from humeval.data.tables import Ratings
from humeval.ratings.quality import ALPHA, annotator_qc

TESTS = ("signed-rank", "rank-sum", "paired-t")


@dataclass
class WMTQualityControl:
    """``table`` (index judge): degraded pairs, mean drop, both p-values, ``p`` (the chosen test's)
    and ``kept``; ``kept``: the annotators WMT's filter keeps, in table order."""

    table: pd.DataFrame
    test: str
    alpha: float
    skipped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def kept(self) -> list[str]:
        return [j for j, k in self.table["kept"].items() if k]

    @property
    def dropped(self) -> list[str]:
        return [j for j, k in self.table["kept"].items() if not k]


def rank_sum_p(original, degraded) -> float:
    """One-sided Mann–Whitney p of "originals scored higher than degraded copies" (NaN without pairs)."""
    original, degraded = np.asarray(original, dtype=np.float64), np.asarray(degraded, dtype=np.float64)
    if not len(original):
        return np.nan
    return float(stats.mannwhitneyu(original, degraded, alternative="greater").pvalue)


def paired_t_p(original, degraded) -> float:
    """One-sided paired t-test p of "originals scored higher than their degraded copies", as R's
    ``t.test(degraded, original, alt="less", paired=TRUE)`` in Graham's ``quality-control.R``.
    NaN where R stops with an error: fewer than 2 pairs, or constant differences (sd 0)."""
    original, degraded = np.asarray(original, dtype=np.float64), np.asarray(degraded, dtype=np.float64)
    d = original - degraded
    if len(d) < 2 or np.ptp(d) == 0:  # R: "not enough 'x' observations" / "data are essentially constant"
        return np.nan
    return float(stats.ttest_rel(original, degraded, alternative="greater").pvalue)


def wmt_quality_control(ratings: Ratings, test: str = "signed-rank", alpha: float = ALPHA) -> WMTQualityControl:
    """WMT's annotator filter on ``ratings`` read with their control rows (see the module doc)."""
    if test not in TESTS:
        raise ValueError(f"test {test!r}: choose one of {', '.join(TESTS)}")
    qc = annotator_qc(ratings, alpha)
    if not qc.has_controls:
        return WMTQualityControl(pd.DataFrame(columns=["kept"]).rename_axis("judge"), test, alpha, {}, list(qc.notes))
    bad = qc.pairs[qc.pairs.control == "BAD_REF"]
    rs = bad.groupby("judge").apply(lambda g: rank_sum_p(g.original, g.score), include_groups=False)
    table = qc.table[["ratings", "bad-ref pairs", "mean drop", "p (degraded lower)"]].rename(
        columns={"p (degraded lower)": "p signed-rank"})
    table["p rank-sum"] = rs.reindex(table.index)
    pt = bad.groupby("judge").apply(lambda g: paired_t_p(g.original, g.score), include_groups=False)
    table["p paired-t"] = pt.reindex(table.index)
    table["p"] = table[f"p {test}"]
    if test == "paired-t":
        table["kept"] = table["p"] <= alpha  # filter-pval-paired.pl keeps p <= 0.05; NaN (R's error) is never kept
    else:
        table["kept"] = table["p"] < alpha  # NaN (no degraded pairs) compares False: not kept
    table = table.sort_values(["kept", "p"], ascending=[True, False])
    rule = f"p <= {alpha:g}" if test == "paired-t" else f"p < {alpha:g}"
    notes = [f"WMT's filter: an annotator is kept when the one-sided {test} test of originals over their degraded "
             f"copies gives {rule} (all of the annotator's pairs in the file pooled)",
             f"kept {int(table['kept'].sum())} of {len(table)} annotators"]
    if len(ratings.tracks) > 1 and ratings.scale == "z":
        notes.append("the file holds z-scores and several tracks: pooled differences mix each track's scale; "
                     "test raw scores (or one track) for WMT's figure")
    return WMTQualityControl(table, test, alpha, dict(qc.skipped), notes)
