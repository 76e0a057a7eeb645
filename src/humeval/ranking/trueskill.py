"""TrueSkill (Herbrich, Minka & Graepel 2007) as the WMT14–16 campaigns ran it (Sakaguchi, Post &
Van Durme 2014), and online Elo.

WMT's settings are the defaults: every system starts at μ = 0, σ = 0.5; τ = 0; draw probability
0.25; and β = σ · (number of matches / 40), as in the WMT scripts (``beta=None``; pass a number
to fix it). The draw margin is ε = Φ⁻¹((p_draw + 1) / 2) · √2 · β. Matches are replayed in data
order (``order="data"``), in a random order (``"random"``), or chosen actively (``"active"``,
Sakaguchi's strategy: the system with the largest σ against an opponent drawn ∝ exp(−|μa − μb|),
replaying a random observed judgment of that pair). Fitting ``Rankings`` instead of
``Comparisons`` plays each k-way ranking as one free-for-all match with ties.

The updates are compiled (numba) and agree with the reference ``trueskill`` package run with its
exact ``scipy`` backend to 1e-13 (its default backend approximates erfc to about 1e-7).
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
from scipy.special import ndtri

from humeval.data.tables import Comparisons, Rankings
from humeval.ranking import _trueskill_kernel as kernel
from humeval.ranking.base import PreferenceModel
from humeval.ranking.irt import thurstone_proba

ORDERS = ("data", "random", "active")


def draw_margin(draw_probability: float, beta: float, players: int = 2) -> float:
    """ε = Φ⁻¹((p + 1) / 2) · √players · β: the performance gap below which a match is a draw."""
    return float(ndtri((draw_probability + 1) / 2) * np.sqrt(players) * beta)


def pair_index(comparisons: Comparisons, n: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR lists of the comparisons of every ordered pair of systems (both orders listed under
    both cells): rows of (s, t) are ``rows[start[s*n+t]:start[s*n+t+1]]``."""
    cell = np.concatenate([comparisons.a.astype(np.int64) * n + comparisons.b,
                           comparisons.b.astype(np.int64) * n + comparisons.a])
    rows = np.concatenate([np.arange(len(comparisons))] * 2)
    order = np.argsort(cell, kind="stable")
    start = np.zeros(n * n + 1, dtype=np.int64)
    np.cumsum(np.bincount(cell, minlength=n * n), out=start[1:])
    return start, rows[order]


