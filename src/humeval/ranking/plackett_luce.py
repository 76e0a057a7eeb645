"""Plackett–Luce with ties (the Davidson–Luce model) for k-way rankings, fitted on the rankings.

A ranking is an ordered partition R = (G_1, …, G_J) of the systems shown: G_1 the best tie
class, G_2 the next, … With worths α_s = e^{θ_s} and, for a set S of systems,

    f(S) = δ_{|S|} · (Π_{s ∈ S} α_s)^{1/|S|}          (δ_1 = 1; δ_t: how prevalent ties of t are)

the probability of R is (Firth, Kosmidis & Turner 2019, "Davidson-Luce model for multi-item choice
with ties", arXiv:1909.07123; the model of Turner et al.'s R package PlackettLuce)

    P(R) = Π_j f(G_j) / Σ_{S ⊆ A_j, 1 ≤ |S| ≤ D} f(S),      A_j = G_j ∪ … ∪ G_J,

choosing the best class from the systems left, then the next; D is the largest tie observed and
only the tie orders observed get a δ (the others' maximum-likelihood δ is 0). Without ties it is
Plackett–Luce (Luce 1959, Plackett 1975); for two systems it is Davidson's (1970) tie model with
ν = δ_2: P(a) = e^{x/2} / (e^{x/2} + e^{−x/2} + δ_2), x = θ_a − θ_b.

``predict_proba(a, b)`` (so the model takes its place in compare-models beside BT and Davidson)
is, by default (``predict="marginal"``), the probability that a is ranked above, tied with or
below b in a ranking of the size the model was trained on (the most common, at most 6), the
other systems drawn at random from the rated ones (32 draws, a fixed seed): the sum over every
weak order of those systems. The pair form above (``predict="pair"``, and always for rankings of
two) underpredicts pair ties when δ_2 was fitted on 5-way rankings (δ_2 ≈ 0.2 on WMT), where two
systems also tie inside ties of three, four or five.

log f(S) = log δ_{|S|} + mean_{s ∈ S} θ_s is linear in β = (θ, log δ_2, …, log δ_D): every stage
is a conditional-logit choice among the subsets of A_j, and the log-likelihood

    ℓ(β) = T·β − Σ_A w_A · log Σ_{S ⊆ A} e^{x_S·β}

is concave and depends on the data only through the sufficient statistics T (Σ over stages of
x_{G_j}: 1/|G| for each member of the chosen class, and a count per tie order) and the weight w_A
of every distinct set A of systems left at a stage. Newton's method with a line search on those;
the same Gaussian prior as the Bradley–Terry family (``bradley_terry``: θ_s ~ N(θ̄, 1/λ), ``l2`` =
λ = 1 by default, so separated data stay finite; ``l2=0`` is maximum likelihood and refuses data
whose comparison graph is not strongly connected). log δ_t stays within ±10 (``TIE_BOUND``).
Standard errors by the Laplace approximation, as for BT.

Input: ``Comparisons``, the pairwise expansion of the rankings (or a ``Rankings`` table, which is
expanded). Each ranking is rebuilt from the comparisons sharing its ``group`` (the ranking id,
``Rankings.expand``): when they compare every pair of the systems in the group (each pair equally
often) and agree with one weak order (rank = 1 + the number of systems preferred to it), that order is the
ranking. Comparisons with group −1 stand alone (rankings of 2), and so do the comparisons of a
group that does not make a whole ranking — some pairs missing (a random subset of comparisons, as
compare-models draws, or blanks), some pairs more often than others, or an order that contradicts
itself: each of their
comparisons counts as a ranking of two (``pairs_alone_`` counts them). A group's weight is the mean
``weight`` of its comparisons; a group holding every pair r times (a bootstrap resample drew the
ranking r times) is one ranking of r times that weight.

``bootstrap_scores`` resamples whole rankings, never single comparisons of a ranking (see there).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from math import comb

import numpy as np
from scipy.sparse import csr_matrix, vstack

from humeval.data.tables import Comparisons, Rankings
from humeval.errors import DisconnectedError
from humeval.ranking.base import PreferenceModel, pair_cells
from humeval.ranking.bradley_terry import L2, TIE_BOUND, _PairModel
from humeval.ranking.newton import newton_ascent

MAX_CONTEXT = 6  # pair predictions marginalise over weak orders of at most this many systems (4,683 for 6)
CONTEXTS = 32  # random sets of co-ranked systems per pair
MAX_ALTERNATIVES = 20_000_000  # subsets to enumerate at most (a ranking of 24 systems with a 24-way tie has 2^24)


def weak_orders(comparisons: Comparisons):
    """The rankings behind comparisons: ``(ranking, system, rank, weight, row_ranking, alone)``.

    One entry per (ranking, system): the ranking's number (0 …), the system code and its rank
    (1 = best, tied systems share it; 1 + the number of systems preferred to it); per ranking its
    ``weight``; per comparison its ranking (``row_ranking``, −1 for a system against itself); ``alone`` counts the comparisons
    that became rankings of two because their group did not make a whole, consistent ranking (see
    the module doc). A group holding every pair r times (a resample that drew the ranking r
    times) is one ranking of r times the weight. Comparisons of a system with itself are left out."""
    c = comparisons
    keep = np.nonzero(c.a != c.b)[0]
    a, b, outcome = c.a[keep].astype(np.int64), c.b[keep].astype(np.int64), c.outcome[keep]
    weight, group = c.weight[keep], c.group[keep].astype(np.int64)
    n = len(c.systems)
    alone_key = np.max(group, initial=-1) + 1 + np.arange(len(keep))
    key = np.where(group >= 0, group, alone_key)
    whole, copies = _whole_groups(key, a, b, outcome, n)
    broken = (group >= 0) & ~whole
    key = np.where(broken, alone_key, key)
    _, first, key = np.unique(key, return_index=True, return_inverse=True)
    # per (ranking, system): the comparisons it lost; rank = 1 + losses (a whole group's pairs all agree)
    entry, entry_of = np.unique(np.concatenate([key * n + a, key * n + b]), return_inverse=True)
    ea, eb = entry_of[:len(a)], entry_of[len(a):]
    losses = np.bincount(np.concatenate([ea[outcome == 2], eb[outcome == 1]]), minlength=len(entry))
    ranks = 1 + losses
    copies = np.where(broken, 1, copies)[first]  # a ranking drawn r times has each pair r times
    ranking_weight = np.bincount(key, weight) / np.bincount(key) * copies  # Σ weights / distinct pairs
    row_ranking = np.full(len(c), -1, dtype=np.int64)
    row_ranking[keep] = key
    return entry // n, entry % n, ranks, ranking_weight, row_ranking, int(broken.sum())


def _whole_groups(key, a, b, outcome, n):
    """Per comparison: whether its group compares each pair of its systems the same number of
    times r (once, or r times when a resample drew the ranking r times), every copy in one
    consistent weak order (checked against rank = 1 + losses); and per comparison that r."""
    _, pair_key = np.unique(key, return_inverse=True)
    groups = pair_key.max() + 1 if len(key) else 0
    pairs = np.bincount(pair_key, minlength=groups)
    entry, entry_of = np.unique(np.concatenate([pair_key * n + a, pair_key * n + b]), return_inverse=True)
    members = np.bincount(entry // n, minlength=groups)
    unordered, copies = np.unique(pair_key * n * n + np.minimum(a, b) * n + np.maximum(a, b), return_counts=True)
    owner = unordered // (n * n)
    distinct = np.bincount(owner, minlength=groups)
    fewest, most = np.full(groups, np.iinfo(np.int64).max), np.zeros(groups, dtype=np.int64)
    np.minimum.at(fewest, owner, copies)
    np.maximum.at(most, owner, copies)
    ea, eb = entry_of[:len(a)], entry_of[len(a):]
    losses = np.bincount(np.concatenate([ea[outcome == 2], eb[outcome == 1]]), minlength=len(entry))
    expected = np.where(losses[ea] < losses[eb], 1, np.where(losses[ea] > losses[eb], 2, 0))
    agrees = np.bincount(pair_key, expected == outcome, minlength=groups) == pairs
    whole = (distinct == members * (members - 1) // 2) & (fewest == most) & agrees
    return whole[pair_key], most[pair_key]


def stages(ranking, system, rank, n_systems):
    """The sufficient statistics as linear maps of the rankings' weights: ``theta_map`` (systems ×
    rankings: Σ 1/|G| over the chosen classes G holding the system), ``tie_map`` (tie order t ×
    rankings: how many chosen classes have t systems), and the distinct sets of systems left at
    a stage with ≥ 2 left (``sets``: (sets, width) codes padded with −1) with ``set_map`` (sets ×
    rankings: how often the ranking leaves that set). With weights w: T_θ = theta_map @ w, etc."""
    n_rankings = int(ranking.max()) + 1 if len(ranking) else 0
    order = np.lexsort((system, rank, ranking))
    ranking, system, rank = ranking[order], system[order], rank[order]
    start = np.flatnonzero(np.r_[True, ranking[1:] != ranking[:-1]])
    length = np.diff(np.r_[start, len(ranking)])
    end = np.repeat(start + length, length)
    first = np.r_[True, (ranking[1:] != ranking[:-1]) | (rank[1:] != rank[:-1])][:len(ranking)]
    level = np.cumsum(first) - 1
    size = np.bincount(level)  # systems per tie class
    left = end - np.arange(len(ranking))  # systems left when this entry's class is chosen
    chosen = first & (left >= 2)  # a stage (with one system left there is no choice)
    in_stage = chosen[np.flatnonzero(first)][level]
    theta_map = csr_matrix((1.0 / size[level][in_stage], (system[in_stage], ranking[in_stage])),
                           shape=(n_systems, n_rankings))
    heads = np.flatnonzero(chosen)
    tie_map = csr_matrix((np.ones(len(heads)), (size[level[heads]], ranking[heads])),
                         shape=(int(size.max(initial=1)) + 1, n_rankings))
    width = int(left[heads].max()) if len(heads) else 0
    offsets = heads[:, None] + np.arange(width)
    valid = np.arange(width) < left[heads][:, None]
    sets = np.where(valid, system[np.minimum(offsets, max(len(system) - 1, 0))], n_systems)
    sets = np.sort(sets, axis=1)
    sets[sets == n_systems] = -1
    distinct, inverse = np.unique(sets, axis=0, return_inverse=True)
    set_map = csr_matrix((np.ones(len(heads)), (inverse.ravel(), ranking[heads])), shape=(len(distinct), n_rankings))
    return theta_map, tie_map, distinct, set_map


def alternatives(sets, orders):
    """Every subset S of each set with |S| in ``orders``: (set index, members (alt, D) padded
    with −1, |S|), sorted by set."""
    width = max(orders)
    if not len(sets):
        return np.zeros(0, dtype=np.int64), np.zeros((0, width), dtype=np.int64), np.zeros(0, dtype=np.int64)
    sizes = (sets >= 0).sum(axis=1)
    total = sum(comb(int(s), t) * int(np.sum(sizes == s)) for s in np.unique(sizes) for t in orders)
    if total > MAX_ALTERNATIVES:
        raise ValueError(f"the rankings' tie classes (up to {width} systems) and sizes (up to {sizes.max()}) give "
                         f"{total:,} subsets to enumerate, more than {MAX_ALTERNATIVES:,}")
    owner, members, order = [], [], []
    for s in np.unique(sizes):
        rows = np.flatnonzero(sizes == s)
        for t in orders:
            if t > s:
                continue
            combo = np.array(list(combinations(range(s), t)))
            picked = sets[rows][:, combo].reshape(-1, t)
            owner.append(np.repeat(rows, len(combo)))
            members.append(np.pad(picked, ((0, 0), (0, width - t)), constant_values=-1))
            order.append(np.full(len(picked), t))
    owner, members, order = np.concatenate(owner), np.concatenate(members), np.concatenate(order)
    sort = np.argsort(owner, kind="stable")
    return owner[sort], members[sort], order[sort]


class PlackettLuce(PreferenceModel):
    """Plackett–Luce with ties (Davidson–Luce) on the rankings behind the comparisons (see the
    module doc). ``scores_`` are log-worths θ (mean 0 over the rated systems), ``delta_`` the tie
    parameters {t: δ_t}, ``rankings_`` how many rankings of each size were fitted, ``pairs_alone_``
    how many comparisons of incomplete groups counted as rankings of two."""

    bootstrap_unit = "ranking"  # by="comparison" resamples whole rankings (``bootstrap_scores``)
    weighted = True  # a ranking counts by its comparisons' weights (weak_orders)

    def __init__(self, l2: float = L2, predict: str = "marginal", max_iter: int = 100, tol: float = 1e-10):
        self.l2 = l2
        self.predict = predict
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, data) -> "PlackettLuce":
        """Fit comparisons (or a ``Rankings`` table, expanded first)."""
        return super().fit(data.expand() if isinstance(data, Rankings) else data)

    def _fit(self, c: Comparisons) -> None:
        if not self.l2 >= 0:
            raise ValueError(f"l2 is a prior precision, 0 or more, not {self.l2!r}")
        if self.predict not in ("marginal", "pair"):
            raise ValueError(f"predict must be 'marginal' or 'pair', not {self.predict!r}")
        n = len(self.systems_)
        ranking, system, rank, weight, row_ranking, alone = weak_orders(c)
        rated = np.bincount(system, minlength=n) > 0
        if self.l2 <= 0:  # maximum likelihood: finite only on a strongly connected graph, as for BT
            parts = _PairModel._components(*pair_cells(c, n)[:3], rated)
            if len(parts) > 1:
                raise DisconnectedError([[self.systems_[i] for i in p] for p in parts])
        self.pairs_alone_ = alone
        self.rankings_ = dict(zip(*(x.tolist() for x in np.unique(np.bincount(ranking), return_counts=True))))
        theta_map, tie_map, sets, set_map = stages(ranking, system, rank, n)
        tie_stat = tie_map @ weight
        self.rated_ = rated
        idx = np.flatnonzero(rated)
        m = len(idx)
        orders = [1] + [t for t in range(2, len(tie_stat)) if tie_stat[t] > 0]
        self.orders_ = tuple(orders)
        local = np.full(n, -1)
        local[idx] = np.arange(m)
        stat_map = vstack([theta_map[idx], tie_map[orders[1:]]]).tocsr()
        member = csr_matrix((np.ones(int((sets >= 0).sum())), (np.nonzero(sets >= 0)[0], sets[sets >= 0])),
                            shape=(len(sets), n))
        self._resampling = (stat_map, set_map, member, weight, row_ranking)
        self._problem = _Problem(stat_map @ weight, sets, set_map @ weight, local, m, orders, self.l2)
        beta = self._problem.solve(self.max_iter, self.tol)
        self._beta = beta
        theta = np.full(n, np.nan)
        theta[idx] = beta[:m] - beta[:m].mean()
        self.theta_ = theta
        self.log_delta_ = dict(zip(orders[1:], beta[m:].tolist()))
        self.delta_ = {t: float(np.exp(v)) for t, v in self.log_delta_.items()}
        self.log_likelihood_ = float(self._problem.log_likelihood(beta))
        self.scores_ = self._series(theta)
        self.scores_std_ = self._series(self._std(beta, idx), name="std")
        self._pair_table = False  # computed at the first prediction

    def bootstrap_scores(self, comparisons: Comparisons, unit: np.ndarray | None, n: int, rng,
                         progress=None) -> np.ndarray:
        """Bootstrap by resampling whole rankings (see ``Ranker.bootstrap_scores``): with ``unit``
        None (``by="comparison"``) each ranking is a unit all the same, since its comparisons are
        one judgment and the model is fitted on the ranking, not on them; else each ranking goes
        with the unit of its comparisons. The sufficient statistics are linear in
        the rankings' weights (``stages``), so a resample is a reweighting refitted by Newton's
        method from the full-data estimate, nothing rebuilt. NaN for systems a resample leaves
        out and, with ``l2=0``, outside its largest strongly connected part."""
        self._check_fitted()
        stat_map, set_map, member, weight, row_ranking = self._resampling
        if len(comparisons) != len(row_ranking) or not np.array_equal(comparisons.systems, self.systems_):
            raise ValueError("bootstrap_scores takes the comparisons the model was fitted on")
        kept = row_ranking >= 0
        source = np.zeros(len(weight), dtype=np.int64)
        source[row_ranking[kept]] = np.flatnonzero(kept)
        _, of = np.unique(np.arange(len(weight)) if unit is None else unit[source], return_inverse=True)
        units = int(of.max()) + 1 if len(of) else 0
        problem, m = self._problem, self._problem.m
        idx = np.flatnonzero(self.rated_)
        if self.l2 <= 0:
            a, b, _, row_cell = pair_cells(comparisons, len(self.systems_))
        full = (problem.stat, problem.set_weight)
        out = np.full((n, len(self.systems_)), np.nan)
        try:
            for i in range(n):
                w = weight * np.bincount(rng.integers(0, units, units), minlength=units)[of]
                problem.stat, problem.set_weight = stat_map @ w, set_map @ w
                present = (member.T @ problem.set_weight)[idx] > 0
                if self.l2 <= 0:
                    rows = row_cell >= 0
                    counts = np.bincount(row_cell[rows] * 3 + comparisons.outcome[rows],
                                         w[row_ranking[rows]] > 0, minlength=3 * len(a)).reshape(-1, 3)
                    rated = np.zeros(len(self.systems_), dtype=bool)
                    rated[idx[present]] = True
                    largest = np.zeros(len(self.systems_), dtype=bool)
                    largest[_PairModel._components(a, b, counts, rated)[0]] = True
                    present &= largest[idx]
                beta = problem.solve(self.max_iter, 1e-8, start=self._beta)
                theta = beta[:m][present]
                out[i, idx[present]] = theta - theta.mean()
                if progress and ((i + 1) % 100 == 0 or i + 1 == n):
                    progress(i + 1, n)
        finally:
            problem.stat, problem.set_weight = full
        return out

    def _std(self, beta, idx) -> np.ndarray:
        """Laplace standard errors: θ block of (H + 11ᵀ/m)⁻¹ − 11ᵀ/m (tie parameters profiled in)."""
        std = np.full(len(self.systems_), np.nan)
        m = len(idx)
        if m == 0:
            return std
        _, _, H = self._problem.derivatives(beta)
        try:
            inverse = np.linalg.inv(H)
        except np.linalg.LinAlgError:
            inverse = np.linalg.pinv(H)
        std[idx] = np.sqrt(np.clip(np.diag(inverse[:m, :m] - 1.0 / m), 0, None))
        return std

    def _proba(self, a, b):
        """P(tie), P(a preferred), P(b preferred): the pair form (``predict="pair"``, or rankings
        of two in training), else the marginal in a ranking of the usual size (``_marginal``)."""
        if self._pair_table is False:
            self._pair_table = self._marginals()
        if self._pair_table is None:
            return pair_form(np.nan_to_num(self.theta_[a] - self.theta_[b]), self.log_delta_.get(2, -np.inf))
        return self._pair_table[a, b]

    def _marginals(self) -> np.ndarray | None:
        """(n, n, 3) pair probabilities marginal over the rankings the pair is usually judged in:
        k = the most common ranking size (at most ``MAX_CONTEXT``), the k − 2 others drawn at
        random (``CONTEXTS`` draws, a fixed seed) from the rated systems; every weak order of the
        k systems enumerated, P(a above b), P(tie), P(b above a) summed and averaged over the
        draws. None when k = 2 (the pair form is exact) or ``predict="pair"``."""
        sizes = self.rankings_
        k = min(max(sizes, key=lambda size: (sizes[size], size)) if sizes else 2, MAX_CONTEXT)
        idx = np.flatnonzero(self.rated_)
        k = min(k, len(idx))
        if self.predict == "pair" or k <= 2:
            return None
        theta = np.nan_to_num(self.theta_)
        i, j = np.triu_indices(len(idx), 1)
        rng = np.random.default_rng(0)
        keys = rng.random((len(i), CONTEXTS, len(idx)))
        keys[np.arange(len(i)), :, i] = keys[np.arange(len(i)), :, j] = 2.0  # never drawn as context
        others = idx[np.argsort(keys, axis=2)[:, :, :k - 2]]
        context = np.concatenate([np.broadcast_to(idx[i][:, None, None], (len(i), CONTEXTS, 1)),
                                  np.broadcast_to(idx[j][:, None, None], (len(i), CONTEXTS, 1)), others], axis=2)
        orders, rows = _orders_of(k, self.orders_), theta[context.reshape(-1, k)]
        block = max(1, 20_000_000 // len(orders.chosen))  # contexts at a time: (block, weak orders) in memory
        pair = np.concatenate([orders.relations(rows[i:i + block], self.log_delta_) for i in range(0, len(rows), block)])
        pair = pair.reshape(len(i), CONTEXTS, 3).mean(axis=1)
        n = len(self.systems_)
        table = np.tile(pair_form(np.zeros(1), self.log_delta_.get(2, -np.inf)), (n, n, 1))  # unrated: θ = mean
        table[idx[i], idx[j]] = pair
        table[idx[j], idx[i]] = pair[:, [0, 2, 1]]
        for s in idx:  # a system against itself: as against an equal
            table[s, s] = pair_form(np.zeros(1), self.log_delta_.get(2, -np.inf))[0]
        return table


def pair_form(x, log_nu) -> np.ndarray:
    """Davidson–Luce for two systems, x = θ_a − θ_b: (ν, e^{x/2}, e^{−x/2}) / (e^{x/2} + e^{−x/2} + ν),
    ν = δ_2 (Davidson 1970)."""
    u = np.asarray(x, dtype=float) / 2
    log_d = np.logaddexp(np.logaddexp(u, -u), log_nu)
    return np.exp(np.column_stack([np.full(len(u), log_nu) - log_d, u - log_d, -u - log_d]))


@lru_cache(maxsize=16)
def _orders_of(k: int, orders: tuple) -> "_WeakOrders":
    return _WeakOrders(k, orders)


class _WeakOrders:
    """Every weak order (ordered partition) of k items whose classes have sizes in ``orders``,
    as stage matrices over the 2^k − 1 non-empty subsets (bit masks): chosen[p, S] counts S as a
    chosen class of order p, left[p, R] counts R as a set left at one of its stages; ``relation``
    says where items 0 and 1 fall (0 tied, 1 item 0 above, 2 item 1 above)."""

    def __init__(self, k, orders):
        full = (1 << k) - 1
        size = np.array([bin(s).count("1") for s in range(1, full + 1)])
        self.allowed = np.isin(size, orders)
        self.mean = np.array([[(s >> i & 1) / size[s - 1] for i in range(k)] for s in range(1, full + 1)])
        self.size = size
        self.inside = np.array([[(s & ~r) == 0 for s in range(1, full + 1)] for r in range(1, full + 1)], dtype=float)
        chosen, left, relation = [], [], []

        def walk(remaining, classes):
            if not remaining:
                c, lft = np.zeros(full), np.zeros(full)
                rest = full
                for g in classes:
                    c[g - 1] += 1
                    lft[rest - 1] += 1
                    rest &= ~g
                place = [next(n for n, g in enumerate(classes) if g >> item & 1) for item in (0, 1)]
                chosen.append(c), left.append(lft)
                relation.append(0 if place[0] == place[1] else 1 if place[0] < place[1] else 2)
                return
            sub = remaining
            while sub:
                if self.allowed[sub - 1]:
                    walk(remaining & ~sub, classes + [sub])
                sub = (sub - 1) & remaining

        walk(full, [])
        self.chosen, self.left = np.array(chosen), np.array(left)
        self.relation = np.eye(3)[relation]

    def relations(self, theta, log_delta) -> np.ndarray:
        """(contexts, 3) P(tie), P(item 0 above), P(item 1 above) for rows of k abilities."""
        tie = np.array([0.0 if t == 1 else log_delta.get(t, -np.inf) for t in self.size])
        log_f = theta @ self.mean.T + np.where(self.allowed, tie, -np.inf)  # (contexts, subsets)
        top = log_f.max(axis=1, keepdims=True)
        log_norm = top + np.log(np.exp(log_f - top) @ self.inside.T)  # every set holds its singletons: > 0
        log_f = np.where(self.allowed, log_f, 0.0)  # never chosen: keep 0 · (−inf) out of the product
        log_p = log_f @ self.chosen.T - log_norm @ self.left.T  # (contexts, weak orders)
        return np.exp(log_p) @ self.relation


class _Problem:
    """The log posterior on sufficient statistics: β = (θ of the rated systems, log δ_t for the
    observed tie orders t ≥ 2); value, gradient and negative Hessian; Newton's method."""

    def __init__(self, stat, sets, set_weight, local, m, orders, l2):
        self.stat, self.set_weight, self.m, self.l2 = stat, set_weight, m, l2
        owner, members, order = alternatives(sets, orders)
        self.owner = owner
        self.starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])[:len(owner)]
        # x_S: 1/|S| in the column of each member's θ, 1 in the column of log δ_|S| (|S| ≥ 2)
        row, slot = np.nonzero(members >= 0)
        tied = np.flatnonzero(order > 1)
        rows = np.concatenate([row, tied])
        cols = np.concatenate([local[members[row, slot]], m + np.searchsorted(orders[1:], order[tied])])
        values = np.concatenate([1.0 / order[row], np.ones(len(tied))])
        sort = np.argsort(rows, kind="stable")
        self.rows, self.cols, self.values = rows[sort], cols[sort], values[sort]
        self.size, self.n_alt, self.n_sets = m + len(orders) - 1, len(owner), len(set_weight)
        # the Hessian Σ_r w_r p_r x_r x_rᵀ as one bincount: every pair of non-zeros within a row
        per_row = np.bincount(self.rows, minlength=self.n_alt)
        first = np.r_[0, np.cumsum(per_row)[:-1]]
        k = np.repeat(np.arange(len(self.rows)), per_row[self.rows])
        partner = first[self.rows[k]] + (np.arange(len(k)) - np.repeat(np.r_[0, np.cumsum(per_row[self.rows])[:-1]],
                                                                         per_row[self.rows]))
        self.pair_row = self.rows[k]
        self.pair_cell = self.cols[k] * self.size + self.cols[partner]
        self.pair_value = self.values[k] * self.values[partner]

    def _log_norm(self, eta):
        """log Σ_{S ⊆ A} e^{η_S} per set A (alternatives sorted by set)."""
        if not len(eta):
            return np.zeros(0)
        top = np.maximum.reduceat(eta, self.starts)
        return top + np.log(np.add.reduceat(np.exp(eta - top[self.owner]), self.starts))

    def _eta(self, beta):
        """η_S = x_S·β for every alternative."""
        return np.bincount(self.rows, beta[self.cols] * self.values, minlength=self.n_alt)

    def log_likelihood(self, beta):
        eta = self._eta(beta)
        return self.stat @ beta - self.set_weight @ self._log_norm(eta)

    def objective(self, beta):
        theta = beta[:self.m]
        return self.log_likelihood(beta) - self.l2 / 2 * np.sum((theta - theta.mean()) ** 2)

    def derivatives(self, beta):
        """Value, gradient and negative Hessian of the log posterior, the common shift of θ fixed
        by adding 11ᵀ/m to the θ block."""
        m = self.m
        P = self.size
        eta = self._eta(beta)
        log_norm = self._log_norm(eta)
        p = np.exp(eta - log_norm[self.owner])
        wp = p * self.set_weight[self.owner]
        mean = np.bincount(self.owner[self.rows] * P + self.cols, p[self.rows] * self.values,
                           minlength=self.n_sets * P).reshape(-1, P)  # E_p[x] per set
        grad = self.stat - np.bincount(self.cols, wp[self.rows] * self.values, minlength=P)
        H = np.bincount(self.pair_cell, wp[self.pair_row] * self.pair_value, minlength=P * P).reshape(P, P)
        H -= (mean.T * self.set_weight) @ mean
        theta = beta[:m]
        grad[:m] -= self.l2 * (theta - theta.mean())
        H[:m, :m] += self.l2 * (np.eye(m) - 1.0 / m) + 1.0 / m
        value = self.stat @ beta - self.set_weight @ log_norm - self.l2 / 2 * np.sum((theta - theta.mean()) ** 2)
        return value, grad, H

    def solve(self, max_iter, tol, start=None):
        beta = np.zeros(len(self.stat)) if start is None else start.copy()
        if self.m == 0:
            return beta

        def bound(x):  # log δ within ±TIE_BOUND
            x[self.m:] = np.clip(x[self.m:], -TIE_BOUND, TIE_BOUND)
            return x

        return newton_ascent(self.derivatives, self.objective, beta, bound, max_iter, tol)
