"""Which fixed effects of a pairwise model the data separate: linear programs over the cone of
directions in which no comparison's likelihood falls.

A fixed effect φ_k (a covariate's coefficient, or the position effect) has no finite
maximum-likelihood estimate when some direction d of the parameters raises or keeps every
comparison's likelihood however far it is followed (Albert & Anderson 1984, "On the existence of
maximum likelihood estimates in logistic regression models", Biometrika 71). With the linear
predictor x_i = θ_a − θ_b + F_i·φ that is a d with

    r_i·d ≥ 0 where a won,   r_i·d ≤ 0 where b won,   r_i·d = 0 where they tied,

r_i = (e_a − e_b, F_i) (a tie's probability falls as |x| grows under every link), and φ_k is
separated when some such d has d_k ≠ 0. With a prior on the abilities (``l2`` > 0) d moves φ
only: the prior falls in every direction θ moves. For each k two linear programs, max d_k and
min d_k over that cone cut to the box |d| ≤ 1, say whether one exists (Konis 2007, "Linear
programming algorithms for detecting separated data in binary logistic regression models",
DPhil thesis, Oxford; R's safeBinaryRegression). The answer depends on the data alone, not on
how far a solver ran before it stopped.

When one covariate separates the outcomes strictly, every other coefficient lies in some such
direction too (the margin leaves room to move it), though it separates nothing: so the
coefficients that separate the outcomes on their own (d = ±e_k) are named when there are any,
and the cone's otherwise (a separation only several covariates make together).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

TOL = 1e-6  # an optimum below this is 0 (HiGHS' feasibility tolerance is 1e-7)


def separated_columns(F: np.ndarray, counts: np.ndarray, a=None, b=None, m: int = 0) -> np.ndarray:
    """Per column of ``F`` (cells × k), whether its coefficient is named as separated: those that
    separate the outcomes alone, or, when none does, those some separating direction moves
    (see the module doc).

    ``counts`` (cells × 3): each cell's weight of ties, wins of a and wins of b. ``a``, ``b``
    (each cell's systems, 0..m−1) and ``m`` > 0: the abilities move too (maximum likelihood, no
    prior on them); ``m`` = 0: they do not."""
    F = np.asarray(F, dtype=float)
    k = F.shape[1]
    rms = np.sqrt(np.mean(F ** 2, axis=0))
    F = F / np.where(rms > 0, rms, 1.0)  # the direction's existence does not depend on the columns' units
    sign, equal, used = _outcome_signs(counts)
    alone = alone_columns(F, counts)
    if alone.any():
        return alone
    upper = _distinct(F, sign, used & ~equal, a, b, m, signed=True)
    same = _distinct(F, sign, used & equal, a, b, m, signed=False)
    found = np.zeros(k, dtype=bool)
    for j in range(k):
        for direction in (1.0, -1.0):
            if found[j]:
                break
            c = np.zeros(m + k)
            c[m + j] = -direction
            result = linprog(c, *_block(upper), *_block(same), bounds=(-1.0, 1.0), method="highs")
            if result.status == 0 and -result.fun > TOL:
                found |= np.abs(result.x[m:]) > TOL  # every coefficient this direction moves
    return found


def alone_columns(F: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per column of ``F`` (cells × k), whether its coefficient separates the outcomes on its own
    (d = ±e_k is in the cone: ``_alone``), which a pass over the cells decides without a linear
    program."""
    sign, equal, used = _outcome_signs(counts)
    F = np.asarray(F, dtype=float)
    return np.array([_alone(F[used, j], sign[used], equal[used]) for j in range(F.shape[1])], dtype=bool)


def _outcome_signs(counts: np.ndarray):
    """Per cell: the sign of its constraint (−1 where a won, +1 where b won, 0 for a tie or
    both), whether it is an equality (a tie, or both won), and whether it has any weight."""
    won_a, won_b, tied = counts[:, 1] > 0, counts[:, 2] > 0, counts[:, 0] > 0
    equal = tied | (won_a & won_b)
    sign = np.where(equal, 0.0, np.where(won_a, -1.0, 1.0))  # −r·d ≤ 0 where a won, r·d ≤ 0 where b won
    return sign, equal, equal | won_a | won_b


def _alone(column, sign, equal) -> bool:
    """Whether d = ±e_k is in the cone: the column is 0 where the cell is a tie (or both won),
    and its sign, never against the outcome, is the same where a won (sign −1) or b won (+1)."""
    if np.any(column[equal] != 0):
        return False
    signed = -sign[~equal] * column[~equal]  # > 0 where the column points the outcome's way
    return bool(signed.size) and (np.all(signed >= 0) or np.all(signed <= 0)) and np.any(signed != 0)


def _distinct(F, sign, keep, a, b, m, signed: bool):
    """The constraint rows r_i (times the outcome's sign when ``signed``) of the cells ``keep``,
    each distinct row once (the programs' cost grows with the rows: 1 s for 20,000, 6 s for
    100,000 on 2 cores; arena cells with the same systems and features collapse), as a sparse
    matrix."""
    dense = F[keep] * (sign[keep][:, None] if signed else 1.0)
    if m:
        dense = np.c_[a[keep], b[keep], sign[keep] if signed else np.zeros(int(keep.sum())), dense]
    dense = np.unique(dense, axis=0) if len(dense) else dense
    if not m:
        return sparse.csr_matrix(dense.reshape(-1, F.shape[1]))
    pairs = dense[:, :2].astype(np.int64)
    return sparse.hstack([_pairs(pairs[:, 0], pairs[:, 1], m).multiply(dense[:, 2:3] if signed else 1.0),
                          sparse.csr_matrix(dense[:, 3:])]).tocsr()


