"""Tuning the METEOR-NEXT-style metric by exhaustive grid search (Denkowski & Lavie 2010, §5.2).

Objectives: the length-weighted Pearson correlation of segment scores with human scores
(adequacy, DA, HTER — for HTER, where lower is better, the correlation with −HTER), or rank
consistency with human pairwise rankings (the share of non-tied human pairs the metric orders the
same way; metric ties count as not preserved).

Alignment does not depend on the parameters, so the data are aligned once (``Meteor.statistics``)
and every grid point is scored from the stored counts. The compiled kernel shares work along the
grid's axes: for each (δ, w_stem, w_synonym, w_paraphrase) it computes P and R of every
hypothesis–reference pair once, for each α the F_mean once, and for each (β, γ) only
``(1 − γ·frag^β)·F_mean`` with frag^β tabulated per β; each point's objective is accumulated
without storing its scores (the best reference per segment is taken on the fly). w_exact is
fixed at 1, as in the paper's Table 3.

``tune`` returns the optimum and the whole grid of objective values; ``table3`` and ``table4``
print the paper's two tables for several tuning sets.

``ranking_segments`` and ``consistency_set`` build a consistency tuning set from WMT ranking
judgments joined to the systems' outputs: each non-tied comparison of two systems on source
segment i (1-based, WMT's ``srcIndex``) becomes a pair (winner's output of line i, loser's output
of line i), each output scored against reference line i. "All tie judgments are discarded prior
to tuning" (§5.2); comparisons with the reference, with a system that has no output, or with a
segment beyond the files are counted and left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product

import numpy as np
import pandas as pd

from humeval.agreement.rankings import REFERENCE_NAMES
from humeval.data.tables import Comparisons
from humeval.metrics.meteor.scorer import (HC, HF, LEN, RC, RF, MatchStats, Params, best_per_segment, fragmentation,
                                          score_statistics)

AXES = ("alpha", "beta", "gamma", "delta", "w_stem", "w_synonym", "w_paraphrase")
DEFAULT_GRID = {
    "alpha": np.round(np.arange(0.0, 1.0001, 0.1), 2),
    "beta": np.round(np.arange(0.0, 3.0001, 0.5), 2),
    "gamma": np.round(np.arange(0.0, 1.0001, 0.1), 2),
    "delta": np.array([0.5]),
    "w_stem": np.round(np.arange(0.0, 1.0001, 0.2), 2),
    "w_synonym": np.round(np.arange(0.0, 1.0001, 0.2), 2),
    "w_paraphrase": np.round(np.arange(0.0, 1.0001, 0.2), 2),
}


@dataclass
class TuningSet:
    """One tuning data set: aligned statistics and what the humans said.

    ``kind="pearson"``: ``human`` has one score per segment (NaN = none) and ``weights`` one
    weight per segment (default: reference length, the paper's length weighting);
    ``higher_is_better=False`` for HTER-like scores. ``kind="consistency"``: ``pairs`` is an
    (n, 2) array of segment indices (better, worse) from human rankings, ties left out."""
    name: str
    stats: MatchStats
    kind: str = "pearson"
    human: np.ndarray | None = None
    weights: np.ndarray | None = None
    pairs: np.ndarray | None = None
    higher_is_better: bool = True

    def __post_init__(self):
        n = self.stats.n_segments
        if self.kind == "pearson":
            if self.human is None or len(self.human) != n:
                raise ValueError(f"{self.name}: human scores needed, one per segment ({n})")
            self.human = np.asarray(self.human, dtype=float)
            if self.weights is None:
                lengths = self.stats.values[:, LEN + 2] + self.stats.values[:, LEN + 3]
                self.weights = np.zeros(n)
                np.maximum.at(self.weights, self.stats.segment, lengths)
            self.weights = np.asarray(self.weights, dtype=float)
        elif self.kind == "consistency":
            if self.pairs is None or len(self.pairs) == 0:
                raise ValueError(f"{self.name}: consistency needs human pairs (better, worse)")
            self.pairs = np.asarray(self.pairs, dtype=np.int64).reshape(-1, 2)
        else:
            raise ValueError(f"kind must be 'pearson' or 'consistency', not {self.kind!r}")

    def objective(self, scores: np.ndarray) -> float:
        """The objective of given segment scores (the scalar counterpart of the kernel)."""
        if self.kind == "consistency":
            return float(np.mean(scores[self.pairs[:, 0]] > scores[self.pairs[:, 1]]))
        from humeval.metaeval.correlation import weighted_pearson
        sign = 1.0 if self.higher_is_better else -1.0
        return sign * weighted_pearson(scores, self.human, self.weights)

    def evaluate(self, params: Params) -> float:
        seg = best_per_segment(score_statistics(self.stats.values, params), self.stats.segment, self.stats.n_segments)
        return self.objective(seg)


@dataclass
class TuneResult:
    name: str
    best: Params
    value: float
    grid: dict
    values: np.ndarray  # objective over the grid, axes in AXES order
    points: int = field(init=False)

    def __post_init__(self):
        self.points = int(self.values.size)

    def row(self) -> dict:
        return {"alpha": self.best.alpha, "beta": self.best.beta, "gamma": self.best.gamma, "delta": self.best.delta,
                "w_stem": self.best.weights[1], "w_synonym": self.best.weights[2], "w_paraphrase": self.best.weights[3],
                "objective": self.value}


def _kernel():
    import numba

    @numba.njit(parallel=True, cache=True)
    def grid_objective(stats, seg_start, outer_w, outer_d, alphas, frag_pow, gammas, kind, y, wt, pairs, sign):
        n_outer, n_a, n_b, n_c = len(outer_d), len(alphas), frag_pow.shape[0], len(gammas)
        n_rows, n_seg = stats.shape[0], len(seg_start) - 1
        out = np.empty((n_outer, n_a, n_b, n_c))
        sw = sy = syy = 0.0
        if kind == 0:
            for s in range(n_seg):
                if wt[s] > 0:
                    sw += wt[s]
                    sy += wt[s] * y[s]
                    syy += wt[s] * y[s] * y[s]
        for g in numba.prange(n_outer):
            d = outer_d[g]
            p = np.empty(n_rows)
            r = np.empty(n_rows)
            f = np.empty(n_rows)
            seg_score = np.empty(n_seg)
            for i in range(n_rows):
                pn = 0.0
                rn = 0.0
                for m in range(4):
                    pn += outer_w[g, m] * (d * stats[i, HC + m] + (1 - d) * stats[i, HF + m])
                    rn += outer_w[g, m] * (d * stats[i, RC + m] + (1 - d) * stats[i, RF + m])
                pd_ = d * stats[i, LEN] + (1 - d) * stats[i, LEN + 1]
                rd = d * stats[i, LEN + 2] + (1 - d) * stats[i, LEN + 3]
                p[i] = pn / pd_ if pd_ > 0 else 0.0
                r[i] = rn / rd if rd > 0 else 0.0
            for a in range(n_a):
                al = alphas[a]
                for i in range(n_rows):
                    f[i] = p[i] * r[i] / (al * p[i] + (1 - al) * r[i]) if p[i] > 0 and r[i] > 0 else 0.0
                for b in range(n_b):
                    for c in range(n_c):
                        ga = gammas[c]
                        for s in range(n_seg):
                            best = -1e300
                            for i in range(seg_start[s], seg_start[s + 1]):
                                v = (1 - ga * frag_pow[b, i]) * f[i]
                                if v > best:
                                    best = v
                            seg_score[s] = best
                        if kind == 0:
                            ss = sss = ssy = 0.0
                            for s in range(n_seg):
                                if wt[s] > 0:
                                    v = seg_score[s]
                                    ss += wt[s] * v
                                    sss += wt[s] * v * v
                                    ssy += wt[s] * v * y[s]
                            den = (sw * sss - ss * ss) * (sw * syy - sy * sy)
                            out[g, a, b, c] = sign * (sw * ssy - ss * sy) / np.sqrt(den) if den > 0 else np.nan
                        else:
                            kept = 0
                            for k in range(pairs.shape[0]):
                                if seg_score[pairs[k, 0]] > seg_score[pairs[k, 1]]:
                                    kept += 1
                            out[g, a, b, c] = kept / pairs.shape[0]
        return out

    return grid_objective


_GRID_KERNEL = None


def _frag_pow(values: np.ndarray, betas: np.ndarray) -> np.ndarray:
    frag = fragmentation(values)
    table = frag[None, :] ** np.asarray(betas, dtype=float)[:, None]
    table[:, frag == 0] = 0.0  # no penalty when nothing is fragmented (and 0**0 stays 0)
    return table


def grid_values(data: TuningSet, grid: dict | None = None) -> tuple[dict, np.ndarray]:
    """The objective at every point of ``grid`` (axes of ``AXES``; missing ones take the defaults)."""
    global _GRID_KERNEL
    grid = {axis: np.atleast_1d(np.asarray((grid or {}).get(axis, DEFAULT_GRID[axis]), dtype=float)) for axis in AXES}
    stats = data.stats
    order = np.argsort(stats.segment, kind="stable")
    values = np.ascontiguousarray(stats.values[order])
    counts = np.bincount(stats.segment, minlength=stats.n_segments)
    seg_start = np.r_[0, np.cumsum(counts)].astype(np.int64)
    outer = list(product(grid["delta"], grid["w_stem"], grid["w_synonym"], grid["w_paraphrase"]))
    outer_d = np.array([o[0] for o in outer])
    outer_w = np.array([[1.0, o[1], o[2], o[3]] for o in outer])
    if _GRID_KERNEL is None:
        _GRID_KERNEL = _kernel()
    n = stats.n_segments
    if data.kind == "pearson":
        kind, y = 0, np.nan_to_num(data.human)
        wt = np.where(np.isnan(data.human) | (counts == 0), 0.0, data.weights)
        pairs, sign = np.zeros((0, 2), dtype=np.int64), 1.0 if data.higher_is_better else -1.0
    else:
        kind, y, wt, pairs, sign = 1, np.zeros(n), np.zeros(n), data.pairs, 1.0
    out = _GRID_KERNEL(values, seg_start, outer_w, outer_d, grid["alpha"], _frag_pow(values, grid["beta"]),
                       grid["gamma"], kind, y, wt, pairs, sign)
    # (outer, alpha, beta, gamma) → AXES order (alpha, beta, gamma, delta, w_stem, w_syn, w_para)
    shape = (len(grid["delta"]), len(grid["w_stem"]), len(grid["w_synonym"]), len(grid["w_paraphrase"]))
    out = out.reshape(*shape, len(grid["alpha"]), len(grid["beta"]), len(grid["gamma"]))
    return grid, np.transpose(out, (4, 5, 6, 0, 1, 2, 3))


def tune(data: TuningSet, grid: dict | None = None) -> TuneResult:
    """Exhaustive grid search: the parameters maximising ``data``'s objective (ties: first point)."""
    grid, values = grid_values(data, grid)
    if np.all(np.isnan(values)):
        raise ValueError(f"{data.name}: the objective is undefined everywhere (constant scores or too few segments)")
    index = np.unravel_index(np.nanargmax(values), values.shape)
    point = {axis: float(grid[axis][k]) for axis, k in zip(AXES, index)}
    best = Params(point["alpha"], point["beta"], point["gamma"], point["delta"],
                  (1.0, point["w_stem"], point["w_synonym"], point["w_paraphrase"]))
    return TuneResult(data.name, best, float(values[index]), grid, values)


def table3(results: list[TuneResult]) -> pd.DataFrame:
    """The optimal parameters per tuning set (the paper's Table 3)."""
    return pd.DataFrame([r.row() for r in results], index=pd.Index([r.name for r in results], name="tuning data"))


def table4(results: list[TuneResult], sets: list[TuningSet], baselines: dict[str, dict[str, np.ndarray]] | None = None,
           default: Params | None = None) -> pd.DataFrame:
    """Objective of every tuned parameter set (rows) on every data set (columns), the paper's
    Table 4; the diagonal is the oracle (tuned on that very set). ``baselines`` adds rows of
    fixed metrics: {metric name: {set name: segment scores}} (TER and other lower-is-better
    metrics should be negated first); ``default`` adds a row for untuned parameters."""
    rows = {}
    for name, per_set in (baselines or {}).items():
        rows[name] = {s.name: s.objective(np.asarray(per_set[s.name], dtype=float)) if s.name in per_set else np.nan
                      for s in sets}
    if default is not None:
        rows["METEOR (default)"] = {s.name: s.evaluate(default) for s in sets}
    for r in results:
        rows[f"METEOR-NEXT tuned on {r.name}"] = {s.name: s.evaluate(r.best) for s in sets}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "metric"
    return table


@dataclass
class RankingSegments:
    """The hypotheses a consistency set scores: one per (segment, system) judged, its reference,
    the (better, worse) pairs of indices into them, and what was left out (reason → count)."""
    hypotheses: list[str]
    references: list[str]
    keys: list[tuple[str, str]]  # (item label, system) of each hypothesis
    pairs: np.ndarray
    left_out: dict[str, int]


def ranking_segments(comparisons: Comparisons, outputs: dict[str, list[str]], references: list[str],
                     exclude=REFERENCE_NAMES) -> RankingSegments:
    """Join non-tied comparisons to system outputs (``outputs[system][i − 1]`` is the output for
    item label ``i``) and references (``references[i − 1]``)."""
    decided = comparisons.take(comparisons.outcome != 0)
    systems, items = list(comparisons.systems), list(comparisons.items)
    winner = np.where(decided.outcome == 1, decided.a, decided.b)
    loser = np.where(decided.outcome == 1, decided.b, decided.a)
    left_out = {"ties (discarded, as the paper does)": int(np.sum(comparisons.outcome == 0))}
    index: dict[tuple[str, str], int] = {}
    hyps, refs, keys, pairs = [], [], [], []

    def line_of(item_code):
        label = items[item_code] if item_code >= 0 else ""
        try:
            line = int(str(label))
        except ValueError:
            return None
        return line if 1 <= line <= len(references) else None

    def segment(item_code, system):
        key = (items[item_code], systems[system])
        if key not in index:
            index[key] = len(hyps)
            hyps.append(outputs[systems[system]][line_of(item_code) - 1])
            refs.append(references[line_of(item_code) - 1])
            keys.append(key)
        return index[key]

    def skip(reason):
        left_out[reason] = left_out.get(reason, 0) + 1

    excluded = set(exclude)
    for item, w, l in zip(decided.item, winner, loser):
        names = (systems[w], systems[l])
        if excluded & set(names):
            skip("comparisons with the reference")
        elif line_of(item) is None:
            skip(f"comparisons whose segment is not a line number 1..{len(references)} of the references")
        elif any(n not in outputs for n in names):
            skip("comparisons of a system without an output file")
        elif any(line_of(item) > len(outputs[n]) for n in names):
            skip("comparisons whose segment is beyond a system's output file")
        else:
            pairs.append((segment(item, w), segment(item, l)))
    return RankingSegments(hyps, refs, keys, np.array(pairs, dtype=np.int64).reshape(-1, 2),
                           {k: v for k, v in left_out.items() if v})


def consistency_set(name: str, segments: RankingSegments, stats: MatchStats) -> TuningSet:
    """A rank-consistency tuning set from ``ranking_segments`` and the aligned statistics of its
    hypotheses (``Meteor.statistics(segments.hypotheses, segments.references)``)."""
    if not len(segments.pairs):
        raise ValueError(f"{name}: no comparison left to tune on ({segments.left_out or 'no judgments'})")
    return TuningSet(name, stats, kind="consistency", pairs=segments.pairs)
