"""How many judgments are enough: planning a campaign from a pilot (parametric bootstrap).

``plan(pilot, model, budgets)`` fits the model to the pilot comparisons and simulates many
campaigns of each budget from it, each refitted as the real campaign would be. For each budget
it reports the expected number of WMT rank clusters, the probability that the top system is
identified, the expected Spearman and Kendall correlation with the full-information ranking (the
truth of that simulation), and the expected held-out perplexity.

The truth of each simulated campaign is drawn from what the pilot says about the abilities, not
fixed at the pilot's estimates: estimates from a pilot are spread wider than the abilities
(noise adds variance), so planning at the estimates would promise too much. With the pilot's
bootstrap standard errors s_i, the ability variance is estimated as τ² = var(θ̂) − mean(s²)
(empirical Bayes, floored at 1 % of var(θ̂)), each estimate is shrunk by τ²/(τ² + s_i²), and the
truth is drawn from N(shrunk θ̂_i, s_i²·τ²/(τ² + s_i²)) independently per system. The truth is
Bradley–Terry log-odds estimated from the pilot's decisive comparisons, and outcomes follow
Bradley–Terry at the drawn truth with ties at the pilot's tie rate: estimating the truth with ties
counted as half wins would shrink it toward zero, and simulating from it would then promise too
little. Each simulated campaign is fitted with ``model`` as the real campaign would be.

Designs: ``pairs`` (uniformly random pairs of distinct systems; the budget counts comparisons)
or ``rankings`` (WMT's k-way rankings of random systems; the budget counts rankings, each
expanded into k(k−1)/2 comparisons; the order comes from Gumbel-perturbed abilities, whose
pairwise marginals are exactly Bradley–Terry's, and each pair is tied at the model's tie rate).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit

from humeval.data.tables import Comparisons
from humeval.ranking.base import check_comparisons

BUDGETS = (500, 1000, 2000, 4000, 8000)


@dataclass
class Plan:
    table: pd.DataFrame  # one row per budget: expected clusters, P(top), Spearman, Kendall, perplexity
    trials: pd.DataFrame  # one row per simulated campaign
    model: str
    design: str
    pilot_size: int
    truth_sd: np.ndarray  # posterior sd of each system's ability


def _draw_truth(estimate: np.ndarray, se: np.ndarray, shrink: bool = True) -> tuple[np.ndarray, np.ndarray]:
    centered = estimate - estimate.mean()
    if not shrink:
        return centered, np.zeros_like(se)
    var_hat = centered.var()
    tau2 = max(var_hat - np.mean(se ** 2), 0.01 * var_hat)
    factor = tau2 / (tau2 + se ** 2)
    return factor * centered, np.sqrt(factor) * se


def pair_outcomes(truth: np.ndarray, a: np.ndarray, b: np.ndarray, tie_rate: float, rng) -> np.ndarray:
    """Outcomes (0 tie, 1 a, 2 b) of pairs at Bradley–Terry abilities, ties at ``tie_rate``."""
    tie = rng.random(len(a)) < tie_rate
    a_wins = rng.random(len(a)) < expit(truth[a] - truth[b])
    return np.where(tie, 0, np.where(a_wins, 1, 2))


def ranking_outcomes(truth: np.ndarray, rankings: int, k: int, tie_rate: float, rng):
    """(a, b, outcome) of ``rankings`` k-way rankings of random systems, ordered by Gumbel-perturbed
    abilities (pairwise marginals exactly Bradley–Terry), each pair tied at ``tie_rate``."""
    k = min(k, len(truth))
    groups = np.argsort(rng.random((rankings, len(truth))), axis=1)[:, :k]
    utility = truth[groups] + rng.gumbel(size=groups.shape)
    i, j = np.triu_indices(k, 1)
    a, b = groups[:, i].ravel(), groups[:, j].ravel()
    a_better = (utility[:, i] > utility[:, j]).ravel()
    return a, b, np.where(rng.random(len(a)) < tie_rate, 0, np.where(a_better, 1, 2))


def simulate_design(truth: np.ndarray, tie_rate: float, budget: int, design: str, rng, k: int = 5,
                    systems=None) -> Comparisons:
    """Comparisons of one simulated campaign at abilities ``truth`` (log-odds, Bradley–Terry)."""
    n = len(truth)
    if design == "pairs":
        a = rng.integers(0, n, budget)
        b = (a + rng.integers(1, n, budget)) % n
        outcome = pair_outcomes(truth, a, b, tie_rate, rng)
    elif design == "rankings":
        a, b, outcome = ranking_outcomes(truth, budget, k, tie_rate, rng)
    else:
        raise ValueError(f"design must be 'pairs' or 'rankings', not {design!r}")
    names = systems if systems is not None else tuple(f"sys{i + 1:02d}" for i in range(n))
    return Comparisons(a=a.astype(np.int32), b=b.astype(np.int32), outcome=outcome.astype(np.int8), systems=names)


def _clusters(model, comparisons, resamples, seed) -> int:
    from humeval.experiments.bootstrap import bootstrap
    table = bootstrap(model, comparisons, n=resamples, random_state=seed).table()
    return int(table["cluster"].max())


def _one(task) -> dict:
    from scipy import stats
    (model_name, l2, truth_mean, truth_sd, tie_rate, budget, design, k, resamples, test_size, seed, names) = task
    from humeval.experiments.perplexity import perplexity
    from humeval.ranking import make_model
    rng = np.random.default_rng(seed)
    truth = truth_mean + truth_sd * rng.normal(size=len(truth_mean))
    campaign = simulate_design(truth, tie_rate, budget, design, rng, k, names)
    test = simulate_design(truth, tie_rate, test_size, "pairs", rng, k, names)
    model = make_model(model_name, seed, l2).fit(campaign)
    scores = model.scores_.reindex(names).to_numpy(dtype=float)
    known = ~np.isnan(scores)
    row = {"budget": budget, "comparisons": len(campaign),
           "top identified": float(known[np.argmax(truth)] and np.nanargmax(scores) == np.argmax(truth)),
           "spearman": float(stats.spearmanr(scores[known], truth[known]).statistic),
           "kendall": float(stats.kendalltau(scores[known], truth[known]).statistic),
           "perplexity": perplexity(model, test) if hasattr(model, "predict_proba") else np.nan}
    if resamples:
        row["clusters"] = _clusters(model, campaign, resamples, seed)
    return row


def plan(pilot: Comparisons, model: str = "bt", budgets=BUDGETS, design: str = "pairs", simulations: int = 200,
         k: int = 5, cluster_resamples: int = 100, test_size: int = 2000, shrink: bool = True, random_state=None,
         jobs: int = 1, progress=None, l2: float | None = None) -> Plan:
    """Simulate ``simulations`` campaigns of each budget from the model fitted to ``pilot`` (one
    track) and summarise them; see the module doc. ``cluster_resamples`` = 0 skips the clusters
    (the costliest column). ``progress(done, total)`` counts campaigns. ``l2`` is the prior
    precision of ``model`` (``make_model``; None keeps its default), used for the pilot and every
    simulated campaign; the truth is always drawn from a Bradley–Terry fit with the default prior."""
    from humeval.experiments.bootstrap import bootstrap
    from humeval.ranking import make_model
    pilot = check_comparisons(pilot)
    make_model(model, random_state, l2).fit(pilot)  # the model must be able to fit the pilot at all
    decisive = pilot.take(pilot.outcome != 0)
    fitted = make_model("bt", random_state).fit(decisive)
    names = tuple(pilot.systems)
    estimate = fitted.scores_.reindex(names).to_numpy(dtype=float)
    if np.isnan(estimate).any():
        raise ValueError("some systems have no decisive comparison in the pilot: plan needs every system rated")
    boot = bootstrap(fitted, decisive, n=200, random_state=random_state)
    se = np.nanstd(boot.samples, axis=0)
    mean, sd = _draw_truth(estimate, se, shrink)
    tie_rate = float(np.mean(pilot.outcome == 0))
    seeds = np.random.SeedSequence(random_state).generate_state(len(budgets) * simulations)  # one per campaign
    tasks = [(model, l2, mean, sd, tie_rate, int(budget), design, k, cluster_resamples, test_size,
              int(seeds[i * simulations + s]), names)
             for i, budget in enumerate(budgets) for s in range(simulations)]
    from humeval.experiments.parallel import run_tasks
    trials = pd.DataFrame(run_tasks(_one, tasks, jobs, progress))
    columns = ["clusters", "top identified", "spearman", "kendall", "perplexity"]
    table = trials.groupby("budget")[[c for c in columns if c in trials]].mean()
    table.insert(0, "comparisons", trials.groupby("budget")["comparisons"].mean())
    table = table.rename(columns={"clusters": "expected clusters", "top identified": "P(top identified)"})
    return Plan(table, trials, model, design, len(pilot), sd)
