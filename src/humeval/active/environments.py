"""Where the next judgment comes from in an active-elicitation study.

- ``SimulatedPairs``: Bradley–Terry at known abilities with ties at a fixed rate (any pair can be
  asked; 5-way rankings from Gumbel-perturbed abilities, as ``experiments.planning``).
- ``RealJudgments``: resampling real data (Sakaguchi et al. 2014's replay): asking for a pair draws,
  without replacement, one of the real judgments of that pair; a ranking batch draws one of the
  real rankings (``group``) whole. A pair whose judgments are used up is replaced by a random pair
  that still has some, and counted (``exhausted``).
- ``SimulatedBaseline``: the GRM design (each judgment: a system against a fixed baseline on a
  segment, graded lose/tie/win, by a random judge), at the known GRM truth of ``simulate_grm``.
- ``RealBaseline``: the GRM design on real data: asking for (system, segment) draws, without
  replacement, a real judgment of that system against the baseline on that segment, or else on
  another segment (counted: ``substituted``), or else of another system (``exhausted``).

All return comparisons as arrays (a, b, outcome[, item]) with outcome 0 tie, 1 a, 2 b.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from humeval.data.tables import Comparisons
from humeval.experiments.planning import pair_outcomes, ranking_outcomes


class SimulatedPairs:
    def __init__(self, truth, tie_rate: float = 0.15, systems=None):
        self.truth = np.asarray(truth, dtype=float)
        self.tie_rate = tie_rate
        self.systems = tuple(systems) if systems is not None else tuple(f"sys{i + 1:02d}" for i in range(len(self.truth)))

    def reset(self, rng):
        self.rng = rng

    def judge_pairs(self, pairs: np.ndarray):
        a, b = pairs[:, 0], pairs[:, 1]
        return a, b, pair_outcomes(self.truth, a, b, self.tie_rate, self.rng)

    def judge_rankings(self, n: int, k: int = 5):
        return ranking_outcomes(self.truth, n, k, self.tie_rate, self.rng)


class RealJudgments:
    def __init__(self, comparisons: Comparisons):
        self.comparisons = comparisons
        self.systems = comparisons.systems
        n = len(self.systems)
        lo, hi = np.minimum(comparisons.a, comparisons.b), np.maximum(comparisons.a, comparisons.b)
        self.cell = lo.astype(np.int64) * n + hi
        self.order = np.argsort(self.cell, kind="stable")
        self.start = np.searchsorted(self.cell[self.order], np.arange(n * n + 1))
        self.n = n

    def reset(self, rng):
        self.rng = rng
        self.used = np.zeros(len(self.cell), dtype=bool)
        self.left = np.diff(self.start).copy()
        self.exhausted = 0
        self.group_order = None

    def _take(self, cell: int) -> int:
        rows = self.order[self.start[cell]:self.start[cell + 1]]
        free = rows[~self.used[rows]]
        i = free[self.rng.integers(len(free))]
        self.used[i] = True
        self.left[cell] -= 1
        return i

    def available_pairs(self) -> np.ndarray:
        cells = np.nonzero(self.left > 0)[0]
        return np.column_stack([cells // self.n, cells % self.n])

    def judge_pairs(self, pairs: np.ndarray):
        rows = []
        for s, t in pairs:
            cell = min(s, t) * self.n + max(s, t)
            if s == t or self.left[cell] == 0:
                cells = np.nonzero(self.left > 0)[0]
                if len(cells) == 0:
                    break  # every real judgment is used
                self.exhausted += 1
                cell = cells[self.rng.integers(len(cells))]
            rows.append(self._take(cell))
        rows = np.array(rows, dtype=np.int64)
        c = self.comparisons
        return c.a[rows].astype(np.int64), c.b[rows].astype(np.int64), c.outcome[rows].astype(np.int64)

    def judge_rankings(self, n: int, k: int = 5):
        """``n`` whole real rankings (the comparisons sharing a ``group``; a comparison without a
        group is one on its own), in a random order."""
        c = self.comparisons
        if self.group_order is None:
            key = np.asarray(c.group if c.group is not None else np.full(len(c), -1), dtype=np.int64).copy()
            loose = key < 0  # comparisons outside any ranking are rankings of their own
            key[loose] = key.max(initial=-1) + 1 + np.arange(int(loose.sum()))
            groups = np.unique(key)
            self.group_order = list(self.rng.permutation(groups))
            self.group_rows = {}
            order = np.argsort(key, kind="stable")
            bounds = np.searchsorted(key[order], groups)
            ends = np.r_[bounds[1:], len(order)]
            for g, lo_, hi_ in zip(groups, bounds, ends):
                self.group_rows[g] = order[lo_:hi_]
        rows = []
        for _ in range(n):
            while self.group_order:
                g = self.group_order.pop()
                free = self.group_rows[g][~self.used[self.group_rows[g]]]
                if len(free):
                    self.used[free] = True
                    np.subtract.at(self.left, self.cell[free], 1)
                    rows.extend(free)
                    break
        rows = np.array(rows, dtype=np.int64)
        return c.a[rows].astype(np.int64), c.b[rows].astype(np.int64), c.outcome[rows].astype(np.int64)


class SimulatedBaseline:
    """GRM judgments of (system, segment) against the baseline at a ``GRMTruth`` (no random judges)."""

    def __init__(self, truth):
        self.theta = truth.theta.to_numpy(dtype=float)
        self.systems = tuple(truth.theta.index) + ("base",)
        self.sensitivity = np.nan_to_num(truth.sensitivity.to_numpy(dtype=float), nan=1.7)
        self.b1 = truth.thresholds["b1"].to_numpy(dtype=float)
        self.b2 = truth.thresholds["b2"].to_numpy(dtype=float)
        self.segments = tuple(truth.thresholds.index)
        self.judges = tuple(truth.sensitivity.index)

    def reset(self, rng):
        self.rng = rng

    def judge(self, system: np.ndarray, segment: np.ndarray):
        """Outcomes (0 tie, 1 system preferred, 2 baseline preferred) and the judges drawn."""
        judge = self.rng.integers(0, len(self.sensitivity), len(system))
        a = self.sensitivity[judge]
        p1 = expit(a * (self.theta[system] - self.b1[segment]))
        p2 = expit(a * (self.theta[system] - self.b2[segment]))
        draw = self.rng.random(len(system))
        u = np.where(draw < 1 - p1, 0, np.where(draw < 1 - p2, 1, 2))
        return np.array([2, 0, 1])[u], judge, np.asarray(segment)


class RealBaseline:
    """Real judgments of systems against ``baseline`` (see the module doc). ``systems`` lists the
    others and then the baseline; ``segments`` and ``judges`` are the file's."""

    def __init__(self, comparisons: Comparisons, baseline: str):
        from humeval.ranking.grm import GRM
        view = GRM(baseline=baseline)
        system, segment, judge, u, judges, segments, base = view._baseline_view(comparisons)
        others = [i for i in range(len(comparisons.systems)) if i != base]
        code = np.full(len(comparisons.systems), -1)
        code[others] = np.arange(len(others))
        self.systems = tuple(comparisons.systems[i] for i in others) + (baseline,)
        self.segments, self.judges = tuple(segments), tuple(judges)
        self.system, self.segment, self.judge_code = code[system], segment, judge
        self.outcome = np.array([2, 0, 1])[u]  # 0 tie, 1 system preferred, 2 baseline preferred

    def reset(self, rng):
        self.rng = rng
        self.used = np.zeros(len(self.system), dtype=bool)
        self.substituted = 0
        self.exhausted = 0

    def judge(self, system: np.ndarray, segment: np.ndarray):
        """(outcomes, judges, segments) of the real judgments drawn; fewer when all are used."""
        rows = []
        for s, g in zip(system, segment):
            free = ~self.used
            pick = np.nonzero(free & (self.system == s) & (self.segment == g))[0]
            if not len(pick):
                pick = np.nonzero(free & (self.system == s))[0]
                self.substituted += bool(len(pick))
            if not len(pick):
                pick = np.nonzero(free)[0]
                if not len(pick):
                    break
                self.exhausted += 1
            row = pick[self.rng.integers(len(pick))]
            self.used[row] = True
            rows.append(row)
        rows = np.array(rows, dtype=np.int64)
        return self.outcome[rows], self.judge_code[rows], self.segment[rows], self.system[rows]
