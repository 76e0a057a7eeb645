"""Hopkins & May (2013, §3): the ⟨P_X, P_J⟩-relative ability of systems.

P(π | s1, s2) = Σ_x Σ_j P_X(x) P_J(j) P(π | s1, s2, x, j): the preferences we expect when
source segments x and judges j are drawn from distributions we choose (the text we care about,
the judges we want to impress). ``relative_ability`` summarises it per system as the expected
net wins, the mean over the other systems o of P(s preferred | s, o) − P(o preferred | s, o),
with Q(π | s1, s2, x, j) from a fitted preference model.

What weighting means depends on what the model conditions on:

- Models without segment or judge effects (Hopkins & May's own, the Bradley–Terry family,
  TrueSkill, …) assume Q(π | s1, s2, x, j) = Q(π | s1, s2): every choice of weights gives the
  same answer, the model's ``predict_proba`` net wins. To weight *data*, fit the model to the
  comparisons of the segments and judges you care about.
- ``CrowdBT`` has a reliability η_j per judge: Q(s1 preferred | j) = (1 − t)(η_j σ(d) + (1 − η_j)
  σ(−d)), d = θ_s1 − θ_s2, linear in η_j, so mixing over P_J is the same formula with
  η̄ = Σ_j P_J(j) η_j. Its ``predict_proba`` uses η̄ under the empirical P_J (judges weighted by
  their judgments), which is the default here. It has no segment effect.
- Not yet: the GRM's per-judge discrimination and per-segment thresholds (its
  ``predict_proba`` uses typical values, not a mixture), and the IRT models' item qualities
  (their prediction is for a new item, already marginal over segments).

Weights are mappings (or Series) from segment / judge names to non-negative numbers, normalised
to sum to one; None is the empirical distribution of ``comparisons`` (each segment or judge
weighted by its number of comparisons; for Crowd-BT, the model's own η̄, which also counts
comparisons without a judge), under which the result is the unweighted quantity.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import expit

from humeval.data.tables import Comparisons
from humeval.ranking.base import PreferenceModel


def _distribution(weights, labels, codes, what: str) -> pd.Series:
    """P over ``labels``: normalised ``weights``, or the empirical shares of ``codes``."""
    if weights is None:
        known = codes[codes >= 0]
        counts = np.bincount(known, minlength=len(labels)).astype(float)
        if counts.sum() == 0:
            return pd.Series(dtype=float)
        return pd.Series(counts / counts.sum(), index=list(labels))
    w = pd.Series(weights, dtype=float)
    unknown = sorted(set(map(str, w.index)) - set(map(str, labels)))
    if unknown:
        raise ValueError(f"unknown {what} {unknown[:5]}: the comparisons have {len(labels)} {what}")
    if (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
        raise ValueError(f"{what} weights must be non-negative, finite and not all zero")
    return w / w.sum()


def relative_ability(model: PreferenceModel, comparisons: Comparisons, segment_weights=None,
                     judge_weights=None) -> pd.Series:
    """Expected net wins of each fitted system under the ⟨P_X, P_J⟩ given by the weights
    (Hopkins & May 2013, §3; module docstring for what the weights change in each model):
    RA(s) = 1/(n − 1) Σ_{o ≠ s} Σ_x Σ_j P_X(x) P_J(j) [Q(s ≻ o | x, j) − Q(o ≻ s | x, j)]."""
    if not isinstance(model, PreferenceModel):
        raise TypeError(f"{type(model).__name__} is a ranking heuristic, not a preference model: it has no "
                        "relative ability")
    model._check_fitted()
    _distribution(segment_weights, comparisons.items, comparisons.item, "segments")  # checked; no model uses it yet
    p_j = _distribution(judge_weights, comparisons.judges, comparisons.judge, "judges")
    n = len(model.systems_)
    a, b = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
    if hasattr(model, "judge_reliability_"):  # Crowd-BT: the mixture over judges is η̄
        eta = model.judge_reliability_  # judges with no name ("(unknown judge)") count in the default only
        eta_bar = (model.reliability_ if judge_weights is None
                   else float(np.dot(p_j.reindex(eta.index).fillna(0.0).to_numpy(), eta.to_numpy())))
        x = np.nan_to_num(model.theta_[a] - model.theta_[b])
        p = eta_bar * expit(x) + (1 - eta_bar) * expit(-x)
        t = model.tie_rate_
        proba = np.column_stack([np.full(len(x), t), (1 - t) * p, (1 - t) * (1 - p)])
    else:  # no segment or judge effects: Q(π | s1, s2, x, j) = Q(π | s1, s2) whatever the weights
        proba = model.predict_proba(a, b)
    proba = proba.reshape(n, n, 3)
    net = proba[:, :, 1] - proba[:, :, 2]
    np.fill_diagonal(net, 0.0)
    values = net.sum(axis=1) / max(n - 1, 1)
    return pd.Series(values, index=pd.Index(model.systems_, name="system"), name="relative_ability")
