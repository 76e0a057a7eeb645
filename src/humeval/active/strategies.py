"""Strategies that choose the next judgments, behind one interface: ``next_batch(state, n, rng)``
returns an (n, 2) array of system pairs to ask about (or, for ``RandomRankings``, the study asks
the environment for whole k-way rankings), and ``update(state, a, b, outcome)`` updates the
strategy's own model online after the answers arrive.

- ``UniformPairs``: pairs of distinct systems uniformly at random (the baseline).
- ``RandomRankings``: WMT's random 5-way batches (each ranking gives 10 comparisons).
- ``TrueSkillActive``: Sakaguchi, Post & Van Durme (2014): the system with the largest TrueSkill
  σ, against an opponent drawn with probability ∝ exp(−|μ_s − μ_t|); TrueSkill updated after
  every judgment (within a batch, a chosen system's σ is discounted so the batch spreads).
- ``BTUncertainty``: Bradley–Terry warm-started (one step of the one Newton solver,
  ``ranking.newton``, per batch from the last estimate, on the BT family's log posterior with a
  small ridge as its prior), and pairs drawn with probability ∝ exp(−z²/2), z = |θ_s − θ_t| /
  sd(θ_s − θ_t) from the inverse Hessian (``kind="order"``: whose order is least settled), or
  z = |θ_s − θ_t| alone (``kind="outcome"``: whose outcome is most uncertain).

Only pairs the environment can still answer are chosen (``state.available``).

``GRMUncertainty`` serves the GRM design against a fixed baseline (``study.baseline_study``): it
chooses (system, segment) judgments, the system with the least certain θ first.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


class PairState:
    """The judgments so far: counts per ordered pair and, for the environment, what is available."""

    def __init__(self, n: int, available=None):
        self.n = n
        self.wins = np.zeros((n, n))  # wins[s, t]: s preferred to t (ties: half each)
        self.count = np.zeros((n, n))  # symmetric: comparisons of s and t
        self.a, self.b, self.outcome = [], [], []
        self.available = available  # callable → (n, n) bool, or None (everything)

    def add(self, a, b, outcome):
        w = np.where(outcome == 1, 1.0, np.where(outcome == 0, 0.5, 0.0))
        np.add.at(self.wins, (a, b), w)
        np.add.at(self.wins, (b, a), 1 - w)
        np.add.at(self.count, (a, b), 1)
        np.add.at(self.count, (b, a), 1)
        self.a.append(a)
        self.b.append(b)
        self.outcome.append(outcome)

    @property
    def size(self) -> int:
        return int(sum(len(x) for x in self.a))

    def mask(self) -> np.ndarray:
        m = ~np.eye(self.n, dtype=bool)
        return m & self.available() if self.available is not None else m

    def arrays(self):
        return np.concatenate(self.a), np.concatenate(self.b), np.concatenate(self.outcome)


def _draw_pairs(weights: np.ndarray, n: int, rng) -> np.ndarray:
    w = np.triu(weights, 1).ravel()
    if w.sum() <= 0:
        return np.zeros((0, 2), dtype=np.int64)
    cells = rng.choice(len(w), size=n, p=w / w.sum())
    s, t = np.divmod(cells, weights.shape[0])
    flip = rng.random(n) < 0.5  # random order of presentation
    return np.column_stack([np.where(flip, t, s), np.where(flip, s, t)])


class Strategy(ABC):
    name = "strategy"
    kind = "pairs"

    def reset(self, n: int):
        """Forget everything: a new campaign of ``n`` systems."""

    def update(self, state: PairState, a, b, outcome):
        """Take in the answers to the last batch (online models update here)."""

    @abstractmethod
    def next_batch(self, state: PairState, n: int, rng) -> np.ndarray:
        """(≤ n, 2) pairs of system codes to ask about next."""


class UniformPairs(Strategy):
    name = "uniform pairs"

    def next_batch(self, state, n, rng):
        return _draw_pairs(state.mask().astype(float), n, rng)


class RandomRankings(Strategy):
    name = "random 5-way rankings"
    kind = "rankings"

    def __init__(self, k: int = 5):
        self.k = k

    def next_batch(self, state, n, rng):
        return np.zeros((0, 2), dtype=np.int64)  # the study asks the environment for rankings


class TrueSkillActive(Strategy):
    name = "TrueSkill active (Sakaguchi et al.)"

    def __init__(self, mu: float = 0.0, sigma: float = 0.5, expected_matches: int = 4000):
        self.mu0, self.sigma0, self.expected = mu, sigma, expected_matches
        self._settings = None  # (beta, tau, margin): at the first update

    def reset(self, n):
        self.mu, self.sigma = np.full(n, self.mu0), np.full(n, self.sigma0)

    def _rates(self):
        """(beta, tau, margin) of ``TrueSkill(mu, sigma)`` for ``expected_matches``: computed at the
        first update, not at ``reset``, so a server whose campaign has no pairwise answer yet has not
        loaded the ranking package (``next_batch`` needs only μ and σ)."""
        if self._settings is None:
            from humeval.ranking.trueskill import TrueSkill
            settings = TrueSkill(mu=self.mu0, sigma=self.sigma0)
            beta, margin = settings._settings(self.expected)
            self._settings = (beta, settings.tau, margin)
        return self._settings

    def update(self, state, a, b, outcome):
        from humeval.ranking._trueskill_kernel import rate_pair
        beta, tau, margin = self._rates()
        for s, t, o in zip(a, b, outcome):
            rate_pair(self.mu, self.sigma, int(s), int(t), int(o), beta, tau, margin)

    def next_batch(self, state, n, rng):
        mask = state.mask()
        sigma = self.sigma.copy()
        sigma[~mask.any(axis=1)] = -1.0
        pairs = []
        for _ in range(n):
            s = int(np.argmax(sigma))
            if sigma[s] < 0:
                break
            w = np.where(mask[s], np.exp(-np.abs(self.mu[s] - self.mu)), 0.0)
            t = int(rng.choice(len(w), p=w / w.sum()))
            pairs.append((s, t) if rng.random() < 0.5 else (t, s))
            sigma[s] *= 0.8  # spread the batch: the next pick goes to the next most uncertain system
        return np.array(pairs, dtype=np.int64).reshape(-1, 2)


class BTUncertainty(Strategy):
    def __init__(self, kind: str = "order", ridge: float = 0.1):
        if kind not in ("order", "outcome"):
            raise ValueError(f"kind must be 'order' or 'outcome', not {kind!r}")
        self.kind_ = kind
        self.ridge = ridge
        self.name = "BT uncertainty (" + ("order" if kind == "order" else "outcome") + ")"

    def reset(self, n):
        self.theta = np.zeros(n)
        self.cov = np.eye(n) / self.ridge

    def update(self, state, a, b, outcome):
        """One step of the one Newton solver (``ranking.newton.line_search``) on the Bradley–Terry
        log posterior with prior precision ``ridge`` (``bradley_terry.pair_derivatives``, on the
        pair counts, ties half a win each) from the last estimate (warm start); ``cov`` is the
        inverse negative Hessian there."""
        from humeval.ranking.bradley_terry import pair_derivatives, pair_objective
        from humeval.ranking.links import LINKS
        from humeval.ranking.newton import line_search
        logit = LINKS["logit"]
        s, t = np.triu_indices(state.n, 1)
        counts = np.column_stack([np.zeros(len(s)), state.wins[s, t], state.wins[t, s]])  # (tie, s, t)
        fixed = (s, t, counts, None)
        prior = (np.zeros(0), 0.0, self.ridge)

        def objective(theta):
            return pair_objective(logit, *fixed, theta, *prior)

        gradient, hessian = pair_derivatives(logit, *fixed, self.theta, *prior)
        self.cov = np.linalg.inv(hessian)
        self.theta = line_search(objective, objective(self.theta), self.theta, self.cov @ gradient)

    def next_batch(self, state, n, rng):
        diff = np.abs(self.theta[:, None] - self.theta[None, :])
        if self.kind_ == "order":
            var = np.diag(self.cov)[:, None] + np.diag(self.cov)[None, :] - 2 * self.cov
            diff = diff / np.sqrt(np.maximum(var, 1e-12))
        return _draw_pairs(np.where(state.mask(), np.exp(-diff ** 2 / 2), 0.0), n, rng)


STRATEGIES = {"uniform": UniformPairs, "rankings": RandomRankings, "trueskill": TrueSkillActive,
              "bt-order": lambda: BTUncertainty("order"), "bt-outcome": lambda: BTUncertainty("outcome")}


def make_strategy(name: str) -> Strategy:
    if name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}; choose from {', '.join(STRATEGIES)}")
    return STRATEGIES[name]()


class GRMUncertainty:
    """The GRM paper's §5 proposal for the baseline design: the next system to evaluate is the one
    whose ability is least certain (largest posterior SD of θ, ``model.scores_std_``), and its
    judgment goes to the segment most informative at its current θ (``informative_pairs``).

    ``choose(model, n, rng)`` → (system codes, segment codes) for ``n`` judgments: each pick goes to
    the system with the least posterior precision 1/SD², whose precision then grows by the
    information of its best segment (so a batch spreads over the uncertain systems); systems never
    judged come first. Segments never judged take the model's mean thresholds."""

    name = "GRM uncertainty"

    def __init__(self, systems, segments):
        self.systems = list(systems)  # the environment's systems, without the baseline
        self.segments = list(segments)

    def choose(self, model, n: int, rng):
        from humeval.active.study import informative_pairs
        from humeval.ranking.grm import _information
        theta = np.nan_to_num(model.scores_.reindex(self.systems).to_numpy(dtype=float))
        sd = model.scores_std_.reindex(self.systems).to_numpy(dtype=float)
        precision = np.where(np.isnan(sd), 0.0, 1 / np.where(np.isnan(sd), 1.0, sd) ** 2)
        seg = model.segment_thresholds_.reindex(self.segments)
        b1 = seg["b1"].fillna(seg["b1"].mean()).to_numpy(dtype=float)
        b2 = seg["b2"].fillna(seg["b2"].mean()).to_numpy(dtype=float)
        a = float(np.nanmean(model.judge_sensitivity_))
        best = _information(theta[:, None], a, b1[None, :], b2[None, :]).max(axis=1)
        system = np.empty(n, dtype=np.int64)
        for t in range(n):
            i = int(np.argmin(precision + rng.random(len(precision)) * 1e-9))
            system[t] = i
            precision[i] += best[i]
        return informative_pairs(theta, b1, b2, a, n, rng, system=system)
