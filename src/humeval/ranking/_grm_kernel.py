"""Compiled marginal likelihood of the graded response model and its gradient (``GRM.fit``).

The judgment of system i on segment j by judge k enters the marginal likelihood only through
P(u | θ_t; a_k, b_j) at the T quadrature nodes θ_t, which depends on the judge, the segment and
the category u, not on the system. So the kernel evaluates the category terms once per *slot*
— a distinct (judge, segment, u) observed — and node, and the judgments enter as counts n of
distinct (system, slot) cells, stored slot by slot (``slot_start``, as a CSR matrix):

    L_i(t) = Σ_cells of i  n · log P(u | θ_t; a_k, b_j)                 (per system and node)
    log ∫ … = logsumexp_t (L_i(t) + log w_t),    r_i(t) = exp(L_i(t) + log w_t − log ∫ …)
    R(slot, t) = Σ_i n_(i, slot) · r_i(t)

and the gradient with respect to a_k, b_j1, b_j2 sums R times the slot's derivatives g1, g2 of
``grm._category_terms`` (the formulas of ``GRM._negative_marginal``, the numpy reference this
kernel is tested against).

The logistic curves use e^{−a(θ_t − b)} = e^{−a θ_t} · e^{a b}: one exponential per judge and
node and two per slot, so a slot and node costs one logarithm and a division or two instead of
two exponentials, a logarithm and two divisions; the tie probability is P*_1 − P*_2 =
P*_1 P*_2 (X_2 − X_1) with X_m = e^{−z_m} and X_2 − X_1 = e^{−aθ} e^{a b_1} expm1(a (b_2 − b_1)),
free of the cancellation of the plain difference. A slot whose exponents could overflow
(a (|θ| + |b|) > 300, far outside the fitted range: a is capped at 10) takes the log-space
formulas of the reference.
Cost per evaluation: O(slots · T) logarithms plus O(cells · T) multiply-adds; the work arrays
g1, g2 (slots × T) are allocated once per fit (``GRMCells.work``).
"""

from __future__ import annotations

import math

import numba

from humeval.ranking._grm_sgd import _sigmoid as _expit  # the one overflow-safe logistic of the GRM kernels

_SAFE = 300.0  # largest exponent taken by the factorised logistic


@numba.njit(cache=True, error_model="numpy")
def _slot_terms(u, a, b1, b2, nodes, e_node, fast, logp, g1, g2):
    """log P(u | θ_t) and its derivatives g1, g2 with respect to z_m = a (θ_t − b_m) at every node,
    into ``logp``, ``g1``, ``g2`` (length T). ``e_node`` holds e^{−a θ_t} (used when ``fast``)."""
    n_nodes = nodes.size
    if fast:
        f1 = math.exp(a * b1)
        f2 = math.exp(a * b2)
        gap = f1 * math.expm1(a * (b2 - b1))  # e^{a b2} − e^{a b1}
        for t in range(n_nodes):
            if u == 0:  # lose: 1 − P*_1 = X_1 / (1 + X_1)
                x1 = e_node[t] * f1
                p1 = 1.0 / (1.0 + x1)
                logp[t] = math.log(max(x1 * p1, 1e-300))
                g1[t] = -p1
                g2[t] = 0.0
            elif u == 1:  # tie: P*_1 − P*_2 = P*_1 P*_2 (X_2 − X_1)
                x1 = e_node[t] * f1
                x2 = e_node[t] * f2
                p1 = 1.0 / (1.0 + x1)
                p2 = 1.0 / (1.0 + x2)
                tie = max(p1 * p2 * (e_node[t] * gap), 1e-300)
                logp[t] = math.log(tie)
                g1[t] = p1 * (x1 * p1) / tie
                g2[t] = -p2 * (x2 * p2) / tie
            else:  # win: P*_2
                x2 = e_node[t] * f2
                p2 = 1.0 / (1.0 + x2)
                logp[t] = math.log(max(p2, 1e-300))
                g1[t] = 0.0
                g2[t] = x2 * p2
        return
    for t in range(n_nodes):  # the log-space formulas of grm._category_terms
        z1 = a * (nodes[t] - b1)
        z2 = a * (nodes[t] - b2)
        if u == 0:
            logp[t] = -_softplus(z1)
            g1[t] = -_expit(z1)
            g2[t] = 0.0
        elif u == 1:
            gap = max(-math.expm1(z2 - z1), 1e-300)
            logp[t] = -_softplus(-z1) - _softplus(z2) + math.log(gap)
            g1[t] = _expit(-z1) / max(_expit(-z2) * gap, 1e-300)
            g2[t] = -_expit(z2) / max(_expit(z1) * gap, 1e-300)
        else:
            logp[t] = -_softplus(-z2)
            g1[t] = 0.0
            g2[t] = _expit(-z2)


