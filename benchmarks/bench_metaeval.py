"""WMT-style meta-evaluation at scale, humeval against the way mt-metrics-eval computes it.

1. Tie-calibrated pairwise accuracy (acc_eq, grouped by item) on ``--items`` items × ``--systems``
   systems. humeval: one sort of the pairs by |Δm| and a running sum over candidate thresholds
   (``humeval.metaeval.ties``). Baseline, as mt-metrics-eval's ``KendallWithTiesOpt``: for each
   candidate threshold ε (every distinct |Δm|), count C, D, T_h, T_m, T_hm over all item-grouped
   pairs (a numpy pass over the O(n²) pairs per candidate). The baseline is timed on
   ``--baseline-candidates`` thresholds and extrapolated linearly to all of them (each costs the
   same); the values at those thresholds are checked equal to humeval's.
2. Significance clusters of ``--metrics`` metrics with ``--resamples`` resamples (item-averaged
   Pearson, PERM-BOTH permutation as mt-metrics-eval's ``PermutationSigDiff``, and the bootstrap)
   on ``--sig-items`` items. Baseline, as mt-metrics-eval: per metric pair and per resample, a
   Python loop over items calling ``scipy.stats.pearsonr``; timed on ``--baseline-resamples``
   resamples of one pair and extrapolated to all pairs × resamples.

    python benchmarks/bench_metaeval.py [--items 10000] [--systems 20] [--metrics 20] [--resamples 1000]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from scipy import stats

from humeval.metaeval.significance import compare_metrics
from humeval.metaeval.ties import pair_differences, sweep, tie_calibrated_accuracy


def simulate(items, systems, metrics, seed=0):
    rng = np.random.default_rng(seed)
    quality = rng.normal(0, 1, systems)[:, None] + rng.normal(0, 1, (systems, items))
    human = np.round(np.clip(quality * 15 + 70, 0, 100))  # DA-like 0–100 integers: many human ties
    noise = np.linspace(0.3, 1.5, metrics)
    scores = {f"metric{k:02d}": np.round(quality + rng.normal(0, s, quality.shape), 3) for k, s in enumerate(noise)}
    return human, scores


def baseline_accuracy(dh, dm, group, eps):
    """acc_eq at one threshold: every pair counted (mt-metrics-eval evaluates each candidate on all pairs)."""
    tied = np.abs(dm) <= eps
    right = np.where(tied, dh == 0, (dh != 0) & (np.sign(dm) == np.sign(dh)))
    sizes = np.bincount(group)
    per_group = np.bincount(group, weights=right) / np.maximum(sizes, 1)
    return float(per_group[sizes > 0].mean())


def part1(args):
    human, scores = simulate(args.items, args.systems, 1)
    metric = scores["metric00"]
    start = time.perf_counter()
    value, eps = tie_calibrated_accuracy(human, metric, "item")
    ours = time.perf_counter() - start
    dh, dm, group = pair_differences(human, metric, "item")
    candidates = np.unique(np.abs(dm))
    picked = np.random.default_rng(1).choice(candidates, args.baseline_candidates, replace=False)
    start = time.perf_counter()
    theirs = [baseline_accuracy(dh, dm, group, e) for e in picked]
    per_candidate = (time.perf_counter() - start) / len(picked)
    for e, v in zip(picked, theirs):
        assert abs(v - sweep(dh, dm, group, "acc_eq", e)[0]) < 1e-9
    assert value >= max(theirs) - 1e-12
    full = per_candidate * len(candidates)
    print(f"1. acc_eq with tie calibration, {args.items:,} items × {args.systems} systems "
          f"({len(dh):,} item-grouped pairs, {len(candidates):,} candidate thresholds)")
    print(f"   humeval sorted sweep: {ours:.2f} s  (acc_eq = {value:.4f} at ε = {eps:.3f})")
    print(f"   per-threshold pass over all pairs (mt-metrics-eval's way): {per_candidate * 1000:.1f} ms per threshold, "
          f"timed on {len(picked)} thresholds and extrapolated to {len(candidates):,}: {full:,.0f} s")
    print(f"   ratio: {full / ours:,.0f}× (values equal at the timed thresholds)")


def mtme_corr(gold, m):
    """mt-metrics-eval's _Corr for average_by='item': a Python loop over items with scipy per item."""
    vals = [stats.pearsonr(gold[:, i], m[:, i])[0] for i in range(gold.shape[1])]
    vals = np.asarray(vals)[~np.isnan(vals)]
    return np.average(vals) if len(vals) else 0


def part2(args):
    human, scores = simulate(args.sig_items, args.systems, args.metrics, seed=2)
    gold = human.astype(float)
    pairs = args.metrics * (args.metrics - 1) // 2
    timings = {}
    for method in ("permutation", "bootstrap"):
        start = time.perf_counter()
        result = compare_metrics(gold, scores, "pearson", "item", method, args.resamples)
        timings[method] = time.perf_counter() - start
        clusters = result.table["rank"].max()
        print(f"   humeval {method}: {timings[method]:.1f} s, {clusters} clusters")
    a, b = scores["metric00"], scores["metric01"]
    za, zb = stats.zscore(a.ravel()).reshape(a.shape), stats.zscore(b.ravel()).reshape(b.shape)
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        for _ in range(args.baseline_resamples):
            w = rng.binomial(1, 0.5, za.shape)
            mtme_corr(gold, w * za + (1 - w) * zb)
            mtme_corr(gold, (1 - w) * za + w * zb)
        per = (time.perf_counter() - start) / args.baseline_resamples
    full = per * args.resamples * pairs
    print(f"   mt-metrics-eval's loop (PermutationSigDiff, scipy per item): {per * 1000:.0f} ms per resample of a pair, "
          f"timed on {args.baseline_resamples} resamples and extrapolated to {pairs} pairs × {args.resamples:,}: "
          f"{full:,.0f} s")
    print(f"   ratio: permutation {full / timings['permutation']:,.0f}×, bootstrap {full / timings['bootstrap']:,.0f}×")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--baseline-candidates", type=int, default=10)
    parser.add_argument("--metrics", type=int, default=20)
    parser.add_argument("--sig-items", type=int, default=500)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--baseline-resamples", type=int, default=3)
    args = parser.parse_args()
    from humeval.threads import threads_in_use
    print(f"threads: {threads_in_use()}")
    part1(args)
    print(f"2. significance clusters of {args.metrics} metrics, {args.resamples:,} resamples, item-averaged Pearson, "
          f"{args.sig_items:,} items × {args.systems} systems")
    part2(args)


if __name__ == "__main__":
    main()
