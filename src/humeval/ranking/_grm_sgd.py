"""Compiled stochastic-gradient pass of the graded response model (``GRM.partial_fit``).

One step per judgment (system i, segment j, judge k, graded u ∈ {0 lose, 1 tie, 2 win}), on the
unconstrained parameters θ_i, α_k = log a_k, β_j = b_j1, γ_j = log(b_j2 − b_j1). With
z_m = a_k (θ_i − b_jm), g_m = ∂ log P(u) / ∂z_m (``grm._category_terms``):

    ∂/∂θ_i = a (g1 + g2)        ∂/∂α_k = a [g1 (θ − b1) + g2 (θ − b2)]
    ∂/∂β_j = −a (g1 + g2)       ∂/∂γ_j = −a g2 (b2 − b1)

Each parameter p adds its log prior's gradient divided by n_p, the number of judgments that have
touched it so far (the prior shared among its judgments, so that summed over a pass the steps
follow the log posterior Σ log P(u) + log prior), and moves by η_p = η0 (1 + n_p / τ)^(−κ)
(Robbins & Monro 1951's conditions Σ η = ∞, Σ η² < ∞ hold for ½ < κ ≤ 1; the per-parameter
count follows Bottou 2012, "Stochastic gradient descent tricks", §5.2, with each parameter's own
clock because a system is seen far more often than a segment).
"""

from __future__ import annotations

import math

import numba


@numba.njit(cache=True)
def _sigmoid(x):
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@numba.njit(cache=True)
def _rate(eta0, n, tau, kappa):
    return eta0 / (1.0 + n / tau) ** kappa


@numba.njit(cache=True)
def sgd_pass(system, segment, judge, u, theta, alpha, beta, gamma, n_theta, n_judge, n_segment, info,
             eta0, tau, kappa, sigma, mu_a, sigma_a, mu_b1, mu_b2, sigma_b, alpha_max, base):
    """Update the parameter arrays in place, one judgment at a time, in the order given; ``info``
    accumulates each system's Fisher information at the time of its judgments (for a standard error)."""
    for t in range(system.shape[0]):
        i, j, k, c = system[t], segment[t], judge[t], u[t]
        if i == base:
            continue
        n_theta[i] += 1
        n_judge[k] += 1
        n_segment[j] += 1
        a = math.exp(alpha[k])
        b1 = beta[j]
        gap = math.exp(gamma[j])
        b2 = b1 + gap
        th = theta[i]
        p1 = _sigmoid(a * (th - b1))
        p2 = _sigmoid(a * (th - b2))
        tie = max(p1 - p2, 1e-300)
        if c == 0:
            g1, g2 = -p1, 0.0
        elif c == 2:
            g1, g2 = 0.0, 1.0 - p2
        else:
            g1, g2 = p1 * (1.0 - p1) / tie, -p2 * (1.0 - p2) / tie
        d1, d2 = a * p1 * (1.0 - p1), a * p2 * (1.0 - p2)
        info[i] += d1 * d1 / max(1.0 - p1, 1e-300) + (d1 - d2) ** 2 / tie + d2 * d2 / max(p2, 1e-300)
        nt, nk, nj = n_theta[i], n_judge[k], n_segment[j]
        d_theta = a * (g1 + g2) - th / (sigma * sigma) / nt
        d_alpha = a * (g1 * (th - b1) + g2 * (th - b2)) - (alpha[k] - mu_a) / (sigma_a * sigma_a) / nk
        prior_b1 = -(b1 - mu_b1) / (sigma_b * sigma_b) / nj
        prior_b2 = -(b2 - mu_b2) / (sigma_b * sigma_b) / nj
        d_beta = -a * (g1 + g2) + prior_b1 + prior_b2
        d_gamma = (-a * g2 + prior_b2) * gap
        theta[i] = th + _rate(eta0, nt, tau, kappa) * d_theta
        alpha[k] = min(alpha[k] + _rate(eta0, nk, tau, kappa) * d_alpha, alpha_max)
        step = _rate(eta0, nj, tau, kappa)
        beta[j] = b1 + step * d_beta
        gamma[j] = gamma[j] + step * d_gamma
