"""Compiled bootstrap refits of the Bradley–Terry family with covariates (style control) on comparison rows.

A resample draws the units (single comparisons, or clusters) with replacement; row i then
counts k_i times (k = how often its unit was drawn, ``unit_counts``). Each row is a cell of the
one compiled fit, ``_pair_kernel.chord_fit`` (the chord-Newton iteration from the full-data
estimate with the full-data negative Hessian, its gradient from the shared per-cell
``cell_scores``), with x_i = θ_a − θ_b + F_i φ, F_i the row's fixed effects (position, covariates):

    g_θ = Σ_i k_i ℓ'_i (e_a − e_b) − λ(θ − θ̄),   g_φ = Σ_i k_i ℓ'_i F_i − Λ_φ φ,   g_τ = Σ_i k_i ∂ℓ_i/∂τ.

Each iteration is one pass over the rows; a resample's Hessian differs from H₀ by O(1/√n), so
two or three iterations reach 1e-9. Resamples are spread over the cores (numba ``prange``).
"""

from __future__ import annotations

import numba
import numpy as np

from humeval.ranking._pair_kernel import chord_fit


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


@numba.njit(cache=True, parallel=True)
def bootstrap_units(p0, hinv, pi, pj, F, m, link, counts, units, n_units, seeds, l2, phi_prec, tol, max_iter,
                    tie_bound):  # pragma: no cover - compiled
    """Per seed: the units drawn (``unit_counts``) and the rows refitted by ``_pair_kernel.chord_fit``,
    each row (a cell: ``pi``, ``pj``, its covariate row in ``F``, counts (w, t, l) in ``counts``)
    counting as often as its unit was drawn."""
    runs = len(seeds)
    out = np.empty((runs, len(p0)))
    ok = np.zeros(runs, dtype=np.bool_)
    for r in numba.prange(runs):
        times = unit_counts(n_units, seeds[r]).astype(np.float64)  # as _pair_kernel's: one chord_fit signature
        p, converged = chord_fit(p0, hinv, pi, pj, F, counts, times, units, m, link, l2, phi_prec, tol, max_iter,
                                 tie_bound)
        out[r] = p
        ok[r] = converged
    return out, ok
