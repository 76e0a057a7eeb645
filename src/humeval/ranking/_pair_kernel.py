"""Compiled bootstrap refits of the pair-likelihood family (``ranking.links``): the one compiled
gradient and chord-Newton loop, for pair counts and (through ``_style_kernel``) comparison rows.

One per-cell function for every link (``cell_scores``, keyed by the link's code in ``LINKS``:
0 logit, 1 Davidson, 2 Rao–Kupper, 3 probit) gives ∂ℓ/∂x and ∂ℓ/∂τ of a cell with counts
(w first preferred, t ties, l second preferred). One fit (``chord_fit``): each resample is solved
by the chord-Newton iteration p ← p + H₀⁻¹ g(p) from the full-data estimate p₀, H₀ the negative
Hessian of the log posterior at p₀ (inverted once), g the gradient of the resample's log
posterior. The parameters are p = (θ_1 … θ_m, φ_1 … φ_k, τ?): the abilities of the rated
systems, the fixed effects (the first-position advantage h, a column of ones in F, and the
covariate coefficients β of style control) and the log tie parameter τ = log ν (Davidson) or
log η (Rao–Kupper). A resample's Hessian differs from H₀ by O(1/√count), so two or three
iterations reach 1e-9.

A cell is a pair of systems (i, j) with x = θ_i − θ_j + F_c φ: without covariates cells are
unordered pairs (ordered, i shown first, with a position effect); with covariates each
comparison is a cell of its own. Per cell (n = w + t + l), times how often the cell was drawn:

- logit: ∂ℓ/∂x = w + t/2 − n σ(x) (ties half a win);
- Davidson (1970): ∂ℓ/∂x = (w − l)/2 − n sinh(x/2)/D, ∂ℓ/∂τ = t − n ν/D, D = 2 cosh(x/2) + ν;
- Rao–Kupper (1967): ∂ℓ/∂x = w σ(η − x) − l σ(x + η) + t (σ(−x − η) − σ(x − η)),
  ∂ℓ/∂τ = η [−w σ(η − x) − l σ(x + η) + t (σ(−x − η) + σ(x − η) + 2/(e^{2η} − 1))];
- probit: ∂ℓ/∂x = (w + t/2) λ(x) − (l + t/2) λ(−x), λ = φ/Φ the inverse Mills ratio.

so g_θ = Σ ∂ℓ/∂x (e_i − e_j) − λ(θ − θ̄), g_φ = Σ ∂ℓ/∂x F_c − Λ_φ φ, g_τ = Σ ∂ℓ/∂τ (the priors of
``bradley_terry``). A resample is reported as not converged (and refitted by the robust Python
solver) when the iteration does not settle within ``max_iter`` steps, leaves the finite numbers,
pushes |τ| beyond ``tie_bound`` (the Python solver's clip), or leaves a rated system without
comparisons (the Python solver then reports NaN).

Resamples: ``bootstrap`` draws the cells' counts as one multinomial (unweighted comparisons, or
whole-number weights as frequencies) or, with ``rows``, draws rows with their weights (by
distinct keys for large data); ``fit_many`` refits counts drawn outside (clusters);
``_style_kernel.bootstrap_units`` reweights comparison rows by how often their unit was drawn.
"""

from __future__ import annotations

import math

import numba
import numpy as np

LOGIT, DAVIDSON, RAO_KUPPER, PROBIT = 0, 1, 2, 3  # the codes of ranking.links.LINKS


@numba.njit(cache=True)
def _sigmoid(z):  # pragma: no cover - compiled
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


@numba.njit(cache=True)
def _mills(x):  # pragma: no cover - compiled
    """The inverse Mills ratio φ(x)/Φ(x); below x = −20 (Φ < 3e-89) its asymptotic series."""
    if x < -20.0:
        return -x - 1.0 / x + 2.0 / x ** 3
    return math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi) / (0.5 * math.erfc(-x / math.sqrt(2.0)))


