"""Ingest speed and memory: humeval against the plain reads, arenakit and arena-rank on the same files.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_ingest.py [--rows 1000000] [--repeat 5]

Writes a synthetic arena-style battle file (question_id, model_a, model_b, winner, judge) as CSV
and Parquet in a temporary folder, then times
- humeval.read(...) -> Comparisons (CSV and Parquet), against
- the plain reads, no validation or coding: ``pandas.read_csv`` of the CSV and
  ``pyarrow.parquet.read_table`` of the Parquet file (the issue-33 baselines: humeval's CSV at
  least as fast as the first, its Parquet within 1.5x of the second), and pandas doing the same
  work as humeval (``read_csv``, then ``factorize(sort=True)`` of the label columns). Each pair is run
  interleaved, humeval then baseline, --repeat times, so the machine's load hits both alike;
  the wall time (median and best) and the CPU time of the process (``time.process_time``, all
  its threads: steadier on a shared machine) are printed with the ratio baseline / humeval
  (above 1: humeval is faster);
- arenakit: load_battles(csv) + Arena(...)  (pydantic validation per battle), once;
- arena-rank: pandas.read_csv/read_parquet + PairDataset.from_pandas, best of --repeat;
- humeval.read against pandas.read_csv again on half as many battles shaped as an arena export
  (a distinct 32-digit question id per battle, long model names, three columns the reader does
  not use), and sorting those ids (the item labels) with humeval's radix sort against arrow's
  ``sort_indices``, interleaved.
Also times the real WMT10 file when ../shared/data is present, and reports the bytes of 10
million comparisons. The thread pools in use and the load average are printed first.
"""

from __future__ import annotations

import argparse
import os
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


def arena_export(n: int, seed: int = 1) -> pd.DataFrame:
    """Battles shaped as an arena export is: a distinct 32-hex-digit question id per battle, real
    model names (most over 16 characters), 50,000 users, and columns the reader does not use
    (a timestamp, the language, the turn)."""
    rng = np.random.default_rng(seed)
    names = ["gpt-4-1106-preview", "claude-3-5-sonnet-20240620", "llama-3.1-405b-instruct", "gemini-1.5-pro-api-0514",
             "mixtral-8x7b-instruct-v0.1", "qwen2.5-72b-instruct"]
    models = np.array([f"{names[i % 6]}-{i}" for i in range(60)])
    a = rng.integers(0, 60, n)
    b = (a + rng.integers(1, 60, n)) % 60
    ids = rng.integers(0, 2 ** 63, (n, 2), dtype=np.uint64)
    return pd.DataFrame({
        "question_id": [f"{x:016x}{y:016x}" for x, y in ids],
        "model_a": models[a], "model_b": models[b],
        "winner": rng.choice(np.array(["model_a", "model_b", "tie", "tie (bothbad)"]), n),
        "judge": np.char.add("arena_user_", rng.integers(0, 50_000, n).astype(str)),
        "tstamp": rng.uniform(1.7e9, 1.72e9, n), "language": rng.choice(np.array(["English", "Chinese", "German"]), n),
        "turn": rng.integers(1, 5, n),
    })


def best_of(repeat: int, call) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def interleaved(repeat: int, ours, theirs) -> dict[str, np.ndarray]:
    """Wall and CPU seconds of ``ours`` and ``theirs``, run alternately ``repeat`` times (after
    one untimed run of each: file cache, lazy imports)."""
    ours(), theirs()
    times = {k: [] for k in ("ours", "ours cpu", "theirs", "theirs cpu")}
    for _ in range(repeat):
        for name, call in (("ours", ours), ("theirs", theirs)):
            wall, cpu = time.perf_counter(), time.process_time()
            call()
            times[name].append(time.perf_counter() - wall)
            times[name + " cpu"].append(time.process_time() - cpu)
    return {k: np.array(v) for k, v in times.items()}


def against(label: str, baseline: str, times: dict[str, np.ndarray]) -> None:
    """Print humeval's and the baseline's times and the ratio baseline / humeval."""
    for who, name in (("ours", f"humeval ({label})"), ("theirs", baseline)):
        print(f"{name:38s} wall median {np.median(times[who]):6.3f} s, best {times[who].min():6.3f} s; "
              f"CPU median {np.median(times[who + ' cpu']):6.3f} s")
    print(f"{'  ratio ' + baseline + ' / humeval':38s} wall median {np.median(times['theirs']) / np.median(times['ours']):5.2f}x, "
          f"best {times['theirs'].min() / times['ours'].min():5.2f}x; "
          f"CPU {np.median(times['theirs cpu']) / np.median(times['ours cpu']):5.2f}x\n")


def peers(csv: Path, parquet: Path):
    out = {}
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
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    import pyarrow.parquet as pq
    from humeval.threads import threads_in_use
    print(f"threads: {threads_in_use()}; OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}; "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        csv, parquet = Path(tmp) / "battles.csv", Path(tmp) / "battles.parquet"
        df = battles(args.rows)
        df.to_csv(csv, index=False)
        df.to_parquet(parquet, index=False)
        print(f"{args.rows:,} arena battles: CSV {csv.stat().st_size / 1e6:.0f} MB, "
              f"Parquet {parquet.stat().st_size / 1e6:.0f} MB; {args.repeat} interleaved runs\n")
        against("csv", "pandas.read_csv", interleaved(args.repeat, lambda: humeval.read(csv), lambda: pd.read_csv(csv)))
        against("csv", "pandas read + factorize", interleaved(args.repeat, lambda: humeval.read(csv),
                                                               lambda: _pandas_codes(csv)))
        against("parquet", "pyarrow.parquet.read_table",
                interleaved(args.repeat, lambda: humeval.read(parquet), lambda: pq.read_table(parquet)))
        export = Path(tmp) / "export.csv"
        frame = arena_export(args.rows // 2)
        frame.to_csv(export, index=False)
        print(f"{args.rows // 2:,} battles shaped as an arena export (a distinct id per battle, 8 columns): "
              f"CSV {export.stat().st_size / 1e6:.0f} MB")
        against("csv, distinct ids", "pandas.read_csv", interleaved(args.repeat, lambda: humeval.read(export),
                                                                     lambda: pd.read_csv(export)))
        import pyarrow as pa
        import pyarrow.compute as pc
        from humeval.data.readers._sort import sort_order
        ids = pa.array(frame["question_id"].to_numpy(dtype=object), pa.string())
        print(f"sorting their {len(ids):,} question ids (the item labels; codes follow their order):")
        against("sort_order", "arrow sort_indices", interleaved(args.repeat, lambda: sort_order(ids),
                                                              lambda: pc.sort_indices(ids)))
        ours = {"csv": best_of(args.repeat, lambda: humeval.read(csv)),
                "parquet": best_of(args.repeat, lambda: humeval.read(parquet))}
        print(f"peers, best of {args.repeat} (arenakit: once) against humeval's best: CSV {ours['csv']:.2f} s, "
              f"Parquet {ours['parquet']:.2f} s")
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


def _pandas_codes(path):
    """The same work as humeval's read done with pandas: parse, then code each label column against
    its sorted labels (the systems of both columns against one set, as humeval codes them)."""
    frame = pd.read_csv(path)
    systems = pd.factorize(pd.concat([frame["model_a"], frame["model_b"]], ignore_index=True), sort=True)[0]
    return [systems] + [pd.factorize(frame[column], sort=True)[0] for column in ("winner", "question_id", "judge")]


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
