"""Compiled marginal likelihood of the graded response model and its gradient (``GRM.fit``).

The judgment of system i on segment j by judge k enters the marginal likelihood only through
P(u | θ_t; a_k, b_j) at the T quadrature nodes θ_t, which depends on the judge, the segment and
the category u, not on the system. So the kernel evaluates the category terms once per *slot*
— a distinct (judge, segment, u) observed — and node (the only exponentials and logarithms), and
the judgments enter as counts n of distinct (system, slot) cells:

    L_i(t) = Σ_cells of i  n · log P(u | θ_t; a_k, b_j)                 (per system and node)
    log ∫ … = logsumexp_t (L_i(t) + log w_t),    r_i(t) = exp(L_i(t) + log w_t − log ∫ …)
    R(slot, t) = Σ_i n_(i, slot) · r_i(t)

and the gradient with respect to a_k, b_j1, b_j2 sums R times the slot's derivatives g1, g2 of
``grm._category_terms`` (the formulas of ``GRM._negative_marginal``, the numpy reference this
kernel is tested against). Cost per evaluation: O(slots · T) transcendental functions plus
O(cells · T) multiply-adds, against O(judgments · T) of each in the reference; the work arrays
(slots × T) are allocated once per fit (``GRMCells.work``).
"""

from __future__ import annotations

import math

import numba

from humeval.ranking._grm_sgd import _sigmoid as _expit  # the one overflow-safe logistic of the GRM kernels


@numba.njit(cache=True, error_model="numpy")
def marginal(alpha, beta, gamma, cell_system, cell_slot, cell_n, slot_judge, slot_segment, slot_u, nodes, log_w,
             joint, logp, g1, g2, weight, grad_a, grad_b1, grad_b2):
    """Σ_i log ∫ P(U_i | θ) N(θ) dθ by Gauss–Hermite nodes (returned), and its gradient with
    respect to a = e^α (per judge), b1 = β and b2 = β + e^γ (per segment), written into
    ``grad_a``, ``grad_b1``, ``grad_b2``. ``joint`` (systems × T), ``logp``, ``g1``, ``g2``,
    ``weight`` (slots × T) are work arrays. Priors and the chain rule to (α, β, γ) are the caller's."""
    n_slots, n_nodes = slot_judge.size, nodes.size
    for q in range(n_slots):
        a = math.exp(alpha[slot_judge[q]])
        b1 = beta[slot_segment[q]]
        b2 = b1 + math.exp(gamma[slot_segment[q]])
        u = slot_u[q]
        for t in range(n_nodes):
            if u == 0:  # lose: 1 − P*_1
                p1 = _expit(a * (nodes[t] - b1))
                logp[q, t] = math.log(max(1.0 - p1, 1e-300))
                g1[q, t] = -p1
                g2[q, t] = 0.0
            elif u == 1:  # tie: P*_1 − P*_2
                p1 = _expit(a * (nodes[t] - b1))
                p2 = _expit(a * (nodes[t] - b2))
                tie = max(p1 - p2, 1e-300)
                logp[q, t] = math.log(tie)
                g1[q, t] = p1 * (1.0 - p1) / tie
                g2[q, t] = -p2 * (1.0 - p2) / tie
            else:  # win: P*_2
                p2 = _expit(a * (nodes[t] - b2))
                logp[q, t] = math.log(max(p2, 1e-300))
                g1[q, t] = 0.0
                g2[q, t] = 1.0 - p2
    joint[:] = 0.0
    for c in range(cell_system.size):
        s, q, n = cell_system[c], cell_slot[c], cell_n[c]
        for t in range(n_nodes):
            joint[s, t] += n * logp[q, t]
    value = 0.0
    for s in range(joint.shape[0]):  # a system without judgments adds log Σ w = 0
        top = -math.inf
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
    weight[:] = 0.0
    for c in range(cell_system.size):
        s, q, n = cell_system[c], cell_slot[c], cell_n[c]
        for t in range(n_nodes):
            weight[q, t] += n * joint[s, t]
    grad_a[:] = 0.0
    grad_b1[:] = 0.0
    grad_b2[:] = 0.0
    for q in range(n_slots):
        k, j = slot_judge[q], slot_segment[q]
        a = math.exp(alpha[k])
        b1 = beta[j]
        b2 = b1 + math.exp(gamma[j])
        da = db1 = db2 = 0.0
        for t in range(n_nodes):
            w = weight[q, t]
            da += w * (g1[q, t] * (nodes[t] - b1) + g2[q, t] * (nodes[t] - b2))
            db1 -= w * a * g1[q, t]
            db2 -= w * a * g2[q, t]
        grad_a[k] += da
        grad_b1[j] += db1
        grad_b2[j] += db2
    return value
