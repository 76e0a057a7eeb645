"""A linear mixed model of ratings: system effects borrow strength across annotators and segments.

    x_r = β_s + b_j + u_i + ε_r,   b_j ~ N(0, σ_b²), u_i ~ N(0, σ_u²), ε_r ~ N(0, σ² ω_j)

for rating r of system s on segment i by annotator j: β_s is system s's mean (a fixed effect,
one per system, no intercept), b_j the annotator's bias (a harsh or lenient slider user), u_i
the segment's ease (some sources are easier to translate); all three are estimated jointly, so a
system whose segments happened to go to harsh annotators is not penalised for it — the
imbalance z-normalisation corrects only per annotator and plain means not at all. Ratings
without an annotator id get no b_j. With ``judge_scale=True`` the residual variance differs per
annotator (ω_j, a noisy or a careful annotator; geometric mean 1): the fit alternates REML with
ω_j = (Σ_{r∈j} e_r² + ν σ²) / ((n_j + ν) σ²), ν = 2 (each annotator's mean squared residual,
shrunk towards 1; leverages ignored), i.e. weighted least squares with weights 1/ω_j. This is the
heteroscedastic variant: an annotator's wider *use* of the slider for the same quality difference
(the simulator's multiplicative a_j) shows up as a larger ω_j, not as a rescaled effect.

Fitting (Henderson 1984; Bates et al. 2015 for the profiled criterion). The design
Z = [X | Z_b | Z_u] is a scipy.sparse one-hot matrix; the mixed-model equations are
C θ = Z'W x with C = Z'WZ + diag(0, λ_b I, λ_u I), λ = σ²/σ_k². The factor with more levels
(usually segments) has a diagonal block D in C and is absorbed: the Schur complement
S = A − B D⁻¹ B' over the systems and the other factor is a small dense matrix (S + J rows;
refused above ``MAX_DENSE``), accumulated from the sparse columns of B by a compiled loop
(Σ_i nnz_i² operations) and factored by Cholesky. Then log|C| = Σ log D + log|S|, and the
REML criterion, profiled over σ², is

    −2 ℓ_R = (n − p)(1 + log 2π + log σ̂²) − Σ log w_r + Σ_k q_k log(σ_k²/σ²) + log|C|,
    σ̂² = (x'Wx − θ̂'Z'Wx) / (n − p)

(ML: n instead of n − p and log|C| without the system block). It is minimised over the two
log variance ratios with L-BFGS-B. Standard errors of β come from σ̂² (C⁻¹)_ββ = σ̂² (S⁻¹)_ββ
(variance components taken as known). On a small case the estimates equal statsmodels'
``MixedLM`` (REML, crossed effects as variance components of one group): see the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numba
import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy import linalg

MAX_DENSE = 8000  # systems + levels of the smaller random factor held in the dense Schur complement
SHRINK = 2.0  # ν: pseudo-ratings pulling an annotator's ω_j towards 1


@dataclass
class MixedFit:
    """Estimates of the mixed model (labels as in the data it was fitted on)."""

    systems: tuple[str, ...]
    judges: tuple[str, ...]
    items: tuple[str, ...]
    system_means: np.ndarray  # β_s
    covariance: np.ndarray  # Cov(β̂), (S, S)
    judge_bias: np.ndarray  # b̂_j (BLUP)
    segment_ease: np.ndarray  # û_i (BLUP)
    sigma2: float  # σ²
    var_judge: float  # σ_b²
    var_segment: float  # σ_u²
    judge_noise: np.ndarray  # ω_j (ones unless judge_scale)
    loglik: float
    method: str
    n: int
    notes: list[str] = field(default_factory=list)

    @property
    def se(self) -> np.ndarray:
        return np.sqrt(np.diag(self.covariance))

    def table(self) -> pd.DataFrame:
        return pd.DataFrame({"mixed": self.system_means, "se": self.se}, index=pd.Index(self.systems, name="system"))

    def predict(self, system, item, judge) -> tuple[np.ndarray, np.ndarray]:
        """Mean and variance of a new rating of (system, item, judge) codes; -1 (or a code past the
        fitted ones) = an annotator or segment not seen, whose effect is drawn from its prior."""
        system, item, judge = (np.asarray(a, dtype=np.int64) for a in (system, item, judge))
        mean = self.system_means[system].copy()
        seen_j = (judge >= 0) & (judge < len(self.judges))
        seen_i = (item >= 0) & (item < len(self.items))
        mean[seen_j] += self.judge_bias[judge[seen_j]]
        mean[seen_i] += self.segment_ease[item[seen_i]]
        noise = np.ones(len(system))
        noise[seen_j] = self.judge_noise[judge[seen_j]]
        var = self.sigma2 * noise + np.diag(self.covariance)[system]
        var = var + np.where(seen_j, 0.0, self.var_judge) + np.where(seen_i, 0.0, self.var_segment)
        return mean, var


def fit_mixed(score, system, item, judge, systems=None, items=None, judges=None, method: str = "reml",
              judge_scale: bool = False, max_outer: int = 20, tol: float = 1e-6) -> MixedFit:
    """Fit the model of the module docstring to ratings given as codes (0..k−1; judge −1 = unknown).

    ``method`` "reml" (default, as statsmodels) or "ml".
    """
    if method not in ("reml", "ml"):
        raise ValueError(f"method must be reml or ml, not {method!r}")
    x = np.asarray(score, dtype=np.float64)
    system, item, judge = (np.asarray(a, dtype=np.int64) for a in (system, item, judge))
    if not (np.isfinite(x).all() and (system >= 0).all() and (item >= 0).all()):
        raise ValueError("every rating needs a finite score, a system and a segment")
    n_sys = int(system.max()) + 1 if len(system) else 0
    n_items = int(item.max()) + 1 if len(item) else 0
    n_judges = int(judge.max()) + 1 if (judge >= 0).any() else 0
    systems = tuple(systems) if systems is not None else tuple(str(i) for i in range(n_sys))
    items = tuple(items) if items is not None else tuple(str(i) for i in range(n_items))
    judges = tuple(judges) if judges is not None else tuple(str(i) for i in range(n_judges))
    n_sys, n_items, n_judges = len(systems), len(items), len(judges)
    if len(x) <= n_sys + 1:
        raise ValueError(f"{len(x)} ratings cannot fit {n_sys} system means and variance components")
    design = _Design(x, system, item, judge, n_sys, n_items, n_judges)
    omega = np.ones(n_judges)
    notes: list[str] = []
    for outer in range(max_outer if judge_scale else 1):
        w = np.where(judge >= 0, 1.0 / omega[np.maximum(judge, 0)], 1.0) if n_judges else np.ones(len(x))
        state = design.fit(w, method)
        if not judge_scale:
            break
        resid = x - state.fitted
        sq = np.bincount(judge[judge >= 0], resid[judge >= 0] ** 2, n_judges)
        count = np.bincount(judge[judge >= 0], minlength=n_judges)
        new = (sq + SHRINK * state.sigma2) / ((count + SHRINK) * state.sigma2)
        new /= math.exp(np.mean(np.log(new)))
        change = float(np.max(np.abs(np.log(new) - np.log(omega))))
        omega = new
        if change < 1e-4:
            break
    else:
        if judge_scale:
            notes.append(f"annotator noise weights still moving after {max_outer} rounds")
    if judge_scale:
        notes.append("residual variance per annotator (ω_j), alternated with the fit")
    return MixedFit(systems, judges, items, state.beta, state.cov, state.judge_bias, state.ease, state.sigma2,
                    state.var_judge, state.var_segment, omega, state.loglik, method, len(x), notes)


@dataclass
class _State:
    beta: np.ndarray
    cov: np.ndarray
    judge_bias: np.ndarray
    ease: np.ndarray
    sigma2: float
    var_judge: float
    var_segment: float
    loglik: float
    fitted: np.ndarray


class _Design:
    """Sparse one-hot design and the absorption of the larger random factor."""

    def __init__(self, x, system, item, judge, n_sys, n_items, n_judges):
        self.x, self.n, self.p = x, len(x), n_sys
        rows = np.arange(self.n)
        has_judge = judge >= 0
        blocks = [sp.csr_matrix((np.ones(self.n), (rows, system)), shape=(self.n, n_sys))]
        factors = []  # (name, design block, levels)
        if n_judges:
            factors.append(("judge", sp.csr_matrix((np.ones(has_judge.sum()), (rows[has_judge], judge[has_judge])),
                                                   shape=(self.n, n_judges)), n_judges))
        factors.append(("segment", sp.csr_matrix((np.ones(self.n), (rows, item)), shape=(self.n, n_items)), n_items))
        # absorb the factor with the most levels; the rest is dense
        absorbed = max(range(len(factors)), key=lambda k: factors[k][2])
        self.absorbed = factors[absorbed]
        self.kept = [f for k, f in enumerate(factors) if k != absorbed]
        self.dense_size = n_sys + sum(f[2] for f in self.kept)
        if self.dense_size > MAX_DENSE:
            raise ValueError(f"the mixed model holds systems and {self.kept[0][0]}s in a dense matrix of "
                             f"{self.dense_size:,} rows (limit {MAX_DENSE:,}); fit fewer at once")
        self.T = sp.hstack([blocks[0]] + [f[1] for f in self.kept], format="csr")  # kept columns
        self.Zd = self.absorbed[1]
        self.names = [f[0] for f in self.kept] + [self.absorbed[0]]
        self.levels = [f[2] for f in self.kept] + [self.absorbed[2]]

    def cross(self, w):
        Wt = sp.diags(w) @ self.T
        A = (self.T.T @ Wt).toarray()
        B = (Wt.T @ self.Zd).tocsr()  # (dense_size, absorbed levels)
        d0 = np.asarray(self.Zd.T @ w).ravel()
        rA = np.asarray(Wt.T @ self.x).ravel()
        rD = np.asarray(self.Zd.T @ (w * self.x)).ravel()
        B = B.tocsc()
        B.sort_indices()
        return A, B, d0, rA, rD, float(np.sum(w * self.x * self.x))

    def fit(self, w, method):
        from scipy import optimize
        A, B, d0, rA, rD, yy = self.cross(w)
        p, n = self.p, self.n
        kept_slices, start = [], p
        for q in self.levels[:-1]:
            kept_slices.append(slice(start, start + q))
            start += q
        log_w = float(np.sum(np.log(w)))

        def solve(log_gamma):
            gamma = np.exp(log_gamma)
            lam = 1.0 / gamma
            D = d0 + lam[-1]
            M = A.copy()
            for s, l in zip(kept_slices, lam[:-1]):
                M[s, s] += np.eye(s.stop - s.start) * l
            S = M - _weighted_gram(B.indptr, B.indices, B.data, 1.0 / D, len(M))
            rhs = rA - B @ (rD / D)
            chol = linalg.cho_factor(S, lower=True, check_finite=False)
            thA = linalg.cho_solve(chol, rhs, check_finite=False)
            thD = (rD - (B.T @ thA)) / D
            q_form = yy - thA @ rA - thD @ rD
            logdet_D = float(np.sum(np.log(D)))
            if method == "reml":
                logdet = logdet_D + 2 * float(np.sum(np.log(np.diag(chol[0]))))
                dof = n - p
            else:  # log|G⁻¹ + Z'WZ| = log|D| + log|S_zz| (the random-effect block of S)
                logdet = logdet_D + (float(np.linalg.slogdet(S[p:, p:])[1]) if len(S) > p else 0.0)
                dof = n
            sigma2 = max(q_form, 1e-300) / dof
            value = dof * (1 + math.log(2 * math.pi) + math.log(sigma2)) - log_w \
                + float(np.dot(self.levels, log_gamma)) + logdet
            return value, sigma2, gamma, lam, D, chol, thA, thD

        def reml_and_gradient(log_gamma):
            """−2 ℓ_R and its gradient: ∂/∂log γ_k = q_k − λ_k (‖θ̂_k‖²/σ̂² + tr (C⁻¹)_kk), where
            (C⁻¹)_AA = S⁻¹ and tr (C⁻¹)_DD = Σ 1/D_i + Σ_i b_i' S⁻¹ b_i / D_i²."""
            value, sigma2, gamma, lam, D, chol, thA, thD = solve(log_gamma)
            lower, info = linalg.lapack.dpotri(chol[0], lower=True)  # S⁻¹ from the Cholesky factor
            inv = np.tril(lower) + np.tril(lower, -1).T
            grad = np.empty(len(log_gamma))
            for k, s in enumerate(kept_slices):
                grad[k] = self.levels[k] - lam[k] * (thA[s] @ thA[s] / sigma2 + np.trace(inv[s, s]))
            trace_d = float(np.sum(1.0 / D)) + _weighted_quad(B.indptr, B.indices, B.data, 1.0 / D ** 2, inv)
            grad[-1] = self.levels[-1] - lam[-1] * (thD @ thD / sigma2 + trace_d)
            return value, grad

        start_point = np.zeros(len(self.levels))
        bounds = [(-18.0, 12.0)] * len(start_point)
        if method == "reml":
            result = optimize.minimize(reml_and_gradient, start_point, jac=True, method="L-BFGS-B", bounds=bounds)
        else:
            result = optimize.minimize(lambda g: solve(g)[0], start_point, method="L-BFGS-B", bounds=bounds)
        value, sigma2, gamma, lam, D, chol, thA, thD = solve(result.x)
        inv = linalg.cho_solve(chol, np.eye(len(thA))[:, :p], check_finite=False)[:p]
        effects = {self.names[-1]: thD}
        for name, s in zip(self.names[:-1], kept_slices):
            effects[name] = thA[s]
        variances = {name: float(g * sigma2) for name, g in zip(self.names, gamma)}
        fitted = self.T @ thA + self.Zd @ thD
        return _State(thA[:p], sigma2 * inv[:, :p], effects.get("judge", np.zeros(0)), effects["segment"],
                      sigma2, variances.get("judge", 0.0), variances["segment"], -0.5 * value, fitted)


