"""Confidence sets for ranks: every system's rank interval, all at once, and the set of
systems that may be among the best τ.

Mogstad, Romano, Shaikh & Wilhelm (2024), "Inference for ranks with applications to mobility
across neighbourhoods and academic achievement across countries" (Review of Economic Studies;
R package csranks). With estimates θ̂, the differences d̂_jk = θ̂_j − θ̂_k, their standard
errors se_jk and draws Z*_jk = (d*_jk − d̂_jk)/se_jk of the estimation error (bootstrap
resamples d*, or normal draws from an analytic covariance):

- **simultaneous** rank intervals: the critical value c is the ``confidence`` quantile of
  max_{j<k} |Z*_jk|; j is surely better than k when d̂_jk > c·se_jk; then with probability at
  least ``confidence`` every system's rank lies in [1 + #{k surely better than j},
  p − #{k surely worse than j}] at once. Mogstad et al.'s stepdown (their Algorithm 3.1,
  Romano & Wolf 2005) repeats this over the pairs not yet separated until no new pair is, which
  narrows the intervals and keeps the family-wise coverage;
- **marginal** rank interval of one system j: the same with the maximum over the pairs (j, k),
  k ≠ j, only, stepped down over those pairs as csranks does (``csranks(..., simul=FALSE)`` is
  the simultaneous set of the one index j); each system's interval holds with probability
  ``confidence`` on its own;
- **τ-best**: the systems that may be among the best τ, all τ-best together with probability
  ``confidence``: j is out when at least τ systems are surely better than j by one-sided tests,
  k surely better than j when d̂_kj > c₁·se_kj with c₁ the ``confidence`` quantile of the maximum
  of Z*_kj over the ordered pairs not yet declared, stepped down as the two-sided sets are (the
  lower rank bounds of csranks' ``cstaubest``: if all the one-sided statements hold, no true
  τ-best system has τ systems declared above it).

csranks' PISA 2018 example (its vignette "Inference for Ranks") is rebuilt in
tests/experiments/test_rank_sets.py.

WMT's clusters and the arena's "rank (UB)" are pairwise rules without this coverage.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

DRAWS = 10_000  # normal draws of the estimation error from an analytic covariance (fewer for many systems:
PAIR_BUDGET = 5_000_000  # draws × systems² at most, i.e. ~40 MB per array; never fewer than 1,000 draws)


def _pairs(samples: np.ndarray, estimate: np.ndarray, cov: np.ndarray | None):
    """(d̂, se, Z*) over the systems: Z* has shape draws × p × p."""
    d_hat = estimate[:, None] - estimate[None, :]
    diff = samples[:, :, None] - samples[:, None, :]
    if cov is not None:
        v = np.diag(cov)
        se = np.sqrt(np.clip(v[:, None] + v[None, :] - 2 * cov, 0, None))
    else:
        se = np.std(diff, axis=0, ddof=1)
    with np.errstate(all="ignore"):
        z = (diff - d_hat) / se
    return d_hat, se, z


def _critical(z: np.ndarray, mask: np.ndarray, confidence: float) -> float:
    """The ``confidence`` quantile over draws of the maximum of |Z*| (or Z*) over the pairs in ``mask``."""
    if not mask.any():
        return np.inf
    worst = np.nanmax(np.where(mask, z, -np.inf).reshape(len(z), -1), axis=1)
    return float(np.quantile(worst, confidence))


def _stepdown(z: np.ndarray, t: np.ndarray, se: np.ndarray, mask: np.ndarray, confidence: float,
              stepdown: bool = True) -> np.ndarray:
    """The hypotheses of ``mask`` rejected: t > c·se with c the ``confidence`` quantile of the
    maximum of ``z`` over the hypotheses not yet rejected, repeated until none is (single step
    without ``stepdown``); Romano & Wolf (2005), as Mogstad et al.'s Algorithm 3.1."""
    live, rejected = mask.copy(), np.zeros_like(mask)
    while live.any():
        c = _critical(z, live, confidence)
        with np.errstate(invalid="ignore"):
            new = live & (t > c * se)
        if not new.any():
            break
        rejected |= new
        live &= ~new
        if not stepdown:
            break
    return rejected


