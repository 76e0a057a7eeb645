"""TrueSkill bootstrap: humeval's compiled runs against the reference ``trueskill`` package's loop.

    python benchmarks/bench_trueskill.py [--comparisons 100000] [--runs 1000] [--sample 5000]

WMT's procedure: 1,000 bootstrap runs, each replaying a resample of all comparisons through
TrueSkill updates (WMT settings). The ``trueskill`` package (the WMT scripts' engine) is timed on
``--sample`` updates and scaled to runs × comparisons; humeval runs the whole job. Both on the
same simulated comparisons; compilation is warmed up first and not counted.
"""

from __future__ import annotations

import argparse
import time

import trueskill

from humeval.experiments import bootstrap
from humeval.ranking import TrueSkill
from humeval.simulate import simulate_competition


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--comparisons", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--sample", type=int, default=5000)
    args = parser.parse_args()
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