@numba.njit(cache=True)
def cell_scores(link, x, w, t, l, tau):  # pragma: no cover - compiled
    """(∂ℓ/∂x, ∂ℓ/∂τ) of one cell with counts (w, t, l) under the link of code ``link``."""
    n = w + t + l
    if link == LOGIT:
        return (w + 0.5 * t) - n * _sigmoid(x), 0.0
    if link == PROBIT:
        return (w + 0.5 * t) * _mills(x) - (l + 0.5 * t) * _mills(-x), 0.0
    nu = math.exp(tau)  # ν (Davidson) or η (Rao–Kupper)
    if link == DAVIDSON:  # with e = exp(−|x|/2): tanh(x/2) = ±(1 − e²)/(1 + e²), 1/cosh(x/2) = 2e/(1 + e²)
        e = math.exp(-0.5 * abs(x))
        tanh = math.copysign((1.0 - e * e) / (1.0 + e * e), x)
        r = nu * 2.0 * e / (1.0 + e * e)  # ν / cosh(x/2); D = cosh(x/2) (2 + r)
        return 0.5 * (w - l) - n * tanh / (2.0 + r), t - n * r / (2.0 + r)
    won = _sigmoid(nu - x)  # 1 − σ(x − η)
    lost = _sigmoid(x + nu)  # σ(x + η)
    tie_term = 2.0 / math.expm1(2.0 * nu) if nu < 300.0 else 0.0
    return (w * won - l * lost + t * ((1.0 - lost) - (1.0 - won)),
            nu * (-w * won - l * lost + t * ((1.0 - lost) + (1.0 - won) + tie_term)))


@numba.njit(cache=True)
def _gradient(p, pi, pj, F, counts, times, units, m, link, l2, phi_prec, g):  # pragma: no cover - compiled
    """g ← the gradient of the log posterior at p (see the module doc); cell c counts
    ``times[units[c]]`` times (once each when ``times`` is empty)."""
    size, k = len(p), F.shape[1]
    has_tau = link == DAVIDSON or link == RAO_KUPPER
    tau = p[size - 1] if has_tau else 0.0
    reweighted = len(times) > 0
    mean = 0.0
    for s in range(m):
        mean += p[s]
    mean /= m
    for s in range(m):
        g[s] = -l2 * (p[s] - mean)
    for j in range(k):
        g[m + j] = -phi_prec[j] * p[m + j]
    if has_tau:
        g[size - 1] = 0.0
    for c in range(len(pi)):
        times_c = times[units[c]] if reweighted else 1.0
        w, t, l = counts[3 * c], counts[3 * c + 1], counts[3 * c + 2]
        if times_c == 0 or w + t + l == 0.0:
            continue
        x = p[pi[c]] - p[pj[c]]
        for j in range(k):
            x += F[c, j] * p[m + j]
        dx, dtau = cell_scores(link, x, w, t, l, tau)
        g[pi[c]] += times_c * dx
        g[pj[c]] -= times_c * dx
        for j in range(k):
            g[m + j] += times_c * dx * F[c, j]
        if has_tau:
            g[size - 1] += times_c * dtau


@numba.njit(cache=True)
def chord_fit(p0, hinv, pi, pj, F, counts, times, units, m, link, l2, phi_prec, tol, max_iter,
              tie_bound):  # pragma: no cover - compiled
    """One resample's fit by the chord-Newton iteration p ← p + H₀⁻¹ g(p) from p₀: (p, converged).
    Cells (``pi``, ``pj``, fixed-effect rows ``F``, flat counts (w, t, l) per cell) count
    ``times[units[c]]`` times each (once when ``times`` is empty): pair counts drawn beforehand,
    or comparison rows reweighted by how often their unit was drawn (``_style_kernel``)."""
    size = len(p0)
    has_tau = link == DAVIDSON or link == RAO_KUPPER
    p = p0.copy()
    reweighted = len(times) > 0
    played = np.zeros(m)
    for c in range(len(pi)):
        n = (counts[3 * c] + counts[3 * c + 1] + counts[3 * c + 2]) * (times[units[c]] if reweighted else 1.0)
        played[pi[c]] += n
        played[pj[c]] += n
    for s in range(m):
        if played[s] == 0.0:  # a system the resample left out: the Python solver reports NaN
            return p, False
    g = np.empty(size)
    for _ in range(max_iter):
        _gradient(p, pi, pj, F, counts, times, units, m, link, l2, phi_prec, g)
        largest = 0.0
        for i in range(size):  # p ← p + H₀⁻¹ g
            step = 0.0
            for j in range(size):
                step += hinv[i, j] * g[j]
            p[i] += step
            largest = max(largest, abs(step))
        if not math.isfinite(largest) or (has_tau and abs(p[size - 1]) > tie_bound):
            return p, False
        if largest < tol:
            return p, True
    return p, False


