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

Convergence: with ``chains=M`` the sampler runs M chains from spawned seeds (each with its own
burn-in), pools their kept draws, and reports per system the rank-normalised split-R̂ and the
bulk effective sample size of the scores (``rhat_``, ``ess_``, ``diagnostics()``; Vehtari,
Gelman, Simpson, Carpenter & Bürkner 2021, "Rank-normalization, folding, and localization",
the definitions Stan and ArviZ use). R̂ near 1 (below 1.01 by their advice, 1.1 by Gelman &
Rubin's older one) says the chains agree; the paper itself ran one chain and gives no diagnostics.
They are computed on each system's score minus the mean score of all systems in the same sweep:
the likelihood sees only differences, so the common level is pinned by the prior alone and
drifts slowly (on simulated data its R̂ stays far above 1 long after the contrasts, which are
what ranks the systems and predicts preferences, have mixed).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
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


SWEEP_BLOCK = 25  # sweeps per call of ``_sweeps`` when no progress callback is asked for


class _Gibbs(ReportsProgress, PreferenceModel):
    """Shared sampling loop: subclasses implement ``_init``, ``_sweep``, ``_draw`` (the per-system
    state a kept sweep contributes), ``_score`` (scores from draws) and ``_sweep_proba`` (each
    sweep's preference probabilities for pairs, from draws); they may override ``_sweeps`` (a block
    of sweeps in one call, the same draws as ``_sweep`` in a loop). With a ``progress`` callback
    the loop calls ``_sweeps`` one sweep at a time, so that every sweep is reported; without, in
    blocks of ``SWEEP_BLOCK``, so a compiled block saves a Python round trip per sweep and Ctrl-C
    still takes effect within a block."""

    def _sweeps(self, st, rng, count: int) -> np.ndarray:
        """``count`` sweeps; returns (count, …): ``_draw``'s state after each one."""
        out = []
        for _ in range(count):
            self._sweep(st, rng)
            out.append(np.array(self._draw(st), copy=True))
        return np.stack(out)

    def _fit(self, comparisons: Comparisons) -> None:
        if not 0 <= self.burn_in < self.iterations:
            raise ValueError(f"burn_in ({self.burn_in}) must be below iterations ({self.iterations})")
        chains = getattr(self, "chains", 1)
        if int(chains) != chains or chains < 1:
            raise ValueError(f"chains must be a whole number ≥ 1, not {chains!r}")
        rng = np.random.default_rng(self.random_state)
        rngs = [rng] if chains == 1 else rng.spawn(int(chains))
        items, author = item_index(comparisons)
        kept = self.iterations - self.burn_in
        draws = None
        block = 1 if getattr(self, "_progress", None) is not None else SWEEP_BLOCK
        for chain, chain_rng in enumerate(rngs):
            state = self._init(comparisons.outcome.astype(np.int64), items, author, chain_rng)
            done = 0
            while done < self.iterations:
                step = min(block, self.iterations - done)
                states = self._sweeps(state, chain_rng, step)
                if draws is None:
                    draws = np.empty((len(rngs) * kept,) + states.shape[1:])
                first = max(self.burn_in - done, 0)  # the block's first sweep past the burn-in
                if first < step:
                    start = chain * kept + done + first - self.burn_in
                    draws[start:start + step - first] = states[first:]
                done += step
                self._report(chain * self.iterations + done, len(rngs) * self.iterations)
        self._draws = draws
        self.samples_ = self._score(draws)  # (chains × kept sweeps, systems), chain after chain
        self.scores_ = self._series(self.samples_.mean(axis=0))
        self.scores_std_ = self._series(self.samples_.std(axis=0, ddof=1) if len(self.samples_) > 1
                                        else np.zeros(len(self.systems_)), name="std")
        self.n_items_ = len(author)
        self._chains = len(rngs)
        self.__dict__.pop("_convergence", None)  # R̂ and ESS of this fit: computed when first asked for

    @property
    def rhat_(self) -> pd.Series:
        """Per system, the rank-normalised split-R̂ of its contrast across the chains."""
        return self._convergence_of("rhat")

    @property
    def ess_(self) -> pd.Series:
        """Per system, the bulk effective sample size of its contrast."""
        return self._convergence_of("ess")

    def _convergence_of(self, name: str) -> pd.Series:
        """R̂ and ESS from the kept draws, computed on first use (a quarter of a fit's time at WMT
        sizes, and a learning curve never reads them)."""
        if "_convergence" not in self.__dict__:
            by_chain = self.samples_.reshape(self._chains, len(self.samples_) // self._chains, -1)
            by_chain = by_chain - by_chain.mean(axis=2, keepdims=True)  # contrasts: see the module doc
            self._convergence = {
                "rhat": self._series(np.array([split_rhat(by_chain[:, :, s]) for s in range(by_chain.shape[2])]),
                                     name="rhat"),
                "ess": self._series(np.array([bulk_ess(by_chain[:, :, s]) for s in range(by_chain.shape[2])]),
                                    name="ess")}
        return self._convergence[name]

    def diagnostics(self) -> pd.DataFrame:
        """Per system: score, split-R̂ and bulk ESS across the chains of its contrast (score minus
        the sweep's mean score; NaN with fewer than 4 kept sweeps per chain)."""
        return pd.DataFrame({"score": self.scores_, "rhat": self.rhat_, "ess": self.ess_})

    def convergence(self) -> str:
        """One line for a report: the worst R̂ and the smallest ESS, and over how many chains."""
        chains = getattr(self, "chains", 1)
        return (f"{chains} chains × {self.iterations - self.burn_in} kept sweeps: max split-R̂ "
                f"{np.nanmax(self.rhat_):.3f} ({self.rhat_.idxmax()}), min bulk ESS {np.nanmin(self.ess_):.0f} "
                f"({self.ess_.idxmin()})" + (" — R̂ > 1.01: run longer chains" if np.nanmax(self.rhat_) > 1.01 else ""))

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


def _check_positive(model, *names) -> None:
    """Each named parameter is a finite number above 0 (a standard deviation or a prior count);
    an infinite, NaN, tiny-enough-to-overflow or negative one is refused before any sweep."""
    for name in names:
        value = getattr(model, name)
        if not (isinstance(value, (int, float, np.number)) and 1e-100 < value < 1e100):
            raise ValueError(f"{name} must be a positive finite number (between 1e-100 and 1e100), not {value!r}")


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
                 radius: float = 0.4, iterations: int = 200, burn_in: int = 50, random_state=None,
                 chains: int = 1):
        self.sigma0 = sigma0
        self.sigma_obs = sigma_obs
        self.sigma_a = sigma_a
        self.radius = radius
        self.iterations = iterations
        self.burn_in = burn_in
        self.random_state = random_state
        self.chains = chains

    def _init(self, outcome, items, author, rng):
        _check_positive(self, "sigma0", "sigma_obs", "sigma_a")
        if not 0 <= self.radius < np.inf:
            raise ValueError(f"radius must be a finite number, 0 or more, not {self.radius!r}")
        # comparisons grouped by outcome: the draws do not depend on their order, and the compiled
        # sweep's branch on the outcome is then predictable (about a tenth faster)
        order = np.argsort(outcome, kind="stable")
        outcome, items = outcome[order], np.ascontiguousarray(items[order])
        r = self.radius
        o = np.zeros((len(outcome), 2))
        o[:, 0] = np.select([outcome == 1, outcome == 2], [r + 0.5, -r - 0.5], 0.0)
        return {"outcome": outcome, "items": items, "author": author, "o": o,
                "q": np.zeros(len(author)), "mu": np.zeros(len(self.systems_)),
                "n_obs": np.bincount(items.ravel(), minlength=len(author)),
                "n_items": np.bincount(author, minlength=len(self.systems_))}

    def _sweep(self, st, rng):
        """One Gibbs sweep, compiled (``_irt_kernel.sweep``): the numpy sweep ``_sweep_numpy``'s
        updates in the same order, with its inverse-CDF truncated normals replaced by an exact
        rejection sampler (Robert 1995) that needs no normal CDF or its inverse; the same
        posterior, other Monte-Carlo draws. ``bench_gibbs.py`` times the two."""
        from humeval.ranking import _irt_kernel
        _irt_kernel.sweep(rng, st["o"], st["q"], st["mu"], st["items"], st["author"], st["outcome"], st["n_obs"],
                          st["n_items"], *self._constants())

    def _sweeps(self, st, rng, count: int) -> np.ndarray:
        """``count`` compiled sweeps in one call (``_irt_kernel.sweeps``): the draws of ``_sweep``
        called ``count`` times."""
        from humeval.ranking import _irt_kernel
        out = np.empty((count, len(st["mu"])))
        _irt_kernel.sweeps(rng, st["o"], st["q"], st["mu"], st["items"], st["author"], st["outcome"], st["n_obs"],
                           st["n_items"], *self._constants(), out)
        return out

    def _constants(self) -> tuple:
        sa, so, s0 = float(self.sigma_a), float(self.sigma_obs), float(self.sigma0)
        return float(self.radius), so, sa ** 2, so ** 2, 1 / sa ** 2, 1 / s0 ** 2

    def _sweep_numpy(self, st, rng):
        """The sweep in numpy, truncated normals by the inverse CDF (``_truncated_normal``): the
        reference the compiled ``_sweep`` is tested against (same posterior, other draws)."""
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
                 iterations: int = 200, burn_in: int = 50, random_state=None, chains: int = 1):
        self.levels = levels
        self.sigma_obs = sigma_obs
        self.alpha_a = alpha_a
        self.radius = radius
        self.iterations = iterations
        self.burn_in = burn_in
        self.random_state = random_state
        self.chains = chains

    def _noise(self) -> np.ndarray:
        """M[λ, o] = P(observation o | quality λ), o and λ in 0..Λ−1."""
        grid = np.arange(self.levels)
        density = np.exp(-0.5 * ((grid[None, :] - grid[:, None]) / self.sigma_obs) ** 2)
        return density / density.sum(axis=1, keepdims=True)

    def _init(self, outcome, items, author, rng):
        _check_positive(self, "sigma_obs", "alpha_a")
        if not 0 <= self.radius < np.inf:
            raise ValueError(f"radius must be a finite number, 0 or more, not {self.radius!r}")
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


