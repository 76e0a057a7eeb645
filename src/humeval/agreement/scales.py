"""Agreement on absolute scales: adequacy/fluency (1–5, 1–7), DA (0–100), MQM.

A unit is a (track, item, system, criterion); two scores of the same unit by different judges
are an inter-annotator pair, by the same judge an intra-annotator pair. Small integer scales
(``is_categorical``: a declared scale of at most 10 points, or without one at most 10 distinct whole
numbers) get the exact-match kappa of the WMT reports, a linearly weighted kappa and Krippendorff's ordinal
alpha; continuous scores (DA, MQM) get the interval alpha and, for repeats, the correlation of a
judge's two scores (Graham et al. 2013 use it).

The kappas' chance agreement P(E) (``expected``): ``"observed"``, Σ_v p_v² with p_v the share of
scores v (WMT08 on); or ``"uniform"``, 1/k for a scale of k points, WMT07's definition
(Callison-Burch et al. 2007, §3.3: chance agreement "1/5, since they are based on five point
scales" for fluency and adequacy, and 1/3 for rankings: A > B, A = B, A < B). The points are
the whole numbers of the ratings' declared scale ("1-5": 1, …, 5) or, without one, from the
lowest to the highest score seen; the weighted kappa then expects the uniform distribution over
them too. Krippendorff's alpha keeps its own chance model.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.agreement.kappa import Agreement, chance_corrected, krippendorff_alpha, units_matrix
from humeval.agreement.pairs import LabelCounts, agreement_from
from humeval.data.tables import Ratings

CATEGORICAL_MAX = 10  # a scale with at most this many distinct whole-number scores is categorical
EXPECTED = ("observed", "uniform")  # the chance agreement of the kappas on a scale


def declared_points(scale: str | None) -> np.ndarray | None:
    """The whole-number points of a declared scale "a-b" ("1-5", "1–7", "0-100"), or None when the
    scale is not of that form (none, "z", a description)."""
    parts = str(scale or "").replace("–", "-").split("-")
    if len(parts) == 2 and all(p.strip().isdigit() for p in parts):
        return np.arange(int(parts[0]), int(parts[1]) + 1, dtype=float)
    return None


def is_categorical(scores: np.ndarray, scale: str | None = None) -> bool:
    """Whether ``scores`` are labels on a scale of a few points (exact agreement and kappas apply)
    rather than continuous (interval alpha, repeat correlation). All scores must be whole numbers;
    then a declared scale "a-b" (``Ratings.scale``) that holds every score decides, at most
    ``CATEGORICAL_MAX`` points (a DA file on "0-100" stays continuous even when its raters used a
    few values only); z-scores ("z") are continuous; otherwise at most ``CATEGORICAL_MAX``
    distinct values seen."""
    values = np.unique(scores[~np.isnan(scores)])
    if not np.all(values == np.round(values)) or str(scale or "").strip() == "z":
        return False
    points = declared_points(scale)
    if points is not None and not np.isin(values, points).all():
        points = None  # scores off the declared scale (a mislabelled file): the scores seen decide, as scale_points
    return len(values if points is None else points) <= CATEGORICAL_MAX


def _units(r: Ratings) -> np.ndarray:
    """One code per (track, item, system, criterion): items of different tracks never pair."""
    item = (r.track.astype(np.int64) + 1) * (len(r.items) + 1) + r.item
    return (item * (len(r.systems) + 1) + r.system) * (len(r.criteria) + 1) + r.criterion


def scale_points(ratings: Ratings) -> np.ndarray:
    """The points of a whole-number scale: those of the declared scale ("1-5", "1–7") when every
    score is one of them, else every whole number from the lowest score seen to the highest."""
    score = ratings.score[~np.isnan(ratings.score)]
    points = declared_points(ratings.scale)
    if points is not None and np.isin(score, points).all():
        return points
    return np.arange(score.min(), score.max() + 1) if len(score) else np.zeros(0)


def chance_shares(ratings: Ratings, values: np.ndarray, label: np.ndarray, expected: str = "observed",
                  points: np.ndarray | None = None):
    """The distribution of scores chance agreement assumes, over ``values`` (the distinct scores
    seen, ``label`` coding each score) or, for ``"uniform"``, over every point of the scale
    (``points``, default ``scale_points(ratings)``): (values, shares). P(E) of exact-match kappa
    is Σ share²."""
    if expected not in EXPECTED:
        raise ValueError(f"expected must be one of {EXPECTED} on a scale (\"wmt\" is for rankings), not {expected!r}")
    if expected == "uniform":  # WMT07: chance agreement 1/k on a k-point scale
        points = scale_points(ratings) if points is None else np.asarray(points, dtype=float)
        return points, np.full(len(points), 1.0 / len(points))
    return values, np.bincount(label, minlength=len(values)) / max(len(label), 1)


def rating_agreement(ratings: Ratings, expected: str = "observed", points: np.ndarray | None = None
                     ) -> dict[str, Agreement]:
    """Inter/intra agreement of one criterion's scores (call per criterion, per track or pooled
    over tracks); ``expected`` sets the kappas' chance agreement (module doc), ``points`` the
    scale's points for ``"uniform"`` (default: ``scale_points(ratings)``; give the whole file's
    so that every track is measured against the same scale)."""
    score = ratings.score
    unit = _units(ratings)
    out = {}
    if is_categorical(score, ratings.scale):
        values, label = np.unique(score, return_inverse=True)
        counts = LabelCounts(unit, ratings.judge.astype(np.int64), label, len(values))
        points, share = chance_shares(ratings, values, label, expected, points)
        p_e = float((share ** 2).sum())
        name = "exact-match kappa" + (f" (P(E) = 1/{len(points)}, uniform as WMT07)" if expected == "uniform" else "")
        out["inter"] = agreement_from(*counts.inter(), p_e, name)
        out["intra"] = agreement_from(*counts.intra(), p_e, name)
        out["inter (linear weights)"] = _weighted_inter(counts, values, points, share)
        out["alpha (ordinal)"] = krippendorff_alpha(units_matrix(unit, score), "ordinal")
    else:
        out["alpha (interval)"] = krippendorff_alpha(units_matrix(unit, score), "interval")
        out["intra (repeat correlation)"] = repeat_correlation(ratings)
    return out


def _weighted_inter(counts: LabelCounts, values: np.ndarray, points: np.ndarray, share: np.ndarray) -> Agreement:
    """Linearly weighted kappa over inter-annotator pairs: P(A) = 1 − mean disagreement weight
    |a − b| / (highest − lowest point); P(E) = 1 − Σ share_a share_b |a − b| / span over the
    chance distribution's ``points`` (the values seen, or the whole scale)."""
    low, high = min(values.min(), points.min()), max(values.max(), points.max())
    span = max(high - low, 1e-12)
    w = np.abs(values[:, None] - values[None, :]) / span
    disagree_all = (counts.c @ w * counts.c).sum() / 2
    disagree_same = (counts.cj @ w * counts.cj).sum() / 2
    _, total = counts.inter()
    p_agree = 1 - (disagree_all - disagree_same) / total if total else float("nan")
    chance = np.abs(points[:, None] - points[None, :]) / span
    p_expected = 1 - float(share @ chance @ share)
    return Agreement(chance_corrected(p_agree, p_expected), float(p_agree), p_expected, int(total),
                     "linearly weighted kappa")


