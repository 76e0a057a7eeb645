"""TrueSkill bootstrap: humeval's compiled runs against a numpy loop vectorised across the runs.

    python benchmarks/bench_trueskill.py [--comparisons 100000] [--runs 1000] [--sample 5000] [--numpy-steps 2000]
                                         [--active-comparisons 10000] [--active-runs 1000]

WMT's procedure: 1,000 bootstrap runs, each replaying a resample of all comparisons through
TrueSkill updates (WMT settings). humeval runs the whole job with one thread (``jobs=1``, the
default) and with all of numba's threads (``jobs=0``); the baseline is a plain numpy loop
vectorised across the runs (every step, every run updates one drawn comparison; checked against
humeval's replay to 1e-9 first), timed on ``--numpy-steps`` steps and scaled; the ratio is of
one thread each, in CPU time (robust to a shared machine) and wall time. The ``trueskill``
package (the WMT scripts' engine) is timed on ``--sample`` updates and scaled to runs ×
comparisons. All on the same simulated comparisons; compilation is warmed up first and not
counted.

Then active sampling (``order="active"``, Sakaguchi et al. 2014): humeval's compiled bootstrap
against refitting every resample with ``TrueSkill(order="active").fit`` in Python (what
``bootstrap`` did before; timed on 20 refits and scaled). Each compiled run equals its refit
exactly (tests/ranking/test_trueskill.py).
"""

from __future__ import annotations

import argparse
import os
import time

import trueskill

import numpy as np
from scipy.special import ndtr

from humeval.experiments import bootstrap
from humeval.ranking import TrueSkill
from humeval.simulate import simulate_competition


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--comparisons", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--sample", type=int, default=5000)
    parser.add_argument("--numpy-steps", type=int, default=2000,
                        help="steps of the numpy baseline timed (all runs each)")
    parser.add_argument("--active-comparisons", type=int, default=10_000)
    parser.add_argument("--active-runs", type=int, default=1000)
    args = parser.parse_args()
    from humeval.threads import threads_in_use
    print(f"threads: {threads_in_use()} (the compiled runs: as each line says, jobs= sets them)")
    if args.runs:
        default_order(args)
    if args.active_runs:
        active_order(args)


def active_order(args):
    c = simulate_competition(n_systems=16, n_items=3000, n_judgments=args.active_comparisons, design="pairs",
                             random_state=0).comparisons
    model = TrueSkill(order="active")
    bootstrap(model, c.take(range(100)), n=2)  # compile
    start = time.perf_counter()
    bootstrap(model, c, n=args.active_runs, random_state=0)
    ours = time.perf_counter() - start
    rng, refits = np.random.default_rng(0), 20
    start = time.perf_counter()
    for seed in range(refits):
        rows = np.sort(rng.integers(0, len(c), len(c)))
        TrueSkill(order="active", random_state=seed).fit(c.take(rows)).scores_
    theirs = (time.perf_counter() - start) / refits * args.active_runs
    print(f"TrueSkill active sampling bootstrap: {args.active_runs:,} runs x {len(c):,} matches, 16 systems")
    print(f"humeval (compiled, parallel runs)     {ours:8.1f} s")
    print(f"refitting each resample in Python     {theirs:8.1f} s   (timed on {refits} refits, scaled)"
          f"   {theirs / ours:6.1f}x humeval's time")


def numpy_loop(winner, loser, draw, n_systems, runs, steps, beta, margin, rng, index=None):
    """The baseline: TrueSkill bootstrap runs as a plain numpy loop vectorised across the runs.
    Each step every run draws one comparison (``index[step]`` if given) and updates its two
    systems; both branches (win, draw) are computed for all runs and one is kept, as a vectorised
    loop must. Returns μ and σ² (runs × systems) after ``steps`` steps."""
    mu, var = np.zeros((runs, n_systems)), np.full((runs, n_systems), 0.25)
    lanes = np.arange(runs)
    two_beta2 = 2 * beta * beta

    def pdf(x):
        return np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi)

    for step in range(steps):
        u = rng.integers(0, len(winner), runs) if index is None else index[step]
        w, l, d = winner[u], loser[u], draw[u]
        sw2, sl2 = var[lanes, w], var[lanes, l]
        inv_c = 1 / np.sqrt(two_beta2 + sw2 + sl2)
        t, e = (mu[lanes, w] - mu[lanes, l]) * inv_c, margin * inv_c
        x = t - e
        v_win = pdf(x) / ndtr(x)
        w_win = v_win * (v_win + x)
        gap = np.abs(t)
        hi, lo = e - gap, -e - gap
        p_hi, p_lo = pdf(hi), pdf(lo)
        denom = ndtr(hi) - ndtr(lo)
        v_draw = (p_lo - p_hi) / denom
        w_draw = v_draw * v_draw + (hi * p_hi - lo * p_lo) / denom
        v = np.where(d, np.where(t < 0, -v_draw, v_draw), v_win)
        wv = np.where(d, w_draw, w_win)
        mu[lanes, w] += sw2 * inv_c * v
        mu[lanes, l] -= sl2 * inv_c * v
        var[lanes, w] = sw2 * (1 - sw2 * inv_c ** 2 * wv)
        var[lanes, l] = sl2 * (1 - sl2 * inv_c ** 2 * wv)
    return mu, var


