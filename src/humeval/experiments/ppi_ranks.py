"""Prediction-powered rank sets (Chatzi, Straitouri, Thejaswi & Gomez Rodriguez 2024,
"Prediction-powered ranking of large language models", NeurIPS): the systems' win probabilities
estimated by PPI from a few human and many judge battles, the rank each system may take with a
simultaneous coverage guarantee, and WMT-style clusters derived from those rank sets.

The estimand of system m is its win probability θ_m = P(m preferred | m plays), ties ½. Each
battle i gives the vector w_i (w_ia = y_i, w_ib = 1 − y_i, 0 elsewhere; y = P(a preferred)) and
the indicator r_i (1 for a and b), known for every battle; θ solves E[θ ∘ r − w] = 0. Its PPI++
estimate (Angelopoulos, Duchi & Zrnic 2023, for this estimating equation, one λ for all systems
by their power tuning, ``ppi.power_tuning``) over n human battles i and N judge-only battles j::

    θ̂ = [λ · mean_j ŵ_j + mean_i (w_i − λ ŵ_i)] / h,    h = λ · mean_j r_j + (1 − λ) · mean_i r_i
    Σ̂ = D [λ² Ĉov_j(θ̂ ∘ r_j − ŵ_j) / N + Ĉov_i((1 − λ) θ̂ ∘ r_i − w_i + λ ŵ_i) / n] D,   D = diag(1 / h)

(the sandwich of the estimating equation; λ = 0 gives the humans' ratio estimate and its delta-
method variance; the judge alone is the same on its labels of all n + N battles). (battle weights are frequency weights; covariances ddof 0). Rank sets (Chatzi et al. §3,
Algorithm 1): with c = the (1 − α) quantile of χ² with k degrees of freedom, the ellipsoid
{θ : (θ − θ̂)ᵀ Σ̂⁻¹ (θ − θ̂) ≤ c} holds θ with probability → 1 − α; system j is surely above m
when min over the ellipsoid of θ_j − θ_m > 0, i.e. θ̂_j − θ̂_m > √(c · v_jm) with
v_jm = Σ̂_jj + Σ̂_mm − 2 Σ̂_jm; then m's rank lies in [1 + #{j surely above m},
k − #{j surely below m}] for every m at once with probability at least 1 − α. The clusters are
WMT's rule on those rank sets (``bootstrap.rank_clusters``: a boundary after a system whose worst
rank is better than the best rank of every system below it).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import chi2

from humeval.experiments.bootstrap import rank_clusters
from humeval.experiments.ppi import _wcov, pair_battles, power_tuning


def _vectors(a, b, y, k):
    """(w, r): per battle the win vector (a gets y, b gets 1 − y) and the indicator of who played."""
    m = len(a)
    w, r = np.zeros((m, k)), np.zeros((m, k))
    rows = np.arange(m)
    w[rows, a], w[rows, b] = y, 1 - y
    r[rows, a], r[rows, b] = 1.0, 1.0
    return w, r


def _wmean(x, w):
    return (w[:, None] * x).sum(0) / w.sum()


def _ratio(w, r, wt):
    """θ = Σ w / Σ r (weighted) and its delta-method covariance Ĉov(θ ∘ r − w) / (n h²)."""
    h = _wmean(r, wt)
    theta = _wmean(w, wt) / h
    return theta, _wcov(theta * r - w, wt) / wt.sum() / np.outer(h, h)


def win_rates(human, judge, lam: float | None = None, path=None) -> dict[str, pd.DataFrame]:
    """Win probabilities by the humans alone, the judge alone and PPI++ from ``Comparisons`` of
    human and automatic judges (module formulas). Returns {"human", "judge", "ppi"}: each a
    DataFrame (system → ``score``) with the covariance in ``attrs['cov']``, the number of human
    battles the judge did not judge (left out) in ``attrs['unmatched_human']`` and, for "ppi", λ in
    ``attrs['lam']``."""
    systems, lab, unl, unmatched = pair_battles(human, judge, path)
    k = len(systems)
    la, lb, ua, ub = (lab["a"].to_numpy(), lab["b"].to_numpy(), unl["a"].to_numpy(), unl["b"].to_numpy())
    wl, wu = lab["w"].to_numpy(float), unl["w"].to_numpy(float)
    w, rl = _vectors(la, lb, lab["y"].to_numpy(float), k)
    wh, _ = _vectors(la, lb, lab["yhat"].to_numpy(float), k)
    whu, ru = _vectors(ua, ub, unl["y"].to_numpy(float), k)
    n, N = wl.sum(), wu.sum()

    def frame(theta, cov, **attrs):
        out = pd.DataFrame({"score": theta}, index=pd.Index(list(systems), name="system"))
        out.attrs.update(cov=cov, unmatched_human=unmatched, **attrs)
        return out

    out = {"human": frame(*_ratio(w, rl, wl))}
    out["judge"] = frame(*_ratio(np.concatenate([wh, whu]), np.concatenate([rl, ru]), np.concatenate([wl, wu])))
    if not N:
        out["ppi"] = frame(*_ratio(w, rl, wl), lam=0.0)
        return out

    def solve(lam):
        h = lam * _wmean(ru, wu) + (1 - lam) * _wmean(rl, wl)
        return (lam * _wmean(whu, wu) + _wmean(w - lam * wh, wl)) / h, h

    if lam is None:
        theta1, h1 = solve(1.0)
        inv = np.diag(1 / h1)
        lam = power_tuning(theta1 * rl - w, theta1 * rl - wh, theta1 * ru - whu, inv)
    theta, h = solve(lam)
    middle = lam ** 2 * _wcov(theta * ru - whu, wu) / N + _wcov((1 - lam) * theta * rl - w + lam * wh, wl) / n
    out["ppi"] = frame(theta, middle / np.outer(h, h), lam=float(lam))
    return out


def chatzi_rank_sets(scores: pd.Series, cov: np.ndarray, confidence: float = 0.95) -> pd.DataFrame:
    """Rank sets with simultaneous coverage ``confidence`` from estimates and their covariance
    (Chatzi et al. 2024, the module formulas), and the WMT-style cluster of each system.

    Returns a DataFrame best first: score, rank, lower, upper (the rank set), cluster."""
    theta = np.asarray(scores, float)
    k = len(theta)
    cov = np.asarray(cov, float)
    c = chi2.ppf(confidence, k)
    v = np.clip(np.diag(cov)[:, None] + np.diag(cov)[None, :] - 2 * cov, 0, None)
    above = (theta[:, None] - theta[None, :]) > np.sqrt(c * v)  # [j, m]: j surely above m
    np.fill_diagonal(above, False)
    out = pd.DataFrame({"score": theta, "rank": 1 + (theta[None, :] > theta[:, None]).sum(axis=1),
                        "lower": 1 + above.sum(axis=0), "upper": k - above.sum(axis=1)},
                       index=pd.Index(list(scores.index), name="system"))
    out = out.sort_values("score", ascending=False, kind="stable")
    out["cluster"] = rank_clusters(out["lower"].to_numpy(), out["upper"].to_numpy())
    out.attrs.update(confidence=confidence, critical=float(np.sqrt(c)))
    return out


def ppi_rank_sets(human, judge, confidence: float = 0.95, path=None) -> dict[str, pd.DataFrame]:
    """``chatzi_rank_sets`` of the humans' alone, the judge's alone and the PPI++ win probabilities,
    and, when the judge left some human battles unjudged (PPI++ sets them aside), "all_human": the
    humans' rank sets on all their battles."""
    out, rates = {}, win_rates(human, judge, path=path)
    for name, table in rates.items():
        out[name] = chatzi_rank_sets(table["score"], table.attrs["cov"], confidence)
        out[name].attrs["lam"] = table.attrs.get("lam")
    if rates["human"].attrs["unmatched_human"]:
        out["all_human"] = ppi_rank_sets(human, human, confidence, path)["human"]
    return out


def rank_span(table: pd.DataFrame) -> pd.Series:
    """A rank set as text: "2" or "1–3"."""
    lo, hi = table["lower"].astype(str), table["upper"].astype(str)
    return lo.where(table["lower"] == table["upper"], lo + "–" + hi)
