"""Bradley–Terry with 1,000 bootstrap resamples and rank intervals at arena scale.

    python benchmarks/bench_bt.py [--rows 1000000] [--systems 80] [--resamples 1000] [--arenakit]
    python benchmarks/bench_bt.py --rows 10000,100000,1000000,10000000 --only humeval   # the scaling

On one simulated arena file (Parquet for humeval and the FastChat recipe, the same battles as
CSV for arenakit, which reads CSV/JSONL), each contender runs in its own process, ingest
included, and reports wall time and peak memory (max RSS):

- humeval: read -> BradleyTerry (Newton on pair counts) -> bootstrap (multinomial over the
  pair-count cells, warm-started refits) -> table with rank ranges and clusters;
- FastChat's recipe (its elo_analysis ``compute_bootstrap_bt``, restated here): de-duplicate
  (model_a, model_b, outcome) rows -> multinomial weights over the unique rows -> one L-BFGS
  fit per resample from zero ratings, across a process pool of all cores -> rank percentiles;
- the counts baseline, a few lines of numpy and choix: distinct (model_a, model_b, winner) cell
  counts by one ``np.bincount``, a multinomial draw over the cells per resample, each resample's
  win matrix (a tie half a win each way) fitted by choix's ``ilsr_pairwise_dense``, one process;
- arenakit (``--arenakit``; default on up to 2M rows): load_battles + fit_bt + bootstrap.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd


def make(rows: int, systems: int, folder: Path, csv: bool) -> Path:
    rng = np.random.default_rng(0)
    strength = rng.normal(0, 1, systems)
    names = np.array([f"model-{i:03d}" for i in range(systems)])
    a = rng.integers(0, systems, rows)
    b = (a + rng.integers(1, systems, rows)) % systems
    x = strength[a] - strength[b]
    p_tie = 0.15
    u = rng.random(rows)
    winner = np.where(u < p_tie, "tie", np.where(u < p_tie + (1 - p_tie) / (1 + np.exp(-x)), "model_a", "model_b"))
    df = pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner})
    df.to_parquet(folder / "battles.parquet", index=False)
    if csv:
        df.to_csv(folder / "battles.csv", index=False)
    return folder


def run_humeval(folder: Path, resamples: int):
    import humeval
    from humeval.experiments import bootstrap
    from humeval.ranking import BradleyTerry
    c = humeval.read(folder / "battles.parquet").comparisons
    table = bootstrap(BradleyTerry(), c, n=resamples, random_state=0).table()
    return table["rank_lo"].to_numpy()


def _bt_loss_and_grad(ratings, matchups, outcomes, weights, alpha):
    logits = alpha * (ratings[matchups[:, 0]] - ratings[matchups[:, 1]])
    probs = 1 / (1 + np.exp(-logits))
    loss = -((np.log(probs) * outcomes + np.log1p(-probs) * (1.0 - outcomes)) * weights).sum()
    grads = -alpha * (outcomes - probs) * weights
    model_grad = np.zeros_like(ratings)
    np.add.at(model_grad, matchups[:, [0, 1]], grads[:, None] * np.array([1.0, -1.0]))
    return loss, model_grad


def _fit_bt(matchups, outcomes, n_models, alpha, weights):
    from scipy.optimize import minimize
    return minimize(_bt_loss_and_grad, np.zeros(n_models), args=(matchups, outcomes, weights, alpha), jac=True,
                    method="L-BFGS-B", options={"maxiter": 100, "gtol": 1e-6}).x


def run_fastchat(folder: Path, resamples: int):
    """FastChat's published recipe (elo_analysis: preprocess_for_bt, compute_bootstrap_bt), restated:
    de-duplicate (model_a, model_b, outcome) rows with np.unique, draw multinomial counts over the
    unique rows, fit each resample by L-BFGS from zero ratings across a process pool."""
    import multiprocessing as mp
    import os
    from functools import partial
    df = pd.read_parquet(folder / "battles.parquet")
    rows = len(df)
    index, models = pd.factorize(pd.concat([df["model_a"], df["model_b"]]))
    schedule = np.ones((rows, 3), dtype=np.int32)
    schedule[:, 0], schedule[:, 1] = index[:rows], index[rows:]
    schedule[(df["winner"] == "model_a").to_numpy(), 2] = 2
    schedule[(df["winner"] == "model_b").to_numpy(), 2] = 0
    unique, weights = np.unique(schedule, return_counts=True, axis=0)
    matchups, outcomes = unique[:, :2], unique[:, 2] / 2.0
    rng = np.random.default_rng(0)
    boot = rng.multinomial(rows, weights / weights.sum(), size=resamples) / rows
    fit = partial(_fit_bt, matchups, outcomes, len(models), np.log(10.0))
    with mp.Pool(os.cpu_count()) as pool:
        ratings = np.array(pool.map(fit, boot))
    ranks = (-ratings).argsort(axis=1).argsort(axis=1) + 1
    return np.percentile(ranks, 2.5, axis=0)


def run_counts(folder: Path, resamples: int):
    """The counts baseline: cell counts once, a multinomial over the cells per resample, choix's
    ILSR on each resample's win matrix (ties half a win each way)."""
    import choix
    df = pd.read_parquet(folder / "battles.parquet")
    rows = len(df)
    index, models = pd.factorize(pd.concat([df["model_a"], df["model_b"]]))
    n = len(models)
    winner = df["winner"].to_numpy()
    outcome = np.where(winner == "model_a", 1, np.where(winner == "model_b", 2, 0))
    cells = np.bincount((index[:rows] * n + index[rows:]) * 3 + outcome, minlength=n * n * 3)
    occupied = np.flatnonzero(cells)
    rng = np.random.default_rng(0)
    ratings = np.empty((resamples, n))
    full = np.zeros(n * n * 3)
    for r in range(resamples):
        full[occupied] = rng.multinomial(rows, cells[occupied] / rows)
        m = full.reshape(n, n, 3)
        wins = m[:, :, 1] + m[:, :, 2].T + 0.5 * (m[:, :, 0] + m[:, :, 0].T)
        ratings[r] = choix.ilsr_pairwise_dense(wins, alpha=1e-6)
    ranks = (-ratings).argsort(axis=1).argsort(axis=1) + 1
    return np.percentile(ranks, 2.5, axis=0)


