"""Analytic covariance and intervals for the Bradley–Terry family (BT, Davidson, Rao–Kupper,
with or without covariates), beside the bootstrap.

The parameters are ψ = (θ of the rated systems, φ = (position effect h?, covariate
coefficients β), log tie parameter?). With H the negative Hessian of the log posterior at the
estimate (the prior's λ(I − 11ᵀ/m) included) and the common shift of θ fixed by the gauge
H_g = H + 11ᵀ/m on the θ block:

- ``kind="fisher"``: Cov ψ = H_g⁻¹ − 11ᵀ/m on the θ block (the Laplace approximation; the
  inverse observed information on the sum-zero plane). Weights count as frequencies: a
  weight-k comparison is k independent comparisons.
- ``kind="sandwich"``: Cov ψ = H_g⁻¹ (Σ_c s_c s_cᵀ) H_g⁻¹ (Huber 1967; White 1980; the
  cluster-robust form of Liang & Zeger 1986), s_c the sum of the log-likelihood's score vectors
  over the comparisons of cluster c. Without clusters each comparison is its own cluster (robust
  to a wrong tie model or mis-specified link; a weighted comparison is one unit whatever its
  weight). With clusters (the judge, the item, or any integer label) judgments that share a
  judge may be correlated (judge-level random effects): the Fisher intervals then are too
  narrow and the sandwich ones widen. Scores sum to zero over each row of θ's score, and
  H_g⁻¹1 = 1, so the sandwich covariance lies on the sum-zero plane without a correction.
  With clusters the meat is multiplied by the small-sample factor G/(G − 1) · (N − 1)/(N − K)
  (G clusters, N comparisons — Σ weights when they are whole numbers —, K free parameters: the
  "CR1" correction Stata and statsmodels' ``cov_type="cluster"`` apply by default, so the numbers
  are theirs; ``small_sample=False`` leaves it out; with one cluster there is nothing to correct
  by). Each comparison alone gets none (HC0).

Reported scores are θ re-expressed: an ``anchor`` a gives θ_s − θ_a, ``scale="elo"``
multiplies by 400/ln 10; the covariance is transformed by the same linear map J (J Cov Jᵀ).

Simultaneous intervals (``simultaneous=True``) use the max-|t| method (Hothorn, Bretz &
Westfall 2008): c is the ``confidence`` quantile of max_s |Z_s| / σ_s for Z ~ N(0, Cov scores)
(200,000 Gaussian draws, seeded), and every interval is score ± c σ_s; all systems' true scores
lie in their intervals together with probability ``confidence`` (to the normal approximation).
It is less conservative than Bonferroni because the scores are correlated (they sum to zero).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import ndtri  # the standard normal quantile (scipy.stats.norm.ppf evaluates it)

from humeval.ranking.base import integral
from humeval.ranking.bradley_terry import ELO_PER_LOGIT, outer_sum

KINDS = ("fisher", "sandwich")
MIN_CLUSTERS = 10  # below this many clusters a cluster-robust covariance is unreliable (too narrow)
CLUSTER_COLUMNS = ("judge", "item", "group", "category")
DRAWS = 200_000


def cluster_codes(comparisons, clusters) -> np.ndarray:
    """Cluster number (0 … C − 1) of every comparison from a column name or an integer array; a
    comparison with an unknown label (−1) is a cluster of its own."""
    if isinstance(clusters, str):
        if clusters not in CLUSTER_COLUMNS:
            raise ValueError(f"clusters must be one of {CLUSTER_COLUMNS} or an integer array, not {clusters!r}")
        codes = np.asarray(getattr(comparisons, clusters), dtype=np.int64)
    else:
        codes = np.asarray(clusters)
        if codes.shape != (len(comparisons),) or codes.dtype.kind not in "iu":
            raise ValueError(f"clusters must be an integer array with one entry per comparison ({len(comparisons)})")
        codes = codes.astype(np.int64)
    alone = codes < 0
    if alone.any():
        codes = codes.copy()
        codes[alone] = codes.max(initial=-1) + 1 + np.arange(alone.sum())
    return np.unique(codes, return_inverse=True)[1].ravel()


def _information(model, kind, clusters, data=None, small_sample=True):
    """(H_g, meat or None, m, idx, state): the gauge-fixed negative Hessian of the log posterior
    and the sandwich's meat over the fitted parameters (CR1-corrected with clusters and
    ``small_sample``), the rated systems and the model's public fitted state (``PairFit``)."""
    fit = model.pair_fit(data, scores=kind != "fisher")
    H, idx, m = fit.hessian, fit.idx, len(fit.idx)
    if kind == "fisher":
        return H, None, m, idx, fit
    la, lb, F, d1, tg, c = fit.la, fit.lb, fit.F, fit.d1, fit.tie_score, fit.comparisons
    rows = np.nonzero(fit.cell_of_row >= 0)[0]
    cell, outcome = fit.cell_of_row[rows], c.outcome[rows]
    w = c.weight[rows]
    size = len(H)
    tie = fit.tie is not None
    if clusters is None:  # each comparison alone: Σ over cells and outcomes of (Σ w²) s sᵀ
        w2 = np.bincount(cell * 3 + outcome, w ** 2, len(la) * 3).reshape(-1, 3)
        meat = np.zeros((size, size))
        for o in range(3):
            meat += outer_sum(la, lb, F, w2[:, o] * d1[:, o] ** 2, w2[:, o] * d1[:, o] * tg[:, o] if tie else None,
                              w2[:, o] * tg[:, o] ** 2, m)
        return H, meat, m, idx, fit
    group = cluster_codes(c, clusters)[rows]
    n_groups = int(group.max()) + 1 if len(group) else 0
    score = w * d1[cell, outcome]
    sums = np.zeros(n_groups * size)  # s_c: each cluster's summed score vector
    sums += np.bincount(group * size + la[cell], score, n_groups * size)
    sums -= np.bincount(group * size + lb[cell], score, n_groups * size)
    for j in range(0 if F is None else F.shape[1]):
        sums += np.bincount(group * size + m + j, score * F[cell, j], n_groups * size)
    if tie:
        sums += np.bincount(group * size + size - 1, w * tg[cell, outcome], n_groups * size)
    sums = sums.reshape(n_groups, size)
    meat = sums.T @ sums
    units, free = (float(w.sum()) if integral(w) else float(len(rows))), size - 1  # θ has m − 1 free
    if small_sample and n_groups > 1 and units > free:
        meat *= n_groups / (n_groups - 1) * (units - 1) / (units - free)
    return H, meat, m, idx, fit


