"""Crowd-BT against crowd-kit's NoisyBradleyTerry on identical simulated crowd judgments.

    python benchmarks/bench_crowd_bt.py [--rows 1000000] [--peer-rows 50000]

humeval's CrowdBT (EM with SQUAREM, Newton on pair counts) runs on --rows comparisons from 400
judges, 10 % of them adversarial and 10 % random; crowd-kit's NoisyBradleyTerry (per-worker
skill and bias, scipy optimisation over all rows) runs on the first --peer-rows of the same data
and is scaled linearly to --rows (its cost per iteration is linear in rows). Both are also
compared on the same --peer-rows directly, with the rank correlation of their system scores
against the simulated truth.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from humeval.data import Comparisons
from humeval.ranking import CrowdBT


def simulate(rows, systems=40, judges=400, seed=0):
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, systems)
    eta = np.where(np.arange(judges) < judges // 10, 0.15, np.where(np.arange(judges) < judges // 5, 0.5, 0.9))
    a = rng.integers(0, systems, rows)
    b = (a + rng.integers(1, systems, rows)) % systems
    j = rng.integers(0, judges, rows)
    better_a = rng.random(rows) < 1 / (1 + np.exp(-(theta[a] - theta[b])))
    says_a = np.where(rng.random(rows) < eta[j], better_a, ~better_a)
    return theta, a, b, j, says_a


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--peer-rows", type=int, default=50_000)
    args = parser.parse_args()
    from humeval.threads import threads_in_use
    print(f"threads: {threads_in_use()}")
    warnings.filterwarnings("ignore")
    from crowdkit.aggregation import NoisyBradleyTerry
    theta, a, b, j, says_a = simulate(args.rows)
    names = tuple(f"s{i:02d}" for i in range(len(theta)))

    def ours(n):
        c = Comparisons(a=a[:n], b=b[:n], outcome=np.where(says_a[:n], 1, 2), judge=j[:n], systems=names,
                        judges=tuple(f"w{k}" for k in range(400)))
        start = time.perf_counter()
        model = CrowdBT().fit(c)
        return time.perf_counter() - start, spearmanr(model.scores_.to_numpy(), theta).statistic

    def theirs(n):
        left, right = np.array(names)[a[:n]], np.array(names)[b[:n]]
        df = pd.DataFrame({"worker": [f"w{k}" for k in j[:n]], "left": left, "right": right,
                           "label": np.where(says_a[:n], left, right)})
        start = time.perf_counter()
        scores = NoisyBradleyTerry().fit(df).scores_
        return time.perf_counter() - start, spearmanr(scores.reindex(list(names)).to_numpy(), theta).statistic

    small_ours, rho_ours_small = ours(args.peer_rows)
    small_theirs, rho_theirs = theirs(args.peer_rows)
    big_ours, rho_ours = ours(args.rows)
    scaled = small_theirs * args.rows / args.peer_rows
    print("Crowd-BT, 40 systems, 400 judges (10 % adversarial, 10 % random)")
    print(f"on {args.peer_rows:,} rows: humeval {small_ours:.2f} s (Spearman {rho_ours_small:.3f}), crowd-kit "
          f"NoisyBradleyTerry {small_theirs:.1f} s (Spearman {rho_theirs:.3f})   {small_theirs / small_ours:.0f}x")
    print(f"on {args.rows:,} rows: humeval {big_ours:.2f} s (Spearman {rho_ours:.3f}); crowd-kit scaled linearly "
          f"{scaled:.0f} s   {scaled / big_ours:.0f}x humeval's time")


if __name__ == "__main__":
    main()
