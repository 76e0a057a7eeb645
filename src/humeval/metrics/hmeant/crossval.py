"""Supervised HMEANT role weights evaluated out of sample (k-fold cross-validation).

Lo & Wu (2012) claim that unsupervised weights — each role type's relative frequency in the
reference annotations — correlate with human adequacy judgments about as well as weights tuned
to those judgments (Lo & Wu 2011). Their supervised weights were scored on the very data they
were tuned on, which flatters them. Here the items are split into k folds; for each fold the
weights are tuned (``tune_weights``, coordinate-wise grid search of Kendall's τ) on the other
k − 1 folds and scored on the held-out one, beside the relative-frequency weights (counted on the
other folds' references: no human judgment is used, so they could use every fold, but this keeps
both sides equally blind to the held-out fold) and uniform weights. τ is over pairs of outputs of
the same held-out item that the humans rank differently, an HMEANT tie counting as discordant.
Items, not outputs, are split, so every pair lies inside one fold.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.data.hmeant import AnnotationSet
from humeval.metrics.hmeant.score import Weights, frame_statistics, scores_for
from humeval.metrics.hmeant.weights import GRID, frequency_weights, human_pairs, kendall_tau, tune_weights, uniform_weights

COLUMNS = ("supervised (tuned on the other folds)", "relative frequency", "uniform",
           "supervised, in-sample (on its training folds)")


def held_out_tau(stats, weights: Weights, human: pd.Series) -> tuple[float, int]:
    """Kendall τ of HMEANT under ``weights`` with ``human`` over the outputs in ``stats``, and the
    number of human pairs."""
    average, pairs = human_pairs(stats, human)
    if not len(pairs):
        return float("nan"), 0
    w = weights.vector(stats.types) / weights.pred
    _, _, f = scores_for(stats, np.ones(1), w[None, :], np.array([weights.partial]))
    return float(kendall_tau(average @ np.nan_to_num(f, nan=-1.0), pairs)[0]), len(pairs)


def cross_validate(annotations: AnnotationSet, human: pd.Series, k: int = 5, grid=GRID,
                   random_state=0) -> pd.DataFrame:
    """One row per fold (held-out items, human pairs, τ of each weighting: ``COLUMNS``) and a
    last row ``mean`` (τ averaged over folds weighted by their pairs)."""
    items = np.array(sorted({a.item for a in annotations.annotations}))
    if not 2 <= k <= len(items):
        raise ValueError(f"k must be between 2 and the number of items ({len(items)}), not {k}")
    fold_of = dict(zip(np.random.default_rng(random_state).permutation(items), np.arange(len(items)) % k))
    types = frame_statistics(annotations).types
    rows = []
    for fold in range(k):
        train = [a for a in annotations.annotations if fold_of[a.item] != fold]
        test = [a for a in annotations.annotations if fold_of[a.item] == fold]
        train_stats, test_stats = frame_statistics(train, types), frame_statistics(test, types)
        tuned = tune_weights(train_stats, human, grid=grid, start=uniform_weights(types))
        row = {"fold": fold + 1, "items": sum(v == fold for v in fold_of.values())}
        taus = {}
        for name, weights in zip(COLUMNS[:3], (tuned.weights, frequency_weights(train), uniform_weights(types))):
            taus[name], row["pairs"] = held_out_tau(test_stats, weights, human)
        rows.append({**row, **taus, COLUMNS[3]: tuned.tau})
    table = pd.DataFrame(rows).set_index("fold")
    weights = table["pairs"] / table["pairs"].sum()
    mean = {"items": table["items"].sum(), "pairs": table["pairs"].sum(),
            **{c: float((table[c] * weights).sum()) for c in COLUMNS}}
    return pd.concat([table, pd.DataFrame([mean], index=pd.Index(["mean"], name="fold"))])