def default_order(args):
    c = simulate_competition(n_systems=16, n_items=3000, n_judgments=args.comparisons, design="pairs",
                             random_state=0).comparisons
    n, updates = len(c), args.runs * len(c)
    model = TrueSkill().fit(c)
    beta, margin = model.beta_, model.margin_
    winner, loser = np.where(c.outcome == 2, c.b, c.a), np.where(c.outcome == 2, c.a, c.b)
    draw = c.outcome == 0
    # the baseline is TrueSkill: on the same matches it gives the compiled replay's ratings
    rows = np.random.default_rng(1).integers(0, n, 2000)
    check = TrueSkill(beta=beta).fit(c.take(rows))
    mu, var = numpy_loop(winner, loser, draw, len(c.systems), 1, len(rows), beta, margin, None, rows[:, None])
    assert np.abs(mu[0] - check.mu_).max() < 1e-9 and np.abs(np.sqrt(var[0]) - check.sigma_).max() < 1e-9

    bootstrap(TrueSkill(), c.take(range(100)), n=2)  # compile
    timings = {}
    for jobs in (1, 0):
        start, cpu = time.perf_counter(), time.process_time()
        result = bootstrap(TrueSkill(), c, n=args.runs, random_state=0, jobs=jobs)
        timings[jobs] = (time.perf_counter() - start, time.process_time() - cpu)
    start, cpu = time.perf_counter(), time.process_time()
    numpy_loop(winner, loser, draw, len(c.systems), args.runs, args.numpy_steps, beta, margin,
               np.random.default_rng(0))
    numpy_wall = (time.perf_counter() - start) / (args.numpy_steps * args.runs)
    numpy_cpu = (time.process_time() - cpu) / (args.numpy_steps * args.runs)

    env = trueskill.TrueSkill(mu=0.0, sigma=0.5, beta=beta, tau=0.0, draw_probability=0.25)
    ratings = [env.create_rating() for _ in c.systems]
    start = time.perf_counter()
    for a, b, o in zip(c.a[: args.sample].tolist(), c.b[: args.sample].tolist(), c.outcome[: args.sample].tolist()):
        if o == 2:
            a, b = b, a
        ratings[a], ratings[b] = env.rate_1vs1(ratings[a], ratings[b], drawn=o == 0)
    per_update = (time.perf_counter() - start) / args.sample
    import numba
    one_wall, one_cpu = timings[1]
    all_wall, _ = timings[0]
    print(f"TrueSkill bootstrap: {args.runs:,} runs x {n:,} comparisons = {updates:,} updates, 16 systems "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"humeval, compiled, 1 thread (jobs=1)        {one_wall:8.2f} s   "
          f"{one_wall / updates * 1e9:6.1f} ns per update "
          f"({one_cpu / updates * 1e9:.1f} ns of CPU)")
    print(f"humeval, compiled, {numba.config.NUMBA_NUM_THREADS} threads (jobs=0)       {all_wall:8.2f} s   "
          f"{all_wall / updates * 1e9:6.1f} ns per update")
    print(f"numpy loop vectorised across the runs      {numpy_wall * updates:8.2f} s   "
          f"{numpy_wall * 1e9:6.1f} ns per update "
          f"({numpy_cpu * 1e9:.1f} ns of CPU; timed on {args.numpy_steps:,} steps of all runs, scaled)")
    print(f"   ratio numpy / humeval, one thread each:  {numpy_cpu / (one_cpu / updates):5.1f}x (CPU time)  "
          f"{numpy_wall / (one_wall / updates):5.1f}x (wall)")
    print(f"trueskill package loop                      {per_update * updates:8.0f} s   "
          f"({per_update * 1e6:.0f} µs per update, "
          f"timed on {args.sample:,} and scaled)   {per_update * updates / one_wall:8.0f}x humeval's one-thread time")
    print(f"(the table of {len(result.table())} systems with rank ranges and clusters is included in humeval's time)")


if __name__ == "__main__":
    main()
