"""WMT's ratings procedure at scale: z-normalisation + 1,000 bootstrap resamples of segments +
all-pairs one-sided Wilcoxon rank-sum, humeval against the way the WMT scripts do it (pandas
groupby for z and means, a groupby per resample, ``scipy.stats.mannwhitneyu`` per pair).

Default: 1,000,000 ratings of 30 systems by 1,000 annotators on 20,000 segments (0–100 integer
scores: many ties, as on the DA slider). The baseline's bootstrap runs ``--baseline-boot``
resamples and is extrapolated linearly to ``--boot`` (each resample costs the same); the output
says so. Both sides compute the same numbers; the script checks they agree.

    python benchmarks/bench_ratings.py [--ratings 1000000] [--boot 1000] [--baseline-boot 30]
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
import pandas as pd
from scipy import stats

from humeval.data.tables import Ratings
from humeval.ratings import aggregate, bootstrap_scores, pvalues
from humeval.simulate import simulate_ratings


def simulate(n, n_systems, n_judges, n_segments, seed=0):
    """humeval's ratings simulator (system effects, annotator bias and scale, segment difficulty,
    0–100 slider) as code arrays: system, item, judge, score."""
    r = simulate_ratings(n_systems=n_systems, n_items=n_segments, n_judges=n_judges, n_ratings=n,
                         random_state=seed).ratings
    return r.system, r.item, r.judge, r.score


def humeval_run(ratings, n_boot):
    agg = aggregate(ratings, "z-mean")
    boot = bootstrap_scores(agg, n_boot, "segment", random_state=1)
    p, _ = pvalues(agg, "wilcoxon")
    return agg.system_means(), boot, p


def baseline_run(df, n_boot, seed=1):
    """The WMT scripts' way: pandas groupby, one groupby per resample, scipy per ordered pair."""
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    stats_j = df.groupby("judge")["score"].agg(["mean", "std"])
    df = df.join(stats_j, on="judge")
    df["z"] = (df["score"] - df["mean"]) / df["std"]
    seg = df.groupby(["system", "item"])["z"].mean().reset_index()
    system = seg.groupby("system")["z"].mean()
    t1 = time.perf_counter()
    items = seg["item"].unique()
    by_item = seg.set_index("item")
    for _ in range(n_boot):
        sample = rng.choice(items, len(items))
        by_item.loc[sample].groupby("system")["z"].mean()
    t2 = time.perf_counter()
    groups = {s: g["z"].to_numpy() for s, g in seg.groupby("system")}
    p = {}
    for a, b in itertools.permutations(groups, 2):
        p[a, b] = stats.mannwhitneyu(groups[a], groups[b], alternative="greater").pvalue
    t3 = time.perf_counter()
    return system, p, (t1 - t0, t2 - t1, t3 - t2)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ratings", type=int, default=1_000_000)
    parser.add_argument("--systems", type=int, default=30)
    parser.add_argument("--judges", type=int, default=1000)
    parser.add_argument("--segments", type=int, default=20_000)
    parser.add_argument("--boot", type=int, default=1000)
    parser.add_argument("--baseline-boot", type=int, default=30,
                        help="resamples the baseline really runs (then extrapolated to --boot)")
    args = parser.parse_args()
    from humeval.threads import threads_in_use
    print(f"threads: {threads_in_use()}")

    system, item, judge, score = simulate(args.ratings, args.systems, args.judges, args.segments)
    systems = tuple(f"sys{i:02d}" for i in range(args.systems))
    ratings = Ratings(system=system, item=item, judge=judge, score=score, systems=systems,
                      items=tuple(map(str, range(args.segments))), judges=tuple(map(str, range(args.judges))),
                      scale="0-100")
    df = pd.DataFrame({"system": np.array(systems)[system], "item": item, "judge": judge, "score": score})
    print(f"{args.ratings:,} ratings, {args.systems} systems, {args.judges:,} annotators, {args.segments:,} segments")

    humeval_run(ratings.take(np.arange(2000)), 2)  # compile the kernels (cached on disk afterwards)
    t = time.perf_counter()
    ours, boot, p_ours = humeval_run(ratings, args.boot)
    ours_time = time.perf_counter() - t
    print(f"humeval: z + {args.boot:,} resamples + all-pairs Wilcoxon: {ours_time:.2f} s")

    theirs, p_theirs, (t_z, t_boot, t_test) = baseline_run(df, args.baseline_boot)
    boot_extrapolated = t_boot / args.baseline_boot * args.boot
    base_time = t_z + boot_extrapolated + t_test
    print(f"pandas + scipy (WMT scripts' way): z and means {t_z:.2f} s; bootstrap {t_boot:.2f} s for "
          f"{args.baseline_boot} resamples -> EXTRAPOLATED to {args.boot:,}: {boot_extrapolated:.1f} s; "
          f"{len(p_theirs)} scipy tests {t_test:.2f} s; total {base_time:.1f} s")
    print(f"ratio (baseline / humeval): {base_time / ours_time:.0f}x "
          f"(bootstrap part extrapolated from {args.baseline_boot} resamples)")

    names = list(systems)
    diff_means = np.max(np.abs(theirs.reindex(names).to_numpy() - ours))
    diff_p = max(abs(p_theirs[a, b] - p_ours[names.index(a), names.index(b)]) for a, b in p_theirs)
    print(f"agreement: system z max |diff| {diff_means:.1e}; Wilcoxon p max |diff| {diff_p:.1e}; "
          f"bootstrap 95% interval width of sys00 {boot.hi[0] - boot.lo[0]:.4f}")


if __name__ == "__main__":
    main()
