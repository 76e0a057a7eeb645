"""Compiled bootstrap refits of the Bradley–Terry family with covariates (style control) on comparison rows.

A resample draws the units (single comparisons, or clusters) with replacement; row i then
counts k_i times (k = how often its unit was drawn). The fit is the chord-Newton iteration
(θ, φ) ← (θ, φ) + H₀⁻¹ g(θ, φ) from the full-data estimate, H₀ the full-data negative Hessian of
the log posterior (gauge-fixed, inverted once), g the gradient of the resample's log posterior:

    g_θ = Σ_i k_i ℓ'_i (e_a − e_b) − λ(θ − θ̄),   g_φ = Σ_i k_i ℓ'_i F_i − Λ_φ φ,   g_τ = Σ_i k_i ∂ℓ_i/∂τ,

x_i = θ_a − θ_b + F_i φ, ℓ'_i = ∂ℓ_i/∂x the row's score under the model's link
(``_pair_kernel.cell_scores``: logit, Davidson, Rao–Kupper or probit), τ the log tie parameter. Each
iteration is one pass over the rows; a resample's Hessian differs from H₀ by O(1/√n), so two or
three iterations reach 1e-9. Resamples are spread over the cores (numba ``prange``).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from humeval.ranking._pair_kernel import cell_scores


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
def _chord_rows(link, theta0, phi0, tau0, hinv, la, lb, F, counts, times, units, l2, phi_prec, tol, bound,
                max_iter):  # pragma: no cover - compiled
    m, k = len(theta0), len(phi0)
    size = m + k + (0 if link == 0 or link == 3 else 1)
    theta, phi, tau = theta0.copy(), phi0.copy(), tau0
    g = np.empty(size)
    for _ in range(max_iter):
        mean = theta.mean()
        for i in range(m):
            g[i] = -l2 * (theta[i] - mean)
        for j in range(m, size):
            g[j] = 0.0
        for j in range(k):
            g[m + j] = -phi_prec[j] * phi[j]
        for r in range(len(la)):
            c = times[units[r]]
            if c == 0:
                continue
            x = theta[la[r]] - theta[lb[r]]
            for j in range(k):
                x += F[r, j] * phi[j]
            d, dt = cell_scores(link, x, counts[r, 1], counts[r, 0], counts[r, 2], tau)  # rows: (tie, a, b)
            g[la[r]] += c * d
            g[lb[r]] -= c * d
            for j in range(k):
                g[m + j] += c * d * F[r, j]
            if link == 1 or link == 2:
                g[size - 1] += c * dt
        largest = 0.0
        for i in range(size):
            step = 0.0
            for j in range(size):
                step += hinv[i, j] * g[j]
            if i < m:
                theta[i] += step
            elif i < m + k:
                phi[i - m] += step
            else:
                tau = min(max(tau + step, -bound), bound)
            largest = max(largest, abs(step))
        if not math.isfinite(largest):
            return theta, phi, tau, False
        if largest < tol:
            return theta, phi, tau, True
    return theta, phi, tau, False


@numba.njit(cache=True, parallel=True)
def bootstrap_rows(link, theta0, phi0, tau0, hinv, la, lb, F, counts, units, n_units, seeds, l2, phi_prec, tol, bound,
                   max_iter):  # pragma: no cover - compiled
    runs = len(seeds)
    theta_out = np.empty((runs, len(theta0)))
    phi_out = np.empty((runs, len(phi0)))
    tau_out = np.empty(runs)
    ok = np.zeros(runs, dtype=np.bool_)
    for r in numba.prange(runs):
        times = unit_counts(n_units, seeds[r])
        theta, phi, tau, converged = _chord_rows(link, theta0, phi0, tau0, hinv, la, lb, F, counts, times, units,
                                                 l2, phi_prec, tol, bound, max_iter)
        theta_out[r] = theta
        phi_out[r] = phi
        tau_out[r] = tau
        ok[r] = converged
    return theta_out, phi_out, tau_out, ok
