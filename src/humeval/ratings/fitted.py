"""Ranking systems by a fitted model (mixed or ordinal) instead of a mean of ratings.

The score is the model's system effect (``mixed``: β_s in the file's units, the expected rating
of system s from an average annotator on an average segment; ``ordinal``: β_s in logits, Σ = 0).
Intervals and tests come from the model's own covariance of β̂ (no bootstrap: each resample
would be a refit): interval β_s ± z_{(1+c)/2} se_s; p[a, b] = 1 − Φ((β_a − β_b) / √Var(β_a − β_b)),
the one-sided Wald test of "a better than b", corrected over the pairs as the other tests are
(``humeval.ratings.significance.correct``) and turned into WMT's clusters by the same rule
(``humeval.ratings.clusters``). The variance components are taken as known, so the intervals
are a little narrow when there are few annotators or segments.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from humeval.data.tables import Ratings
from humeval.ratings.aggregate import HUMAN, aggregate
from humeval.ratings.clusters import clusters, wins
from humeval.ratings.mixed import fit_mixed
from humeval.ratings.ordinal import fit_ordinal
from humeval.ratings.rank import RatingsRanking
from humeval.ratings.significance import correct

FITTED = ("mixed", "ordinal")


def wald_pvalues(estimate: np.ndarray, covariance: np.ndarray) -> np.ndarray:
    """p[a, b] = 1 − Φ((β_a − β_b) / √(V_aa + V_bb − 2 V_ab)); 1 on the diagonal and where the
    difference has no variance."""
    from scipy import stats
    var = np.diag(covariance)[:, None] + np.diag(covariance)[None, :] - 2 * covariance
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (estimate[:, None] - estimate[None, :]) / np.sqrt(np.maximum(var, 0.0))
    p = stats.norm.sf(z)
    p[~np.isfinite(z)] = 1.0
    np.fill_diagonal(p, 1.0)
    return p


def rank_fitted(ratings: Ratings, model: str = "mixed", correction: str = "none", alpha: float = 0.05,
                confidence: float = 0.95, human: bool = True, human_pattern: str = HUMAN,
                scale: tuple[float, float] | None = None, judge_scale: bool = False,
                cluster_rule: str = "all-below", source: str = "ratings") -> RatingsRanking:
    """Rank one track's systems by the ``mixed`` or ``ordinal`` model (see the module docstring).

    Every system is fitted (human references too: they inform the annotator and segment terms);
    ``human=False`` leaves those matching ``human_pattern`` out of the table and the tests.
    """
    from scipy import stats
    if model not in FITTED:
        raise ValueError(f"unknown fitted model {model!r}; choose one of {', '.join(FITTED)}")
    agg = aggregate(ratings, "raw", scale=scale, source=source)
    notes = list(agg.notes)
    if model == "mixed":
        fit = fit_mixed(agg.raw, agg.system, agg.item, agg.judge, agg.systems, agg.items, agg.judges,
                        judge_scale=judge_scale)
        estimate, unit = fit.system_means, agg.sign
        judges = f"annotator s.d. {np.sqrt(fit.var_judge):.3g}" if len(agg.judges) else "annotators unknown"
        notes.append(f"mixed model (REML): σ = {np.sqrt(fit.sigma2):.3g}, {judges}, segment s.d. "
                     f"{np.sqrt(fit.var_segment):.3g}; score = the system's expected rating from an average annotator "
                     "on an average segment")
    else:
        fit = fit_ordinal(agg.raw, agg.system, agg.item, agg.judge, agg.systems, agg.items, agg.judges,
                          scale=ratings.scale if agg.sign > 0 else "")
        estimate, unit = fit.system_effects, 1.0
        notes.append(f"ordinal model (cumulative logit, {len(fit.levels)} levels): score = system effect in logits "
                     "(sum 0), annotator shifts and segment ease with N(0, 1) priors")
    notes += fit.notes
    table = agg.table()[["segments", "ratings", "raw"]]
    se = np.sqrt(np.diag(fit.covariance))
    half = stats.norm.ppf((1 + confidence) / 2) * se
    table[model] = unit * estimate
    table["se"] = se
    lo, hi = unit * (estimate - half), unit * (estimate + half)
    table["lo"], table["hi"] = np.minimum(lo, hi), np.maximum(lo, hi)
    keep = np.ones(len(agg.systems), dtype=bool)
    if not human:
        pattern = re.compile(human_pattern, re.IGNORECASE)
        keep = np.array([not pattern.search(s) for s in agg.systems])
        dropped = [s for s, k in zip(agg.systems, keep) if not k]
        if dropped:
            notes.append(f"left out of the table as human references (still fitted): {', '.join(dropped)}")
    idx = np.flatnonzero(keep)
    est, cov = estimate[idx], fit.covariance[np.ix_(idx, idx)]
    p = correct(wald_pvalues(est, cov), correction)
    notes.append(f"{confidence:.0%} intervals and one-sided Wald tests from the model's standard errors; an interval "
                 "carries the uncertainty of the average annotator and segment, which the tests (on differences, "
                 "where it cancels) do not")
    if correction != "none":
        notes.append(f"p-values corrected for {len(idx) * (len(idx) - 1) // 2} pairs "
                     f"({'Holm' if correction == 'holm' else 'Benjamini–Hochberg'})")
    order = np.lexsort((np.arange(len(est)), -est))
    significant = p < alpha
    table = table.iloc[idx]
    table["wins"] = wins(significant)
    table = table.iloc[order]
    table["cluster"] = clusters(significant, order, cluster_rule)
    names = [table.index[i] for i in range(len(order))]
    pv = pd.DataFrame(p[np.ix_(order, order)], index=pd.Index(names, name="system"), columns=names)
    notes.append(f"clusters: a line where every system above is significantly better (p < {alpha:g}) than every "
                 "system below" if cluster_rule == "all-below" else
                 f"clusters: a new cluster where a system is significantly worse (p < {alpha:g}) than all above")
    return RatingsRanking(table, pv, model, model, "wald", alpha, dict(agg.skipped), notes)
