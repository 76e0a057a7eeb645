"""Compiled bootstrap refits of Davidson's and Rao–Kupper's tie models on pair counts.

The same scheme as ``_bt_kernel`` (Bradley–Terry): each resample's counts are drawn and solved
inside one parallel loop, by a chord-Newton iteration p ← p + H₀⁻¹ g(p) started at the
full-data estimate p₀, where H₀ is the negative Hessian of the log posterior at p₀ (inverted
once) and g the gradient of the resample's log posterior. The parameters are
p = (θ_1 … θ_m, h?, τ): the abilities of the rated systems, the first-position advantage h when
the model has one, and the tie parameter on the log scale, τ = log ν (Davidson) or log η
(Rao–Kupper).

A cell is a pair of systems (i, j) with counts (i preferred, tie, j preferred); x = θ_i − θ_j (+ h).
Without a position effect the likelihood depends on the unordered pair only, so cells are
unordered pairs; with one, cells are ordered pairs (i shown first). Per cell (w, t, l; n = w + t + l):

- Davidson (1970): ℓ = (w − l) x/2 + t τ − n log(2 cosh(x/2) + ν), so
  ∂ℓ/∂x = (w − l)/2 − n sinh(x/2)/D and ∂ℓ/∂τ = t − n ν/D with D = 2 cosh(x/2) + ν;
- Rao–Kupper (1967): ℓ = w log σ(x − η) + l log σ(−x − η) + t log(1 − σ(x − η) − σ(−x − η)), so
  ∂ℓ/∂x = w σ(η − x) − l σ(x + η) + t (σ(−x − η) − σ(x − η)) and
  ∂ℓ/∂τ = η [−w σ(η − x) − l σ(x + η) + t (σ(−x − η) + σ(x − η) + 2/(e^{2η} − 1))]
  (the tie term uses 1 − σ(x−η) − σ(−x−η) = σ(x+η) σ(η−x) (1 − e^{−2η})).

The prior adds −λ(θ_s − θ̄) to ∂/∂θ_s (see ``bradley_terry``). A resample is reported as not
converged (and refitted by the robust Python solver) when the iteration does not settle within
``max_iter`` steps, leaves the finite numbers, pushes |τ| beyond ``tie_bound`` (the Python
solver's clip), or leaves a rated system without comparisons (the Python solver then reports NaN).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from humeval.ranking._bt_kernel import _multinomial, chord_step

DAVIDSON, RAO_KUPPER = 1, 2  # the codes of ranking.links.LINKS


@numba.njit(cache=True)
def _sigmoid(z):  # pragma: no cover - compiled
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


@numba.njit(cache=True)
def _gradient(p, pi, pj, counts, m, has_h, model, l2, g):  # pragma: no cover - compiled
    """g ← the gradient of the log posterior at p (see the module doc)."""
    size = len(p)
    tau = p[size - 1]
    h = p[m] if has_h else 0.0
    mean = 0.0
    for s in range(m):
        mean += p[s]
    mean /= m
    for s in range(m):
        g[s] = -l2 * (p[s] - mean)
    for s in range(m, size):
        g[s] = 0.0
    nu = math.exp(tau)  # ν (Davidson) or η (Rao–Kupper)
    tie_term = 2.0 / math.expm1(2.0 * nu) if model == RAO_KUPPER else 0.0
    for k in range(len(pi)):
        w, t, l = counts[3 * k], counts[3 * k + 1], counts[3 * k + 2]
        n = w + t + l
        if n == 0.0:
            continue
        x = p[pi[k]] - p[pj[k]] + h
        if model == DAVIDSON:  # with e = exp(−|x|/2): tanh(x/2) = ±(1 − e²)/(1 + e²), 1/cosh(x/2) = 2e/(1 + e²)
            e = math.exp(-0.5 * abs(x))
            tanh = math.copysign((1.0 - e * e) / (1.0 + e * e), x)
            r = nu * 2.0 * e / (1.0 + e * e)  # ν / cosh(x/2); D = cosh(x/2) (2 + r)
            dx = 0.5 * (w - l) - n * tanh / (2.0 + r)
            dtau = t - n * r / (2.0 + r)
        else:
            won = _sigmoid(nu - x)  # 1 − σ(x − η)
            lost = _sigmoid(x + nu)  # σ(x + η)
            dx = w * won - l * lost + t * ((1.0 - lost) - (1.0 - won))
            dtau = nu * (-w * won - l * lost + t * ((1.0 - lost) + (1.0 - won) + tie_term))
        g[pi[k]] += dx
        g[pj[k]] -= dx
        if has_h:
            g[m] += dx
        g[size - 1] += dtau


@numba.njit(cache=True)
def _chord_fit(p0, hinv, pi, pj, counts, m, has_h, model, l2, tol, max_iter, tie_bound):  # pragma: no cover
    size = len(p0)
    p = p0.copy()
    played = np.zeros(m)
    for k in range(len(pi)):
        n = counts[3 * k] + counts[3 * k + 1] + counts[3 * k + 2]
        played[pi[k]] += n
        played[pj[k]] += n
    for s in range(m):
        if played[s] == 0.0:  # a system the resample left out: the Python solver reports NaN
            return p, False
    g = np.empty(size)
    for _ in range(max_iter):
        _gradient(p, pi, pj, counts, m, has_h, model, l2, g)
        largest = chord_step(p, hinv, g)
        if not math.isfinite(largest) or abs(p[size - 1]) > tie_bound:
            return p, False
        if largest < tol:
            return p, True
    return p, False


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
def draw_counts(total, key_p, key_cell, key_weight, n_cells, seed):  # pragma: no cover - compiled
    """The resampled cell counts for one seed (the same draw as inside ``bootstrap_rows``)."""
    np.random.seed(seed)
    return _draw(total, key_p, key_cell, key_weight, n_cells)


@numba.njit(cache=True, parallel=True)
def bootstrap_rows(p0, hinv, pi, pj, m, has_h, model, total, key_p, key_cell, key_weight, seeds, l2, tol,
                   max_iter, tie_bound):  # pragma: no cover - compiled
    """Resample rows (``total`` of them, by their keys) and refit, once per seed."""
    runs = len(seeds)
    out = np.empty((runs, len(p0)))
    ok = np.zeros(runs, dtype=np.bool_)
    n_cells = 3 * len(pi)
    for r in numba.prange(runs):
        np.random.seed(seeds[r])
        counts = _draw(total, key_p, key_cell, key_weight, n_cells)
        p, converged = _chord_fit(p0, hinv, pi, pj, counts, m, has_h, model, l2, tol, max_iter, tie_bound)
        out[r] = p
        ok[r] = converged
    return out, ok


@numba.njit(cache=True, parallel=True)
def fit_many(p0, hinv, pi, pj, m, has_h, model, counts, l2, tol, max_iter, tie_bound):  # pragma: no cover
    """Refit each row of ``counts`` (resamples × 3 cells)."""
    runs = counts.shape[0]
    out = np.empty((runs, len(p0)))
    ok = np.zeros(runs, dtype=np.bool_)
    for r in numba.prange(runs):
        p, converged = _chord_fit(p0, hinv, pi, pj, counts[r], m, has_h, model, l2, tol, max_iter, tie_bound)
        out[r] = p
        ok[r] = converged
    return out, ok
