"""An ordinal model for Likert ratings: cumulative logit with annotator shifts.

For rating r of system s on segment i by annotator j, on levels 1..K (McCullagh 1980; the
``clmm`` model of Christensen's R package *ordinal* with random annotator and segment terms):

    P(y_r ≤ k) = F(θ_k + t_j − β_s − u_i),   F(x) = 1 / (1 + e^{−x}),   θ_1 < … < θ_{K−1}

β_s is system s's quality on the logit scale (Σ_s β_s = 0: only differences are identified),
t_j the annotator's shift (t_j > 0: harsher, every threshold higher), u_i the segment's ease.
Distances between levels are not assumed equal, as a mean of 1..5 assumes. P(y = k) =
F(θ_k + t − η) − F(θ_{k−1} + t − η) with θ_0 = −∞, θ_K = +∞, computed as
log F(a) + log F(−b) + log(1 − e^{b−a}) to stay exact in the tails.

Fitting: t_j and u_i have N(0, σ_t²), N(0, σ_u²) priors (defaults 1 logit, ``judge_sd``,
``segment_sd``): the estimate maximises the penalised log-likelihood
Σ_r log P(y_r) − Σ_j t_j²/(2σ_t²) − Σ_i u_i²/(2σ_u²) (MAP; a Laplace-free stand-in for the
random-effects integral) with L-BFGS and the exact gradient; thresholds are θ_1 and log gaps.
Standard errors of β from the inverse of the penalised Hessian (sparse, built per rating from
the second derivatives in a and b; the one free direction — all β and θ shifted together —
pinned by the sum-to-zero constraint). A new rating by an unseen annotator or of an unseen
segment integrates the missing terms over their priors (Gauss–Hermite, 32 nodes).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.sparse.linalg import splu

MAX_LEVELS = 11
NODES = 32


@dataclass
class OrdinalFit:
    systems: tuple[str, ...]
    judges: tuple[str, ...]
    items: tuple[str, ...]
    levels: np.ndarray  # the K score values, ascending (level k = levels[k − 1])
    thresholds: np.ndarray  # θ_1 … θ_{K−1}
    system_effects: np.ndarray  # β_s, Σ = 0
    judge_shift: np.ndarray  # t_j
    segment_ease: np.ndarray  # u_i
    judge_sd: float
    segment_sd: float
    covariance: np.ndarray | None = None  # Cov(β̂)
    loglik: float = float("nan")  # Σ log P(y_r) at the estimate (penalty excluded)
    notes: list[str] = field(default_factory=list)

    @property
    def se(self) -> np.ndarray:
        return np.sqrt(np.diag(self.covariance)) if self.covariance is not None else \
            np.full(len(self.systems), np.nan)

    def table(self) -> pd.DataFrame:
        return pd.DataFrame({"ordinal": self.system_effects, "se": self.se},
                            index=pd.Index(self.systems, name="system"))

    def log_proba(self, system, item, judge) -> np.ndarray:
        """(n, K) log P(y = level k) of new ratings of (system, item, judge) codes; −1 or an unseen
        code integrates that term over its prior."""
        system, item, judge = (np.asarray(a, dtype=np.int64) for a in (system, item, judge))
        seen_j = (judge >= 0) & (judge < len(self.judge_shift))
        seen_i = (item >= 0) & (item < len(self.segment_ease))
        offset = -self.system_effects[system]
        offset[seen_j] += self.judge_shift[judge[seen_j]]
        offset[seen_i] -= self.segment_ease[item[seen_i]]
        spread = np.sqrt(np.where(seen_j, 0.0, self.judge_sd ** 2) + np.where(seen_i, 0.0, self.segment_sd ** 2))
        out = np.empty((len(system), len(self.thresholds) + 1))
        known = spread == 0
        if known.any():
            out[known] = _level_log_proba(self.thresholds, offset[known])
        if (~known).any():
            x, w = np.polynomial.hermite_e.hermegauss(NODES)  # ∫ f(z) φ(z) dz ≈ Σ w f(x) / √(2π)
            w = w / w.sum()
            shifted = offset[~known][:, None] + spread[~known][:, None] * x[None, :]
            p = np.exp(_level_log_proba(self.thresholds, shifted.ravel())).reshape(*shifted.shape, -1)
            out[~known] = np.log(np.maximum(np.einsum("nqk,q->nk", p, w), 1e-300))
        return out

    def level_index(self, score) -> np.ndarray:
        """0-based level of each score (−1 if it is not one of the levels)."""
        score = np.asarray(score, dtype=np.float64)
        pos = np.searchsorted(self.levels, score)
        pos = np.minimum(pos, len(self.levels) - 1)
        return np.where(self.levels[pos] == score, pos, -1)


def _log_sigmoid(x):
    return -np.logaddexp(0.0, -x)


def _bounds(thresholds, offset, y):
    """a = θ_y + offset, b = θ_{y−1} + offset for 0-based levels y (θ_0 = −∞, θ_K = +∞)."""
    ext = np.concatenate([[-np.inf], thresholds, [np.inf]])
    return ext[y + 1] + offset, ext[y] + offset


def _log_p(a, b):
    with np.errstate(over="ignore", invalid="ignore"):
        return _log_sigmoid(a) + _log_sigmoid(-b) + np.log(-np.expm1(b - a))


def _level_log_proba(thresholds, offset) -> np.ndarray:
    k = len(thresholds) + 1
    levels = np.arange(k)
    a, b = _bounds(thresholds, offset[:, None], levels[None, :])
    return _log_p(a, b)


def ordinal_levels(score, scale: str = "") -> np.ndarray:
    """The K levels: the integers of a declared "LO-HI" scale when it covers the scores, else the
    distinct scores. More than ``MAX_LEVELS`` is a ``ValueError`` (not a Likert scale)."""
    score = np.asarray(score, dtype=np.float64)
    distinct = np.unique(score)
    from humeval.ratings.aggregate import _RANGE
    match = _RANGE.match(scale or "")
    if match and float(match.group(1)).is_integer() and float(match.group(2)).is_integer():
        lo, hi = int(float(match.group(1))), int(float(match.group(2)))
        levels = np.arange(lo, hi + 1, dtype=np.float64)
        if 2 <= len(levels) <= MAX_LEVELS and np.isin(distinct, levels).all():
            return levels
    if len(distinct) > MAX_LEVELS:
        raise ValueError(f"the ordinal model is for Likert scales of at most {MAX_LEVELS} levels; these ratings "
                         f"take {len(distinct):,} values (use the mixed model)")
    if len(distinct) < 2:
        raise ValueError("the ordinal model needs ratings on at least two levels")
    return distinct


def fit_ordinal(score, system, item, judge, systems=None, items=None, judges=None, scale: str = "",
                judge_sd: float | None = 1.0, segment_sd: float | None = 1.0, standard_errors: bool = True,
                max_iter: int = 5000, levels=None) -> OrdinalFit:
    """Fit the model of the module docstring (codes 0..k−1; judge −1 = unknown, no shift).

    ``judge_sd`` / ``segment_sd`` None: no annotator / segment terms (a plain cumulative logit).
    ``levels``: the K levels when some are not among these scores (a training subset of ratings
    whose held-out part has them); default ``ordinal_levels(score, scale)``."""
    from scipy import optimize
    score = np.asarray(score, dtype=np.float64)
    system, item, judge = (np.asarray(a, dtype=np.int64) for a in (system, item, judge))
    if not (np.isfinite(score).all() and (system >= 0).all() and (item >= 0).all()):
        raise ValueError("every rating needs a finite score, a system and a segment")
    if (judge_sd is not None and judge_sd <= 0) or (segment_sd is not None and segment_sd <= 0):
        raise ValueError("judge_sd and segment_sd are prior standard deviations, > 0")
    levels = ordinal_levels(score, scale) if levels is None else np.asarray(levels, dtype=np.float64)
    if not np.isin(score, levels).all():
        raise ValueError("a score is not one of the levels")
    y = np.searchsorted(levels, score)
    n_sys = len(systems) if systems is not None else int(system.max()) + 1
    n_items = len(items) if items is not None else int(item.max()) + 1
    n_judges = len(judges) if judges is not None else (int(judge.max()) + 1 if (judge >= 0).any() else 0)
    systems = tuple(systems) if systems is not None else tuple(map(str, range(n_sys)))
    items = tuple(items) if items is not None else tuple(map(str, range(n_items)))
    judges = tuple(judges) if judges is not None else tuple(map(str, range(n_judges)))
    K = len(levels)
    if judge_sd is None:
        judge, n_judges = np.full(len(score), -1), 0
    if segment_sd is None:
        n_items = 0
    data = _Data(y, system, item if n_items else np.full(len(score), -1), judge, (n_sys, n_judges, n_items, K - 1),
                 judge_sd or 1.0, segment_sd or 1.0)
    cuts = data.cuts
    objective = data.objective
    start = np.zeros(cuts[-1])
    cum = np.cumsum(np.bincount(y, minlength=K))[:K - 1] / len(y)
    logits = np.log(np.clip(cum, 1e-3, 1 - 1e-3) / (1 - np.clip(cum, 1e-3, 1 - 1e-3)))
    logits = np.maximum.accumulate(logits + np.arange(K - 1) * 1e-3)
    start[cuts[3]] = logits[0]
    start[cuts[3] + 1:] = np.log(np.maximum(np.diff(logits), 1e-2))
    result = optimize.minimize(objective, start, jac=True, method="L-BFGS-B",
                               options={"maxiter": max_iter, "ftol": 1e-13, "gtol": 1e-7})
    beta, t, u, thresholds = data.unpack(result.x)
    notes = [] if result.success else [f"optimiser stopped: {result.message}"]
    loglik = float(_log_p(*_bounds(thresholds, data.offset(beta, t, u), y)).sum())
    fit = OrdinalFit(systems, judges if n_judges else (), items if n_items else (), levels, thresholds, beta, t, u,
                     judge_sd or 0.0, segment_sd or 0.0, None, loglik, notes)
    if standard_errors:
        fit.covariance = _covariance(fit, data)
    return fit


class _Data:
    """Coded ratings and the penalised log-likelihood in the optimiser's parameters
    (β raw, t, u, θ_1, log gaps); a factor with 0 levels has no terms."""

    def __init__(self, y, system, item, judge, sizes, judge_sd, segment_sd):
        self.y, self.system, self.item, self.judge = y, system, item, judge
        self.sizes, self.judge_sd, self.segment_sd = sizes, judge_sd, segment_sd
        self.cuts = np.cumsum((0,) + tuple(sizes))
        self.has_j, self.has_i = judge >= 0, item >= 0

    def unpack(self, v):
        c = self.cuts
        beta_raw, t, u, th = (v[c[i]:c[i + 1]] for i in range(4))
        thresholds = th[0] + np.concatenate([[0.0], np.cumsum(np.exp(th[1:]))])
        return beta_raw - beta_raw.mean(), t, u, thresholds

    def offset(self, beta, t, u):
        out = -beta[self.system]
        out[self.has_j] += t[self.judge[self.has_j]]
        out[self.has_i] -= u[self.item[self.has_i]]
        return out

    def objective(self, v):
        """(−penalised log-likelihood, its gradient)."""
        n_sys, n_judges, n_items, n_th = self.sizes
        K, c, y = n_th + 1, self.cuts, self.y
        beta, t, u, thresholds = self.unpack(v)
        a, b = _bounds(thresholds, self.offset(beta, t, u), y)
        ga, gb = _first(a, b)
        g_off = ga + gb
        grad = np.zeros_like(v)
        g_beta = -np.bincount(self.system, g_off, n_sys)
        grad[c[0]:c[1]] = g_beta - g_beta.mean()
        if n_judges:
            grad[c[1]:c[2]] = np.bincount(self.judge[self.has_j], g_off[self.has_j], n_judges) - t / self.judge_sd ** 2
        if n_items:
            grad[c[2]:c[3]] = -np.bincount(self.item[self.has_i], g_off[self.has_i], n_items) - u / self.segment_sd ** 2
        # ∂/∂θ_k: ga of the ratings at level k (upper bound), gb of those at level k + 1 (lower bound)
        g_theta = np.bincount(y, ga, K)[:K - 1] + np.bincount(y, gb, K + 1)[1:K]
        tail = np.cumsum(g_theta[::-1])[::-1]  # Σ_{m ≥ k} ∂/∂θ_m
        grad[c[3]] = g_theta.sum()
        grad[c[3] + 1:] = tail[1:] * np.exp(v[c[3] + 1:])
        value = _log_p(a, b).sum() - 0.5 * (t @ t) / self.judge_sd ** 2 - 0.5 * (u @ u) / self.segment_sd ** 2
        return -value, -grad


def _first(a, b):
    """∂ log P/∂a and ∂ log P/∂b (see the module docstring)."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        g = 1.0 / np.expm1(a - b)
        ga = np.exp(_log_sigmoid(-a)) + g
        gb = -np.exp(_log_sigmoid(b)) - g
    return ga, gb