class TrueSkill(PreferenceModel):
    """TrueSkill ratings: ``scores_`` are the means μ, ``scores_std_`` the standard deviations σ.

    ``predict_proba`` is the model's own prediction for a new match: the performance difference
    is N(μa − μb, 2β² + σa² + σb²), a draw when it is within the draw margin ε.
    """

    fast_bootstrap = True
    threaded_bootstrap = True  # its bootstrap runs in compiled threads: ``bootstrap(jobs=)`` sets how many
    # A fit replays the comparisons once, in one order: the bootstrap table shows (and sorts by) the mean
    # over the runs, as WMT's cluster.py printed the mean μ, not one fit beside rows sorted by another number.
    bootstrap_score = "mean"
    orders = ORDERS  # the orders it can play the comparisons in (``order``)

    def __init__(self, mu: float = 0.0, sigma: float = 0.5, beta: float | None = None, tau: float = 0.0,
                 draw_probability: float = 0.25, order: str = "data", n_matches: int | None = None,
                 min_delta: float = 1e-4, random_state=None):
        self.mu = mu
        self.sigma = sigma
        self.beta = beta
        self.tau = tau
        self.draw_probability = draw_probability
        self.order = order
        self.n_matches = n_matches
        self.min_delta = min_delta
        self.random_state = random_state

    def _settings(self, n_matches: int) -> tuple[float, float]:
        beta = self.sigma * (n_matches / 40.0) if self.beta is None else float(self.beta)
        return beta, draw_margin(self.draw_probability, beta)

    def fit(self, data) -> "TrueSkill":
        if self.order not in self.orders:
            raise ValueError(f"order must be one of {self.orders}, not {self.order!r}")
        if isinstance(data, Rankings):
            return self._fit_rankings(data)
        return super().fit(data)

    def _fit(self, c: Comparisons) -> None:
        n = len(self.systems_)
        rng = np.random.default_rng(self.random_state)
        mu, sigma = np.full(n, float(self.mu)), np.full(n, float(self.sigma))
        a, b, outcome = _columns(c)
        if self.order == "active":
            matches = len(c) if self.n_matches is None else int(self.n_matches)
            self.beta_, margin = self._settings(matches)
            start, rows = pair_index(c, n)
            used = kernel.active_play(mu, sigma, a, b, outcome, start, rows, matches, _play_seed(rng),
                                      self.beta_, self.tau, margin, kernel.first_on_ties(n))
            self.n_matches_ = int(used.sum())
        else:
            order = np.arange(len(c)) if self.order == "data" else rng.permutation(len(c))
            if self.n_matches is not None:
                order = order[: int(self.n_matches)]
            self.beta_, margin = self._settings(len(order))
            kernel.play(mu, sigma, a, b, outcome, order, self.beta_, self.tau, margin)
            self.n_matches_ = len(order)
        self._finish(mu, sigma, margin, played=np.bincount(np.concatenate([a, b]), minlength=n) > 0)

    def _fit_rankings(self, r: Rankings) -> "TrueSkill":
        if self.order == "active":
            raise ValueError("active sampling replays pairwise judgments: fit Comparisons (rankings.expand())")
        tracks = np.unique(r.track)
        if len(tracks) > 1:
            raise ValueError("rankings from several tracks: fit one track at a time (rankings.by_track())")
        self.systems_ = tuple(r.systems)
        n = len(self.systems_)
        rng = np.random.default_rng(self.random_state)
        rows = np.arange(len(r)) if self.order == "data" else rng.permutation(len(r))
        if self.n_matches is not None:
            rows = rows[: int(self.n_matches)]
        self.beta_, margin = self._settings(len(rows))
        mu, sigma = np.full(n, float(self.mu)), np.full(n, float(self.sigma))
        played = np.zeros(n, dtype=bool)
        matches = 0
        for i in rows:
            keep = (r.system[i] >= 0) & (r.rank[i] >= 1)
            players = r.system[i][keep].astype(np.int64)
            if len(players) < 2:
                continue
            new_mu, new_sigma = kernel.rate_ranking(mu[players], sigma[players], r.rank[i][keep].astype(np.int64),
                                                    self.beta_, self.tau, margin, self.min_delta)
            mu[players], sigma[players] = new_mu, new_sigma
            played[players] = True
            matches += 1
        self.n_matches_ = matches
        self._finish(mu, sigma, margin, played)
        return self

    def _finish(self, mu, sigma, margin, played):
        self.margin_ = margin
        self.mu_, self.sigma_ = mu, sigma
        self.scores_ = self._series(np.where(played, mu, np.nan))
        self.scores_std_ = self._series(np.where(played, sigma, np.nan), name="std")
        self.scale_ = f"TrueSkill μ (prior μ = {self.mu}, σ = {self.sigma}; β = {self.beta_:.4g})"

    def _proba(self, a, b):
        scale = np.sqrt(2 * self.beta_ ** 2 + self.sigma_[a] ** 2 + self.sigma_[b] ** 2)
        return thurstone_proba(self.mu_[a] - self.mu_[b], scale, self.margin_)

    def bootstrap_scores(self, comparisons: Comparisons, unit, n, rng, progress=None):
        """Compiled bootstrap (``Ranker.bootstrap_scores``): every run replays resampled units in
        the order drawn, or (``order="active"``) refits its resample by active sampling; all runs
        in parallel loops (``_bootstrap``)."""
        unit = np.arange(len(comparisons)) if unit is None else unit
        n_units = int(unit.max()) + 1 if len(unit) else 0
        unit_order = np.argsort(unit, kind="stable")
        unit_start = np.zeros(n_units + 1, dtype=np.int64)
        np.cumsum(np.bincount(unit, minlength=n_units), out=unit_start[1:])
        seeds = rng.integers(1, 2 ** 63, n, dtype=np.int64)
        return self._bootstrap(comparisons, unit_start, unit_order, n_units, seeds, progress)

    def _bootstrap(self, comparisons: Comparisons, unit_start, unit_order, n_units, seeds, progress=None):
        """Fast path for ``bootstrap``: every run replays resampled units in the order drawn
        (``order="active"``: see ``_active_bootstrap``); runs go in blocks (``in_blocks``)."""
        if self.order == "active":
            return self._active_bootstrap(comparisons, unit_start, unit_order, n_units, seeds, progress)
        beta, margin = self._settings(int(unit_start[-1]))
        if n_units >= 2 ** 32:  # the kernel draws units with 32 random bits (``_uniform_below``)
            raise ValueError(f"{n_units:,} resampling units: the compiled bootstrap draws fewer than 2³² units")
        codes = kernel.pack_matches(*_columns(comparisons))
        if n_units == len(comparisons) and np.array_equal(unit_order, np.arange(n_units)):
            unit_order = np.zeros(0, dtype=np.int64)  # unit u is comparison u: the kernel skips the lookup
        return in_blocks(lambda run: kernel.bootstrap_play(
            len(self.systems_), float(self.mu), float(self.sigma), codes, unit_start, unit_order, n_units,
            seeds[run], beta, self.tau, margin)[0], len(seeds), len(self.systems_), progress)

    def _active_bootstrap(self, comparisons: Comparisons, unit_start, unit_order, n_units, seeds,
                          progress=None) -> np.ndarray:
        """Compiled bootstrap of active sampling: run r is exactly the refit
        ``TrueSkill(order="active", random_state=seeds[r], …).fit(comparisons.take(rows))`` of the
        resample ``rows = kernel.resample_rows(seeds[r], unit_start, unit_order, n_units, N)``
        (units of comparisons ``unit_order[unit_start[u]:unit_start[u + 1]]`` drawn with
        replacement), all runs in parallel compiled code (``in_blocks``)."""
        seeds = np.asarray(seeds, dtype=np.int64)
        play_seeds = np.array([_play_seed(np.random.default_rng(int(seed))) for seed in seeds], dtype=np.int64)
        beta = np.nan if self.beta is None else float(self.beta)
        matches = -1 if self.n_matches is None else int(self.n_matches)
        a, b, outcome = _columns(comparisons)
        return in_blocks(lambda run: kernel.bootstrap_active_play(
            len(self.systems_), float(self.mu), float(self.sigma), a, b, outcome, unit_start, unit_order, n_units,
            seeds[run], play_seeds[run], matches, beta, draw_margin(self.draw_probability, 1.0),
            float(self.tau), 0, True, kernel.first_on_ties(len(self.systems_)))[0], len(seeds), len(self.systems_),
            progress)


