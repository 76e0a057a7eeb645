"""Plackett–Luce with ties against the pairwise expansion (BT, Davidson) when the training data
are whole rankings, its fitting time against Davidson's on the same comparisons, and its
bootstrap (whole rankings reweighted, ``bootstrap_scores``) against refitting on resampled rows.

compare-models draws random *comparisons*, so below the whole training split most of a ranking's
pairs are missing and Plackett–Luce sees pairs (its groups are incomplete, ``pairs_alone_``). Here
the training subsets are drawn as whole rankings (groups) until they hold at least ``size``
comparisons (``training_subset(unit="ranking")``, as ``compare-models --sample ranking``); the
test set is Hopkins & May's (rarely judged segments, ``hopkins_may_split``; a ranking is of one
segment, so its pairs fall on one side), and perplexity is over its pairs.

Usage: HUMEVAL_SHARED_DATA=/work/shared/data python benchmarks/bench_plackett_luce.py [--trials 3]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

from humeval.cli.common import comparisons_of, load
from humeval.experiments.perplexity import _align, hopkins_may_split, perplexity, training_subset
from humeval.ranking import BradleyTerry, Davidson, PlackettLuce

FILES = {"WMT10": "wmt10-rankings/wmt10/data_RNK.csv", "WMT13 fr-en": "wmt13-fr-en-sample/sample-fr-en-train.csv"}
SIZES = {"WMT10": (100, 400, 1600, 3200), "WMT13 fr-en": (100, 400, 1600, 6400, 25600, 96000)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=100)
    args = parser.parse_args()
    from humeval.threads import threads_in_use
    print(f"threads: {threads_in_use()}")
    root = os.environ.get("HUMEVAL_SHARED_DATA", "../shared/data")
    models = {"bt": BradleyTerry, "davidson": Davidson, "plackett-luce": PlackettLuce}
    rows, seconds = [], {name: 0.0 for name in models}
    for label, path in FILES.items():
        path = os.path.join(root, path)
        data = comparisons_of(load(path, quiet=True), path)
        for track, split in hopkins_may_split(data).items():
            for size in SIZES[label]:
                for trial in range(args.trials):
                    taken = training_subset(split.train, size, "ranking", trial)
                    sample = _align(split.train.take(taken), split.test)
                    for name, cls in models.items():
                        start = time.perf_counter()
                        model = cls().fit(sample)
                        seconds[name] += time.perf_counter() - start
                        rows.append({"data": label, "track": track, "size": size, "trial": trial, "model": name,
                                     "train": len(sample), "perplexity": perplexity(model, split.test)})
    table = pd.DataFrame(rows).pivot_table(index=["data", "model"], columns="size", values="perplexity",
                                           aggfunc="mean")
    with pd.option_context("display.float_format", "{:.4f}".format, "display.width", 160):
        print("mean held-out perplexity, training sets of whole rankings (columns: least comparisons)")
        print(table)
    print("fitting time, all fits: " + ", ".join(f"{k} {v:.2f} s" for k, v in seconds.items())
          + f"; plackett-luce / davidson = {seconds['plackett-luce'] / seconds['davidson']:.1f}x")
    path = os.path.join(root, FILES["WMT10"])
    track = comparisons_of(load(path, quiet=True), path).by_track()["Czech-English"]
    model = PlackettLuce().fit(track)
    start = time.perf_counter()
    model.bootstrap_scores(track, None, args.resamples, np.random.default_rng(0))
    fast = time.perf_counter() - start
    _, of = np.unique(track.group, return_inverse=True)
    rng, groups = np.random.default_rng(0), int(of.max()) + 1
    start = time.perf_counter()
    for _ in range(args.resamples):  # the same resamples as rows: each drawn ranking's pairs, repeated
        drawn = np.bincount(rng.integers(0, groups, groups), minlength=groups)
        PlackettLuce().fit(track.take(np.repeat(np.arange(len(track)), drawn[of])))
    slow = time.perf_counter() - start
    print(f"bootstrap of whole rankings, WMT10 Czech-English ({groups} rankings), {args.resamples} resamples: "
          f"reweighting {fast:.2f} s, refitting resampled rows {slow:.2f} s: {slow / fast:.1f}x faster")


if __name__ == "__main__":
    main()
