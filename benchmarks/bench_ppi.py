"""Width of Bradley–Terry intervals at equal human cost: human-only against PPI++ with a biased
automatic judge (position bias, a favoured system, verbosity; ``humeval.simulate.judged``).

For each number of human battles n, ``--campaigns`` simulated campaigns with 6 systems and a judge
that also judges ``--judge-battles`` more battles; prints the mean 95 % interval width and the
coverage of the true abilities for human-only, judge-only and combined, λ and the effective
number of human battles (n · tr Σ_human / tr Σ_PPI).

    PYTHONPATH=src python benchmarks/bench_ppi.py [--campaigns 100] [--judge-battles 5000]
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from humeval.experiments.ppi import ppi_bradley_terry
from humeval.simulate.judged import judged_battles


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaigns", type=int, default=100)
    parser.add_argument("--judge-battles", type=int, default=5000)
    parser.add_argument("--humans", default="100,200,400,800")
    args = parser.parse_args(argv)
    rows = []
    for n in map(int, args.humans.split(",")):
        width, cover, lam, eff = {}, {}, [], []
        for seed in range(args.campaigns):
            truth, h, j = judged_battles(n_human=n, n_judge=args.judge_battles, random_state=seed)
            result = ppi_bradley_terry(h, j)
            for kind, est in result.items():
                iv = est.intervals(0.95).loc[truth.index]
                width.setdefault(kind, []).append((iv.hi - iv.lo).mean())
                cover.setdefault(kind, []).append(((iv.lo <= truth) & (truth <= iv.hi)).mean())
            lam.append(result["ppi"].lam)
            eff.append(result["ppi"].extra["effective_n"])
        rows.append({"human battles": n,
                     **{f"width {k}": np.mean(v) for k, v in width.items()},
                     **{f"coverage {k}": np.mean(v) for k, v in cover.items()},
                     "λ": np.mean(lam), "effective n": np.mean(eff),
                     "width ratio": np.mean(width["ppi"]) / np.mean(width["human"])})
    print(pd.DataFrame(rows).round(3).to_string(index=False))


if __name__ == "__main__":
    main()
