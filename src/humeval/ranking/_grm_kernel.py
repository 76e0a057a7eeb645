"""Compiled marginal likelihood of the graded response model and its gradient (``GRM.fit``).

The judgment of system i on segment j by judge k enters the marginal likelihood only through
P(u | θ_t; a_k, b_j) at the T quadrature nodes θ_t, which depends on the (judge, segment) *pair*
and the category u, not on the system. So the kernel evaluates the category terms once per
observed pair and node (the only exponentials and logarithms), and the judgments enter as
counts n of distinct (system, pair, u) cells:

    L_i(t) = Σ_cells of i  n · log P(u | θ_t; a_k, b_j)                 (per system and node)
    log ∫ … = logsumexp_t (L_i(t) + log w_t),    r_i(t) = exp(L_i(t) + log w_t − log ∫ …)
    R(pair, u, t) = Σ_i n_(i, pair, u) · r_i(t)

and the gradient with respect to a_k, b_j1, b_j2 sums R times the per-pair derivatives g1, g2 of
``grm._category_terms`` (the formulas of ``GRM._negative_marginal``, the numpy reference this
kernel is tested against). Cost per evaluation: O(pairs · T) transcendental functions plus
O(cells · T) multiply-adds, against O(judgments · T) of each in the reference.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from humeval.ranking._grm_sgd import _sigmoid as _expit  # the one overflow-safe logistic of the GRM kernels


@numba.njit(cache=True)
def marginal(alpha, beta, gamma, cell_system, cell_pair, cell_u, cell_n, pair_judge, pair_segment, nodes, log_w,
             n_systems):
    """Σ_i log ∫ P(U_i | θ) N(θ) dθ by Gauss–Hermite nodes, and its gradient with respect to
    a = e^α (per judge), b1 = β and b2 = β + e^γ (per segment), returned as (value, ∂/∂a, ∂/∂b1,
    ∂/∂b2). Priors and the chain rule to (α, β, γ) are the caller's."""
    n_pairs, n_nodes = pair_judge.size, nodes.size
    seen = np.zeros((n_pairs, 3), dtype=np.bool_)  # only the categories some judgment of the pair has
    for c in range(cell_system.size):
        seen[cell_pair[c], cell_u[c]] = True
    logp = np.zeros((n_pairs, 3, n_nodes))
    g1 = np.zeros((n_pairs, 3, n_nodes))
    g2 = np.zeros((n_pairs, 3, n_nodes))
    for p in range(n_pairs):
        a = math.exp(alpha[pair_judge[p]])
        b1 = beta[pair_segment[p]]
        b2 = b1 + math.exp(gamma[pair_segment[p]])
        lose, tied, win = seen[p, 0], seen[p, 1], seen[p, 2]
        for t in range(n_nodes):
            p1 = _expit(a * (nodes[t] - b1)) if lose or tied else 0.0
            p2 = _expit(a * (nodes[t] - b2)) if tied or win else 0.0
            if lose:
                logp[p, 0, t] = math.log(max(1.0 - p1, 1e-300))
                g1[p, 0, t] = -p1
            if tied:
                tie = max(p1 - p2, 1e-300)
                logp[p, 1, t] = math.log(tie)
                g1[p, 1, t] = p1 * (1.0 - p1) / tie
                g2[p, 1, t] = -p2 * (1.0 - p2) / tie
            if win:
                logp[p, 2, t] = math.log(max(p2, 1e-300))
                g2[p, 2, t] = 1.0 - p2
    joint = np.zeros((n_systems, n_nodes))
    for c in range(cell_system.size):
        s, p, u, n = cell_system[c], cell_pair[c], cell_u[c], cell_n[c]
        for t in range(n_nodes):
            joint[s, t] += n * logp[p, u, t]
    value = 0.0
    for s in range(n_systems):  # a system without judgments adds log Σ w = 0
        top = -np.inf
        for t in range(n_nodes):
            joint[s, t] += log_w[t]
            top = max(top, joint[s, t])
        total = 0.0
        for t in range(n_nodes):
            total += math.exp(joint[s, t] - top)
        lse = top + math.log(total)
        value += lse
        for t in range(n_nodes):
            joint[s, t] = math.exp(joint[s, t] - lse)  # now the posterior weights r_i(t)
    weight = np.zeros((n_pairs, 3, n_nodes))
    for c in range(cell_system.size):
        s, p, u, n = cell_system[c], cell_pair[c], cell_u[c], cell_n[c]
        for t in range(n_nodes):
            weight[p, u, t] += n * joint[s, t]
    grad_a = np.zeros(alpha.size)
    grad_b1 = np.zeros(beta.size)
    grad_b2 = np.zeros(beta.size)
    for p in range(n_pairs):
        k, j = pair_judge[p], pair_segment[p]
        a = math.exp(alpha[k])
        b1 = beta[j]
        b2 = b1 + math.exp(gamma[j])
        da = db1 = db2 = 0.0
        for u in range(3):
            for t in range(n_nodes):
                w = weight[p, u, t]
                da += w * (g1[p, u, t] * (nodes[t] - b1) + g2[p, u, t] * (nodes[t] - b2))
                db1 -= w * a * g1[p, u, t]
                db2 -= w * a * g2[p, u, t]
        grad_a[k] += da
        grad_b1[j] += db1
        grad_b2[j] += db2
    return value, grad_a, grad_b1, grad_b2
