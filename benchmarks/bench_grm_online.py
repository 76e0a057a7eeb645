"""Online GRM (``GRM.partial_fit``) against refitting the GRM after every batch of judgments.

    python benchmarks/bench_grm_online.py [--judgments 6000] [--batch 500]

Judgments simulated from the GRM (30 judges, 300 segments, 10 systems + baseline) arrive in
batches; after each batch the online model takes a stochastic-gradient pass over the batch only,
while the refit model is fitted again to everything collected so far (``GRM().fit``: L-BFGS on the
marginal likelihood, then MAP θ). Prints the total time of each, the ratio, and the correlation
of the final θ's of the two (and with the simulated truth). The first partial_fit compiles the
numba kernel (cached on disk afterwards); it is timed separately and left out of the ratio.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from humeval.ranking import GRM
from humeval.simulate import simulate_grm


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judgments", type=int, default=6_000)
    parser.add_argument("--batch", type=int, default=500)
    args = parser.parse_args()
    from humeval.threads import threads_in_use
    print(f"threads: {threads_in_use()}")
    comparisons, truth = simulate_grm(n_comparisons=args.judgments, random_state=0)
    batches = [comparisons.take(np.arange(s, min(s + args.batch, len(comparisons))))
               for s in range(0, len(comparisons), args.batch)]
    start = time.perf_counter()
    GRM(baseline="base").partial_fit(batches[0])
    compile_time = time.perf_counter() - start

    online = GRM(baseline="base")
    start = time.perf_counter()
    for batch in batches:
        online.partial_fit(batch)
    online_time = time.perf_counter() - start

    refit_time = 0.0
    for i in range(1, len(batches) + 1):
        seen = comparisons.take(np.arange(min(i * args.batch, len(comparisons))))
        start = time.perf_counter()
        refit = GRM(baseline="base").fit(seen)
        refit_time += time.perf_counter() - start

    systems = truth.theta.index
    r = np.corrcoef(online.scores_[systems], refit.scores_[systems])[0, 1]
    r_truth = np.corrcoef(online.scores_[systems], truth.theta)[0, 1]
    r_refit_truth = np.corrcoef(refit.scores_[systems], truth.theta)[0, 1]
    print(f"{args.judgments:,} judgments in {len(batches)} batches of {args.batch}")
    print(f"  online partial_fit, every batch: {online_time:8.3f} s  (first call compiling: {compile_time:.2f} s)")
    print(f"  refit after every batch:         {refit_time:8.3f} s")
    print(f"  ratio refit / online:            {refit_time / online_time:8.0f}×")
    print(f"  θ correlation online vs refit {r:.4f}; with the truth: online {r_truth:.4f}, refit {r_refit_truth:.4f}")


if __name__ == "__main__":
    main()