def rank_sets(estimate, samples=None, cov=None, confidence: float = 0.95, stepdown: bool = True,
              tau=(1,), random_state=0) -> pd.DataFrame:
    """Rank confidence sets from estimates and bootstrap ``samples`` (resamples × systems) or an
    analytic covariance ``cov`` (systems × systems; ``DRAWS`` normal draws give the critical values).

    Parameters
    ----------
    estimate : pandas Series, system → score (higher is better); NaN systems are left out
    samples : (resamples, systems) bootstrap scores, or None with ``cov``
    cov : (systems, systems) covariance of the scores, or None with ``samples``
    confidence : coverage of every set
    stepdown : Mogstad et al.'s stepdown for the simultaneous intervals (single step if False)
    tau : the τ of the τ-best sets reported (column ``top{τ}``: whether the system may be among them)

    Returns
    -------
    DataFrame, best first: score, rank, sim_lower/sim_upper (simultaneous rank interval),
    marg_lower/marg_upper (marginal), top{τ} booleans; ``attrs`` holds the critical values.
    """
    est = pd.Series(estimate, dtype=float)
    keep = est.notna().to_numpy()
    est = est[keep]
    theta = est.to_numpy()
    p = len(theta)
    if (samples is None) == (cov is None):
        raise ValueError("give bootstrap samples or a covariance, one of them")
    if cov is not None:
        cov = np.asarray(cov, dtype=float)[np.ix_(keep, keep)]
        values, vectors = np.linalg.eigh((cov + cov.T) / 2)
        root = vectors * np.sqrt(np.clip(values, 0, None))
        n_draws = int(max(1000, min(DRAWS, PAIR_BUDGET // max(p * p, 1))))
        draws = theta + np.random.default_rng(random_state).standard_normal((n_draws, p)) @ root.T
    else:
        draws = np.asarray(samples, dtype=float)[:, keep]
        draws = draws[np.isfinite(draws).all(axis=1)]
        if len(draws) < 20:
            raise ValueError(f"{len(draws)} complete resamples are too few for rank confidence sets")
    d_hat, se, z = _pairs(draws, theta, cov)
    off = ~np.eye(p, dtype=bool)
    upper = np.triu(off)
    better = np.zeros((p, p), dtype=bool)  # [j, k]: j surely better than k
    absz = np.abs(z)
    live = upper.copy()
    first = None
    while True:
        c = _critical(absz, live, confidence)
        first = c if first is None else first
        with np.errstate(invalid="ignore"):
            new = live & (np.abs(d_hat) > c * se)
        if not new.any():
            break
        better |= new & (d_hat > 0)
        better |= (new & (d_hat < 0)).T
        live &= ~new
        if not stepdown:
            break
    lo, hi = 1 + better.sum(axis=0), p - better.sum(axis=1)
    marg_lo, marg_hi = np.empty(p, int), np.empty(p, int)
    for j in range(p):  # the pairs (j, k) only: row j of every array
        declared = _stepdown(absz[:, j], np.abs(d_hat[j]), se[j], off[j], confidence, stepdown)
        marg_lo[j], marg_hi[j] = 1 + (declared & (d_hat[j] < 0)).sum(), p - (declared & (d_hat[j] > 0)).sum()
    # one-sided: z[:, k, j] is the error of d_kj; [k, j] declared when k is surely better than j
    surely_above = _stepdown(z, d_hat, se, off, confidence, stepdown)
    c1 = _critical(z, off, confidence)
    out = pd.DataFrame({"score": theta, "rank": 1 + (theta[None, :] > theta[:, None]).sum(axis=1),
                        "sim_lower": lo, "sim_upper": hi, "marg_lower": marg_lo, "marg_upper": marg_hi},
                       index=est.index)
    for t in tau:
        out[f"top{t}"] = surely_above.sum(axis=0) < t
    out.index.name = "system"
    out.attrs.update(confidence=confidence, critical=first, critical_one_sided=c1, stepdown=stepdown)
    return out.sort_values("score", ascending=False, kind="stable")


def model_rank_sets(model, kind: str = "fisher", confidence: float = 0.95, tau=(1,), clusters=None,
                    random_state=0, leave_out=()) -> pd.DataFrame:
    """``rank_sets`` of a fitted Bradley–Terry family model from its analytic covariance
    (``model.covariance(kind, clusters)``); systems in ``leave_out`` are not ranked."""
    n = len(model.systems_)
    cov = model.covariance(kind, clusters).to_numpy()[:n, :n]
    scores = model.scores_.copy()
    scores[[s in leave_out for s in scores.index]] = np.nan
    return rank_sets(scores, cov=np.nan_to_num(cov), confidence=confidence, tau=tau, random_state=random_state)


def bootstrap_rank_sets(result, confidence: float = 0.95, leave_out=(), tau=(1,)) -> pd.DataFrame:
    """``rank_sets`` from a ``BootstrapResult``'s estimate and resamples; systems in ``leave_out``
    (a human reference, the both-bad anchor) are not ranked; ``tau`` as ``rank_sets``'."""
    estimate = result.estimate.drop(list(leave_out), errors="ignore")
    samples = result.samples[:, [result.estimate.index.get_loc(s) for s in estimate.index]]
    return rank_sets(estimate, samples=samples, confidence=confidence, tau=tau)


def ratings_rank_sets(ranking, confidence: float = 0.95, top_k: int | None = None) -> tuple[pd.DataFrame, str]:
    """The printed rank-set columns of a ratings ranking (``humeval.ratings.rank_ratings`` with
    ``n_boot``) from its bootstrap resamples of the systems' scores, every system of its table
    ranked (a human one too), and the note; none (no columns) when too few resamples drew every
    system, the note saying so."""
    if ranking.samples is None:
        raise ValueError("rank sets of ratings come from their bootstrap: rank them with n_boot > 0")
    try:
        sets = rank_sets(ranking.estimate, samples=ranking.samples, confidence=confidence,
                         tau=(1, top_k) if top_k else (1,))
    except ValueError as error:
        return (pd.DataFrame(index=ranking.estimate.index),
                f"rank sets: none ({error}); more --bootstrap resamples give them")
    note = rank_set_note(confidence, f"{len(ranking.samples):,} resamples", top_k).replace(
        "ranks among the systems, a human reference not counted", "every row of the table ranked")
    return rank_set_columns(sets), note


def add_ratings_rank_sets(ranking, confidence: float = 0.95, top_k: int | None = None):
    """``ranking`` (a ratings ranking with its resamples) with the rank-set columns placed before
    WMT's wins and clusters and their note appended (``rank RATINGS --rank-sets`` and the report)."""
    columns, note = ratings_rank_sets(ranking, confidence, top_k)
    table = ranking.table.join(columns)
    order = [c for c in table.columns if c not in ("wins", "cluster")] + ["wins", "cluster"]
    ranking.table = table[[c for c in order if c in table.columns]]
    ranking.notes.append(note)
    return ranking


def rank_set_note(confidence: float, source: str, top_k: int | None = None) -> str:
    """What the rank-set columns mean (``rank --rank-sets`` and the report say it alike)."""
    return (f"rank set: every system's rank at once with {confidence:.0%} confidence (Mogstad et al. 2024, stepdown "
            f"max-|t| over all pairs, from {source}; ranks among the systems, a human reference not counted); "
            "marginal: each system's alone; top1: may be the best (all at once)"
            + (f"; top{top_k}: may be among the best {top_k} (all at once, its own {confidence:.0%} set)" if top_k else ""))


def rank_set_columns(table: pd.DataFrame) -> pd.DataFrame:
    """The printed form: "lo–hi" text columns ``rank set`` (simultaneous) and ``marginal``, and
    ``top1`` etc. as "yes"/""."""
    span = lambda lo, hi: lo.astype(str).where(lo == hi, lo.astype(str) + "–" + hi.astype(str))  # noqa: E731
    out = pd.DataFrame({"rank set": span(table.sim_lower, table.sim_upper),
                        "marginal": span(table.marg_lower, table.marg_upper)}, index=table.index)
    for column in [c for c in table.columns if c.startswith("top")]:
        out[column] = np.where(table[column], "yes", "")
    return out