def _split(chains: np.ndarray) -> np.ndarray:
    """(M, N) draws → (2M, ⌊N/2⌋): each chain cut in halves (the middle draw of an odd N dropped)."""
    half = chains.shape[1] // 2
    return np.concatenate([chains[:, :half], chains[:, chains.shape[1] - half:]])


def _rank_normal(x: np.ndarray) -> np.ndarray:
    """Rank normalisation: z = Φ⁻¹((r − 3/8) / (S + 1/4)), r the average rank among all S draws."""
    from scipy.stats import rankdata
    return ndtri((rankdata(x, method="average").reshape(x.shape) - 0.375) / (x.size + 0.25))


def _rhat(x: np.ndarray) -> float:
    """Gelman–Rubin R̂ of (M, N) chains: √(var⁺ / W), var⁺ = (N−1)/N · W + B/N, W the mean
    within-chain variance, B/N the variance of the chain means."""
    n = x.shape[1]
    within = np.mean(np.var(x, axis=1, ddof=1))
    between = np.var(np.mean(x, axis=1), ddof=1)
    if within == 0:
        return float("nan")
    return float(np.sqrt(((n - 1) / n * within + between) / within))


def split_rhat(chains) -> float:
    """Rank-normalised split-R̂ of one quantity, ``chains`` shaped (chains, draws): the larger of
    R̂ of the rank-normalised split chains (bulk) and of the rank-normalised |x − median|
    (tails), Vehtari et al. (2021), eqs. 4 and 6. NaN below 4 draws per chain or if constant."""
    x = np.atleast_2d(np.asarray(chains, dtype=float))
    if x.shape[1] < 4 or np.ptp(x) == 0:
        return float("nan")
    x = _split(x)
    return max(_rhat(_rank_normal(x)), _rhat(_rank_normal(np.abs(x - np.median(x)))))


