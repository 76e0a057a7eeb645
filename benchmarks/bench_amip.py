"""Worst-case robustness (AMIP) on a simulated arena, against refitting per dropped set.

    python benchmarks/bench_amip.py [--battles 1000000] [--systems 20] [--style]

Simulates ``--battles`` battles (``humeval.simulate.simulate_battles``, systems' abilities evenly
spread over [−1, 1]), fits Bradley–Terry (with ``--style`` the length covariate too), and times
``humeval.experiments.robustness.robustness``: influence functions for every adjacent pair and
for rank 1, the greedy sets, and their verification by refits. The alternative without influence
functions is a refit per candidate set; the cheapest such search, one refit per single dropped
judgment to rank them by their effect, costs ``battles`` refits: the printed ratio is that
estimated cost (the mean of timed refits × battles) over AMIP's wall time without the refits.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from humeval.experiments.robustness import robustness
from humeval.ranking import BradleyTerry
from humeval.simulate import simulate_battles


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=1_000_000)
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--style", action="store_true", help="fit the length covariate as well")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    from humeval.threads import threads_in_use
    print(f"threads: {threads_in_use()}")
    sim = simulate_battles(n_systems=args.systems, n_battles=args.battles, eta=0.3, random_state=args.seed)
    battles = sim.comparisons
    model = BradleyTerry(covariates=args.style)
    start = time.perf_counter()
    model.fit(battles)
    fit = time.perf_counter() - start
    start = time.perf_counter()
    first_order = robustness(model, battles, verify=False)
    amip = time.perf_counter() - start
    start = time.perf_counter()
    table = robustness(model, battles)
    verified = time.perf_counter() - start
    start = time.perf_counter()
    rank1 = robustness(model, battles, adjacent=False).iloc[-1]
    rank1_time = time.perf_counter() - start
    refits = []
    for r in range(3):  # a refit without one judgment
        keep = np.ones(len(battles), bool)
        keep[r] = False
        start = time.perf_counter()
        BradleyTerry(covariates=args.style).fit(battles.take(keep))
        refits.append(time.perf_counter() - start)
    per_refit = float(np.mean(refits))
    top = table.iloc[-1]
    print(f"{args.battles:,} battles, {args.systems} systems{' + length covariate' if args.style else ''}: "
          f"fit {fit:.2f} s")
    print(table[["conclusion", "gap", "amip", "dropped", "share", "verified", "refits"]].to_string(index=False))
    print(f"rank 1: {top.conclusion}: {top.dropped} judgments ({top.share:.4%}) reverse it; rank 1 alone, "
          f"AMIP and {rank1.refits} verifying refits: {rank1_time:.1f} s")
    print(f"AMIP (influence functions and greedy sets) for {len(first_order)} conclusions: {amip:.2f} s; "
          f"with every set verified by refits: {verified:.1f} s")
    print(f"one refit: {per_refit:.3f} s; a refit per dropped judgment: {per_refit * args.battles:,.0f} s "
          f"(ratio {per_refit * args.battles / amip:,.0f}×)")


if __name__ == "__main__":
    main()
