"""Thurstone–Mosteller: the probit member of the pair-likelihood family.

Thurstone's (1927) law of comparative judgment, Case V (equal, uncorrelated discriminal
dispersions), as Mosteller (1951) fitted it: a judge preferring a to b sees θ_a − θ_b plus normal
noise, so P(a preferred) = Φ(x) with x = θ_a − θ_b (+ h) (+ βᵀz) and Φ the standard normal
distribution; ties count half a win each, as in ``BradleyTerry``. Everything else — the N(0, 1/λ)
prior on θ, the position effect, covariates (style control) with their separation guard,
weights, Newton's method, the bootstrap and the analytic intervals — is the family's
(``bradley_terry._PairModel``), chosen by the declared link ``probit`` (``ranking.links``).

Scores are in probit units, one = the standard deviation of a comparison's noise: a difference
of 1 means P = Φ(1) = 0.841, where Bradley–Terry needs 1.67 log-odds (σ(1.67) = 0.841; the logit
and probit scales differ by about 1.6–1.7 near the middle, Amemiya 1981). ``scale="elo"``, a
conversion of log-odds, is refused.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from humeval.ranking.bradley_terry import _PairModel
from humeval.ranking.links import LINKS


class Thurstone(_PairModel):
    """Thurstone–Mosteller Case V (probit link), ties as half a win for each side; ``predict_proba``
    uses the training tie rate t: (t, (1 − t) Φ(x), (1 − t) Φ(−x))."""

    link = LINKS["probit"]

    def _predict(self, x):
        t = self.tie_rate_
        return np.column_stack([np.full(len(x), t), (1 - t) * ndtr(x), (1 - t) * ndtr(-x)])
