"""One compiled Gibbs sweep of ``IRTGaussian``, with an exact rejection sampler for its truncated normals.

Each observation is drawn from a normal truncated to the region its comparison's outcome allows
(``irt`` for the model). The numpy sweep (``IRTGaussian._sweep_numpy``) draws it by the inverse
CDF, Φ⁻¹(Φ(a) + u·(Φ(b) − Φ(a))): two special functions per draw, three quarters of its time.
This sweep draws the standardised variable on [a, b] by rejection instead, from Robert's (1995,
"Simulation of truncated normal variables", Statistics and Computing 5:121–125) proposals, each
chosen where its acceptance rate is the higher one:

- 0 ∈ [a, b], b − a ≥ √(2π): standard normal draws until one falls in [a, b]
  (acceptance Φ(b) − Φ(a) ≥ 0.49);
- 0 ∈ [a, b], narrower: z ~ U[a, b], kept with probability exp(−z²/2) (acceptance ≥ 0.49);
- a > 0 (the upper tail), b − a > 2/(a + √(a² + 4)) · exp((a² − a√(a² + 4))/4 + 1/2), b = ∞
  included: z = a + E/λ with E ~ Exp(1) and λ = (a + √(a² + 4))/2, kept with probability
  exp(−(z − λ)²/2) when z ≤ b (acceptance ≥ 0.76 when b = ∞);
- a > 0, narrower: z ~ U[a, b], kept with probability exp((a² − z²)/2);
- b ≤ 0: the mirror image of [−b, −a].

Every branch is exact: the draws have the truncated normal's distribution, as the inverse CDF's
do (``tests/ranking/test_irt_sweep.py`` checks both the sampler against the truncated normal's
CDF and the two sweeps' posteriors against each other), but they are other numbers from the
same seed: a fit's samples differ from the numpy sweep's by Monte-Carlo noise. "Kept with
probability p" uses an exponential draw E (kept when E ≥ −log p), so no logarithm or exponential
is evaluated; numba's generator methods give numpy's streams, one value at a time.
"""

from __future__ import annotations

import math

import numba
import numpy as np

SQRT_2PI = math.sqrt(2 * math.pi)


@numba.njit(inline="always", cache=True)
def _rate(a):  # pragma: no cover - compiled
    """Robert's optimal exponential rate λ = (a + √(a² + 4))/2 for a > 0, written so that a² does
    not overflow for huge a."""
    if a > 1.0:
        return 0.5 * a * (1.0 + math.sqrt(1.0 + 4.0 / (a * a)))
    return 0.5 * (a + math.sqrt(a * a + 4.0))


@numba.njit(inline="always", cache=True)  # inlined: a call passing ``rng`` costs more than the draw
def _above(rng, a):  # pragma: no cover - compiled
    """A draw from N(0, 1) truncated to [a, ∞): normal rejection for a ≤ 0, else Robert's
    exponential proposal (the threshold always picks it when b = ∞). a = ∞ or NaN is an error,
    not an endless loop."""
    if not a < math.inf:
        raise ValueError("truncated_standard_normal: empty interval (a = ∞, or NaN)")
    if a <= 0.0:
        while True:
            z = rng.standard_normal()
            if z >= a:
                return z
    rate = _rate(a)
    while True:
        z = a + rng.standard_exponential() / rate
        if rng.standard_exponential() >= 0.5 * (z - rate) * (z - rate):
            return z


@numba.njit(inline="always", cache=True)
def _upper(rng, a, b):  # pragma: no cover - compiled
    """A draw from N(0, 1) truncated to [a, b] with b ≥ 0 and b finite (see the module docstring)."""
    if a <= 0.0:
        if b - a >= SQRT_2PI:
            while True:
                z = rng.standard_normal()
                if a <= z <= b:
                    return z
        while True:
            z = a + (b - a) * rng.random()
            if rng.standard_exponential() >= 0.5 * z * z:
                return z
    rate = _rate(a)
    # Robert's threshold 2/(a + root)·exp((a² − a·root)/4 + 1/2), root = √(a² + 4) = 2λ − a;
    # (a² − a·root)/4 written as −a/(a + root) = −a/(2λ), which does not cancel
    if b - a > math.exp(0.5 - 0.5 * a / rate) / rate:
        while True:
            z = a + rng.standard_exponential() / rate
            if z <= b and rng.standard_exponential() >= 0.5 * (z - rate) * (z - rate):
                return z
    while True:
        z = a + (b - a) * rng.random()
        if rng.standard_exponential() >= 0.5 * (z - a) * (z + a):
            return z


@numba.njit(inline="always", cache=True)
def truncated_standard_normal(rng, a, b):  # pragma: no cover - compiled
    """A draw from N(0, 1) truncated to [a, b] (a ≤ b; either may be infinite)."""
    if not a <= b:
        raise ValueError("truncated_standard_normal: empty interval (a > b, or NaN)")
    if b == math.inf:
        return _above(rng, a)
    if a == -math.inf:
        return -_above(rng, -b)
    if b <= 0.0:
        return -_upper(rng, -b, -a)
    return _upper(rng, a, b)


@numba.njit(cache=True)
def _side(rng, o, q, items, outcome, side, r, so):  # pragma: no cover - compiled
    """o[:, side] ← N(q_item, so²) truncated to the region the outcome allows given o[:, other]."""
    other = 1 - side
    win, lose = (1, 2) if side == 0 else (2, 1)
    for i in range(len(outcome)):
        x = o[i, other]
        mean = q[items[i, side]]
        if outcome[i] == win:  # o > x + r
            z = _above(rng, (x + r - mean) / so)
        elif outcome[i] == lose:  # o < x − r
            z = -_above(rng, (mean - x + r) / so)
        else:  # |o − x| ≤ r
            z = truncated_standard_normal(rng, (x - r - mean) / so, (x + r - mean) / so)
        o[i, side] = mean + so * z


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


@numba.njit(cache=True)
def sweeps(rng, o, q, mu, items, author, outcome, n_obs, n_items, r, so, sa2, so2, inv_sa2, inv_s02, out):  # pragma: no cover
    """``len(out)`` sweeps in a row, ``mu`` after each one written to the next row of ``out``."""
    for k in range(out.shape[0]):
        sweep(rng, o, q, mu, items, author, outcome, n_obs, n_items, r, so, sa2, so2, inv_sa2, inv_s02)
        out[k] = mu
