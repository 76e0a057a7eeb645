"""Compiled bootstrap refits of Bradley–Terry on pair counts.

Each resample is drawn and solved inside one parallel loop: the counts per unordered pair (i
wins, tie, j wins) are a multinomial draw (or given), and the MLE is found by a chord-Newton
iteration θ ← θ + H₀⁻¹ g(θ) started at the full-data estimate, with H₀ the full-data Hessian
(inverted once). A resample's Hessian differs from H₀ by O(1/√count), so the iteration contracts
fast; resamples that do not converge are reported and refitted by the robust solver.
"""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True, inline="always")
def chord_step(p, hinv, g):  # pragma: no cover - compiled
    """One chord-Newton step p ← p + H₀⁻¹ g in place; returns the largest |step| (the convergence
    test). Shared by this kernel and ``_tie_kernel``."""
    largest = 0.0
    for i in range(len(p)):
        step = 0.0
        for j in range(len(g)):
            step += hinv[i, j] * g[j]
        p[i] += step
        largest = max(largest, abs(step))
    return largest


@numba.njit(cache=True)
def _chord_fit(theta0, hinv, pi, pj, counts, l2, tol, max_iter):  # pragma: no cover - compiled
    m = len(theta0)
    theta = theta0.copy()
    g = np.empty(m)
    for _ in range(max_iter):
        for i in range(m):
            g[i] = -l2 * theta[i]
        for k in range(len(pi)):
            w, t, l = counts[3 * k], counts[3 * k + 1], counts[3 * k + 2]
            n = w + t + l
            if n == 0.0:
                continue
            s = 1.0 / (1.0 + math.exp(theta[pj[k]] - theta[pi[k]]))
            d = w + 0.5 * t - n * s
            g[pi[k]] += d
            g[pj[k]] -= d
        largest = chord_step(theta, hinv, g)
        if not math.isfinite(largest):
            return theta, False
        if largest < tol:
            return theta, True
    return theta, False


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
def draw_counts(base, total, seed):  # pragma: no cover - compiled
    """The multinomial resample of the pair-count cells for one seed (same as inside the kernel)."""
    np.random.seed(seed)
    return _multinomial(total, base / total)


@numba.njit(cache=True, parallel=True)
def bootstrap_multinomial(theta0, hinv, pi, pj, base, total, seeds, l2, tol, max_iter):  # pragma: no cover
    runs = len(seeds)
    out = np.empty((runs, len(theta0)))
    ok = np.zeros(runs, dtype=np.bool_)
    p = base / total
    for r in numba.prange(runs):
        np.random.seed(seeds[r])
        counts = _multinomial(total, p)
        theta, converged = _chord_fit(theta0, hinv, pi, pj, counts, l2, tol, max_iter)
        out[r] = theta
        ok[r] = converged
    return out, ok


@numba.njit(cache=True, parallel=True)
def fit_many(theta0, hinv, pi, pj, counts, l2, tol, max_iter):  # pragma: no cover - compiled
    runs = counts.shape[0]
    out = np.empty((runs, len(theta0)))
    ok = np.zeros(runs, dtype=np.bool_)
    for r in numba.prange(runs):
        theta, converged = _chord_fit(theta0, hinv, pi, pj, counts[r], l2, tol, max_iter)
        out[r] = theta
        ok[r] = converged
    return out, ok
