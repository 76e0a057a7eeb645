"""One compare-models grid on each execution backend: in this process (``jobs=1``), two local loky
processes, a Dask ``LocalCluster`` of two worker processes (and Ray with two workers when it is
installed and ``--ray`` is given), and the layer they replaced (a forkserver process pool).

    python benchmarks/bench_execution.py [--trials 6] [--sizes 400,1600,3200] [--ray]

The grid is ``track_curves`` (Hopkins & May's learning curves, what ``humeval compare-models``
runs) of bt, davidson and irt-gaussian on 6,000 simulated comparisons of 8 systems: one task per
(size, trial). Prints each backend's wall time, its ratio to ``jobs=1``, the time to start the
workers and run a first small grid on them (importing humeval and loading numba's compiled
kernels in every worker; counted apart: a cluster is started once per command or reused), and
whether the mean-perplexity table is identical to the sequential one (it must be: every task's
seed is drawn before anything runs); for Dask also the peak memory of each worker and of this
process. On two cores two workers can at best halve the time.
"""

from __future__ import annotations

import argparse
import resource
import time

import pandas as pd

from humeval.experiments import mean_curve, track_curves
from humeval.experiments.parallel import execution
from humeval.ranking import make_model
from humeval.simulate import simulate_competition

MODELS = ("bt", "davidson", "irt-gaussian")


def grid(comparisons, sizes, trials, jobs):
    models = {name: make_model(name, 0) for name in MODELS}
    return mean_curve(track_curves(comparisons, models, sizes, trials, random_state=0, jobs=jobs, min_test=2000))


def peak_rss_mib() -> float:
    """This process's peak resident set size (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(label, backend, comparisons, sizes, trials, reference):
    with execution(backend, workers=2) as state:
        start = time.perf_counter()
        grid(comparisons, sizes[:1], 2, 2)  # start the workers; they import humeval and load numba's cache
        startup = time.perf_counter() - start
        start = time.perf_counter()
        table = grid(comparisons, sizes, trials, 2)
        seconds = time.perf_counter() - start
        workers = state.client.run(peak_rss_mib) if backend == "dask" else {}
    same = "identical table" if table.equals(reference) else "DIFFERENT table"
    print(f"{label:<28} {seconds:8.2f} s   start-up {startup:5.2f} s   {same}", flush=True)
    if workers:
        print(f"{'':<28} peak RSS of each worker: {', '.join(f'{v:.0f}' for v in workers.values())} MiB; "
              f"of this process: {peak_rss_mib():.0f} MiB")
    return seconds


def former_pool(comparisons, sizes, trials, reference):
    """The layer joblib replaced: a ``ProcessPoolExecutor`` of two forkserver processes, fed the
    same tasks (``perplexity._trial``) in chunks of one."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from humeval.experiments.perplexity import _curve_tasks, _trial, hopkins_may_split
    models = {name: make_model(name, 0) for name in MODELS}
    split = hopkins_may_split(comparisons, 2000)[comparisons.tracks[0]]
    tasks = _curve_tasks(models, split.train, split.test, sizes, trials, 0)
    start = time.perf_counter()
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("forkserver")) as pool:
        list(pool.map(_trial, _curve_tasks(models, split.train, split.test, sizes[:1], 2, 0)))  # start-up
        startup = time.perf_counter() - start
        start = time.perf_counter()
        rows = [row for result in pool.map(_trial, tasks) for row in result]
        seconds = time.perf_counter() - start
    table = pd.DataFrame(rows).pivot_table(index="model", columns="size", values="perplexity", aggfunc="mean")
    same = "identical table" if table.equals(reference) else "DIFFERENT table"
    print(f"{'former forkserver pool, 2':<28} {seconds:8.2f} s   start-up {startup:5.2f} s   {same}", flush=True)
    return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=6)
    parser.add_argument("--sizes", default="400,1600,3200")
    parser.add_argument("--ray", action="store_true", help="also time Ray (slow to start)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    comparisons = simulate_competition(n_systems=8, n_judgments=6000, random_state=0).comparisons
    print(f"grid: {', '.join(MODELS)} × sizes {sizes} × {args.trials} trials = {len(sizes) * args.trials} tasks "
          f"of {len(MODELS)} fits each, on {len(comparisons):,} comparisons")
    grid(comparisons, sizes[:1], 1, 1)  # compile the numba kernels once, outside every timing
    start = time.perf_counter()
    reference = grid(comparisons, sizes, args.trials, 1)
    sequential = time.perf_counter() - start
    print(f"{'jobs 1 (this process)':<28} {sequential:8.2f} s")
    rows = [("local, 2 loky processes", "local"), ("dask LocalCluster, 2 workers", "dask")]
    if args.ray:
        rows.append(("ray, 2 workers", "ray"))
    former = former_pool(comparisons, sizes, args.trials, reference)
    print(f"{'':<28} ratio jobs 1 / former pool: {sequential / former:.2f}×")
    for label, backend in rows:
        seconds = timed(label, backend, comparisons, sizes, args.trials, reference)
        print(f"{'':<28} ratio jobs 1 / {backend}: {sequential / seconds:.2f}×; former pool / {backend}: "
              f"{former / seconds:.2f}×")


if __name__ == "__main__":
    main()
