"""Ingest speed and memory: humeval against arenakit and arena-rank on the same files.

    python benchmarks/bench_ingest.py [--rows 1000000] [--repeat 3]

Writes a synthetic arena-style battle file (model_a, model_b, winner, question_id, judge) as CSV
and Parquet in a temporary folder, then times, best of --repeat:
- humeval.read(...) -> Comparisons (CSV and Parquet)
- arenakit: load_battles(csv) + Arena(...)  (pydantic validation per battle)
- arena-rank: pandas.read_csv/read_parquet + PairDataset.from_pandas
- the plain reads, no validation or coding: ``pandas.read_csv`` of the CSV and
  ``pyarrow.parquet.read_table`` of the Parquet file (the issue-33 baselines: humeval's CSV at
  least as fast as the first, its Parquet within 1.5x of the second)
and prints each time with the peer/humeval ratio. Also times the real WMT10 file when
../shared/data is present, and reports the bytes of 10 million comparisons.
"""

from __future__ import annotations

import argparse
import warnings
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

import humeval
from humeval.data import Comparisons

WMT10 = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt10-rankings" / "wmt10" / "data_RNK.csv"


def battles(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    models = np.array([f"model-{i:02d}-{'v' * 6}" for i in range(60)])
    a = rng.integers(0, 60, n)
    b = (a + rng.integers(1, 60, n)) % 60
    return pd.DataFrame({
        "question_id": np.char.add("q", rng.integers(0, 50_000, n).astype(str)),
        "model_a": models[a], "model_b": models[b],
        # no "tie (bothbad)": arenakit refuses it unless mapped, and every reader gets the same file
        "winner": rng.choice(np.array(["model_a", "model_b", "tie"]), n, p=[.4, .4, .2]),
        "judge": np.char.add("u", rng.integers(0, 5_000, n).astype(str)),
    })


def best_of(repeat: int, call) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def peers(csv: Path, parquet: Path):
    import pyarrow.parquet as pq
    out = {"pandas.read_csv (csv)": lambda: pd.read_csv(csv),
           "pyarrow.parquet.read_table (parquet)": lambda: pq.read_table(parquet)}
    try:
        import arenakit
        out["arenakit (csv)"] = lambda: arenakit.Arena(arenakit.load_battles(csv))
    except ImportError:
        print("arenakit not installed: pip install -e '.[bench]'")
    try:
        from arena_rank.utils.data_utils import PairDataset
        out["arena-rank (csv)"] = lambda: PairDataset.from_pandas(pd.read_csv(csv))
        out["arena-rank (parquet)"] = lambda: PairDataset.from_pandas(pd.read_parquet(parquet))
    except ImportError:
        print("arena-rank not installed: pip install -e '.[bench]'")
    return out


def main():
    warnings.filterwarnings("ignore")  # arena-rank's JAX warns about float64 on every call
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        csv, parquet = Path(tmp) / "battles.csv", Path(tmp) / "battles.parquet"
        df = battles(args.rows)
        df.to_csv(csv, index=False)
        df.to_parquet(parquet, index=False)
        print(f"{args.rows:,} arena battles: CSV {csv.stat().st_size / 1e6:.0f} MB, "
              f"Parquet {parquet.stat().st_size / 1e6:.0f} MB; best of {args.repeat}\n")
        ours = {"csv": best_of(args.repeat, lambda: humeval.read(csv)),
                "parquet": best_of(args.repeat, lambda: humeval.read(parquet))}
        print(f"{'humeval (csv)':38s} {ours['csv']:7.2f} s")
        print(f"{'humeval (parquet)':38s} {ours['parquet']:7.2f} s")
        for name, call in peers(csv, parquet).items():
            seconds = best_of(1 if "arenakit" in name else args.repeat, call)
            base = ours["parquet" if "parquet" in name else "csv"]
            print(f"{name:38s} {seconds:7.2f} s   {seconds / base:5.2f}x humeval's time")
    if WMT10.exists():
        seconds = best_of(args.repeat, lambda: humeval.read(WMT10))
        naive = best_of(args.repeat, lambda: _naive_wmt(WMT10))
        print(f"\nWMT10 data_RNK.csv (7,692 rankings -> 75,768 comparisons): humeval {seconds:.3f} s, "
              f"a plain csv-module loop {naive:.3f} s ({naive / seconds:.1f}x)")
    n = 10_000_000
    tracemalloc.start()
    c = Comparisons(a=np.zeros(n, np.int32), b=np.ones(n, np.int32), outcome=np.zeros(n, np.int8),
                    item=np.zeros(n, np.int32), judge=np.zeros(n, np.int32), group=np.zeros(n, np.int32),
                    track=np.zeros(n, np.int16), systems=("A", "B"), items=("i",), judges=("j",), tracks=("t",))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    frame = pd.DataFrame({"a": np.full(n, "model-a"), "b": np.full(n, "model-b"), "outcome": np.zeros(n, np.int64)})
    print(f"\n10 million comparisons: {c.nbytes / 1e6:.0f} MB of columns (peak while building {peak / 1e6:.0f} MB); "
          f"the same three columns as a pandas frame of strings: {frame.memory_usage(deep=True).sum() / 1e6:.0f} MB "
          f"({frame.memory_usage(deep=True).sum() / c.nbytes:.1f}x)")


def _naive_wmt(path):
    """A baseline reader as the old research scripts wrote it: csv module, dicts, lists of tuples."""
    import csv
    import itertools
    pairs = []
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            entries = [(row[f"system{k}Id"], int(row[f"system{k}rank"])) for k in range(1, 6)]
            for (s1, r1), (s2, r2) in itertools.combinations(entries, 2):
                if r1 > 0 and r2 > 0:
                    pairs.append((row["srclang"], row["srcIndex"], row["judgeId"], s1, s2, 0 if r1 == r2 else 1 if r1 < r2 else 2))
    return pairs


if __name__ == "__main__":
    main()
