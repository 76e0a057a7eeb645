"""A translation competition simulated along Hopkins & May's (2013, §7) generative story.

Each system s has an ability μ_s ~ N(0, σ0). Its translation of segment x is an item of
quality q_sx ~ N(μ_s, σa). A judge observes an item's quality plus noise N(0, σobs) and
compares two observations o1, o2: no preference (0) when |o1 − o2| < r (the decision
radius), else the higher one is preferred (1 or 2). For a new pair of items this gives the
exact relative ability

    d = o1 − o2 ~ N(μ1 − μ2, 2σa² + 2σobs²)
    P(1) = 1 − Φ((r − m)/s),   P(2) = Φ((−r − m)/s),   P(0) = 1 − P(1) − P(2)

with m = μ1 − μ2, s² = 2σa² + 2σobs². A share of the judges can answer at random.

Designs: ``pairs`` (uniform random pairs of systems), ``rankings`` (WMT-style k-way
rankings of k distinct random systems: an output's rank is 1 + the number of outputs the
judge saw as better by more than r, so ties happen when no output stands clearly apart),
``baseline`` (every comparison pits a random system, as ``a``, against one fixed baseline
system, as ``b``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from humeval.data.tables import Comparisons, Rankings

DESIGNS = ("pairs", "rankings", "baseline")


@dataclass
class Truth:
    """The parameters the simulation drew, and the exact preference distribution."""

    abilities: pd.Series  # system -> μ_s
    quality: np.ndarray  # (systems, items): q_sx
    random_judges: tuple[str, ...]
    random_share: float  # probability that a judgment comes from a random judge
    random_proba: np.ndarray  # (3,) what a random judge answers, as P(tie), P(a), P(b)
    sigma_a: float
    sigma_obs: float
    radius: float

    def proba(self, a, b) -> np.ndarray:
        """Exact P(tie), P(a preferred), P(b preferred) for system codes ``a``, ``b`` on new items,
        averaged over judges (a random judge with probability ``random_share``)."""
        from humeval.ranking.irt import thurstone_proba  # here, not at import: it loads the compiled models
        mu = self.abilities.to_numpy()
        scale = np.sqrt(2 * self.sigma_a ** 2 + 2 * self.sigma_obs ** 2)
        honest = thurstone_proba(mu[np.asarray(a)] - mu[np.asarray(b)], scale, self.radius)
        return (1 - self.random_share) * honest + self.random_share * self.random_proba


@dataclass
class Simulation:
    comparisons: Comparisons
    rankings: Rankings | None
    truth: Truth


def simulate_competition(n_systems: int = 12, n_items: int = 500, n_judges: int = 20,
                         n_judgments: int = 2000, design: str = "pairs", k: int = 5,
                         baseline: int = 0, random_judges: float = 0.0, sigma0: float = 1.0,
                         sigma_a: float = 0.5, sigma_obs: float = 1.0, radius: float = 0.4,
                         track: str = "simulated", random_state=None) -> Simulation:
    """Simulate a competition; ``n_judgments`` counts comparisons (pairs, baseline) or rankings.

    ``random_judges`` is the share of judges who answer at random (uniformly over the three
    preferences, or over ranks 1..k in the rankings design). Defaults follow Hopkins & May's
    footnote 13 (σ0 = 1, σa = 0.5, σobs = 1, r = 0.4).
    """
    if design not in DESIGNS:
        raise ValueError(f"design must be one of {DESIGNS}, not {design!r}")
    if n_systems < 2 or (design == "rankings" and not 2 <= k <= n_systems):
        raise ValueError("need at least 2 systems, and 2 <= k <= n_systems for rankings")
    if not 0 <= baseline < n_systems:
        raise ValueError(f"baseline must be a system index in 0..{n_systems - 1}")
    if not 0.0 <= random_judges <= 1.0:
        raise ValueError("random_judges is a share between 0 and 1")
    rng = np.random.default_rng(random_state)
    systems = tuple(f"sys{i + 1:02d}" for i in range(n_systems))
    items = tuple(f"seg{i + 1:04d}" for i in range(n_items))
    judges = tuple(f"judge{i + 1:02d}" for i in range(n_judges))
    mu = rng.normal(0.0, sigma0, n_systems)
    quality = rng.normal(mu[:, None], sigma_a, (n_systems, n_items))
    n_random = int(round(random_judges * n_judges))
    is_random = np.zeros(n_judges, dtype=bool)
    is_random[rng.choice(n_judges, n_random, replace=False)] = True
    item = rng.integers(0, n_items, n_judgments).astype(np.int32)
    judge = rng.integers(0, n_judges, n_judgments).astype(np.int32)
    labels = dict(systems=systems, items=items, judges=judges, tracks=(track,))
    rankings = None
    if design == "rankings":
        shown = np.argsort(rng.random((n_judgments, n_systems)), axis=1)[:, :k].astype(np.int32)
        observed = quality[shown, item[:, None]] + rng.normal(0.0, sigma_obs, shown.shape)
        clearly_better = observed[:, None, :] - observed[:, :, None] > radius  # [n, i, j]: o_j − o_i > r
        rank = 1 + clearly_better.sum(axis=2)
        rank = np.where(is_random[judge][:, None], rng.integers(1, k + 1, shown.shape), rank)
        rankings = Rankings(system=shown, rank=rank, item=item, judge=judge,
                            track=np.zeros(n_judgments, np.int16), **labels)
        comparisons = rankings.expand()
        random_proba = np.array([1 / k, (k - 1) / (2 * k), (k - 1) / (2 * k)])
    else:
        if design == "pairs":
            a = rng.integers(0, n_systems, n_judgments)
            b = (a + rng.integers(1, n_systems, n_judgments)) % n_systems
        else:
            others = np.delete(np.arange(n_systems), baseline)
            a, b = others[rng.integers(0, n_systems - 1, n_judgments)], np.full(n_judgments, baseline)
        noise = rng.normal(0.0, sigma_obs, (2, n_judgments))
        diff = (quality[a, item] + noise[0]) - (quality[b, item] + noise[1])
        outcome = np.where(diff > radius, 1, np.where(diff < -radius, 2, 0))
        outcome = np.where(is_random[judge], rng.integers(0, 3, n_judgments), outcome)
        comparisons = Comparisons(a=a, b=b, outcome=outcome, item=item, judge=judge,
                                  track=np.zeros(n_judgments, np.int16), **labels)
        random_proba = np.full(3, 1 / 3)
    truth = Truth(abilities=pd.Series(mu, index=pd.Index(systems, name="system"), name="ability"),
                  quality=quality, random_judges=tuple(np.array(judges)[is_random]),
                  random_share=n_random / n_judges, random_proba=random_proba,
                  sigma_a=sigma_a, sigma_obs=sigma_obs, radius=radius)
    return Simulation(comparisons, rankings, truth)
