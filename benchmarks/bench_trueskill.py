"""TrueSkill bootstrap: humeval's compiled runs against the reference ``trueskill`` package's loop.

    python benchmarks/bench_trueskill.py [--comparisons 100000] [--runs 1000] [--sample 5000]
                                         [--active-comparisons 10000] [--active-runs 1000]

WMT's procedure: 1,000 bootstrap runs, each replaying a resample of all comparisons through
TrueSkill updates (WMT settings). The ``trueskill`` package (the WMT scripts' engine) is timed on
``--sample`` updates and scaled to runs × comparisons; humeval runs the whole job. Both on the
same simulated comparisons; compilation is warmed up first and not counted.

Then active sampling (``order="active"``, Sakaguchi et al. 2014): humeval's compiled bootstrap
against refitting every resample with ``TrueSkill(order="active").fit`` in Python (what
``bootstrap`` did before; timed on 20 refits and scaled). Each compiled run equals its refit
exactly (tests/ranking/test_trueskill.py).
"""

from __future__ import annotations

import argparse
import time

import trueskill

import numpy as np

from humeval.experiments import bootstrap
from humeval.ranking import TrueSkill
from humeval.simulate import simulate_competition


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--comparisons", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--sample", type=int, default=5000)
    parser.add_argument("--active-comparisons", type=int, default=10_000)
    parser.add_argument("--active-runs", type=int, default=1000)
    args = parser.parse_args()
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


def default_order(args):
    c = simulate_competition(n_systems=16, n_items=3000, n_judgments=args.comparisons, design="pairs",
                             random_state=0).comparisons
    bootstrap(TrueSkill(), c.take(range(100)), n=2)  # compile
    start = time.perf_counter()
    result = bootstrap(TrueSkill(), c, n=args.runs, random_state=0)
    ours = time.perf_counter() - start
    beta = 0.5 * len(c) / 40
    env = trueskill.TrueSkill(mu=0.0, sigma=0.5, beta=beta, tau=0.0, draw_probability=0.25)
    ratings = [env.create_rating() for _ in c.systems]
    start = time.perf_counter()
    for a, b, o in zip(c.a[: args.sample].tolist(), c.b[: args.sample].tolist(), c.outcome[: args.sample].tolist()):
        if o == 2:
            a, b = b, a
        ratings[a], ratings[b] = env.rate_1vs1(ratings[a], ratings[b], drawn=o == 0)
    per_update = (time.perf_counter() - start) / args.sample
    theirs = per_update * args.runs * len(c)
    print(f"TrueSkill bootstrap: {args.runs:,} runs x {len(c):,} comparisons = {args.runs * len(c):,} updates")
    print(f"humeval (numba, parallel runs)   {ours:10.1f} s   ({ours / args.runs / len(c) * 1e9:.0f} ns per update)")
    print(f"trueskill package loop           {theirs:10.1f} s   ({per_update * 1e6:.0f} µs per update, "
          f"timed on {args.sample:,} and scaled)   {theirs / ours:8.0f}x humeval's time")
    print(f"(the table of {len(result.table())} systems with rank ranges and clusters is included in humeval's time)")


if __name__ == "__main__":
    main()