@contextmanager
def compiled_threads(jobs: int):
    """Run the block inside with ``jobs`` numba threads (0 = every thread numba has, one per core;
    never more than that), then restore the previous count. The compiled bootstrap runs of
    ``TrueSkill`` use it for ``bootstrap(…, jobs=)``: one thread by default, since on a shared
    machine extra threads that find their cores busy make the whole job slower, not faster. Every
    run has its own seed, so the count changes no number."""
    import numba
    pool = numba.config.NUMBA_NUM_THREADS
    wanted = pool if jobs == 0 else max(1, min(int(jobs), pool))
    before = numba.get_num_threads()
    numba.set_num_threads(wanted)
    try:
        yield wanted
    finally:
        numba.set_num_threads(before)


def in_blocks(play, runs: int, n_systems: int, progress=None, block: int = 64) -> np.ndarray:
    """(runs, systems) bootstrap scores from ``play(slice)``, a compiled parallel call for the runs
    in the slice, ``block`` runs at a time: ``progress(done, runs)`` is told after each block and
    Ctrl-C takes effect between blocks (a compiled loop cannot be interrupted). Every run has its
    own seed, so the blocks change nothing in the results."""
    samples = np.empty((runs, n_systems))
    for first in range(0, runs, block):
        run = slice(first, min(first + block, runs))
        samples[run] = play(run)
        if progress:
            progress(run.stop, runs)
    return samples


def _columns(comparisons: Comparisons):
    return (comparisons.a.astype(np.int64), comparisons.b.astype(np.int64), comparisons.outcome.astype(np.int64))


def _play_seed(rng) -> int:
    """The compiled generator's seed for one fit, drawn from the fit's numpy generator."""
    return int(rng.integers(2 ** 63))


class Elo(PreferenceModel):
    """Online Elo, as LLM arenas first reported it: ratings start at ``initial``; after each
    comparison R_a += K (S_a − E_a) with E_a = 1 / (1 + 10^((R_b − R_a) / 400)), S_a = 1, ½, 0.

    Elo has no tie probability of its own: ``predict_proba`` uses the training tie rate t,
    P(a) = (1 − t) E_a. The result depends on the order of the comparisons (``order``).
    """

    fast_bootstrap = True
    orders = ("data", "random")  # active sampling is TrueSkill's (its uncertainty picks the match)

    def __init__(self, k: float = 4.0, initial: float = 1000.0, base: float = 10.0, scale: float = 400.0,
                 order: str = "data", random_state=None):
        self.k = k
        self.initial = initial
        self.base = base
        self.scale = scale
        self.order = order
        self.random_state = random_state

    def _fit(self, c: Comparisons) -> None:
        if self.order not in self.orders:
            raise ValueError(f"order must be one of {self.orders}, not {self.order!r}")
        n = len(self.systems_)
        rating = np.full(n, float(self.initial))
        order = np.arange(len(c)) if self.order == "data" else np.random.default_rng(self.random_state).permutation(len(c))
        kernel.elo_play(rating, c.a.astype(np.int64), c.b.astype(np.int64), c.outcome.astype(np.int64), order,
                        float(self.k), float(self.base), float(self.scale))
        played = np.bincount(np.concatenate([c.a, c.b]), minlength=n) > 0
        self.rating_ = rating
        self.tie_rate_ = float(np.mean(c.outcome == 0))
        self.scores_ = self._series(np.where(played, rating, np.nan))
        self.scale_ = f"Elo points ({self.scale:g} per factor {self.base:g} of odds), start {self.initial:g}, K = {self.k:g}"

    def _proba(self, a, b):
        expected = 1.0 / (1.0 + self.base ** ((self.rating_[b] - self.rating_[a]) / self.scale))
        t = self.tie_rate_
        return np.column_stack([np.full(len(a), t), (1 - t) * expected, (1 - t) * (1 - expected)])