def _autocovariance(x: np.ndarray) -> np.ndarray:
    """Per row, the biased autocovariance at lags 0..N−1 (divided by N), by FFT."""
    n = x.shape[1]
    centred = x - x.mean(axis=1, keepdims=True)
    size = 2 ** int(np.ceil(np.log2(2 * n)))
    f = np.fft.rfft(centred, size, axis=1)
    return np.fft.irfft(f * np.conj(f), size, axis=1)[:, :n] / n


def ess(chains) -> float:
    """Effective sample size of (M, N) chains (Vehtari et al. 2021, eq. 10; Stan's estimator):
    ρ̂_t = 1 − (W − mean_m(s²_m ρ̂_{t,m})) / var⁺, summed by Geyer's initial monotone sequence
    over pairs ρ̂_{2k} + ρ̂_{2k+1} while positive; ESS = MN / τ̂, τ̂ = −1 + 2 Σ ρ̂_t."""
    x = np.atleast_2d(np.asarray(chains, dtype=float))
    m, n = x.shape
    if n < 4 or np.ptp(x) == 0:
        return float("nan")
    acov = _autocovariance(x)
    mean_var = np.mean(acov[:, 0]) * n / (n - 1)
    var_plus = mean_var * (n - 1) / n + (np.var(x.mean(axis=1), ddof=1) if m > 1 else 0.0)
    rho = np.zeros(n)
    rho[0] = 1.0
    even, odd = 1.0, 1.0 - (mean_var - np.mean(acov[:, 1])) / var_plus
    rho[1] = odd
    t = 1
    while t < n - 3 and even + odd > 0:
        even = 1.0 - (mean_var - np.mean(acov[:, t + 1])) / var_plus
        odd = 1.0 - (mean_var - np.mean(acov[:, t + 2])) / var_plus
        if even + odd >= 0:
            rho[t + 1], rho[t + 2] = even, odd
        t += 2
    last = t - 2
    if even > 0:
        rho[last + 1] = even
    t = 1
    while t <= last - 2:  # monotone: no pair sum above the previous one
        if rho[t + 1] + rho[t + 2] > rho[t - 1] + rho[t]:
            rho[t + 1] = rho[t + 2] = (rho[t - 1] + rho[t]) / 2
        t += 2
    tau = max(-1 + 2 * np.sum(rho[:last + 1]) + np.sum(rho[last + 1:last + 2]), 1 / np.log10(m * n))
    return float(m * n / tau)


def bulk_ess(chains) -> float:
    """Bulk ESS: ``ess`` of the rank-normalised split chains (Vehtari et al. 2021, §4.2)."""
    x = np.atleast_2d(np.asarray(chains, dtype=float))
    if x.shape[1] < 4 or np.ptp(x) == 0:
        return float("nan")
    return ess(_rank_normal(_split(x)))