def repeat_correlation(ratings: Ratings) -> Agreement:
    """Pearson r between a judge's repeated scores of the same unit (all pairs of repeats).
    Reported in the ``kappa`` field; P(A) and P(E) are NaN."""
    from scipy import stats
    df = pd.DataFrame({"unit": _units(ratings), "judge": ratings.judge, "score": ratings.score})
    df = df[df.judge >= 0]
    x, y = [], []
    for _, group in df[df.groupby(["unit", "judge"])["score"].transform("size") > 1].groupby(["unit", "judge"]):
        s = group.score.to_numpy()
        i, j = np.triu_indices(len(s), 1)
        x.append(s[i])
        y.append(s[j])
    if not x:
        return Agreement(float("nan"), float("nan"), float("nan"), 0, "repeat correlation (Pearson)")
    x, y = np.concatenate(x), np.concatenate(y)
    r = float(stats.pearsonr(x, y).statistic) if len(x) > 2 and np.std(x) > 0 and np.std(y) > 0 else float("nan")
    return Agreement(r, float("nan"), float("nan"), len(x), "repeat correlation (Pearson)")


def z_normalize(ratings: Ratings) -> Ratings:
    """Scores standardised per judge and criterion: z = (score − judge's mean) / judge's sd, as
    WMT does with DA (Graham et al. 2013). Scores without a judge are standardised together."""
    df = pd.DataFrame({"judge": ratings.judge, "criterion": ratings.criterion, "score": ratings.score})
    group = df.groupby(["judge", "criterion"])["score"]
    sd = group.transform("std").fillna(0.0).to_numpy()
    z = np.where(sd > 0, (df.score.to_numpy() - group.transform("mean").to_numpy()) / np.where(sd > 0, sd, 1), 0.0)
    new = ratings.take(np.arange(len(ratings)))
    new._cols["score"] = z
    new._attrs["scale"] = f"z-scores per judge of {ratings.scale or 'the scores'}"
    return new