@numba.njit(cache=True)
def _weighted_gram(indptr, indices, data, weight, m):  # pragma: no cover - compiled
    """B diag(weight) B' for B (m × I) in CSC form with sorted row indices: Σ_i weight_i b_i b_i',
    dense (m × m); the upper triangle is accumulated (½ Σ_i nnz_i² multiply-adds), then mirrored."""
    out = np.zeros((m, m))
    for i in range(len(indptr) - 1):
        w = weight[i]
        for a in range(indptr[i], indptr[i + 1]):
            va = data[a] * w
            row = indices[a]
            for b in range(a, indptr[i + 1]):
                out[row, indices[b]] += va * data[b]
    for r in range(m):
        for c in range(r + 1, m):
            out[c, r] = out[r, c]
    return out


@numba.njit(cache=True)
def _weighted_quad(indptr, indices, data, weight, inv):  # pragma: no cover - compiled
    """Σ_i weight_i b_i' inv b_i for B in CSC form (columns b_i) and a symmetric ``inv``."""
    total = 0.0
    for i in range(len(indptr) - 1):
        acc = 0.0
        for a in range(indptr[i], indptr[i + 1]):
            row = indices[a]
            acc += 0.5 * data[a] * data[a] * inv[row, row]
            for b in range(a + 1, indptr[i + 1]):
                acc += data[a] * data[b] * inv[row, indices[b]]
        total += 2.0 * weight[i] * acc
    return total
