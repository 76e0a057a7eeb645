"""How well an automatic metric agrees with human judgments (Denkowski & Lavie 2010 §5; WMT metrics
tasks). Segment level: scores of (item, system) pairs; system level: one score per system.

- ``pearson``, ``weighted_pearson`` (weights such as segment lengths, the paper's objective),
  ``spearman``, ``kendall`` (τ-b or τ-c, via scipy).
- ``kendall_like``: WMT's segment-level τ over human relative-ranking pairs,
  (Concordant − Discordant) / (Concordant + Discordant), human ties left out; a metric tie counts as
  discordant (``metric_ties="penalize"``, WMT13 onwards) or is left out (``"discard"``).
- ``rank_consistency``: the share of human pairwise rankings (ties left out) the metric preserves,
  the objective Denkowski & Lavie tune METEOR-NEXT on; metric ties count as not preserved.
- ``pairwise_accuracy``: the share of system pairs the metric orders as the humans do (Kocmi et al. 2021).
- ``ndcg``: of the ranking by the metric, with relevance = human score − its minimum.
- ``bootstrap_interval``, ``williams_test``, ``permutation_test``: how sure, and is A better than B.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.data.tables import Comparisons


def _pair(x, y):
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"x and y differ in length ({len(x)} and {len(y)})")
    keep = ~(np.isnan(x) | np.isnan(y))
    return x[keep], y[keep]


def pearson(x, y) -> float:
    from scipy import stats
    x, y = _pair(x, y)
    return float(stats.pearsonr(x, y).statistic) if len(x) > 2 else float("nan")


def weighted_pearson(x, y, weights) -> float:
    """Σ w (x − x̄_w)(y − ȳ_w) / √(Σ w (x − x̄_w)² · Σ w (y − ȳ_w)²), with weighted means."""
    x, y, w = (np.asarray(v, dtype=float) for v in (x, y, weights))
    keep = ~(np.isnan(x) | np.isnan(y) | np.isnan(w))
    x, y, w = x[keep], y[keep], w[keep]
    dx, dy = x - np.average(x, weights=w), y - np.average(y, weights=w)
    return float(np.sum(w * dx * dy) / np.sqrt(np.sum(w * dx ** 2) * np.sum(w * dy ** 2)))


def spearman(x, y) -> float:
    from scipy import stats
    x, y = _pair(x, y)
    return float(stats.spearmanr(x, y).statistic) if len(x) > 2 else float("nan")


def kendall(x, y, variant: str = "b") -> float:
    from scipy import stats
    x, y = _pair(x, y)
    return float(stats.kendalltau(x, y, variant=variant).statistic) if len(x) > 1 else float("nan")


def scored_pairs(comparisons: Comparisons, scores: pd.Series) -> int:
    """How many of the non-tied comparisons ``kendall_like`` counts: those whose two outputs both
    have a metric score (the others are left out of τ)."""
    return len(_human_pairs(comparisons, scores)[0])


def _human_pairs(comparisons: Comparisons, scores: pd.Series):
    """Metric scores of the preferred and the dispreferred output of every non-tied comparison;
    ``scores`` is indexed by (item, system) names. Comparisons without a metric score are left out."""
    decided = comparisons.take(comparisons.outcome != 0)
    items, systems = np.asarray(decided.items, dtype=object), np.asarray(decided.systems, dtype=object)
    winner = np.where(decided.outcome == 1, decided.a, decided.b)
    loser = np.where(decided.outcome == 1, decided.b, decided.a)
    item = items[decided.item] if len(decided.items) else np.full(len(decided), None)
    lookup = scores.to_dict()
    better = np.array([lookup.get((i, s), np.nan) for i, s in zip(item, systems[winner])], dtype=float)
    worse = np.array([lookup.get((i, s), np.nan) for i, s in zip(item, systems[loser])], dtype=float)
    keep = ~(np.isnan(better) | np.isnan(worse))
    return better[keep], worse[keep]


def kendall_like(comparisons: Comparisons, scores: pd.Series, metric_ties: str = "penalize") -> float:
    """WMT's segment-level Kendall-like τ (see module doc)."""
    better, worse = _human_pairs(comparisons, scores)
    concordant = np.sum(better > worse)
    discordant = np.sum(better < worse)
    ties = np.sum(better == worse)
    if metric_ties == "penalize":
        discordant += ties
    elif metric_ties != "discard":
        raise ValueError(f"metric_ties must be 'penalize' or 'discard', not {metric_ties!r}")
    total = concordant + discordant
    return float((concordant - discordant) / total) if total else float("nan")


