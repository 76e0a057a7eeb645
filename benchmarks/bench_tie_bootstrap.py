"""Davidson and Rao–Kupper bootstrap: the compiled kernel (``_pair_kernel``) against the Python path.

    python benchmarks/bench_tie_bootstrap.py [--resamples 1000] [--python-resamples 200] [--simulated]

On WMT10's expert rankings (``$HUMEVAL_SHARED_DATA/wmt10-rankings/wmt10/data_RNK.csv``, all eight
tracks, as ``humeval report`` bootstraps them), or on eight simulated tracks of the same sizes when
the file is absent (or with ``--simulated``), per model:

- before: ``_PairModel._refit_bootstrap``, the Python path the tie models used until now (a
  multinomial over ordered cells, each resample refitted by Newton's method with a line search,
  warm-started), timed on ``--python-resamples`` per track and scaled to ``--resamples``
  (its cost is linear in the resamples);
- after: ``Davidson.bootstrap_scores`` / ``RaoKupper.bootstrap_scores`` (chord-Newton in one
  compiled loop), ``--resamples`` per track; the first call's compilation (or cache load) is
  timed apart.

Also printed: how the per-system bootstrap standard deviations of the two compare (different
random numbers, the same resampling distribution, so their ratio scatters around 1). Times are CPU seconds of this process (``time.process_time``: steadier than wall time on a
shared machine); run it under ``taskset -c 0`` for one core (the compiled loop is parallel).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from humeval.data import Comparisons
from humeval.ranking import Davidson, RaoKupper
from humeval.ranking.bradley_terry import _PairModel

SIZES = (5375, 13538, 7962, 13694, 5174, 8294, 10424, 11307)  # WMT10's eight tracks, comparisons
SYSTEMS = (13, 18, 20, 19, 17, 25, 26, 15)


def wmt10_tracks():
    root = os.environ.get("HUMEVAL_SHARED_DATA")
    path = Path(root or "/nonexistent") / "wmt10-rankings" / "wmt10" / "data_RNK.csv"
    if not path.exists():
        return None
    import humeval
    return humeval.read(path).comparisons.by_track()


def simulated_tracks(seed=0):
    rng = np.random.default_rng(seed)
    tracks = {}
    for k, (size, systems) in enumerate(zip(SIZES, SYSTEMS)):
        theta = rng.normal(0, 0.7, systems)
        a = rng.integers(0, systems, size)
        b = (a + rng.integers(1, systems, size)) % systems
        u = (theta[a] - theta[b]) / 2
        p = np.column_stack([np.full(size, 0.5), np.exp(u), np.exp(-u)])
        p /= p.sum(axis=1, keepdims=True)
        outcome = (rng.random(size)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
        tracks[f"track{k}"] = Comparisons(a=a, b=b, outcome=outcome, systems=tuple(f"s{i}" for i in range(systems)))
    return tracks


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--python-resamples", type=int, default=200)
    parser.add_argument("--simulated", action="store_true")
    args = parser.parse_args()
    from humeval.threads import threads_in_use
    print(f"threads: {threads_in_use()}")
    tracks = None if args.simulated else wmt10_tracks()
    source = "WMT10 data_RNK.csv" if tracks else "simulated tracks of WMT10's sizes"
    tracks = tracks or simulated_tracks()
    print(f"{source}: {len(tracks)} tracks, {sum(len(c) for c in tracks.values()):,} comparisons; "
          f"{args.resamples} resamples per track")
    for model_class in (RaoKupper, Davidson):
        fitted = {name: model_class().fit(c) for name, c in tracks.items()}
        first = next(iter(tracks))
        start = time.process_time()
        fitted[first].bootstrap_scores(tracks[first], None, 2, np.random.default_rng(0))
        warm = time.process_time() - start
        start = time.process_time()
        after = {name: m.bootstrap_scores(tracks[name], None, args.resamples, np.random.default_rng(0))
                 for name, m in fitted.items()}
        compiled = time.process_time() - start
        start = time.process_time()
        before = {name: _PairModel._refit_bootstrap(m, tracks[name], None, args.python_resamples,
                                                    np.random.default_rng(0)) for name, m in fitted.items()}
        python = (time.process_time() - start) * args.resamples / args.python_resamples
        ratio = np.concatenate([np.nanstd(after[n], axis=0) / np.nanstd(before[n], axis=0) for n in tracks])
        ratio = ratio[np.isfinite(ratio)]
        print(f"{model_class.__name__}: Python path {python:.2f} CPU s (scaled from {args.python_resamples}), "
              f"compiled {compiled:.3f} CPU s (+ {warm:.2f} s first call: compile or cache load) -> "
              f"{python / compiled:.0f}x; a system's bootstrap std, compiled / Python: median {np.median(ratio):.3f}, "
              f"range {ratio.min():.2f}–{ratio.max():.2f} over {len(ratio)} systems (sampling error of a std "
              f"from {args.python_resamples} resamples ≈ {1 / np.sqrt(2 * args.python_resamples):.0%})")


if __name__ == "__main__":
    main()