EXACT_MAX, PERMUTATION_MAX = 50, 13  # signed_rank_p's sample sizes for the exact table and the exact sign flips


def signed_rank_p(d, alternative: str = "greater") -> float:
    """Wilcoxon's (1945) signed-rank p of the paired differences ``d`` (zero differences dropped,
    Wilcoxon's own treatment), the same whichever scipy runs it. W⁺ is the sum of the ranks of
    |d| (average ranks for ties) over the positive differences; with n = len(d) and n' non-zero:

    - no zero and no tie, n ≤ 50: W⁺'s exact null distribution (``wilcoxon(method="exact")``);
    - zeros or ties, n ≤ 13: W⁺'s exact distribution over the 2^n sign flips of the differences
      (``scipy.stats.permutation_test``, every flip enumerated);
    - otherwise the normal approximation with the tie correction and no continuity correction,
      z = (W⁺ − n'(n' + 1)/4) / √((n'(n' + 1)(2n' + 1) − Σ(t³ − t)/2) / 24), t the sizes of the
      groups of tied |d| (Conover 1999, §5.7).

    This is ``scipy.stats.wilcoxon(d, alternative=...)``'s default method in scipy ≥ 1.15, made
    explicit: scipy 1.12–1.14's default reads the exact table even with ties (and refuses an
    all-zero ``d``), which moved p-values and WMT's cluster and annotator decisions with the scipy
    version. ``alternative``: "greater" (d above 0), "less" or "two-sided". 1.0 when every
    difference is zero (no evidence either way)."""
    from scipy import stats
    d = np.asarray(d, dtype=np.float64)
    nonzero = d[d != 0]
    n = len(nonzero)
    if n == 0:
        return 1.0
    tied = len(np.unique(np.abs(nonzero))) < n
    if n == len(d) and not tied and n <= EXACT_MAX:
        return float(stats.wilcoxon(nonzero, alternative=alternative, method="exact").pvalue)
    if len(d) <= PERMUTATION_MAX:  # a flip of a zero changes nothing: the non-zero ones' 2^n' flips suffice
        return _signed_rank_enumerated(nonzero, alternative)
    ranks = stats.rankdata(np.abs(nonzero))
    _, t = np.unique(np.abs(nonzero), return_counts=True)
    z = (ranks[nonzero > 0].sum() - n * (n + 1) / 4) / np.sqrt((n * (n + 1) * (2 * n + 1) - np.sum(t ** 3 - t) / 2) / 24)
    if alternative == "greater":
        return float(stats.norm.sf(z))
    if alternative == "less":
        return float(stats.norm.cdf(z))
    return float(min(1.0, 2 * stats.norm.sf(abs(z))))


