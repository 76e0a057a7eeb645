"""Compiled bootstrap refits of Bradley–Terry with covariates (style control) on comparison rows.

A resample draws the units (single comparisons, or clusters) with replacement; row i then
counts k_i times (k = how often its unit was drawn). The fit is the chord-Newton iteration
(θ, φ) ← (θ, φ) + H₀⁻¹ g(θ, φ) from the full-data estimate, H₀ the full-data negative Hessian of
the log posterior (gauge-fixed, inverted once), g the gradient of the resample's log posterior:

    g_θ = Σ_i k_i (y_i − n_i σ(x_i)) (e_a − e_b) − λ(θ − θ̄),   g_φ = Σ_i k_i (y_i − n_i σ(x_i)) F_i,

x_i = θ_a − θ_b + F_i φ, y_i the row's weighted wins (a tie half a win), n_i its weight. Each
iteration is one pass over the rows; a resample's Hessian differs from H₀ by O(1/√n), so two or
three iterations reach 1e-9. Resamples are spread over the cores (numba ``prange``).
"""

from __future__ import annotations

import math

import numba
import numpy as np


GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)


@numba.njit(cache=True)
def unit_counts(n_units, seed):  # pragma: no cover - compiled
    """How often each unit is drawn in ``n_units`` draws with replacement, for one seed. The
    draws come from SplitMix64 (Steele, Lea & Flood 2014; a few ns each, against ~50 ns for
    numba's ``randint``), each a 53-bit uniform u giving the unit ⌊u · n_units⌋."""
    times = np.zeros(n_units, dtype=np.int64)
    state = np.uint64(seed) * GOLDEN
    for _ in range(n_units):
        state += GOLDEN
        z = state
        z = (z ^ (z >> np.uint64(30))) * MIX1
        z = (z ^ (z >> np.uint64(27))) * MIX2
        z = z ^ (z >> np.uint64(31))
        u = np.float64(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)
        times[min(int(u * n_units), n_units - 1)] += 1
    return times


@numba.njit(cache=True)
def _chord_rows(theta0, phi0, hinv, la, lb, F, y, total, times, units, l2, tol, max_iter):  # pragma: no cover
    m, k = len(theta0), len(phi0)
    theta, phi = theta0.copy(), phi0.copy()
    g = np.empty(m + k)
    for _ in range(max_iter):
        mean = theta.mean()
        for i in range(m):
            g[i] = -l2 * (theta[i] - mean)
        for j in range(k):
            g[m + j] = 0.0
        for r in range(len(la)):
            c = times[units[r]]
            if c == 0:
                continue
            x = theta[la[r]] - theta[lb[r]]
            for j in range(k):
                x += F[r, j] * phi[j]
            d = c * (y[r] - total[r] / (1.0 + math.exp(-x)))
            g[la[r]] += d
            g[lb[r]] -= d
            for j in range(k):
                g[m + j] += d * F[r, j]
        largest = 0.0
        for i in range(m + k):
            step = 0.0
            for j in range(m + k):
                step += hinv[i, j] * g[j]
            if i < m:
                theta[i] += step
            else:
                phi[i - m] += step
            largest = max(largest, abs(step))
        if not math.isfinite(largest):
            return theta, phi, False
        if largest < tol:
            return theta, phi, True
    return theta, phi, False


@numba.njit(cache=True, parallel=True)
def bootstrap_rows(theta0, phi0, hinv, la, lb, F, y, total, units, n_units, seeds, l2, tol,
                   max_iter):  # pragma: no cover - compiled
    runs = len(seeds)
    theta_out = np.empty((runs, len(theta0)))
    phi_out = np.empty((runs, len(phi0)))
    ok = np.zeros(runs, dtype=np.bool_)
    for r in numba.prange(runs):
        times = unit_counts(n_units, seeds[r])
        theta, phi, converged = _chord_rows(theta0, phi0, hinv, la, lb, F, y, total, times, units, l2, tol,
                                            max_iter)
        theta_out[r] = theta
        phi_out[r] = phi
        ok[r] = converged
    return theta_out, phi_out, ok