def _block(matrix):
    """(A, 0) of a constraint block ``A d ≤ 0`` or ``A d = 0``, or (None, None) when it is empty."""
    return (matrix, np.zeros(matrix.shape[0])) if matrix.shape[0] else (None, None)


def _pairs(a, b, m):
    """The cells' ability part e_a − e_b as a sparse (cells × m) matrix."""
    n = len(a)
    index = np.arange(n)
    return sparse.csr_matrix((np.r_[np.ones(n), -np.ones(n)], (np.r_[index, index], np.r_[a, b])), shape=(n, m))


ALIASED = 1e-10  # a column with less than this share of its information left after the others is aliased
ALIAS_SYSTEMS = 2000  # up to this many systems L⁺ is a dense pseudo-inverse; above, a sparse grounded solve


def aliased_columns(Z: np.ndarray, a: np.ndarray, b: np.ndarray, weight: np.ndarray, n_systems: int,
                    position: bool = False) -> list[tuple[int, list[int], bool]]:
    """The columns of ``Z`` (comparisons × k covariates, a − b) whose coefficients the data cannot
    tell apart from the others': (column, the earlier kept columns it combines (−1: the position
    effect; none when the systems' identities alone make it), whether the systems' abilities take
    part), in column order, as R's ``glm`` marks aliased coefficients.

    With x = θ_a − θ_b (+ h) + Zβ, the information about β left once the abilities (and the
    position effect h, with ``position``) are estimated too is the Schur complement
    S = FᵀWF − BᵀL⁺B (F = (1?, Z), W the comparisons' weights, L = DᵀWD the abilities' weighted
    graph Laplacian, D the rows' e_a − e_b, B = DᵀWF). Going through the columns in order, one
    whose residual S_jj − S_jK S_KK⁻¹ S_Kj, after the columns K kept so far, is below ``ALIASED``
    of its own FᵀWF_jj is a combination of them (and of the systems' identities: a feature
    constant per system is absorbed by the scores); it is not kept. Its coefficient would
    otherwise come out split arbitrarily among the columns, each with a standard error as if
    estimable. L⁺B is a dense pseudo-inverse up to ``ALIAS_SYSTEMS`` systems, a sparse solve
    with one system per connected part held at 0 above (``_grounded_solve``)."""
    Z = np.asarray(Z, dtype=float)
    w = np.asarray(weight, dtype=float)
    F = np.column_stack(([np.ones(len(w))] if position else []) + [Z])
    offset = 1 if position else 0
    gram = F.T @ (w[:, None] * F)
    n = n_systems
    B = np.stack([np.bincount(a, w * F[:, j], n) - np.bincount(b, w * F[:, j], n) for j in range(F.shape[1])], axis=1)
    if n <= ALIAS_SYSTEMS:
        L = (np.bincount(a * n + b, w, n * n) + np.bincount(b * n + a, w, n * n)).reshape(n, n)
        L = np.diag(L.sum(axis=1)) - L
        S = gram - B.T @ np.linalg.pinv(L, hermitian=True) @ B
    else:
        S = gram - B.T @ _grounded_solve(a, b, w, n, B)
    out, kept = [], list(range(offset))
    for j in range(offset, F.shape[1]):
        if gram[j, j] <= 0:
            continue  # a column of zeros: left out as such, not as aliased
        with_systems = _residual(S, kept, j)
        if with_systems > ALIASED * gram[j, j]:
            kept.append(j)
            continue
        alone = _residual(gram, kept, j) <= ALIASED * gram[j, j]  # explained by the columns without the systems
        others = []
        if kept and _residual(S, [], j) > ALIASED * gram[j, j]:  # not the systems' identities alone
            x = np.linalg.lstsq(S[np.ix_(kept, kept)], S[kept, j], rcond=None)[0]
            others = [k - offset if k >= offset else -1 for k, coef in zip(kept, x)
                      if abs(coef) * np.sqrt(gram[k, k]) > 1e-6 * np.sqrt(gram[j, j])]
        out.append((j - offset, others, not alone))
    return out


def _grounded_solve(a, b, w, n, B) -> np.ndarray:
    """L⁺B for the weighted graph Laplacian L of the rows a–b (weights ``w``) without forming an
    n × n matrix: the columns of B sum to 0 over each connected part of the graph (each row adds
    w·F to a and takes it from b), so any solution of L X = B has BᵀX = BᵀL⁺B; one system per part
    is held at 0 (grounded), which leaves a sparse, positive definite system (sparse LU)."""
    from scipy.sparse import coo_matrix, diags
    from scipy.sparse.csgraph import connected_components
    from scipy.sparse.linalg import splu
    used = (a != b) & (w > 0)
    a, b, w = a[used], b[used], w[used]
    A = coo_matrix((np.r_[w, w], (np.r_[a, b], np.r_[b, a])), shape=(n, n)).tocsr()
    L = (diags(np.asarray(A.sum(axis=1)).ravel()) - A).tocsc()
    _, labels = connected_components(A, directed=False)
    free = np.ones(n, dtype=bool)
    free[np.unique(labels, return_index=True)[1]] = False  # the first system of each part
    X = np.zeros(B.shape)
    if free.any():
        X[free] = splu(L[free][:, free].tocsc()).solve(np.ascontiguousarray(B[free]))
    return X


def _residual(S: np.ndarray, kept: list[int], j: int) -> float:
    """S_jj − S_jK S_KK⁻¹ S_Kj: what is left of column j's information after the columns K."""
    if not kept:
        return float(S[j, j])
    K = np.ix_(kept, kept)
    return float(S[j, j] - S[j, kept] @ np.linalg.lstsq(S[K], S[kept, j], rcond=None)[0])
