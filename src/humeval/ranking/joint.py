"""One scale across protocols: pairwise comparisons and ratings of the same systems, one ability each.

A campaign that judged the same systems by pairwise (or k-way, expanded) comparisons and by
absolute ratings (DA/ESA scores, z scores, MQM, WMT10's acceptability) has two estimates of every
system on two unrelated scales. ``JointModel`` fits one ability θ_s per system to both
(after arena-rank's composite Bradley–Terry, which shares θ across pairwise datasets only):

- comparisons: Davidson's (1970) tie model on x = θ_a − θ_b, P(a) ∝ e^{x/2}, P(b) ∝ e^{−x/2},
  P(tie) ∝ ν (``ranking.links``, the one per-cell likelihood of the Bradley–Terry family);
- ratings of protocol p (each ``criterion`` of the ratings table is one protocol): a Gaussian
  measurement model y ~ N(α_p + β_p θ_s, σ_p²) with the protocol's own offset α_p, scale β_p
  (negative for error scores such as MQM) and noise σ_p (the linear-Gaussian factor model of
  congeneric measurement, Jöreskog 1971, with the pairwise term fixing the unit of θ);
- the Bradley–Terry family's prior λ/2 Σ_s (θ_s − θ̄)² (``l2``, default 1: one logit).

The log posterior Σ_cells ℓ_Davidson + Σ_(p,s) [−n_ps log σ_p − SSE_ps/(2σ_p²)] − λ/2 Σ(θ − θ̄)²
(SSE_ps = Σ (y − α_p − β_p θ_s)² over system s's ratings in protocol p, from the counts, sums
and sums of squares) is maximised by L-BFGS (Nocedal & Wright 2006, §7.2) with its exact
gradient; it is not jointly concave in (θ, β), so Newton (``ranking.newton``) is not used. The
ratings are standardised per protocol while fitting (α, β, σ are reported in the file's units).
θ is in log-odds of the pairwise term, mean zero; ``scores_std_`` are the standard errors from the
inverse of the negative log posterior's Hessian (central differences of the exact gradient, all
parameters jointly, projected onto Σθ = 0): without ratings Davidson's Fisher standard errors. Without ratings the model is Davidson with the
same prior; with ratings only, β of the first protocol is fixed at ±1 (``higher_is_better``) and
θ is in that protocol's standardised units. Rows of quality-control kinds (``REF``, ``BAD_REF``,
``REPEAT``) are left out of the ratings and counted (``controls_left_out_``).

Whether joining helps is an empirical question: ``experiments.joint.heldout_by_protocol``
compares each protocol's held-out log-likelihood under the joint fit and under that protocol
alone.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.optimize import minimize

from humeval.data.tables import Comparisons, Ratings
from humeval.ranking.base import PreferenceModel, check_comparisons, graph_components, judgment_count, pair_cells
from humeval.ranking.links import LINKS

DAVIDSON = LINKS["davidson"]
TIE_BOUND = 10.0  # |log ν| ≤ 10, as the Bradley–Terry family keeps it
CONTROL_KINDS = ("REF", "BAD_REF", "REPEAT")


class RatingStats:
    """Per (protocol, system): count, sum and sum of squares of the standardised ratings."""

    def __init__(self, protocol, system, y, n_protocols, n_systems):
        shape = (n_protocols, n_systems)
        index = protocol * n_systems + system
        count = lambda w: np.bincount(index, weights=w, minlength=n_protocols * n_systems).reshape(shape)
        self.n, self.s1, self.s2 = count(np.ones(len(y))), count(y), count(y * y)


def system_ratings(ratings: Ratings) -> tuple[Ratings, int]:
    """The ratings of system outputs (quality controls left out) and how many were left out."""
    kinds = np.asarray(ratings.kinds, dtype=object)
    control = np.isin(kinds, CONTROL_KINDS)
    keep = ~(ratings.kind >= 0) | ~control[np.maximum(ratings.kind, 0)] if len(kinds) else np.ones(len(ratings), bool)
    keep &= np.isfinite(ratings.score)
    return ratings.take(np.nonzero(keep)[0]), int((~keep).sum())


def protocol_names(ratings: Ratings) -> np.ndarray:
    """Per rating its protocol: the criterion's name, ``"rating"`` where the row names none."""
    criteria = np.asarray([*ratings.criteria, "rating"], dtype=object)
    return criteria[np.where(ratings.criterion >= 0, ratings.criterion, len(ratings.criteria))]


