"""One compiled Gibbs sweep of ``IRTGaussian`` that draws exactly what the numpy sweep draws.

The same random numbers in the same order (numba's ``np.random.Generator`` methods reproduce
numpy's streams: ``random`` and ``standard_normal``, one value at a time), the same arithmetic
in the same order (IEEE, no fast-math), and Φ, Φ⁻¹ from the very functions scipy's ``ndtr`` and
``ndtri`` ufuncs evaluate (``scipy.special.cython_special``, bound by symbol name so the compiled
code can be cached): a fit gives bit-for-bit the samples of the numpy sweep, with every
per-comparison step fused into one loop and no temporary arrays. Φ(±∞) is 1 or 0 exactly, so it
is not evaluated for the one-sided bounds of a won or lost comparison. See ``irt`` for the model
and ``irt._truncated_normal`` for the draw.
"""

from __future__ import annotations

import math

import llvmlite.binding as llvm
import numba
import numpy as np
from numba import types
from numba.extending import get_cython_function_address

try:  # the double-precision Φ (cython_special's fused ndtr, real branch) and Φ⁻¹
    llvm.add_symbol("humeval_irt_ndtr", get_cython_function_address("scipy.special.cython_special", "__pyx_fuse_1ndtr"))
    llvm.add_symbol("humeval_irt_ndtri", get_cython_function_address("scipy.special.cython_special", "ndtri"))
    AVAILABLE = True
except (ValueError, KeyError, AttributeError):  # another scipy: IRTGaussian keeps its numpy sweep
    AVAILABLE = False
_ndtr = types.ExternalFunction("humeval_irt_ndtr", types.float64(types.float64, types.int32))
_ndtri = types.ExternalFunction("humeval_irt_ndtri", types.float64(types.float64, types.int32))


@numba.njit(cache=True)
def _phi(x):  # pragma: no cover - compiled
    if x == math.inf:
        return 1.0
    if x == -math.inf:
        return 0.0
    return _ndtr(x, 0)


@numba.njit(cache=True)
def _side(rng, o, q, items, outcome, side, r, so):  # pragma: no cover - compiled
    """o[:, side] ← N(q_item, so²) truncated to the region the outcome allows given o[:, other]
    (``irt._truncated_normal``: bounds in the upper tail reflected to the lower one). One
    uniform per comparison in order, as numpy's block draw gives them (the bounds draw nothing)."""
    other = 1 - side
    win, lose = (1, 2) if side == 0 else (2, 1)
    for i in range(len(outcome)):
        x = o[i, other]
        if outcome[i] == win:
            lo, hi = x + r, math.inf
        elif outcome[i] == lose:
            lo, hi = -math.inf, x - r
        else:
            lo, hi = x - r, x + r
        mean = q[items[i, side]]
        a, b = (lo - mean) / so, (hi - mean) / so
        flip = a > 0
        if flip:
            a, b = -b, -a
        pa, pb = _phi(a), _phi(b)
        z = _ndtri(pa + rng.random() * (pb - pa), 0)
        if math.isnan(z):
            z = 0.0
        elif z == math.inf:
            z = b
        elif z == -math.inf:
            z = a
        z = min(max(z, a), b)
        o[i, side] = mean + so * (-z if flip else z)


@numba.njit(cache=True)
def sweep(rng, o, q, mu, items, author, outcome, n_obs, n_items, r, so, sa2, so2, inv_sa2, inv_s02):  # pragma: no cover
    """One sweep (see ``IRTGaussian._sweep``): both observation sides, the items' qualities,
    the systems' abilities; updates ``o``, ``q`` and ``mu`` in place."""
    _side(rng, o, q, items, outcome, 0, r, so)
    _side(rng, o, q, items, outcome, 1, r, so)
    total = np.zeros(len(q))
    for i in range(len(outcome)):
        total[items[i, 0]] += o[i, 0]
        total[items[i, 1]] += o[i, 1]
    for k in range(len(q)):
        precision = inv_sa2 + n_obs[k] / so2
        mean = (mu[author[k]] / sa2 + total[k] / so2) / precision
        q[k] = mean + rng.standard_normal() / math.sqrt(precision)
    total = np.zeros(len(mu))
    for k in range(len(q)):
        total[author[k]] += q[k]
    for s in range(len(mu)):
        precision = inv_s02 + n_items[s] / sa2
        mu[s] = (total[s] / sa2) / precision + rng.standard_normal() / math.sqrt(precision)