def _covariance(fit: OrdinalFit, data: _Data) -> np.ndarray:
    """Cov(β̂) from the penalised Hessian in (β, t, u, θ), sum-to-zero on β."""
    n_sys, n_judges, n_items, n_th = data.sizes
    y, system, item, judge, has_j, has_i = data.y, data.system, data.item, data.judge, data.has_j, data.has_i
    a, b = _bounds(fit.thresholds, data.offset(fit.system_effects, fit.judge_shift, fit.segment_ease), y)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        d = a - b
        cross = 1.0 / (np.expm1(d) * -np.expm1(-d))  # e^d / (e^d − 1)²
        h_aa = -np.exp(_log_sigmoid(a) + _log_sigmoid(-a)) - cross
        h_bb = -np.exp(_log_sigmoid(b) + _log_sigmoid(-b)) - cross
    h_ab = cross
    n, P = len(y), sum(data.sizes)
    rows = np.arange(n)

    def design(theta_index):  # ∂a/∂params (or ∂b): θ_k +1, t_j +1, β_s −1, u_i −1
        cols, vals, r = [system, n_sys + n_judges + item[has_i]], [-np.ones(n), -np.ones(has_i.sum())], [rows, rows[has_i]]
        if n_judges:
            r.append(rows[has_j]), cols.append(n_sys + judge[has_j]), vals.append(np.ones(has_j.sum()))
        ok = (theta_index >= 0) & (theta_index < n_th)
        r.append(rows[ok]), cols.append(n_sys + n_judges + n_items + theta_index[ok]), vals.append(np.ones(ok.sum()))
        return sp.csr_matrix((np.concatenate(vals), (np.concatenate(r), np.concatenate(cols))), shape=(n, P))

    Ga, Gb = design(y), design(y - 1)
    h_aa, h_bb, h_ab = (np.nan_to_num(h, nan=0.0, posinf=0.0, neginf=0.0) for h in (h_aa, h_bb, h_ab))
    H = Ga.T @ sp.diags(h_aa) @ Ga + Gb.T @ sp.diags(h_bb) @ Gb + Ga.T @ sp.diags(h_ab) @ Gb \
        + Gb.T @ sp.diags(h_ab) @ Ga
    penalty = np.zeros(P)
    penalty[n_sys:n_sys + n_judges] = 1.0 / data.judge_sd ** 2
    penalty[n_sys + n_judges:n_sys + n_judges + n_items] = 1.0 / data.segment_sd ** 2
    info = (-H + sp.diags(penalty)).tocsc()
    null = np.zeros(P)  # shifting all β and all θ together changes nothing
    null[:n_sys] = 1.0
    null[n_sys + n_judges + n_items:] = 1.0
    info = info + _rank_one(null)
    rhs = np.zeros((P, n_sys))
    rhs[np.arange(n_sys), np.arange(n_sys)] = 1.0
    inv = splu(info).solve(rhs)[:n_sys]
    center = np.eye(n_sys) - 1.0 / n_sys
    return center @ inv @ center


def _rank_one(v) -> sp.csc_matrix:
    nz = np.flatnonzero(v)
    r, c = np.meshgrid(nz, nz, indexing="ij")
    return sp.csc_matrix((np.outer(v[nz], v[nz]).ravel(), (r.ravel(), c.ravel())), shape=(len(v), len(v)))