class JointModel(PreferenceModel):
    """Davidson comparisons and Gaussian ratings of the same systems with one ability each (see
    the module doc). ``fit(comparisons, ratings=None)``.

    Parameters
    ----------
    l2 : float
        Precision λ of the Gaussian prior on the abilities (the Bradley–Terry family's default 1).
    max_iter, tol : int, float
        L-BFGS iterations and its gradient tolerance (``gtol``).
    """

    weighted = True  # comparisons enter through pair_cells' weighted counts

    def __init__(self, l2: float = 1.0, max_iter: int = 5000, tol: float = 1e-9):
        self.l2 = l2
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, comparisons: Comparisons, ratings: Ratings | None = None) -> "JointModel":
        """Fit one track's comparisons and, optionally, ratings of the same systems (matched by
        name; systems only rated are added after the compared ones). With ratings, the
        comparisons may be empty (a ratings-only fit)."""
        if ratings is None or len(comparisons):
            comparisons = check_comparisons(comparisons)
        systems = list(comparisons.systems)
        if ratings is not None:
            ratings, self.controls_left_out_ = system_ratings(ratings)
            if len(np.unique(ratings.track)) > 1:
                raise ValueError("ratings from several tracks: fit one track at a time")
            known = set(systems)
            systems += [s for s in dict.fromkeys(ratings.systems[i] for i in np.unique(ratings.system))
                        if s not in known]
        else:
            self.controls_left_out_ = 0
        self.systems_ = tuple(systems)
        n = len(systems)
        a, b, counts, _ = pair_cells(comparisons, n)
        protocols, codes, y, sign = self._ratings_codes(ratings, systems)
        self.protocols_ = protocols
        P = len(protocols)
        mean = np.array([y[codes[0] == p].mean() for p in range(P)]) if P else np.zeros(0)
        sd = np.array([y[codes[0] == p].std() for p in range(P)]) if P else np.zeros(0)
        sd = np.where(sd > 0, sd, 1.0)
        z = (y - mean[codes[0]]) / sd[codes[0]] if P else y
        stats = RatingStats(codes[0], codes[1], z, P, n)
        fix_scale = len(a) == 0 and P > 0  # ratings only: β of the first protocol fixes θ's unit
        x = self._solve(a, b, counts, stats, n, P, sign, fix_scale)
        theta, tau, alpha, beta, log_sigma = self._unpack(x, n, P, sign, fix_scale)
        theta = theta - theta.mean()
        self.theta_, self.log_tie_, self.tie_name_ = theta, float(tau), DAVIDSON.tie_name
        self.nu_ = float(np.exp(tau))
        # back to the file's units: y = m + sd (α' + β' θ + ε')
        shift = x[:n].mean()
        self.protocol_ = pd.DataFrame({"ratings": stats.n.sum(axis=1).astype(int),
                                       "offset": mean + sd * (alpha + beta * shift), "slope": sd * beta,
                                       "noise_sd": sd * np.exp(log_sigma)},
                                      index=pd.Index(protocols, name="protocol"))
        self.scores_ = self._series(theta)
        self.scores_std_ = self._series(np.sqrt(np.clip(np.diag(self._theta_cov), 0, None)), "std")
        self.scale_ = ("log-odds of the pairwise comparisons (Davidson), mean zero; a rating of protocol p is "
                       "offset_p + slope_p × score + noise" if len(a) and P else
                       f"standardised units of {protocols[0]!r} ratings, mean zero" if P else
                       "log-odds of the pairwise comparisons (Davidson), mean zero; no ratings given, so this is "
                       "Davidson's fit (rank --joint RATINGS adds them)")
        self.components_ = self._components(a, b, codes, n)
        tally = comparisons.tally()[["wins", "ties", "losses"]]
        self.record_ = tally.reindex(pd.Index(systems, name="system"), fill_value=0)
        rated = pd.Series(stats.n.sum(axis=0).astype(int), index=pd.Index(systems, name="system"), name="ratings")
        self.ratings_ = rated
        # the comparisons' judgments, as every Ranker counts them (ratings are counted in ratings_)
        self.n_judgments_ = judgment_count(comparisons) if len(comparisons) else 0.0
        return self

    def _fit(self, comparisons: Comparisons) -> None:  # fit() is overridden; kept for the protocol
        self.fit(comparisons)

    @staticmethod
    def _ratings_codes(ratings, systems):
        if ratings is None or len(ratings) == 0:
            return (), (np.zeros(0, np.int64), np.zeros(0, np.int64)), np.zeros(0), 1.0
        index = {s: i for i, s in enumerate(systems)}
        system = np.array([index[ratings.systems[i]] for i in ratings.system], dtype=np.int64)
        names, protocol = np.unique(protocol_names(ratings).astype(str), return_inverse=True)
        sign = 1.0 if ratings.higher_is_better else -1.0
        return tuple(str(p) for p in names), (protocol.astype(np.int64), system), ratings.score.astype(float), sign

    @staticmethod
    def _unpack(x, n, P, sign, fix_scale):
        theta, tau = x[:n], x[n]
        alpha, beta, log_sigma = x[n + 1:n + 1 + P], x[n + 1 + P:n + 1 + 2 * P].copy(), x[n + 1 + 2 * P:]
        if fix_scale:
            beta[0] = sign
        return theta, tau, alpha, beta, log_sigma

    def _solve(self, a, b, counts, stats, n, P, sign, fix_scale):
        lam = float(self.l2)

        def negative(x):
            theta, tau, alpha, beta, log_sigma = self._unpack(x, n, P, sign, fix_scale)
            value, g = 0.0, np.zeros_like(x)
            if len(a):
                d = theta[a] - theta[b]
                v, d1, _ = DAVIDSON.cell(d, counts, tau)
                g_tau, _, _ = DAVIDSON.tie(d, counts, tau)
                value += v.sum()
                g[:n] += np.bincount(a, weights=d1, minlength=n) - np.bincount(b, weights=d1, minlength=n)
                g[n] += g_tau.sum()
            if P:
                mu = alpha[:, None] + beta[:, None] * theta[None, :]
                w = np.exp(-2 * log_sigma)[:, None]
                sse = stats.s2 - 2 * mu * stats.s1 + stats.n * mu ** 2
                value += np.sum(-stats.n * log_sigma[:, None] - w * sse / 2)
                dmu = w * (stats.s1 - stats.n * mu)
                g[:n] += (dmu * beta[:, None]).sum(axis=0)
                g[n + 1:n + 1 + P] = dmu.sum(axis=1)
                g[n + 1 + P:n + 1 + 2 * P] = (dmu * theta[None, :]).sum(axis=1)
                if fix_scale:
                    g[n + 1 + P] = 0.0
                g[n + 1 + 2 * P:] = (-stats.n + w * sse).sum(axis=1)
            centred = theta - theta.mean()
            value -= lam / 2 * centred @ centred + theta.sum() ** 2 / 2  # the prior, and Σθ = 0 (a gauge)
            g[:n] -= lam * centred + theta.sum()
            return -value, -g

        x0 = np.zeros(n + 1 + 3 * P)
        x0[n] = DAVIDSON.tie_start
        x0[n + 1 + P:n + 1 + 2 * P] = sign * 0.5
        bounds = [(None, None)] * n + [(-TIE_BOUND, TIE_BOUND)] + [(None, None)] * (2 * P) + [(-10.0, 10.0)] * P
        result = minimize(negative, x0, jac=True, method="L-BFGS-B", bounds=bounds,
                          options={"maxiter": self.max_iter, "gtol": self.tol, "ftol": 1e-15, "maxcor": 20})
        self.converged_ = bool(result.success) or np.max(np.abs(result.jac)) < 1e-5
        self._theta_cov = self._covariance(negative, result.x, n, P, fix_scale)
        return result.x

    @staticmethod
    def _covariance(negative, x, n, P, fix_scale, step=1e-5):
        """Covariance of the centred abilities: the inverse of the negative log posterior's Hessian
        (central differences of the exact gradient) over the free parameters, projected onto
        Σθ = 0 (the gauge term fixes only the common shift, which the projection removes)."""
        free = np.ones(len(x), dtype=bool)
        if fix_scale:
            free[n + 1 + P] = False
        index = np.nonzero(free)[0]
        hess = np.empty((len(index), len(index)))
        for k, i in enumerate(index):
            e = np.zeros(len(x))
            e[i] = step
            hess[:, k] = (negative(x + e)[1] - negative(x - e)[1])[index] / (2 * step)
        hess = (hess + hess.T) / 2
        try:
            cov = np.linalg.inv(hess)[:n, :n]
        except np.linalg.LinAlgError:
            cov = np.linalg.pinv(hess)[:n, :n]
        centre = np.eye(n) - 1.0 / n
        return centre @ cov @ centre

    @staticmethod
    def _components(a, b, codes, n):
        """Components of the graph joining compared systems and systems rated in one protocol."""
        protocol, system = codes
        rows, cols = list(a), list(b)
        for p in np.unique(protocol):
            rated = np.unique(system[protocol == p])
            rows += list(rated[:-1])
            cols += list(rated[1:])
        return graph_components(np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64), n)

    # -- prediction --------------------------------------------------------------------------
    def _proba(self, a, b):
        u = (self.theta_[a] - self.theta_[b]) / 2
        d = np.exp(u) + np.exp(-u) + self.nu_
        return np.column_stack([self.nu_ / d, np.exp(u) / d, np.exp(-u) / d])

    def rating_loglik(self, ratings: Ratings) -> np.ndarray:
        """Per rating, log N(y; offset_p + slope_p θ_s, noise_sd_p²) in the file's units (NaN for a
        protocol or system the model has not seen)."""
        self._check_fitted()
        ratings, _ = system_ratings(ratings)
        index = {s: i for i, s in enumerate(self.systems_)}
        system = np.array([index.get(ratings.systems[i], -1) for i in ratings.system], dtype=np.int64)
        table = self.protocol_.reindex(protocol_names(ratings).astype(str))
        theta = np.where(system >= 0, self.theta_[np.maximum(system, 0)], np.nan)
        mu = table["offset"].to_numpy() + table["slope"].to_numpy() * theta
        sd = table["noise_sd"].to_numpy()
        return -0.5 * np.log(2 * np.pi * sd ** 2) - (ratings.score - mu) ** 2 / (2 * sd ** 2)