def run_arenakit(folder: Path, resamples: int):
    import arenakit
    arena = arenakit.Arena(arenakit.load_battles(folder / "battles.csv"))
    arenakit.fit_bt(arena.counts())
    return arenakit.bootstrap(arena, n_resamples=resamples, seed=0)


RUNNERS = {"humeval": run_humeval, "counts-baseline": run_counts, "fastchat-recipe": run_fastchat,
           "arenakit": run_arenakit}


def child(name: str, folder: str, resamples: int):
    warnings.filterwarnings("ignore")
    start = time.perf_counter()
    RUNNERS[name](Path(folder), resamples)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB on Linux
    from humeval.threads import threads_in_use
    print(json.dumps({"seconds": seconds, "peak_mib": peak, "threads": threads_in_use()}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="1000000", help="battles; comma-separated sizes run one after another")
    parser.add_argument("--systems", type=int, default=80)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--arenakit", action="store_true", help="also run arenakit above 2M rows")
    parser.add_argument("--only", help="comma-separated contenders to run (humeval always runs): "
                        + ", ".join(RUNNERS))
    parser.add_argument("--child", nargs=2, metavar=("NAME", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child and args.child[0] == "make":
        rows = int(args.rows)
        return make(rows, args.systems, Path(args.child[1]), csv=args.arenakit or rows <= 2_000_000)
    if args.child:
        return child(args.child[0], args.child[1], args.resamples)
    only = None if args.only is None else set(args.only.split(",")) | {"humeval"}
    if only and only - set(RUNNERS):
        parser.error(f"--only: unknown contender(s) {sorted(only - set(RUNNERS))}; known: {', '.join(RUNNERS)}")
    per_million = []
    for rows in [int(size) for size in args.rows.split(",")]:
        seconds, peak = one_size(args, rows, only)
        per_million.append((rows, seconds, peak))
    if len(per_million) > 1:
        print("\nhumeval's scaling (wall seconds, peak RSS; ingest included):")
        previous = None
        for rows, seconds, peak in per_million:
            growth = "" if previous is None else \
                f"   {seconds / previous[1]:5.2f}x the time for {rows / previous[0]:,.0f}x the battles"
            print(f"{rows:>12,} battles {seconds:7.2f} s   peak {peak:6.0f} MiB{growth}")
            previous = (rows, seconds)


def one_size(args, rows: int, only: set | None):
    with_arenakit = args.arenakit or rows <= 2_000_000
    names = ["humeval", "counts-baseline", "fastchat-recipe"] + (["arenakit"] if with_arenakit else [])
    names = [name for name in names if only is None or name in only]
    with tempfile.TemporaryDirectory() as tmp:
        # the data are written by a child process too: Linux carries a parent's peak RSS into the
        # children it starts, so the parent must stay small for each contender's peak to be its own
        subprocess.run([sys.executable, __file__, "--rows", str(rows), "--systems", str(args.systems)]
                       + (["--arenakit"] if args.arenakit else []) + ["--child", "make", tmp], check=True)
        subprocess.run([sys.executable, __file__, "--rows", "1000", "--resamples", "2", "--child", "humeval", tmp],
                       check=True, capture_output=True)  # warm numba's cache
        results = {}
        for name in names:
            out = subprocess.run([sys.executable, __file__, "--resamples", str(args.resamples), "--child", name, tmp],
                                 capture_output=True, text=True)
            if out.returncode:
                print(f"{name} failed: {out.stderr.strip().splitlines()[-1] if out.stderr.strip() else out.returncode}")
                continue
            results[name] = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"\nBradley-Terry + {args.resamples:,} bootstrap resamples with rank intervals, {rows:,} battles, "
          f"{args.systems} systems (ingest included)")
    ours = results["humeval"]["seconds"]
    for name, r in results.items():
        ratio = "" if name == "humeval" else f"   {r['seconds'] / ours:6.1f}x humeval's time"
        print(f"{name:18s} {r['seconds']:8.1f} s   peak {r['peak_mib']:7.0f} MiB{ratio}   threads {r['threads']}")
    if not with_arenakit and (only is None or "arenakit" in only):
        print("arenakit not run at this size (pass --arenakit): it builds a pydantic object per battle")
    return ours, results["humeval"]["peak_mib"]

if __name__ == "__main__":
    main()