@numba.njit(cache=True)
def _multinomial(total, p):  # pragma: no cover - compiled
    """Multinomial draw by sequential binomials, the conditional probability clamped to [0, 1]
    (numba's own multinomial raises when rounding pushes it a hair above 1)."""
    out = np.zeros(len(p))
    remaining, rest = total, 1.0
    for i in range(len(p) - 1):
        if remaining == 0:
            break
        q = min(max(p[i] / rest, 0.0), 1.0) if rest > 0 else 1.0
        x = np.random.binomial(remaining, q)
        out[i] = x
        remaining -= x
        rest -= p[i]
    out[len(p) - 1] += remaining
    return out


@numba.njit(cache=True)
def _draw(total, key_p, key_cell, key_weight, n_cells):  # pragma: no cover - compiled
    """One resample of ``total`` rows with their weights, each drawn row adding its weight to its
    cell. Keys are either the rows themselves (``key_p`` empty: ``total`` uniform draws among
    them, O(rows)) or the distinct (cell, weight) pairs with probabilities (rows with that key) /
    (rows), drawn as one multinomial (O(keys), for large data)."""
    counts = np.zeros(n_cells)
    if len(key_p) == 0:
        keys = len(key_cell)
        for _ in range(total):
            k = np.random.randint(0, keys)
            counts[key_cell[k]] += key_weight[k]
        return counts
    drawn = _multinomial(total, key_p)
    for k in range(len(key_cell)):
        counts[key_cell[k]] += drawn[k] * key_weight[k]
    return counts


@numba.njit(cache=True)
def _resample(rows, total, share, key_p, key_cell, key_weight, n_cells):  # pragma: no cover - compiled
    """One resample's cell counts: ``total`` comparisons drawn over the cells as one multinomial
    (``share`` = base / total), or with ``rows`` the rows with their weights (``_draw``)."""
    if rows:
        return _draw(total, key_p, key_cell, key_weight, n_cells)
    return _multinomial(total, share)


@numba.njit(cache=True)
def draw(rows, total, share, key_p, key_cell, key_weight, n_cells, seed):  # pragma: no cover - compiled
    """The cell counts ``bootstrap`` draws for ``seed`` (the same draw)."""
    np.random.seed(seed)
    return _resample(rows, total, share, key_p, key_cell, key_weight, n_cells)


@numba.njit(cache=True, parallel=True)
def bootstrap(p0, hinv, pi, pj, F, m, link, rows, total, share, key_p, key_cell, key_weight, seeds, l2, phi_prec,
              tol, max_iter, tie_bound):  # pragma: no cover - compiled
    """Per seed, one resample (``_resample``: a multinomial over the cells, or rows with their
    weights) and a refit."""
    runs = len(seeds)
    out = np.empty((runs, len(p0)))
    ok = np.zeros(runs, dtype=np.bool_)
    n_cells = 3 * len(pi)
    once, cell = np.zeros(0), np.zeros(0, dtype=np.int64)
    for r in numba.prange(runs):
        np.random.seed(seeds[r])
        counts = _resample(rows, total, share, key_p, key_cell, key_weight, n_cells)
        p, converged = chord_fit(p0, hinv, pi, pj, F, counts, once, cell, m, link, l2, phi_prec, tol, max_iter,
                                 tie_bound)
        out[r] = p
        ok[r] = converged
    return out, ok


@numba.njit(cache=True, parallel=True)
def fit_many(p0, hinv, pi, pj, F, m, link, counts, l2, phi_prec, tol, max_iter, tie_bound):  # pragma: no cover
    """Refit each row of ``counts`` (resamples × 3 cells)."""
    runs = counts.shape[0]
    out = np.empty((runs, len(p0)))
    ok = np.zeros(runs, dtype=np.bool_)
    once, cell = np.zeros(0), np.zeros(0, dtype=np.int64)
    for r in numba.prange(runs):
        p, converged = chord_fit(p0, hinv, pi, pj, F, counts[r], once, cell, m, link, l2, phi_prec, tol, max_iter,
                                 tie_bound)
        out[r] = p
        ok[r] = converged
    return out, ok
