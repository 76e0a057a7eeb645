"""How many judgments each elicitation strategy needs (the study of issue "how many judgments are
enough").

``active_study`` runs every strategy for ``trials`` campaigns against an environment (simulated
abilities, or the real judgments of a file resampled pair by pair), and at every ``checkpoint``
judgments fits the same evaluation model to what was collected — Bradley–Terry by maximum
likelihood with a tiny ridge (λ = 0.01, so early disconnected data still fit) — and records its
Spearman and Kendall correlation with the reference ranking (the true abilities, or the
Bradley–Terry fit of all the real judgments) and, optionally, the number of WMT clusters (100
bootstrap resamples). ``savings`` reads off how many judgments each strategy needs to reach the
uniform strategy's final mean correlation.

``baseline_study`` does the same for the GRM design against a fixed baseline: uniformly random
(system, segment) judgments; choosing, for each system in turn, the segments most informative at
the current GRM estimates (Fisher information of the graded response, at the mean judge
sensitivity); or choosing the system whose θ is least certain first (``GRMUncertainty``, the
paper's §5 proposal) — the GRM refitted after every batch or updated online (``partial_fit``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.active.strategies import PairState, Strategy
from humeval.data.tables import Comparisons


def _evaluate(state: PairState, systems, reference: np.ndarray, clusters: bool, seed, l2: float = 0.01) -> dict:
    from scipy import stats
    from humeval.ranking.bradley_terry import BradleyTerry
    a, b, outcome = state.arrays()
    comps = Comparisons(a=a.astype(np.int32), b=b.astype(np.int32), outcome=outcome.astype(np.int8), systems=systems)
    model = BradleyTerry(l2=l2).fit(comps)
    scores = model.scores_.reindex(systems).to_numpy(dtype=float)
    known = ~np.isnan(scores)
    row = {"spearman": float(stats.spearmanr(scores[known], reference[known]).statistic),
           "kendall": float(stats.kendalltau(scores[known], reference[known]).statistic),
           "top identified": float(np.nanargmax(scores) == int(np.argmax(reference)))}
    if clusters:
        from humeval.experiments.bootstrap import bootstrap
        row["clusters"] = int(bootstrap(model, comps, n=100, random_state=seed).table()["cluster"].max())
    return row


def _availability(environment, n):
    """For real data: the pairs that still have unused judgments (None: every pair can be asked)."""
    if not hasattr(environment, "left"):
        return None

    def available():
        left = environment.left.reshape(n, n) > 0
        return left | left.T
    return available


def _campaign(task) -> list[dict]:
    """One campaign of one strategy: judgments asked batch by batch up to the budget, the
    evaluation recorded at every checkpoint. The environment and the strategy are reset first,
    so a task run in a worker process (on copies) gives the rows a run here gives."""
    environment, name, strategy, trial, seed, budget, batch, checkpoint, reference, clusters, l2 = task
    systems = tuple(environment.systems)
    n = len(systems)
    rng = np.random.default_rng(seed)  # the same stream start for every strategy
    environment.reset(rng)
    state = PairState(n, _availability(environment, n))
    strategy.reset(n)
    rows, next_check = [], checkpoint
    while state.size < budget:
        want = min(batch, budget - state.size)
        if strategy.kind == "rankings":
            k = getattr(strategy, "k", 5)
            a, b, outcome = environment.judge_rankings(max(1, want // (k * (k - 1) // 2)), k)
        else:
            pairs = strategy.next_batch(state, want, rng)
            if len(pairs) == 0:
                break
            a, b, outcome = environment.judge_pairs(pairs)
        if len(a) == 0:
            break
        state.add(a, b, outcome)
        strategy.update(state, a, b, outcome)
        while state.size >= next_check or (state.size >= budget and next_check - checkpoint < budget):
            at = min(next_check, budget)
            rows.append({"strategy": name, "trial": trial, "judgments": at,
                         **_evaluate(state, systems, reference, clusters, seed, l2)})
            next_check += checkpoint
    return rows


def active_study(environment, strategies: dict[str, Strategy], budget: int, batch: int = 100,
                 checkpoint: int | None = None, trials: int = 5, reference=None, clusters: bool = False,
                 random_state=None, progress=None, l2: float = 0.01, jobs: int = 1) -> pd.DataFrame:
    """Tidy curves (strategy, trial, judgments, spearman, kendall, top identified[, clusters]); each
    checkpoint's ranking is Bradley–Terry with prior precision ``l2``. The strategies × trials
    campaigns are independent tasks (``run_tasks``: ``jobs`` processes or the current cluster
    backend), each seeded from ``SeedSequence(random_state)`` by its trial."""
    from humeval.experiments.parallel import run_tasks
    checkpoint = checkpoint or batch
    if reference is None:
        reference = np.asarray(environment.truth, dtype=float)
    reference = np.asarray(reference, dtype=float)
    seeds = np.random.SeedSequence(random_state).generate_state(trials)
    tasks = [(environment, name, strategy, trial, int(seeds[trial]), budget, batch, checkpoint, reference, clusters,
              l2) for name, strategy in strategies.items() for trial in range(trials)]
    return pd.DataFrame([row for rows in run_tasks(_campaign, tasks, jobs, progress) for row in rows])


def savings(curves: pd.DataFrame, baseline: str | None = None, measure: str = "spearman") -> pd.DataFrame:
    """Per strategy: its final mean ``measure``, and the judgments it needs (first checkpoint whose
    mean reaches the baseline strategy's final mean) with the saving against the baseline's budget.
    The baseline's own row is its budget and a saving of 0 by definition: its noisy mean curve can
    touch its final value earlier, which would be the baseline "saving" against itself."""
    order = list(dict.fromkeys(curves["strategy"]))
    mean = curves.groupby(["strategy", "judgments"])[measure].mean().unstack("strategy")[order]
    baseline = baseline or order[0]
    target = mean[baseline].iloc[-1]
    budget = mean.index[-1]
    rows = []
    for name in mean.columns:
        reached = mean.index[mean[name] >= target - 1e-12]
        need = int(budget) if name == baseline else (int(reached[0]) if len(reached) else np.nan)
        rows.append({"strategy": name, f"final {measure}": float(mean[name].iloc[-1]),
                     f"judgments to reach {target:.3f}": need,
                     "saving": (1 - need / budget) if need == need else np.nan})
    return pd.DataFrame(rows).set_index("strategy")


def informative_pairs(theta: np.ndarray, b1: np.ndarray, b2: np.ndarray, a: float, n: int, rng, system=None):
    """(system, segment) for ``n`` judgments against the baseline: systems in turn (or the given
    ``system`` codes), each with its segments of highest GRM Fisher information at its current
    ability (ties broken at random)."""
    from humeval.ranking.grm import _information
    info = _information(theta[:, None], a, b1[None, :], b2[None, :])
    system = np.arange(n) % len(theta) if system is None else np.asarray(system, dtype=np.int64)
    segment = np.empty(n, dtype=np.int64)
    for i in range(len(theta)):
        mine = np.nonzero(system == i)[0]
        # more judgments than segments: the ranking again from the top
        segment[mine] = np.resize(np.argsort(-info[i] + rng.random(len(b1)) * 1e-9), len(mine))
    return system, segment


BASELINE_STRATEGIES = {
    "random": ("random", "refit"), "information": ("information", "refit"),
    "uncertainty (online)": ("uncertainty", "online"), "uncertainty (refit)": ("uncertainty", "refit"),
    "random (online)": ("random", "online")}


def baseline_study(truth, budget: int = 3000, batch: int = 300, trials: int = 3, n_segments_start: int | None = None,
                   random_state=None, progress=None, strategies=("random", "information"), environment=None,
                   reference=None) -> pd.DataFrame:
    """GRM design: curves of Spearman with the true abilities at every batch, for ``strategies``
    among ``BASELINE_STRATEGIES`` — a choice of judgments (``random`` (system, segment) pairs;
    ``information``: systems in turn, each on its most informative segments; ``uncertainty``:
    ``GRMUncertainty``, the system with the least certain θ first) and an update after each batch
    (``refit``: ``GRM.fit`` on everything collected; ``online``: ``GRM.partial_fit`` on the batch).
    The first batch is random for every strategy. Curves carry ``seconds``, the update's time.
    ``environment``: a ``RealBaseline`` (resampled real judgments) instead of simulating from
    ``truth``, with ``reference`` the abilities to correlate with (e.g. Bradley–Terry on the whole
    file); real judgments may come on other segments than asked (``RealBaseline`` counts them)."""
    from scipy import stats
    import time

    from humeval.active.environments import SimulatedBaseline
    from humeval.active.strategies import GRMUncertainty
    from humeval.ranking.grm import GRM
    unknown = [s for s in strategies if s not in BASELINE_STRATEGIES]
    if unknown:
        raise ValueError(f"unknown strategies {unknown}; choose from {', '.join(BASELINE_STRATEGIES)}")
    env = SimulatedBaseline(truth) if environment is None else environment
    reference = env.theta if reference is None else np.asarray(reference, dtype=float)
    n, m = len(env.systems) - 1, len(env.segments)
    seeds = np.random.SeedSequence(random_state).generate_state(trials)
    rows, done = [], 0
    for name in strategies:
        choice, update = BASELINE_STRATEGIES[name]
        chooser = GRMUncertainty(env.systems[:-1], env.segments)
        for trial in range(trials):
            rng = np.random.default_rng(int(seeds[trial]))
            env.reset(rng)
            system, segment, outcome, judge = [], [], [], []
            model, collected = None, 0
            if update == "online":
                model = GRM(baseline=env.systems[-1])
            while collected < budget:
                want = min(batch, budget - collected)
                if choice == "random" or not collected:
                    s, g = rng.integers(0, n, want), rng.integers(0, m, want)
                elif choice == "uncertainty":
                    s, g = chooser.choose(model, want, rng)
                else:
                    theta = model.scores_.reindex(env.systems[:-1]).to_numpy(dtype=float)
                    seg = model.segment_thresholds_.reindex(list(env.segments))
                    b1 = seg["b1"].to_numpy(dtype=float)
                    b2 = seg["b2"].to_numpy(dtype=float)
                    unseen = np.isnan(b1)
                    b1, b2 = np.where(unseen, np.nanmean(b1), b1), np.where(unseen, np.nanmean(b2), b2)
                    a_mean = float(np.nanmean(model.judge_sensitivity_))
                    s, g = informative_pairs(np.nan_to_num(theta), b1, b2, a_mean, want, rng)
                o, j, g, *real = env.judge(s, g)
                s = real[0] if real else s
                if not len(o):
                    break
                system.append(s)
                segment.append(g)
                outcome.append(o)
                judge.append(j)
                collected += len(o)
                comps = _baseline_comparisons(env, system, segment, outcome, judge, n,
                                              slice(-1, None) if update == "online" else slice(None))
                start = time.perf_counter()
                model = model.partial_fit(comps) if update == "online" else GRM(baseline=env.systems[-1]).fit(comps)
                seconds = time.perf_counter() - start
                est = model.scores_.reindex(env.systems[:-1]).to_numpy(dtype=float)
                known = ~np.isnan(est)
                rows.append({"strategy": name, "trial": trial, "judgments": collected, "seconds": seconds,
                             "spearman": float(stats.spearmanr(est[known], reference[known]).statistic)})
            done += 1
            if progress:
                progress(done, len(strategies) * trials)
    return pd.DataFrame(rows)


def _baseline_comparisons(env, system, segment, outcome, judge, n, batches) -> Comparisons:
    """The collected (system, segment, outcome, judge) batches chosen by ``batches`` as comparisons
    of each system (as ``a``) with the baseline (code ``n``, as ``b``)."""
    s = np.concatenate(system[batches])
    return Comparisons(a=s.astype(np.int32), b=np.full(len(s), n, np.int32),
                       outcome=np.concatenate(outcome[batches]).astype(np.int8),
                       item=np.concatenate(segment[batches]).astype(np.int32),
                       judge=np.concatenate(judge[batches]).astype(np.int32),
                       systems=env.systems, items=env.segments, judges=env.judges)
