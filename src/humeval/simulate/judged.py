"""Campaigns judged by humans on a subset and by a biased automatic judge on everything.

Battles (``judged_battles``): k systems with true Bradley–Terry abilities θ (centred); each battle
draws a pair in random order and a latent quality difference of the two outputs
u = θ_a − θ_b + ε, ε standard logistic, so humans, who prefer a when u > 0, answer exactly
P(a preferred) = σ(θ_a − θ_b) (no ties). The judge sees the same outputs and prefers a when
u + position + favour·([a = S0] − [b = S0]) + verbosity·(len_a − len_b) + noise·z > 0 (z standard
normal): a position bias toward the first-shown output, a favoured system and a preference for
longer outputs (each system has a mean length). The truth the human-only and PPI estimates target is θ.

Ratings (``judged_ratings``): system means μ_s; a human score μ_s + item effect + noise; the judge
scores a + b · (μ_s + item effect) + favour·[s = favoured] + noise (another scale, and biased).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.data.tables import Comparisons


def judged_battles(n_human: int = 300, n_judge: int = 3000, k: int = 6, spread: float = 1.0,
                   position: float = 0.5, favour: float = 0.6, verbosity: float = 0.3,
                   noise: float = 1.0, nu: float = 0.0, random_state=None):
    """(truth, human Comparisons, judge Comparisons): the judge judges the humans' n_human battles
    (same items and pairs) and n_judge more. Returns θ as a Series over systems ``S0``… (``S0`` is
    the judge's favourite).

    With ``nu`` > 0, humans answer by Davidson's ties model (P(tie) = ν / (e^d + e^−d + ν),
    d = (θ_a − θ_b)/2) through a uniform U per battle (a if U < P(a), tie if U < P(a) + P(tie));
    the judge reads its own Davidson probabilities, on the biased difference, at U moved by
    ``noise``·0.1·z (clipped), so its verdicts follow the humans'."""
    rng = np.random.default_rng(random_state)
    systems = tuple(f"S{i}" for i in range(k))
    theta = np.linspace(spread, -spread, k)
    theta = theta - theta.mean()
    rng.shuffle(theta)
    length = rng.normal(0, 1, k)
    m = n_human + n_judge
    a = rng.integers(0, k, m)
    b = (a + rng.integers(1, k, m)) % k
    u = theta[a] - theta[b] + rng.logistic(0, 1, m)
    tilt = position + favour * ((a == 0).astype(float) - (b == 0)) + verbosity * (length[a] - length[b])
    seen = u + tilt + noise * rng.normal(0, 1, m)
    human = np.where(u[:n_human] > 0, 1, 2).astype(np.int8)
    judge = np.where(seen > 0, 1, 2).astype(np.int8)
    if nu > 0:
        def davidson(diff, uniform):
            d = diff / 2
            z = np.exp(d) + np.exp(-d) + nu
            pa, pt = np.exp(d) / z, nu / z
            return np.where(uniform < pa, 1, np.where(uniform < pa + pt, 0, 2)).astype(np.int8)
        uniform = rng.random(m)
        human = davidson(theta[a] - theta[b], uniform)[:n_human]
        judge = davidson(theta[a] - theta[b] + tilt, np.clip(uniform + noise * 0.1 * rng.normal(0, 1, m), 0, 1))
    items = tuple(f"q{i}" for i in range(m))
    longer = (length[a] - length[b])[:, None]  # the covariate both tables carry: length difference a − b
    h = Comparisons(a=a[:n_human], b=b[:n_human], outcome=human, item=np.arange(n_human), systems=systems,
                    items=items[:n_human], covariates=longer[:n_human], covariate_names=("length",))
    j = Comparisons(a=a, b=b, outcome=judge, item=np.arange(m), systems=systems, items=items, covariates=longer,
                    covariate_names=("length",))
    return pd.Series(theta, index=systems), h, j


def judged_ratings(n_items: int = 400, human_fraction: float = 0.15, k: int = 5, favour: float = 6.0,
                   random_state=None):
    """(truth, human scores, judge scores): Series indexed by (item, system); humans score a
    random ``human_fraction`` of the k × n_items units on a 0–100-like scale, the judge all of them on
    a 0–1-like scale with the favoured system ``S0`` lifted by ``favour`` points (before rescaling)."""
    rng = np.random.default_rng(random_state)
    systems = [f"S{i}" for i in range(k)]
    mu = 70 + np.linspace(6, -6, k)
    item = rng.normal(0, 10, n_items)
    true = mu[None, :] + item[:, None]
    index = pd.MultiIndex.from_product([[f"i{i}" for i in range(n_items)], systems], names=["item", "system"])
    human = (true + rng.normal(0, 15, true.shape)).ravel()
    judge = (0.2 + 0.008 * (true + favour * (np.arange(k) == 0)[None, :]) + rng.normal(0, 0.06, true.shape)).ravel()
    chosen = rng.random(len(human)) < human_fraction
    return (pd.Series(mu, index=systems), pd.Series(human[chosen], index=index[chosen]),
            pd.Series(judge, index=index))


def battles_frame(human: Comparisons, judge: Comparisons, judge_name: str = "llm-judge") -> pd.DataFrame:
    """The battles of ``judged_battles`` as one arena-layout table (model_a, model_b, winner,
    question_id, judge_kind: ``human`` or ``judge_name``), what a file for ``humeval ppi`` holds."""
    frames = []
    for c, kind in ((human, "human"), (judge, judge_name)):
        systems = np.asarray(c.systems)
        winner = np.where(c.outcome == 1, "model_a", np.where(c.outcome == 2, "model_b", "tie"))
        frames.append(pd.DataFrame({"model_a": systems[c.a], "model_b": systems[c.b], "winner": winner,
                                    "question_id": np.asarray(c.items)[c.item], "judge_kind": kind}))
    return pd.concat(frames, ignore_index=True)