def covariance(model, kind: str = "fisher", clusters=None, _data=None, small_sample: bool = True) -> pd.DataFrame:
    """Covariance of (scores on the model's scale, position effect?, covariate coefficients,
    log tie parameter?) as a labelled DataFrame; systems without comparisons get NaN. See the
    module doc for ``kind``, ``clusters`` and ``small_sample``."""
    out, names = covariance_matrix(model, kind, clusters, _data, small_sample)
    return pd.DataFrame(out, index=pd.Index(names, name="parameter"), columns=names)


def covariance_matrix(model, kind: str = "fisher", clusters=None, _data=None, small_sample: bool = True):
    """``covariance`` as (array, parameter names), without the labelled frame (a fit's standard
    errors need only its diagonal, at every fit of a bootstrap or a simulation)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    if kind == "fisher" and clusters is not None:
        raise ValueError("clusters apply to the sandwich covariance: use kind='sandwich'")
    H, meat, m, idx, fit = _information(model, kind, clusters, _data, small_sample)
    try:
        inverse = np.linalg.inv(H)
    except np.linalg.LinAlgError:  # a tie parameter at its bound can leave H singular
        inverse = np.linalg.pinv(H)
    if meat is None:
        cov = inverse
        cov[:m, :m] -= 1.0 / m
    else:
        cov = inverse @ meat @ inverse
    n = len(model.systems_)
    extra = len(H) - m
    J = np.zeros((n + extra, m + extra))  # reported quantities from the fitted parameters
    J[idx, np.arange(m)] = 1.0
    if model.anchor is not None and model.anchor in model.systems_ and model.rated_[model.systems_.index(model.anchor)]:
        J[idx, list(idx).index(model.systems_.index(model.anchor))] -= 1.0
    if model.scale == "elo":
        J[:n] *= ELO_PER_LOGIT
    J[n:, m:] = np.eye(extra)
    out = J @ cov @ J.T
    unrated = np.nonzero(~model.rated_)[0]
    out[unrated, :] = np.nan
    out[:, unrated] = np.nan
    return out, fit.names


def critical_value(cov: np.ndarray, confidence: float, simultaneous: bool, random_state=0) -> float:
    """z such that ± z σ covers with ``confidence``: per interval, or (``simultaneous``) for all
    at once by the max-|t| method on N(0, cov) (systems with σ = 0, an anchor, left out)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence!r}")
    if not simultaneous:
        return float(ndtri((1 + confidence) / 2))
    std = np.sqrt(np.clip(np.diag(cov), 0, None))
    live = np.isfinite(std) & (std > 0)
    if live.sum() <= 1:
        return float(ndtri((1 + confidence) / 2))
    corr = cov[np.ix_(live, live)] / np.outer(std[live], std[live])
    values, vectors = np.linalg.eigh(corr)
    root = vectors * np.sqrt(np.clip(values, 0, None))
    rng = np.random.default_rng(random_state)
    largest = np.concatenate([np.abs(rng.standard_normal((min(20_000, DRAWS - s), len(values))) @ root.T).max(axis=1)
                              for s in range(0, DRAWS, 20_000)])
    return float(np.quantile(largest, confidence))


