"""Rank clusters from the analytic covariance of the Bradley–Terry family (``ranking.analytic``):
the scores drawn from their normal approximation and ranked as the bootstrap ranks resamples.
Here, not in ``ranking``, because it is the bootstrap's summary (``BootstrapResult``) applied to
normal draws: ``experiments`` builds on ``ranking``, never the other way round."""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.experiments.bootstrap import BootstrapResult

CLUSTER_DRAWS = 1000  # normal draws of the scores behind the analytic rank clusters


def analytic_clusters(model, kind: str, covariance: pd.DataFrame, confidence: float, random_state=0,
                      leave_out=()) -> pd.Series:
    """WMT rank cluster of every system when its scores are drawn from N(score, ``covariance``,
    the model's covariance of kind ``kind``) instead of bootstrapped (``CLUSTER_DRAWS`` draws,
    seeded; trimmed rank ranges as in the bootstrap). Systems in ``leave_out`` (a both-bad
    anchor) are drawn but not ranked: the clusters count the others only. What ``humeval rank
    --intervals`` and the report's analytic tables print."""
    n = len(model.systems_)
    cov = np.nan_to_num(covariance.to_numpy()[:n, :n])
    score = model.scores_.to_numpy()
    values, vectors = np.linalg.eigh((cov + cov.T) / 2)
    root = vectors * np.sqrt(np.clip(values, 0, None))
    draws = score + np.random.default_rng(random_state).standard_normal((CLUSTER_DRAWS, n)) @ root.T
    draws[:, np.isnan(score)] = np.nan
    keep = np.array([s not in leave_out for s in model.systems_])
    systems = tuple(s for s, k in zip(model.systems_, keep) if k)
    table = BootstrapResult(systems, model.scores_[list(keep)], draws[:, keep], kind, confidence,
                            units=model.n_judgments_).table()  # too few judgments: one cluster
    return table["cluster"]
