"""Hopkins & May's (2013, §7) item-response-theoretic models, fitted by Gibbs sampling.

Each system s (a "student") has an ability; each translation it produced of a source segment
is an *item* whose quality is drawn from the system's ability distribution; a judge observes
each of the two items of a comparison with noise and states a preference: none (π = 0) when
the observations differ by no more than the decision radius r, else the better one.

- ``IRTGaussian``: ability μ_s ~ N(0, σ0²), quality q ~ N(μ_s, σa²), observation
  o = q + N(0, σobs²).
- ``IRTCategorical``: quality λ ∈ {1..Λ} ~ Categorical(θ_s), θ_s ~ Dirichlet(αa), observation
  λ + ν ∈ {1..Λ} with P(ν) ∝ the N(0, σobs²) density.

The sampler alternates block updates, each vectorised over all comparisons or items: the first
observations given the second ones (a normal truncated to the region the preference allows,
or a categorical restricted to it), then the second given the first, then every item's quality
given its observations, then every system's ability given its items. Items are (system, segment)
pairs, so a translation judged in several comparisons is one item. After ``burn_in`` sweeps,
each kept sweep gives a preference model for *new* items (the paper's inference query); the
fitted model is their average. Defaults are the paper's (footnotes 10 and 13).

Memory: a sweep's preference model is a function of that sweep's per-system draws (μ for the
Gaussian model, θ for the categorical one), so only those are kept — (kept sweeps × systems)
numbers, or × Λ — and ``predict_proba`` averages the sweeps' models for the pairs it is asked
about, in chunks. No (systems × systems × 3) table is built per sweep (2,000 systems and 150
kept sweeps made that 14 GB); ``proba_matrix`` builds the averaged table once when asked.

``fit(comparisons, progress=None)`` reports each sweep as ``progress(sweep, iterations)`` and
an interrupted fit leaves the model unfitted (``humeval.ranking.progress``).
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr, ndtri

from humeval.data.tables import Comparisons
from humeval.ranking.base import PreferenceModel
from humeval.ranking.progress import ReportsProgress

CHUNK = 2 ** 20  # numbers per block when averaging the sweeps' preference models


def thurstone_proba(diff, scale: float, radius: float) -> np.ndarray:
    """P(tie), P(1), P(2) when o1 − o2 ~ N(diff, scale²) and |o1 − o2| < radius is a tie.

    P(1) = 1 − Φ((r − d)/σ), P(2) = Φ((−r − d)/σ), P(0) = 1 − P(1) − P(2). Shape (..., 3).
    """
    diff = np.asarray(diff, dtype=float)
    p1 = ndtr((diff - radius) / scale)
    p2 = ndtr((-radius - diff) / scale)
    return np.stack([np.clip(1.0 - p1 - p2, 0.0, 1.0), p1, p2], axis=-1)


def item_index(comparisons: Comparisons) -> tuple[np.ndarray, np.ndarray]:
    """Item ids of both sides, (N, 2), and each item's author system. An item is a (system,
    segment) pair; a comparison without a segment gets fresh items of its own."""
    n = len(comparisons)
    segments = len(comparisons.items) + 1
    sides = np.stack([comparisons.a, comparisons.b], axis=1).astype(np.int64)
    seg = np.broadcast_to(comparisons.item[:, None], (n, 2)).astype(np.int64)
    keys = sides * segments + seg
    unknown = seg < 0  # every unknown-segment side becomes a new item
    keys = np.where(unknown, -1 - np.arange(2 * n).reshape(n, 2), keys)
    unique, inverse = np.unique(keys.ravel(), return_inverse=True)
    author = np.empty(len(unique), dtype=np.int64)
    author[inverse] = sides.ravel()
    return inverse.reshape(n, 2), author


class _Gibbs(ReportsProgress, PreferenceModel):
    """Shared sampling loop: subclasses implement ``_init``, ``_sweep``, ``_draw`` (the per-system
    state a kept sweep contributes), ``_score`` (scores from draws) and ``_sweep_proba`` (each
    sweep's preference probabilities for pairs, from draws)."""

    def _fit(self, comparisons: Comparisons) -> None:
        if not 0 <= self.burn_in < self.iterations:
            raise ValueError(f"burn_in ({self.burn_in}) must be below iterations ({self.iterations})")
        rng = np.random.default_rng(self.random_state)
        items, author = item_index(comparisons)
        state = self._init(comparisons.outcome.astype(np.int64), items, author, rng)
        draws = None
        for sweep in range(self.iterations):
            self._sweep(state, rng)
            if sweep >= self.burn_in:
                draw = self._draw(state)
                if draws is None:
                    draws = np.empty((self.iterations - self.burn_in,) + draw.shape)
                draws[sweep - self.burn_in] = draw
            self._report(sweep + 1, self.iterations)
        self._draws = draws
        self.samples_ = self._score(draws)  # (kept sweeps, systems)
        kept = len(self.samples_)
        self.scores_ = self._series(self.samples_.mean(axis=0))
        self.scores_std_ = self._series(self.samples_.std(axis=0, ddof=1) if kept > 1
                                        else np.zeros(len(self.systems_)), name="std")
        self.n_items_ = len(author)

    def _proba(self, a, b):
        """The mean over kept sweeps of each sweep's P(π | a, b), computed once per distinct pair
        and in blocks of about ``CHUNK`` numbers, so memory stays linear in the systems."""
        n = len(self.systems_)
        codes, inverse = np.unique(np.asarray(a, dtype=np.int64) * n + b, return_inverse=True)
        width = int(np.prod(self._draws.shape[2:], dtype=np.int64))  # numbers per system and sweep
        step = max(1, CHUNK // (len(self._draws) * width))
        out = np.empty((len(codes), 3))
        for start in range(0, len(codes), step):
            block = codes[start:start + step]
            out[start:start + step] = self._sweep_proba(self._draws, block // n, block % n).mean(axis=0)
        return out[inverse.ravel()]


def _truncated_normal(rng, mean, sd, lo, hi):
    """Draws from N(mean, sd²) truncated to (lo, hi), by the inverse CDF.

    Bounds in the upper tail are reflected to the lower tail, where Φ keeps its precision.
    """
    a, b = (lo - mean) / sd, (hi - mean) / sd
    flip = a > 0
    a, b = np.where(flip, -b, a), np.where(flip, -a, b)
    pa, pb = ndtr(a), ndtr(b)
    z = ndtri(pa + rng.random(mean.shape) * (pb - pa))
    z = np.clip(np.nan_to_num(z, nan=0.0, posinf=b, neginf=a), a, b)
    return mean + sd * np.where(flip, -z, z)


class IRTGaussian(_Gibbs):
    """Gaussian IRT model (Hopkins & May 2013, §7). ``scores_`` are posterior mean abilities μ_s,
    ``scores_std_`` their posterior standard deviations, ``samples_`` the kept draws.
    ``fit(comparisons, progress=None)``: ``progress(sweep, iterations)`` after every sweep."""

    def __init__(self, sigma0: float = 1.0, sigma_obs: float = 1.0, sigma_a: float = 0.5,
                 radius: float = 0.4, iterations: int = 200, burn_in: int = 50, random_state=None):
        self.sigma0 = sigma0
        self.sigma_obs = sigma_obs
        self.sigma_a = sigma_a
        self.radius = radius
        self.iterations = iterations
        self.burn_in = burn_in
        self.random_state = random_state

    def _init(self, outcome, items, author, rng):
        r = self.radius
        o = np.zeros((len(outcome), 2))
        o[:, 0] = np.select([outcome == 1, outcome == 2], [r + 0.5, -r - 0.5], 0.0)
        return {"outcome": outcome, "items": items, "author": author, "o": o,
                "q": np.zeros(len(author)), "mu": np.zeros(len(self.systems_)),
                "n_obs": np.bincount(items.ravel(), minlength=len(author)),
                "n_items": np.bincount(author, minlength=len(self.systems_))}

    def _sweep(self, st, rng):
        r, so, sa, s0 = self.radius, self.sigma_obs, self.sigma_a, self.sigma0
        o, q, outcome, items = st["o"], st["q"], st["outcome"], st["items"]
        inf = np.inf
        for side, other in ((0, 1), (1, 0)):
            x = o[:, other]
            wins = outcome == (1 if side == 0 else 2)  # this side was preferred
            loses = outcome == (2 if side == 0 else 1)
            lo = np.where(wins, x + r, np.where(loses, -inf, x - r))
            hi = np.where(wins, inf, np.where(loses, x - r, x + r))
            o[:, side] = _truncated_normal(rng, q[items[:, side]], so, lo, hi)
        total = np.bincount(items.ravel(), weights=o.ravel(), minlength=len(q))
        precision = 1 / sa ** 2 + st["n_obs"] / so ** 2
        mean = (st["mu"][st["author"]] / sa ** 2 + total / so ** 2) / precision
        q[:] = mean + rng.standard_normal(len(q)) / np.sqrt(precision)
        total = np.bincount(st["author"], weights=q, minlength=len(st["mu"]))
        precision = 1 / s0 ** 2 + st["n_items"] / sa ** 2
        st["mu"][:] = (total / sa ** 2) / precision + rng.standard_normal(len(st["mu"])) / np.sqrt(precision)

    def _draw(self, st):
        return st["mu"]

    def _score(self, draws):
        return draws

    def _sweep_proba(self, draws, a, b):
        """P(π | a, b) of every sweep, (sweeps, pairs, 3): o_a − o_b ~ N(μa − μb, 2σa² + 2σobs²)."""
        scale = np.sqrt(2 * self.sigma_a ** 2 + 2 * self.sigma_obs ** 2)
        return thurstone_proba(draws[:, a] - draws[:, b], scale, self.radius)


class IRTCategorical(_Gibbs):
    """Categorical IRT model (Hopkins & May 2013, §7). ``scores_`` are posterior means of each
    system's expected item quality E_θ[λ] on the scale 1..Λ. ``fit(comparisons, progress=None)``:
    ``progress(sweep, iterations)`` after every sweep.

    With radius r, a tie is |o1 − o2| ≤ r (with the paper's r = 0: equal observations; a strict
    "<" would make ties impossible).
    """

    def __init__(self, levels: int = 8, sigma_obs: float = 1.0, alpha_a: float = 0.5, radius: float = 0.0,
                 iterations: int = 200, burn_in: int = 50, random_state=None):
        self.levels = levels
        self.sigma_obs = sigma_obs
        self.alpha_a = alpha_a
        self.radius = radius
        self.iterations = iterations
        self.burn_in = burn_in
        self.random_state = random_state

    def _noise(self) -> np.ndarray:
        """M[λ, o] = P(observation o | quality λ), o and λ in 0..Λ−1."""
        grid = np.arange(self.levels)
        density = np.exp(-0.5 * ((grid[None, :] - grid[:, None]) / self.sigma_obs) ** 2)
        return density / density.sum(axis=1, keepdims=True)

    def _init(self, outcome, items, author, rng):
        levels = self.levels
        if levels - 1 <= self.radius:
            raise ValueError(f"radius {self.radius} leaves no room for a preference with {levels} levels")
        noise = self._noise()
        o = np.full((len(outcome), 2), levels // 2, dtype=np.int64)
        o[outcome == 1] = (levels - 1, 0)
        o[outcome == 2] = (0, levels - 1)
        grid = np.arange(levels)
        return {"outcome": outcome, "items": items, "author": author, "o": o, "noise": noise,
                "log_noise": np.log(noise), "grid": grid,
                "lam": np.full(len(author), levels // 2, dtype=np.int64),
                "theta": np.full((len(self.systems_), levels), 1.0 / levels)}

    def _sweep(self, st, rng):
        r, levels = self.radius, self.levels
        o, lam, outcome, items, grid = st["o"], st["lam"], st["outcome"], st["items"], st["grid"]
        for side, other in ((0, 1), (1, 0)):
            diff = grid[None, :] - o[:, other][:, None]  # candidate minus the other observation
            wins = (outcome == (1 if side == 0 else 2))[:, None]
            loses = (outcome == (2 if side == 0 else 1))[:, None]
            allowed = np.where(wins, diff > r, np.where(loses, diff < -r, np.abs(diff) <= r))
            weight = st["noise"][lam[items[:, side]]] * allowed
            o[:, side] = _categorical(rng, weight)
        log_post = np.log(st["theta"][st["author"]])
        for level in range(levels):
            log_post[:, level] += np.bincount(items.ravel(), weights=st["log_noise"][level, o.ravel()],
                                              minlength=len(lam))
        lam[:] = np.argmax(log_post + rng.gumbel(size=log_post.shape), axis=1)
        counts = np.bincount(st["author"] * levels + lam, minlength=len(st["theta"]) * levels)
        draws = rng.gamma(self.alpha_a + counts.reshape(-1, levels))
        st["theta"] = np.maximum(draws / draws.sum(axis=1, keepdims=True), 1e-300)

    def _draw(self, st):
        return st["theta"]

    def _score(self, draws):
        return draws @ (np.arange(self.levels) + 1.0)  # E_θ[λ] on the scale 1..Λ

    def _sweep_proba(self, draws, a, b):
        """P(π | a, b) of every sweep, (sweeps, pairs, 3): with the observation distributions
        seen_s = θ_s M, P(π) = Σ_{o, p} seen_a(o) seen_b(p) [o − p in π's region]."""
        noise = self._noise()
        seen_a, seen_b = draws[:, a] @ noise, draws[:, b] @ noise  # (sweeps, pairs, levels)
        grid = np.arange(self.levels)
        d = grid[:, None] - grid[None, :]
        masks = np.stack([np.abs(d) <= self.radius, d > self.radius, d < -self.radius]).astype(float)
        return np.einsum("sio,kop,sip->sik", seen_a, masks, seen_b, optimize=True)


def _categorical(rng, weight: np.ndarray) -> np.ndarray:
    """One draw per row from unnormalised weights (each row has a positive entry)."""
    cumulative = np.cumsum(weight, axis=1)
    u = rng.random(len(weight)) * cumulative[:, -1]
    return np.minimum((cumulative < u[:, None]).sum(axis=1), weight.shape[1] - 1)
