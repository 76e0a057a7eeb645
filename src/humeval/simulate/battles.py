"""Arena battles with style covariates and judge effects, simulated with known truth.

Each system s has an ability θ_s (log-odds, mean zero) and a typical response length: its
log length on a prompt is ℓ_s + N(0, σ_len). A battle pits two distinct random systems (a shown
first) on a random prompt; its covariate is the normalised length difference

    z = (L_a − L_b) / (L_a + L_b)        (FastChat's style feature, before its z-scoring)

and a judge j answers by Rao–Kupper with a length bias β and judge-level random effects:

    x = θ_a − θ_b + u_ja − u_jb + h + β z,   P(a) = σ(x − η),   P(b) = σ(−x − η),   P(tie) = rest,

u_js ~ N(0, σ_judge) (a judge's own taste for a system: judgments of one judge are correlated),
η ≥ 0 the tie threshold (η = 0: no ties; then this is Bradley–Terry). With β > 0 and verbose
systems that are not the best, a ranking that ignores length promotes the verbose ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from humeval.data.tables import Comparisons


@dataclass
class BattleTruth:
    abilities: pd.Series  # system -> θ_s (mean zero)
    log_length: pd.Series  # system -> ℓ_s
    beta: float  # the length bias
    position: float  # h
    eta: float  # the tie threshold
    sigma_judge: float


@dataclass
class BattleSimulation:
    comparisons: Comparisons
    truth: BattleTruth


def simulate_battles(n_systems: int = 10, n_battles: int = 50_000, beta: float = 1.0, abilities=None,
                     log_length=None, sigma_length: float = 0.5, position: float = 0.0, eta: float = 0.0,
                     n_judges: int = 100, sigma_judge: float = 0.0, n_items: int = 1000,
                     random_state=None) -> BattleSimulation:
    """Simulate ``n_battles`` battles (see the module doc); ``abilities`` and ``log_length``
    default to θ evenly spread over [−1, 1] and ℓ ~ N(6, 0.5). The comparisons carry one
    covariate, ``length`` (z above)."""
    rng = np.random.default_rng(random_state)
    theta = np.linspace(1.0, -1.0, n_systems) if abilities is None else np.asarray(abilities, dtype=float)
    theta = theta - theta.mean()
    n_systems = len(theta)
    ell = rng.normal(6.0, 0.5, n_systems) if log_length is None else np.asarray(log_length, dtype=float)
    if n_systems < 2 or len(ell) != n_systems:
        raise ValueError("need at least 2 systems, and one log length per system")
    a = rng.integers(0, n_systems, n_battles)
    b = (a + rng.integers(1, n_systems, n_battles)) % n_systems
    length_a = np.exp(ell[a] + rng.normal(0, sigma_length, n_battles))
    length_b = np.exp(ell[b] + rng.normal(0, sigma_length, n_battles))
    z = (length_a - length_b) / (length_a + length_b)
    judge = rng.integers(0, n_judges, n_battles)
    taste = rng.normal(0, sigma_judge, (n_judges, n_systems)) if sigma_judge > 0 else np.zeros((n_judges, n_systems))
    x = theta[a] - theta[b] + taste[judge, a] - taste[judge, b] + position + beta * z
    pa, pb = 1 / (1 + np.exp(-(x - eta))), 1 / (1 + np.exp(x + eta))
    r = rng.random(n_battles)
    outcome = np.where(r < pa, 1, np.where(r < pa + pb, 2, 0))
    systems = tuple(f"sys{i + 1:02d}" for i in range(n_systems))
    comparisons = Comparisons(a=a, b=b, outcome=outcome, judge=judge, item=rng.integers(0, n_items, n_battles),
                              systems=systems, judges=tuple(f"judge{j + 1:03d}" for j in range(n_judges)),
                              items=tuple(f"prompt{i + 1:04d}" for i in range(n_items)), tracks=("battles",),
                              track=np.zeros(n_battles, np.int32), covariates=z[:, None], covariate_names=("length",))
    index = pd.Index(systems, name="system")
    truth = BattleTruth(pd.Series(theta, index=index, name="ability"), pd.Series(ell, index=index, name="log_length"),
                        beta, position, eta, sigma_judge)
    return BattleSimulation(comparisons, truth)