def degraded_pvalue(original, degraded) -> float:
    """One-sided Wilcoxon signed-rank p of "degraded scored lower" on paired scores
    (``signed_rank_p(original − degraded, "greater")``: zero differences dropped, exact for small
    n); 1.0 when every difference is zero (no evidence of a drop)."""
    return signed_rank_p(np.asarray(original, dtype=np.float64) - np.asarray(degraded, dtype=np.float64))


def _signed_rank_enumerated(d: np.ndarray, alternative: str = "greater") -> float:
    """W⁺'s p over all 2^m sign assignments of the non-zero differences ``d``, counted directly
    (what ``scipy.stats.permutation_test`` computes, without a Python call per assignment), with
    its relative tolerance (100 ε) for equal values of W⁺; two-sided: twice the smaller tail, at
    most 1, as scipy does."""
    from scipy.stats import rankdata
    ranks = rankdata(np.abs(d))
    observed = ranks[d > 0].sum()
    signs = (np.arange(2 ** len(d))[:, None] >> np.arange(len(d))) & 1
    null = signs @ ranks
    slack = abs(observed) * 100 * np.finfo(float).eps
    greater, less = float(np.mean(null >= observed - slack)), float(np.mean(null <= observed + slack))
    if alternative == "greater":
        return greater
    if alternative == "less":
        return less
    return min(1.0, 2 * min(greater, less))


def quality_control(ratings: Ratings, degraded: dict[str, str], alpha: float = 0.05) -> pd.DataFrame:
    """Graham et al.'s (2013) quality control: can a judge tell a degraded output from its original?

    ``degraded`` maps each degraded system name to its original system. For every judge, the
    pairs (original score, degraded score) on the same item go into a one-sided Wilcoxon
    signed-rank test of "original scored higher"; a judge whose p-value is not below ``alpha``
    fails. Returns one row per judge with pairs, mean difference, p-value and ``passes``.
    """
    names = {s: i for i, s in enumerate(ratings.systems)}
    unknown = [s for pair in degraded.items() for s in pair if s not in names]
    if unknown:
        raise ValueError(f"unknown systems {sorted(set(unknown))}; the ratings have {list(ratings.systems)}")
    df = pd.DataFrame({"judge": ratings.judge, "item": ratings.item, "system": ratings.system,
                       "criterion": ratings.criterion, "score": ratings.score})
    rows = []
    for bad, good in degraded.items():
        left = df[df.system == names[good]].groupby(["judge", "item", "criterion"])["score"].mean()
        right = df[df.system == names[bad]].groupby(["judge", "item", "criterion"])["score"].mean()
        both = pd.concat([left.rename("original"), right.rename("degraded")], axis=1, join="inner")
        rows.append(both.reset_index())
    pairs = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=["judge", "original", "degraded"])
    out = []
    for judge, group in pairs.groupby("judge"):
        diff = group.original - group.degraded
        p = degraded_pvalue(group.original, group.degraded)
        name = ratings.judges[judge] if judge >= 0 else "(unknown judge)"
        out.append({"judge": name, "pairs": len(diff), "mean difference": float(diff.mean()), "p-value": p,
                    "passes": p < alpha})
    return pd.DataFrame(out).set_index("judge") if out else pd.DataFrame(
        columns=["pairs", "mean difference", "p-value", "passes"])


__all__ = ["chance_shares", "is_categorical", "quality_control", "rating_agreement", "repeat_correlation",
           "scale_points", "z_normalize"]