@numba.njit(cache=True)
def _softplus(x):
    """log(1 + e^x) without overflow."""
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


@numba.njit(cache=True, error_model="numpy")
def marginal(alpha, beta, gamma, slot_start, cell_system, cell_n, slot_judge, slot_segment, slot_u, nodes, log_w,
             joint, g1, g2, grad_a, grad_b1, grad_b2):
    """Σ_i log ∫ P(U_i | θ) N(θ) dθ by Gauss–Hermite nodes (returned), and its gradient with
    respect to a = e^α (per judge), b1 = β and b2 = β + e^γ (per segment), written into
    ``grad_a``, ``grad_b1``, ``grad_b2``. The cells of slot q are ``slot_start[q]`` to
    ``slot_start[q + 1]`` of ``cell_system``, ``cell_n``. ``joint`` (systems × T), ``g1``, ``g2``
    (slots × T) are work arrays. Priors and the chain rule to (α, β, γ) are the caller's."""
    n_slots, n_nodes = slot_judge.size, nodes.size
    top_node = 0.0
    for t in range(n_nodes):
        top_node = max(top_node, abs(nodes[t]))
    e_node = nodes.copy()
    logp = nodes.copy()
    judge_now = -1
    a = 0.0
    joint[:] = 0.0
    for q in range(n_slots):
        k = slot_judge[q]
        if k != judge_now:  # slots come judge by judge
            judge_now = k
            a = math.exp(alpha[k])
            if a * top_node < _SAFE:
                for t in range(n_nodes):
                    e_node[t] = math.exp(-a * nodes[t])
        b1 = beta[slot_segment[q]]
        b2 = b1 + math.exp(gamma[slot_segment[q]])
        fast = a * (top_node + max(abs(b1), abs(b2))) < _SAFE
        _slot_terms(slot_u[q], a, b1, b2, nodes, e_node, fast, logp, g1[q], g2[q])
        for c in range(slot_start[q], slot_start[q + 1]):
            s, n = cell_system[c], cell_n[c]
            for t in range(n_nodes):
                joint[s, t] += n * logp[t]
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
    grad_a[:] = 0.0
    grad_b1[:] = 0.0
    grad_b2[:] = 0.0
    weight = logp  # reused: R(slot, t)
    for q in range(n_slots):
        k, j = slot_judge[q], slot_segment[q]
        a = math.exp(alpha[k])
        b1 = beta[j]
        b2 = b1 + math.exp(gamma[j])
        weight[:] = 0.0
        for c in range(slot_start[q], slot_start[q + 1]):
            s, n = cell_system[c], cell_n[c]
            for t in range(n_nodes):
                weight[t] += n * joint[s, t]
        da = db1 = db2 = 0.0
        for t in range(n_nodes):
            w = weight[t]
            da += w * (g1[q, t] * (nodes[t] - b1) + g2[q, t] * (nodes[t] - b2))
            db1 -= w * a * g1[q, t]
            db2 -= w * a * g2[q, t]
        grad_a[k] += da
        grad_b1[j] += db1
        grad_b2[j] += db2
    return value
