"""Comparisons against a fixed baseline drawn from the graded response model itself."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit

from humeval.data.tables import Comparisons


@dataclass
class GRMTruth:
    theta: pd.Series  # system -> ability (the baseline excluded)
    sensitivity: pd.Series  # judge -> a_k (random judges: NaN, they answer uniformly)
    thresholds: pd.DataFrame  # segment -> b1, b2
    random_judges: tuple[str, ...]


def simulate_grm(n_systems: int = 10, n_segments: int = 300, n_judges: int = 30, n_comparisons: int = 6400,
                 sigma: float = 1.0, random_judges: float = 0.0, random_state=None) -> tuple[Comparisons, GRMTruth]:
    """System ``base`` plus ``n_systems`` others; each comparison pits a random system (as ``a``)
    against the baseline (as ``b``) on a random segment, judged by a random judge, with
    u ~ GRM(θ_i, a_k, b_j). Abilities ~ N(0, σ²); log a_k ~ N(log 1.7, 0.3²); b_j1 ~ N(−0.5, 0.5²),
    b_j2 = b_j1 + Exp(1) + 0.2. A share ``random_judges`` of the judges answers uniformly at random."""
    rng = np.random.default_rng(random_state)
    theta = rng.normal(0, sigma, n_systems)
    a = np.exp(rng.normal(np.log(1.7), 0.3, n_judges))
    b1 = rng.normal(-0.5, 0.5, n_segments)
    b2 = b1 + rng.exponential(1.0, n_segments) + 0.2
    noisy = np.zeros(n_judges, dtype=bool)
    noisy[rng.choice(n_judges, int(round(random_judges * n_judges)), replace=False)] = True
    system = rng.integers(0, n_systems, n_comparisons)
    segment = rng.integers(0, n_segments, n_comparisons)
    judge = rng.integers(0, n_judges, n_comparisons)
    p1 = expit(a[judge] * (theta[system] - b1[segment]))
    p2 = expit(a[judge] * (theta[system] - b2[segment]))
    draw = rng.random(n_comparisons)
    u = np.where(draw < 1 - p1, 0, np.where(draw < 1 - p2, 1, 2))  # 0 lose, 1 tie, 2 win
    u = np.where(noisy[judge], rng.integers(0, 3, n_comparisons), u)
    outcome = np.array([2, 0, 1])[u]  # system is a: win -> 1, tie -> 0, lose -> 2 (baseline preferred)
    names = tuple(f"sys{i + 1:02d}" for i in range(n_systems)) + ("base",)
    judges = tuple(f"judge{k + 1:02d}" for k in range(n_judges))
    segments = tuple(f"seg{j + 1:04d}" for j in range(n_segments))
    comparisons = Comparisons(a=system, b=np.full(n_comparisons, n_systems), outcome=outcome, item=segment,
                              judge=judge, systems=names, items=segments, judges=judges)
    truth = GRMTruth(theta=pd.Series(theta, index=pd.Index(names[:-1], name="system")),
                     sensitivity=pd.Series(np.where(noisy, np.nan, a), index=pd.Index(judges, name="judge")),
                     thresholds=pd.DataFrame({"b1": b1, "b2": b2}, index=pd.Index(segments, name="segment")),
                     random_judges=tuple(np.array(judges)[noisy]))
    return comparisons, truth
