"""Lopez (2012): rank systems by a minimum feedback arc set of the tournament graph.

Edge i -> j carries the net wins w(i, j) = max(0, win(i, j) − win(j, i)) (ties ignored). A
ranking puts some edges "backwards" (a system below one it beat on balance); its cost is the
total weight of those edges, and the ranking with the least cost is chosen.

Exact for up to ``exact_limit`` systems (20 by default) by dynamic programming over subsets:
best[S] = min over v in S of best[S − v] + Σ_{u ∈ S−v} w(v, u), where S is the set of systems
ranked at the top and v the lowest of them; O(2^n · n²) time, O(2^n) memory. Beyond that a
heuristic: start from the order by total net wins, then move single systems to their best
position until no move lowers the cost (a local optimum; ``method_`` says which was used).
"""

from __future__ import annotations

import numba
import numpy as np

from humeval.data.tables import Comparisons
from humeval.ranking.base import Ranker, pair_counts, symmetric_counts


@numba.njit(cache=True)
def _exact_order(w):  # pragma: no cover - compiled; checked against brute force in the tests
    n = w.shape[0]
    size = 1 << n
    best = np.full(size, np.inf)
    last = np.full(size, -1, dtype=np.int64)
    best[0] = 0.0
    for subset in range(1, size):
        for v in range(n):
            if not (subset >> v) & 1:
                continue
            rest = subset & ~(1 << v)
            cost = best[rest]
            for u in range(n):
                if (rest >> u) & 1:
                    cost += w[v, u]
            if cost < best[subset]:
                best[subset] = cost
                last[subset] = v
    order = np.empty(n, dtype=np.int64)
    subset = size - 1
    for position in range(n - 1, -1, -1):
        v = last[subset]
        order[position] = v
        subset &= ~(1 << v)
    return order, best[size - 1]


def order_cost(w: np.ndarray, order) -> float:
    """Total weight of the edges the order puts backwards (from lower to higher position)."""
    m = w[np.ix_(order, order)]
    return float(np.tril(m, -1).sum())


def _local_search(w: np.ndarray, max_rounds: int = 100) -> np.ndarray:
    order = list(np.argsort(-(w.sum(axis=1) - w.sum(axis=0)), kind="stable"))
    cost = order_cost(w, order)
    for _ in range(max_rounds):
        improved = False
        for system in list(order):
            rest = [s for s in order if s != system]
            candidates = [rest[:p] + [system] + rest[p:] for p in range(len(order))]
            costs = [order_cost(w, c) for c in candidates]
            best = int(np.argmin(costs))
            if costs[best] < cost - 1e-12:
                order, cost, improved = candidates[best], costs[best], True
        if not improved:
            break
    return np.array(order)


class MinimumFeedbackArc(Ranker):
    """Lopez (2012)'s ranking: the order with the least total net-win weight pointing backwards.

    ``scores_`` are n − position (the best system gets n), except that a run of consecutive
    systems with no net wins between any two of them (they tied on balance or never met) shares
    the score of its first: any reordering of such a run costs nothing, so the data do not order
    it (all-ties data give everyone rank 1). ``order_`` lists the systems, ``cost_`` is the
    order's backward weight, ``method_`` says whether it is exact.
    """

    weighted = True  # counts by weight (pair_counts)

    def __init__(self, exact_limit: int = 20):
        self.exact_limit = exact_limit

    def _weights(self, s: np.ndarray) -> np.ndarray:
        """w[i, j] = max(0, win(i, j) − win(j, i)): the cost of ranking i below j."""
        w = np.maximum(s[:, :, 1] - s[:, :, 2], 0.0)
        np.fill_diagonal(w, 0.0)
        return w

    def _fit(self, comparisons: Comparisons) -> None:
        w = self._weights(symmetric_counts(pair_counts(comparisons)))
        n = len(w)
        if n <= self.exact_limit:
            order, _ = _exact_order(w)
            self.method_ = f"exact (dynamic programming over 2^{n} subsets)"
        else:
            order = _local_search(w)
            self.method_ = f"heuristic (net-win order + single-system moves; {n} > exact_limit={self.exact_limit})"
        self.cost_ = order_cost(w, order)
        self.order_ = tuple(self.systems_[i] for i in order)
        scores = np.empty(n)
        block = []
        for position, system in enumerate(order):
            if block and not (w[system, block].any() or w[block, system].any()):
                scores[system] = scores[block[0]]
                block.append(system)
            else:
                scores[system] = n - position
                block = [system]
        self.scores_ = self._series(scores)
