"""Two protocols judging the same systems, with known truth: the generative model of ``ranking.joint``.

Abilities θ_s ~ N(0, ``spread``²), centred. Comparisons draw a pair uniformly and an outcome from
Davidson's (1970) model, P(a) ∝ e^{x/2}, P(b) ∝ e^{−x/2}, P(tie) ∝ ν with x = θ_a − θ_b. Ratings
draw a system uniformly and a score y = offset + slope θ_s + ε, ε ~ N(0, noise²) (one protocol,
criterion ``criterion``; a negative slope makes an error score such as MQM).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from humeval.data.tables import Comparisons, Ratings


@dataclass
class TwoProtocols:
    comparisons: Comparisons
    ratings: Ratings
    theta: pd.Series  # system -> true ability (log-odds, mean zero)


def simulate_two_protocols(n_systems: int = 8, n_comparisons: int = 300, n_ratings: int = 300, spread: float = 1.0,
                           nu: float = 0.5, offset: float = 70.0, slope: float = 8.0, noise: float = 20.0,
                           criterion: str = "DA", random_state=None) -> TwoProtocols:
    """Comparisons and ratings of the same ``n_systems`` systems (module doc)."""
    rng = np.random.default_rng(random_state)
    theta = rng.normal(0, spread, n_systems)
    theta -= theta.mean()
    systems = tuple(f"sys{i}" for i in range(n_systems))
    a = rng.integers(0, n_systems, n_comparisons)
    b = (a + rng.integers(1, n_systems, n_comparisons)) % n_systems
    u = (theta[a] - theta[b]) / 2
    p = np.column_stack([np.full(n_comparisons, nu), np.exp(u), np.exp(-u)])
    p /= p.sum(axis=1, keepdims=True)
    outcome = (rng.random(n_comparisons)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    comparisons = Comparisons(a=a, b=b, outcome=outcome, systems=systems, item=np.arange(n_comparisons),
                              items=tuple(f"c{i}" for i in range(n_comparisons)))
    s = rng.integers(0, n_systems, n_ratings)
    score = offset + slope * theta[s] + rng.normal(0, noise, n_ratings)
    ratings = Ratings(system=s, score=score, systems=systems, criterion=np.zeros(n_ratings, dtype=int),
                      criteria=(criterion,), item=np.arange(n_ratings), items=tuple(f"r{i}" for i in range(n_ratings)),
                      higher_is_better=slope >= 0)
    return TwoProtocols(comparisons, ratings, pd.Series(theta, index=pd.Index(systems, name="system"), name="theta"))
