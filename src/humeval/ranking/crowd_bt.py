"""Crowd-BT (Chen, Bennett, Collins-Thompson & Horvitz 2013): Bradley–Terry with a reliability
per judge.

Judge k reports the better of i and j with probability η_k and the worse with 1 − η_k:

    P(i ≻_k j) = η_k σ(θ_i − θ_j) + (1 − η_k) σ(θ_j − θ_i)

η_k near 1 is a reliable judge, near ½ one who answers at random, below ½ an adversarial one
(who systematically prefers the worse output). Fitted by EM: the E-step gives each judgment the
posterior probability r that the judge reported truthfully; the M-step sets η_k to the judge's
mean r under a Beta(a, b) prior, and θ to the Bradley–Terry estimate with each judgment counted
r times as stated and 1 − r times reversed (the BT Newton solver on pair counts). Plain EM
crawls here (the reliabilities and abilities are strongly coupled), so the EM map is accelerated
by SQUAREM (Varadhan & Roland 2008), keeping only steps that do not lower the likelihood. Ties carry no
direction here and are left out (counted in ``n_ties_``). Comparisons without a judge share one
reliability, reported as "(unknown judge)".

Priors (the fit is a MAP estimate): abilities θ_i ~ N(0, 1/λ) with λ = ``l2`` = 1, i.e. a
standard normal on the log-odds scale, and η_k ~ Beta(a, b) = Beta(2, 1), so

    η_k = (Σ_judgments r + a − 1) / (n_k + a + b − 2),    the objective adds −λ/2 Σ θ_i².

The prior on θ is what keeps small training sets honest: with λ = 0.01 (θ ~ N(0, 10²), the
earlier default) 100–400 WMT10 comparisons leave many pairs one-sided, θ runs to ±10 and the
held-out perplexity was 6.1 at 100 comparisons and 3.06 at 400 (uniform: 3); with λ = 1 it is
2.64 and 2.54 (adjusted uniform: 2.81 and 2.79). A standard normal is weakly informative for
logistic models: it allows a gap of 2 log-odds (an 88 % preference) between two systems
one σ either side of the mean, wider than any WMT10 track needed.

Predictions are for a new judgment by a judge not singled out: its reliability is unknown, so
P(π | i, j) averages over the training judgments' reliabilities, with η̄ = Σ_k n_k η_k / Σ_k n_k
(n_k decided judgments of judge k) and t the training tie rate:

    P(tie) = t,   P(i ≻ j) = (1 − t) [η̄ σ(θ_i − θ_j) + (1 − η̄) σ(θ_j − θ_i)].

Long fits report progress: ``fit(comparisons, progress=None)`` calls ``progress(step, max_iter)``
after every SQUAREM step (``humeval.ranking.progress``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import expit

from humeval.data.tables import Comparisons
from humeval.ranking.base import PreferenceModel
from humeval.ranking.bradley_terry import BradleyTerry
from humeval.ranking.progress import ReportsProgress

UNKNOWN = "(unknown judge)"


class CrowdBT(ReportsProgress, PreferenceModel):
    """Crowd-BT. ``judge_reliability_`` (η per judge), ``judge_flags_`` (reliable, random,
    adversarial, or too few judgments), ``scores_`` (θ, log-odds, mean zero), ``reliability_``
    (η̄, the judgment-weighted mean reliability that predictions use). ``fit(comparisons,
    progress=None)``: ``progress(step, max_iter)`` after every SQUAREM step."""

    def __init__(self, l2: float = 1.0, prior: tuple[float, float] = (2.0, 1.0), random_band: float = 0.15,
                 min_judgments: int = 10, max_iter: int = 500, tol: float = 1e-7):
        self.l2 = l2
        self.prior = prior
        self.random_band = random_band
        self.min_judgments = min_judgments
        self.max_iter = max_iter
        self.tol = tol

    def _fit(self, c: Comparisons) -> None:
        n = len(self.systems_)
        decided = c.outcome != 0
        self.n_ties_ = int((~decided).sum())
        self.tie_rate_ = float(np.mean(~decided))
        winner = np.where(c.outcome == 1, c.a, c.b)[decided].astype(np.int64)
        loser = np.where(c.outcome == 1, c.b, c.a)[decided].astype(np.int64)
        names = list(c.judges)
        judge = c.judge[decided].astype(np.int64)
        if (judge < 0).any():
            judge = np.where(judge < 0, len(names), judge)
            names.append(UNKNOWN)
        m = len(names)
        per_judge = np.bincount(judge, minlength=m)
        a_prior, b_prior = self.prior
        solver = BradleyTerry(l2=self.l2)
        solver.systems_ = self.systems_
        eta = np.full(m, 0.8)
        theta = np.zeros(n)
        # every judgment counts r times for its stated winner and 1 - r times for its loser
        codes = np.concatenate([winner * n + loser, loser * n + winner])
        unique, cells = np.unique(codes, return_inverse=True)
        ca, cb = unique // n, unique % n
        rated = np.bincount(np.concatenate([ca, cb]), minlength=n) > 0
        counts = np.zeros((len(unique), 3))
        def em(theta, eta):
            d = theta[winner] - theta[loser]
            truthful = eta[judge] * expit(d)
            r = truthful / (truthful + (1 - eta[judge]) * expit(-d))
            new_eta = (np.bincount(judge, r, m) + a_prior - 1) / (per_judge + a_prior + b_prior - 2)
            counts[:, 1] = np.bincount(cells, np.concatenate([r, 1 - r]), len(unique))
            new_theta, _, _ = solver._solve(ca, cb, counts, n, rated, (theta, 0.0, 0.0))
            return np.nan_to_num(new_theta), np.clip(new_eta, 1e-6, 1 - 1e-6)

        def objective(theta, eta):
            d = theta[winner] - theta[loser]
            like = eta[judge] * expit(d) + (1 - eta[judge]) * expit(-d)
            prior = (a_prior - 1) * np.log(eta) + (b_prior - 1) * np.log1p(-eta)
            return np.log(like).sum() + prior.sum() - self.l2 / 2 * np.sum(theta ** 2)

        # EM accelerated by SQUAREM (Varadhan & Roland 2008), never accepting a worse likelihood
        split = n
        pack = lambda t, e: np.concatenate([t, e])
        current = pack(theta, eta)
        value = objective(theta, eta)
        for iteration in range(self.max_iter):
            p1 = pack(*em(current[:split], current[split:]))
            p2 = pack(*em(p1[:split], p1[split:]))
            r, v = p1 - current, p2 - 2 * p1 + current
            alpha = -np.linalg.norm(r) / max(np.linalg.norm(v), 1e-300)
            jump = current - 2 * alpha * r + alpha ** 2 * v if alpha < -1 else p2
            jump[split:] = np.clip(jump[split:], 1e-6, 1 - 1e-6)
            candidate = pack(*em(jump[:split], jump[split:]))
            candidate_value = objective(candidate[:split], candidate[split:])
            if not candidate_value >= value:
                candidate, candidate_value = p2, objective(p2[:split], p2[split:])
            change = np.max(np.abs(candidate - current))
            current, value = candidate, candidate_value
            self._report(iteration + 1, self.max_iter)
            if change < self.tol:
                break
        self._report(self.max_iter, self.max_iter)
        theta, eta = current[:split], current[split:]
        self.log_likelihood_ = float(value)
        self.n_iter_ = iteration + 1
        played = np.bincount(np.concatenate([c.a, c.b]), minlength=n) > 0
        theta = np.where(played, theta, np.nan)
        self.theta_ = theta - np.nanmean(theta)
        self.scores_ = self._series(self.theta_)
        self.scale_ = "log-odds, mean 0"
        index = pd.Index(names, name="judge")
        self.judge_reliability_ = pd.Series(eta, index=index, name="reliability")
        self.judge_judgments_ = pd.Series(per_judge, index=index, name="judgments")
        self.reliability_ = float(np.sum(per_judge * eta) / per_judge.sum()) if per_judge.sum() else 1.0
        flags = np.where(per_judge < self.min_judgments, "too few judgments",
                         np.where(eta < 0.5 - self.random_band, "adversarial",
                                  np.where(eta <= 0.5 + self.random_band, "random", "reliable")))
        self.judge_flags_ = pd.Series(flags, index=index, name="flag")

    def judges(self) -> pd.DataFrame:
        """Judges from least to most reliable: judgments, reliability η, flag."""
        self._check_fitted()
        df = pd.concat([self.judge_judgments_, self.judge_reliability_, self.judge_flags_], axis=1)
        return df.sort_values("reliability")

    def _proba(self, a, b):
        x = np.nan_to_num(self.theta_[a] - self.theta_[b])
        t, eta = self.tie_rate_, self.reliability_
        p = eta * expit(x) + (1 - eta) * expit(-x)
        return np.column_stack([np.full(len(x), t), (1 - t) * p, (1 - t) * (1 - p)])