def rank_consistency(comparisons: Comparisons, scores: pd.Series) -> float:
    """Share of human pairwise rankings (human ties left out) the metric preserves (metric ties do not)."""
    better, worse = _human_pairs(comparisons, scores)
    return float(np.mean(better > worse)) if len(better) else float("nan")


def pairwise_accuracy(metric: pd.Series, human: pd.Series) -> float:
    """Share of system pairs ordered the same way by the metric and the humans (human ties left out)."""
    common = metric.dropna().index.intersection(human.dropna().index)
    m, h = metric[common].to_numpy(), human[common].to_numpy()
    i, j = np.triu_indices(len(common), 1)
    decided = h[i] != h[j]
    agree = np.sign(m[i] - m[j]) == np.sign(h[i] - h[j])
    return float(np.mean(agree[decided])) if decided.any() else float("nan")


def ndcg(estimate: pd.Series, gold: pd.Series) -> float:
    """nDCG of the ranking by ``estimate`` with relevance = gold − min(gold) (Baba & Kashima 2013):
    Σ_r rel(system at rank r) / log2(r + 1), divided by the same for the gold ranking."""
    common = estimate.dropna().index.intersection(gold.dropna().index)
    rel = gold[common] - gold[common].min()
    discount = 1 / np.log2(np.arange(2, len(common) + 2))
    order = estimate[common].sort_values(ascending=False, kind="stable").index
    best = float(np.sort(rel.to_numpy())[::-1] @ discount)
    return float(rel[order].to_numpy() @ discount / best) if best > 0 else float("nan")


def bootstrap_interval(statistic, *arrays, n: int = 1000, confidence: float = 0.95, random_state=0):
    """Percentile interval of ``statistic(*arrays)`` over ``n`` resamples of the rows (segments)."""
    arrays = [np.asarray(a) for a in arrays]
    rng = np.random.default_rng(random_state)
    size = len(arrays[0])
    values = np.array([statistic(*(a[idx] for a in arrays)) for idx in
                       (rng.integers(0, size, size) for _ in range(n))])
    values = values[~np.isnan(values)]
    tail = (1 - confidence) / 2
    return float(np.quantile(values, tail)), float(np.quantile(values, 1 - tail))


def williams_test(r12: float, r13: float, r23: float, n: int) -> tuple[float, float]:
    """Williams' (1959) test that variable 1 (humans) correlates more with 2 (metric A) than with 3
    (metric B), for correlations on the same n items (Graham & Baldwin 2014 use it for metrics):

        t = (r12 − r13) √((n − 1)(1 + r23)) / √(2K (n − 1)/(n − 3) + ((r12 + r13)²/4)(1 − r23)³),
        K = 1 − r12² − r13² − r23² + 2 r12 r13 r23, with n − 3 degrees of freedom.

    Returns (t, one-sided p-value)."""
    from scipy import stats
    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    denominator = np.sqrt(2 * k * (n - 1) / (n - 3) + ((r12 + r13) ** 2 / 4) * (1 - r23) ** 3)
    t = (r12 - r13) * np.sqrt((n - 1) * (1 + r23)) / denominator
    return float(t), float(stats.t.sf(t, n - 3))


def permutation_test(human, metric_a, metric_b, statistic=pearson, n: int = 1000, random_state=0) -> tuple[float, float]:
    """Paired permutation test of "A correlates better with the humans than B": the difference
    statistic(human, A) − statistic(human, B) against its distribution when each segment's A and B
    scores are swapped at random. Returns (observed difference, one-sided p-value)."""
    human, a, b = (np.asarray(v, dtype=float) for v in (human, metric_a, metric_b))
    observed = statistic(human, a) - statistic(human, b)
    rng = np.random.default_rng(random_state)
    count = 0
    for _ in range(n):
        swap = rng.random(len(human)) < 0.5
        pa, pb = np.where(swap, b, a), np.where(swap, a, b)
        count += statistic(human, pa) - statistic(human, pb) >= observed
    return float(observed), float((count + 1) / (n + 1))