def intervals(model, kind: str = "fisher", confidence: float = 0.95, simultaneous: bool = False,
              clusters=None, random_state=0, cov: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per system: score, std, lower, upper (score ∓ z σ, z the normal quantile or, with
    ``simultaneous``, the max-|t| critical value); ``attrs`` records kind, confidence and z.
    ``cov``: the model's ``covariance(kind, clusters)`` when the caller has it already."""
    cov = covariance(model, kind, clusters) if cov is None else cov
    n = len(model.systems_)
    block = cov.to_numpy()[:n, :n]
    z = critical_value(np.nan_to_num(block), confidence, simultaneous, random_state)
    std = np.sqrt(np.clip(np.diag(block), 0, None))
    score = model.scores_.to_numpy()
    out = pd.DataFrame({"score": score, "std": std, "lower": score - z * std, "upper": score + z * std},
                       index=model.scores_.index)
    out.attrs.update(kind=kind, confidence=confidence, simultaneous=simultaneous, critical_value=z)
    return out


def coefficients(model, kind: str = "fisher", confidence: float = 0.95, clusters=None) -> pd.DataFrame:
    """Position effect, covariate coefficients (``coef_``) and log tie parameter: estimate, std,
    lower, upper, z = estimate / std (pointwise intervals)."""
    cov = covariance(model, kind, clusters)
    n = len(model.systems_)
    names = list(cov.index[n:])
    std = np.sqrt(np.clip(np.diag(cov.to_numpy())[n:], 0, None))
    estimate = (([model.position_effect_] if model.position_effect else [])
                + (list(model.coef_.dropna()) if model.covariate_names_ else [])
                + ([model.log_tie_] if model.log_tie_ is not None else []))
    estimate = np.asarray(estimate, dtype=float)
    z = ndtri((1 + confidence) / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        return pd.DataFrame({"estimate": estimate, "std": std, "lower": estimate - z * std,
                             "upper": estimate + z * std, "z": estimate / std}, index=pd.Index(names, name="parameter"))
