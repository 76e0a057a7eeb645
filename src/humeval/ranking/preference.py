"""The baseline and simple Bayesian preference models of Hopkins & May (2013, §5–6).

Each is a distribution Q(π | s1, s2) over π ∈ {0 tie, 1 s1 preferred, 2 s2 preferred}. With
C_π(s1, s2) the comparisons of s1 (first) and s2 with preference π, and π̂ the negation:
"""

from __future__ import annotations

import numpy as np

from humeval.data.tables import Comparisons
from humeval.ranking.base import SWAP, PreferenceModel, pair_counts, symmetric_counts

RECONSTRUCTIONS = ("asymmetric", "arithmetic", "geometric")


class Uniform(PreferenceModel):
    """Q(π | s1, s2) = 1/3: needs no data; its perplexity is exactly 3 (§5.1)."""

    fast_bootstrap = True  # closed form: refits take microseconds
    weighted = True  # needs no data

    def __init__(self):
        pass

    def _fit(self, comparisons: Comparisons) -> None:
        self.scores_ = self._series(np.zeros(len(self.systems_)))

    def _proba(self, a, b):
        return np.full((len(a), 3), 1 / 3)


class AdjustedUniform(PreferenceModel):
    """Q(0) = |C_0| / |C|, Q(1) = Q(2) = (1 − Q(0)) / 2: only the tie rate is learnt (§5.2)."""

    fast_bootstrap = True  # closed form: refits take microseconds

    def __init__(self):
        pass

    def _fit(self, comparisons: Comparisons) -> None:
        self.tie_rate_ = float(np.mean(comparisons.outcome == 0))
        self.scores_ = self._series(np.zeros(len(self.systems_)))

    def _proba(self, a, b):
        p = np.array([self.tie_rate_, (1 - self.tie_rate_) / 2, (1 - self.tie_rate_) / 2])
        return np.tile(p, (len(a), 1))


class IndependentPairs(PreferenceModel):
    """Each pair's distribution on its own, with a symmetric Dirichlet(α) prior (§6.1):

        Q(π | s1, s2) = (α + |C_π(s1, s2)| + |C_π̂(s2, s1)|) / (3α + |C(s1, s2)| + |C(s2, s1)|)
    """

    fast_bootstrap = True  # closed form: refits take microseconds
    weighted = True  # counts by weight (pair_counts)

    def __init__(self, alpha: float = 1.0):
        self.alpha = alpha

    def _fit(self, comparisons: Comparisons) -> None:
        s = symmetric_counts(pair_counts(comparisons))
        self.table_ = (self.alpha + s) / (3 * self.alpha + s.sum(axis=2, keepdims=True))
        self._default_scores()

    def _proba(self, a, b):
        return self.table_[a, b]


class IndependentStudents(PreferenceModel):
    """Each system's universal ability, with a symmetric Dirichlet(α) prior (§6.2):

        Q(π | s1) = (α + Σ_s2 |C_π(s1, s2)| + |C_π̂(s2, s1)|) / (3α + Σ_s2 |C(s1, s2)| + |C(s2, s1)|)

    turned into a preference model by a reconstruction: ``asymmetric`` Q(π | s1, s2) = Q(π | s1);
    ``arithmetic`` (Q(π | s1) + Q(π̂ | s2)) / 2; ``geometric`` [Q(π | s1) · Q(π̂ | s2)]^½. The
    geometric mean of two distributions does not sum to one, so here it is normalised over π
    (the paper does not say; without it perplexities would not be comparable).
    """

    fast_bootstrap = True  # closed form: refits take microseconds
    weighted = True  # counts by weight (pair_counts)

    def __init__(self, alpha: float = 1.0, reconstruction: str = "geometric"):
        self.alpha = alpha
        self.reconstruction = reconstruction

    def _fit(self, comparisons: Comparisons) -> None:
        if self.reconstruction not in RECONSTRUCTIONS:
            raise ValueError(f"reconstruction must be one of {RECONSTRUCTIONS}, not {self.reconstruction!r}")
        s = symmetric_counts(pair_counts(comparisons))  # self-comparisons left out
        totals = s.sum(axis=1)  # (systems, 3)
        self.universal_ = (self.alpha + totals) / (3 * self.alpha + totals.sum(axis=1, keepdims=True))
        self._default_scores()

    def _proba(self, a, b):
        q1, q2 = self.universal_[a], self.universal_[b][:, SWAP]
        if self.reconstruction == "asymmetric":
            return q1.copy()
        if self.reconstruction == "arithmetic":
            return (q1 + q2) / 2
        g = np.sqrt(q1 * q2)
        return g / g.sum(axis=1, keepdims=True)
