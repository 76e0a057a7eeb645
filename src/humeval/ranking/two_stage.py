"""The two-stage crowdsourcing model of Baba & Kashima (2013), the GRM paper's "TSt" baseline.

Baba & Kashima estimate the quality of artifacts made by workers (stage one: creation) from the
graded ratings of reviewers (stage two: review). As the GRM paper describes it (§2, §6: "they
focused on the quality of the artifacts ... their model maps task difficulty and review bias to a
difficulty parameter in IRT"), applied to comparisons with a fixed baseline: the artifact is
system i's translation of segment j, with quality q_ij; judge k grades it against the baseline's
translation with a graded response whose thresholds are the judge's own bias b_k1 < b_k2 and
whose slope is the judge's discrimination a_k; the quality is the author's ability less the
task's difficulty:

    P(u ≥ c | q_ij) = σ(a_k (q_ij − b_kc))   (c = 1, 2),    q_ij ~ N(θ_i − d_j, τ²),

with priors θ ~ N(0, σ²), d_j ~ N(0, σ_d²), log a_k ~ N(μ_a, σ_a²), b_kc ~ N(μ_bc, σ_b²). The
difference from the GRM: the thresholds belong to the judge (review bias) and the segment enters
only as a shift of the artifact's quality, where the GRM gives each segment its own thresholds and
each judge only a slope. Fitted by joint MAP (L-BFGS, analytic gradients; a = e^α, b_k2 = b_k1 +
e^γ). Baba & Kashima's own paper is not in ``shared/papers``: this is a reconstruction from the GRM
paper's description, with the GRM's hyperparameters; τ = 0.5 and σ_d = 1 are ours.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.data.tables import Comparisons
from humeval.ranking.base import Ranker
from humeval.ranking.grm import GRM, _category_terms


class TwoStage(Ranker):
    """Baba & Kashima's two-stage model against a fixed ``baseline`` (see the module doc).

    Fitted: ``scores_`` (θ_i; the baseline gets the mean judge threshold midpoint, the ability at
    which an average artifact of an average segment ties), ``artifact_quality_`` (q_ij),
    ``segment_difficulty_`` (d_j), ``judge_sensitivity_`` (a_k), ``judge_bias_`` (b_k1, b_k2)."""

    def __init__(self, baseline: str | None = None, sigma: float = np.sqrt(2.0), tau: float = 0.5,
                 sigma_d: float = 1.0, mu_a: float = np.log(1.7), sigma_a: float = 0.3,
                 mu_b: tuple[float, float] = (-0.5, 0.5), sigma_b: float = 2.0, max_iter: int = 1000):
        self.baseline = baseline
        self.sigma = sigma
        self.tau = tau
        self.sigma_d = sigma_d
        self.mu_a = mu_a
        self.sigma_a = sigma_a
        self.mu_b = mu_b
        self.sigma_b = sigma_b
        self.max_iter = max_iter

    def fit(self, comparisons: Comparisons, baseline: str | None = None) -> "TwoStage":
        if baseline is not None:
            self.baseline = baseline
        return super().fit(comparisons)

    def _negative_posterior(self, x, data, sizes):
        system, segment, judge, u, artifact, art_system, art_segment = data
        n_sys, n_seg, n_judge, n_art = sizes
        theta, d = x[:n_sys], x[n_sys:n_sys + n_seg]
        q = x[n_sys + n_seg:n_sys + n_seg + n_art]
        alpha, b1, gamma = np.split(x[n_sys + n_seg + n_art:], 3)
        a, b2 = np.exp(alpha), b1 + np.exp(gamma)
        ak, qo = a[judge], q[artifact]
        logp, g1, g2 = _category_terms(ak * (qo - b1[judge]), ak * (qo - b2[judge]), u)
        r = q - theta[art_system] + d[art_segment]  # the artifact's quality off its expectation
        mu1, mu2 = self.mu_b
        value = (logp.sum() - 0.5 * np.sum(r ** 2) / self.tau ** 2 - 0.5 * np.sum(theta ** 2) / self.sigma ** 2
                 - 0.5 * np.sum(d ** 2) / self.sigma_d ** 2 - 0.5 * np.sum((alpha - self.mu_a) ** 2) / self.sigma_a ** 2
                 - 0.5 * np.sum((b1 - mu1) ** 2 + (b2 - mu2) ** 2) / self.sigma_b ** 2)
        g_q = np.bincount(artifact, ak * (g1 + g2), n_art) - r / self.tau ** 2
        g_theta = np.bincount(art_system, r, n_sys) / self.tau ** 2 - theta / self.sigma ** 2
        g_d = -np.bincount(art_segment, r, n_seg) / self.tau ** 2 - d / self.sigma_d ** 2
        g_a = np.bincount(judge, ak * (g1 * (qo - b1[judge]) + g2 * (qo - b2[judge])), n_judge)
        g_alpha = g_a - (alpha - self.mu_a) / self.sigma_a ** 2
        g_b1 = np.bincount(judge, -ak * g1, n_judge) - (b1 - mu1) / self.sigma_b ** 2
        g_b2 = np.bincount(judge, -ak * g2, n_judge) - (b2 - mu2) / self.sigma_b ** 2
        grad = np.concatenate([g_theta, g_d, g_q, g_alpha, g_b1 + g_b2, g_b2 * np.exp(gamma)])
        return -value, -grad

    def _fit(self, c: Comparisons) -> None:
        from scipy.optimize import minimize
        view = GRM(baseline=self.baseline)
        system, segment, judge, u, judges, segments, base = view._baseline_view(c)
        self.n_dropped_ = view.n_dropped_
        if not len(u):
            raise ValueError(f"no comparisons with the baseline {self.baseline!r}")
        used_j, judge = np.unique(judge, return_inverse=True)
        used_s, segment = np.unique(segment, return_inverse=True)
        n_sys, n_seg, n_judge = len(self.systems_), len(used_s), len(used_j)
        cells, artifact = np.unique(system * n_seg + segment, return_inverse=True)
        art_system, art_segment = cells // n_seg, cells % n_seg
        data = (system, segment, judge, u, artifact, art_system, art_segment)
        sizes = (n_sys, n_seg, n_judge, len(cells))
        mu1, mu2 = self.mu_b
        x0 = np.concatenate([np.zeros(n_sys + n_seg + len(cells)), np.full(n_judge, self.mu_a),
                             np.full(n_judge, mu1), np.full(n_judge, np.log(mu2 - mu1))])
        result = minimize(self._negative_posterior, x0, args=(data, sizes), jac=True, method="L-BFGS-B",
                          options={"maxiter": self.max_iter})
        self.optimizer_ = result
        x = result.x
        theta, d = x[:n_sys].copy(), x[n_sys:n_sys + n_seg]
        q = x[n_sys + n_seg:n_sys + n_seg + len(cells)]
        alpha, b1, gamma = np.split(x[n_sys + n_seg + len(cells):], 3)
        b2 = b1 + np.exp(gamma)
        rated = np.bincount(system, minlength=n_sys) > 0
        theta[base] = float(np.mean((b1 + b2) / 2))
        rated[base] = True
        self.scores_ = self._series(np.where(rated, theta, np.nan))
        judge_index = pd.Index([judges[i] for i in used_j], name="judge")
        segment_names = [segments[i] for i in used_s]
        self.judge_sensitivity_ = pd.Series(np.exp(alpha), index=judge_index, name="sensitivity")
        self.judge_bias_ = pd.DataFrame({"b1": b1, "b2": b2}, index=judge_index)
        self.segment_difficulty_ = pd.Series(d, index=pd.Index(segment_names, name="segment"), name="difficulty")
        self.artifact_quality_ = pd.Series(q, index=pd.MultiIndex.from_arrays(
            [[self.systems_[i] for i in art_system], [segment_names[j] for j in art_segment]],
            names=["system", "segment"]), name="quality")
        self.scale_ = f"two-stage ability θ against baseline {self.baseline} (Baba & Kashima 2013)"
