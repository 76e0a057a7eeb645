"""Role weights for HMEANT two ways (Lo & Wu 2012).

- ``frequency_weights`` (unsupervised, the paper's proposal): each role type's weight is its
  relative frequency in the reference annotations, w_pred the predicates' — counts of predicates
  and of each role type divided by the count of predicates plus roles.
- ``tune_weights`` (supervised, Lo & Wu 2011): grid search maximising Kendall's τ between HMEANT
  and human adequacy judgments of the same outputs. HMEANT does not change when all weights are
  scaled together, so w_pred stays 1 and the role weights and w_partial are searched; an
  exhaustive grid over a dozen role types (7¹² points) is out of reach, so the search goes one
  coordinate at a time, each time over the whole grid of that weight with the others fixed (all
  grid values scored at once), sweeping until no coordinate improves τ.

Kendall's τ is over the pairs of outputs of the same item that the humans ranked differently:
(concordant − discordant) / pairs, an HMEANT tie counting as discordant (WMT's convention).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from humeval.data.hmeant import Annotation, AnnotationSet
from humeval.metrics.hmeant.score import FrameStats, Weights, scores_for

GRID = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)


def uniform_weights(types) -> Weights:
    return Weights(1.0, {t: 1.0 for t in types}, 0.5)


def frequency_weights(annotations: AnnotationSet | list[Annotation], partial: float = 0.5) -> Weights:
    """Relative frequencies in the reference annotations: the reference-only annotations if there
    are any, else the reference side of output annotations (each (item, annotator) once)."""
    items = annotations.annotations if isinstance(annotations, AnnotationSet) else annotations
    refs = [a.reference for a in items if a.output is None]
    if not refs:
        seen = {}
        for a in items:
            seen.setdefault((a.item, a.annotator), a.reference)
        refs = list(seen.values())
    frames = sum(len(side.frames) for side in refs)
    counts = pd.Series([r.type for side in refs for f in side.frames for r in f.roles], dtype=object).value_counts()
    total = frames + counts.sum()
    if total == 0:
        raise ValueError("no frames in the reference annotations: nothing to count")
    return Weights(frames / total, {t: c / total for t, c in counts.items()}, partial, default=0.0)


def human_pairs(stats: FrameStats, human: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """A matrix averaging annotations into outputs (item, system), and the pairs (better, worse)
    of outputs of the same item ranked differently by ``human`` (indexed by (item, system);
    higher is better)."""
    keys = pd.MultiIndex.from_arrays([[a.item for a in stats.annotations], [a.system for a in stats.annotations]],
                                     names=["item", "system"])
    outputs = keys.unique()
    code = outputs.get_indexer(keys)
    average = np.zeros((len(outputs), len(keys)))
    average[code, np.arange(len(keys))] = 1
    average /= average.sum(axis=1, keepdims=True)
    h = human.reindex(outputs).to_numpy(dtype=float)
    frame = pd.DataFrame({"item": outputs.get_level_values(0), "k": np.arange(len(outputs)), "h": h}).dropna()
    pairs = frame.merge(frame, on="item")
    pairs = pairs[pairs.h_x > pairs.h_y]
    return average, np.c_[pairs.k_x.to_numpy(), pairs.k_y.to_numpy()]


def kendall_tau(scores: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """τ per column of ``scores`` (outputs × K) over human pairs (better, worse); NaN scores and
    metric ties count as discordant."""
    better, worse = scores[pairs[:, 0]], scores[pairs[:, 1]]
    concordant = np.sum(better > worse, axis=0)
    return (2 * concordant - len(pairs)) / len(pairs)


@dataclass
class TunedWeights:
    weights: Weights
    tau: float
    start_tau: float
    sweeps: int
    pairs: int


def tune_weights(stats: FrameStats, human: pd.Series, grid=GRID, start: Weights | None = None,
                 tune_partial: bool = True, max_sweeps: int = 10) -> TunedWeights:
    """Coordinate-wise grid search of the role weights (and w_partial) maximising Kendall's τ with
    ``human`` scores per (item, system); see the module doc."""
    average, pairs = human_pairs(stats, human)
    if len(pairs) == 0:
        raise ValueError("the human scores rank no two outputs of the same item differently: nothing to tune on")
    types = stats.types
    w = start or uniform_weights(types)
    roles, partial = w.vector(types) / w.pred, w.partial
    grid = np.asarray(grid, dtype=float)

    def taus(role_matrix, partials):
        _, _, f = scores_for(stats, np.ones(len(partials)), role_matrix, partials)
        return kendall_tau(average @ np.nan_to_num(f, nan=-1.0), pairs)

    best = start_tau = float(taus(roles[None, :], np.array([partial]))[0])
    sweeps = 0
    for sweeps in range(1, max_sweeps + 1):
        improved = False
        for j in range(len(types) + (1 if tune_partial else 0)):
            if j < len(types):
                candidates = np.repeat(roles[None, :], len(grid), axis=0)
                candidates[:, j] = grid
                values = taus(candidates, np.full(len(grid), partial))
            else:
                values = taus(np.repeat(roles[None, :], len(grid), axis=0), np.clip(grid, 0, 1))
            k = int(np.argmax(values))
            if values[k] > best + 1e-12:
                best, improved = float(values[k]), True
                if j < len(types):
                    roles[j] = grid[k]
                else:
                    partial = float(np.clip(grid[k], 0, 1))
        if not improved:
            break
    return TunedWeights(Weights(1.0, dict(zip(types, roles.tolist())), partial), best, start_tau, sweeps, len(pairs))


def weights_table(frequency: Weights, tuned: Weights, types) -> pd.DataFrame:
    """The paper's Table 1: both weight vectors normalised to sum 1, and their difference."""
    f, t = frequency.normalized(), tuned.normalized()
    rows = [("predicate", f.pred, t.pred)] + [(r, f.roles.get(r, 0.0), t.roles.get(r, 0.0)) for r in types]
    table = pd.DataFrame(rows, columns=["role", "relative frequency", "optimised weight"]).set_index("role")
    table["deviation"] = table["relative frequency"] - table["optimised weight"]
    return table
