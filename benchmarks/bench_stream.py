"""Streaming ingest at scale: rank 10⁸ simulated battles from hive-partitioned Parquet with bounded
memory, against reading them whole with pandas and against DuckDB's own GROUP BY.

    python benchmarks/bench_stream.py --rows 100000000 --dir /tmp/humeval-battles [--keep-files]

Generates the battles (benchmarks/make_battles.py) unless the directory holds them already, then
runs each measurement in a fresh process so that its peak RSS (``ru_maxrss``) is its own:

1. humeval: ``humeval.read(DIR)`` (pyarrow record batches → weighted distinct comparisons) and a
   Bradley–Terry fit on them; rows/s of the read and peak RSS.
2. DuckDB: ``SELECT model_a, model_b, winner, COUNT(*) … GROUP BY ALL`` over the same files (all
   threads; the columns humeval reads), and humeval's DuckDB engine (``engine="duckdb"``); rows/s.
3. pandas: ``pandas.read_parquet`` of the whole data set (what an in-memory workflow does first),
   as it comes (the stored arrow schema makes the text columns categoricals: pandas' best case)
   and with the names as Python strings (what ``read_json``/``read_csv`` of battles give).
   When the rows would not fit (``--pandas-rows`` smaller than ``--rows``), pandas reads the first
   files holding ``--pandas-rows`` rows and its memory is extrapolated linearly — said in the output.

Ratios printed: peak RSS pandas / humeval and ingest time humeval / DuckDB. The files are deleted
at the end unless ``--keep-files``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_battles import size_of, write_battles  # noqa: E402

CHILD = r"""
import json, sys, time
mode, directory, extra = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
def rss():  # this process's peak (VmHWM: ru_maxrss would carry the parent's peak over exec)
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024
out = {}
if mode in ("humeval", "humeval-duckdb"):
    from humeval.data import read
    from humeval.ranking import BradleyTerry
    out["baseline_mb"] = rss()
    start = time.perf_counter()
    judgments = read(directory, **({"engine": "duckdb"} if mode == "humeval-duckdb" else {}))
    out["read_s"] = time.perf_counter() - start
    c = judgments.comparisons
    out["rows"], out["cells"] = judgments.report.rows, len(c)
    if not BradleyTerry.weighted:  # the BT family fits on pair_cells only; wt-h1 declares it weighted
        BradleyTerry.weighted = True
        out["note"] = "BradleyTerry.weighted set by the benchmark (declared on branch wt-h1)"
    start = time.perf_counter()
    model = BradleyTerry().fit(c)
    out["fit_s"] = time.perf_counter() - start
    out["top3"] = list(model.ranking().index[:3])
elif mode == "duckdb":
    import duckdb
    out["baseline_mb"] = rss()
    start = time.perf_counter()
    connection = duckdb.connect()
    connection.execute("SET enable_progress_bar = false")
    rows = connection.sql(f"SELECT model_a, model_b, winner, COUNT(*) AS n FROM read_parquet("
                      f"'{directory}/*/*.parquet', hive_partitioning = true) GROUP BY ALL").fetchall()
    out["read_s"] = time.perf_counter() - start
    out["rows"], out["cells"] = sum(r[-1] for r in rows), len(rows)
elif mode == "pandas":
    import glob
    import pandas as pd
    import pyarrow.parquet as pq
    out["baseline_mb"] = rss()
    files = sorted(glob.glob(f"{directory}/*/*.parquet"), key=lambda f: (f.rsplit("/", 1)[1], f))
    chosen, total = [], 0
    for f in files:
        if total >= extra["rows"]:
            break
        chosen.append(f)
        total += pq.ParquetFile(f).metadata.num_rows
    start = time.perf_counter()
    frame = pd.concat([pd.read_parquet(f) for f in chosen], ignore_index=True)
    if extra["strings"]:
        frame = frame.astype({c: object for c in ("model_a", "model_b", "winner", "judge")})
    out["read_s"] = time.perf_counter() - start
    out["rows"] = len(frame)
out["peak_mb"] = rss()
print(json.dumps(out))
"""


def measure(mode: str, directory: str, **extra) -> dict:
    """Run one measurement in a fresh interpreter; its JSON line."""
    result = subprocess.run([sys.executable, "-c", CHILD, mode, directory, json.dumps(extra)],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--dir", default="/tmp/humeval-battles")
    parser.add_argument("--pandas-rows", type=int, default=20_000_000,
                        help="rows pandas reads (its memory is extrapolated to --rows when fewer)")
    parser.add_argument("--keep-files", action="store_true")
    args = parser.parse_args()
    from humeval.threads import threads_in_use
    print(f"threads: {threads_in_use()} (each measurement runs in a fresh process with the same settings)")
    directory = Path(args.dir)
    if not directory.exists():
        start = time.perf_counter()
        write_battles(directory, args.rows)
        print(f"generated {args.rows:,} battles in {time.perf_counter() - start:.0f} s: "
              f"{size_of(directory) / 2 ** 20:,.0f} MB of Parquet in {directory}")
    try:
        ours = measure("humeval", str(directory))
        rows = ours["rows"]
        print(f"humeval  read {rows:,} rows -> {ours['cells']:,} distinct comparisons in {ours['read_s']:.1f} s "
              f"({rows / ours['read_s'] / 1e6:.1f} M rows/s); BT fit {ours['fit_s']:.2f} s; top 3 {ours['top3']}; "
              f"peak RSS {ours['peak_mb']:,.0f} MB (interpreter and imports {ours['baseline_mb']:,.0f} MB)")
        if "note" in ours:
            print(f"  ({ours['note']})")
        via = measure("humeval-duckdb", str(directory))
        print(f"humeval, engine=duckdb: {via['read_s']:.1f} s ({rows / via['read_s'] / 1e6:.1f} M rows/s), "
              f"peak RSS {via['peak_mb']:,.0f} MB")
        duck = measure("duckdb", str(directory))
        print(f"DuckDB   GROUP BY on the same files: {duck['read_s']:.1f} s "
              f"({rows / duck['read_s'] / 1e6:.1f} M rows/s), "
              f"peak RSS {duck['peak_mb']:,.0f} MB")
        print(f"ingest time humeval (arrow) / DuckDB GROUP BY: {ours['read_s'] / duck['read_s']:.2f}x "
              f"(goal: within 2x)")
        for strings, what in ((False, "categoricals"), (True, "text as Python strings")):
            pandas = measure("pandas", str(directory), rows=min(args.pandas_rows, rows), strings=strings)
            grown = pandas["peak_mb"] - pandas["baseline_mb"]
            if pandas["rows"] < rows:
                estimate = pandas["baseline_mb"] + grown * rows / pandas["rows"]
                print(f"pandas   read_parquet ({what}) of {pandas['rows']:,} rows: {pandas['read_s']:.1f} s, peak RSS "
                      f"{pandas['peak_mb']:,.0f} MB; extrapolated linearly to {rows:,} rows: {estimate:,.0f} MB "
                      "(not measured at full size)")
            else:
                estimate = pandas["peak_mb"]
                print(f"pandas   read_parquet ({what}) of all {rows:,} rows: {pandas['read_s']:.1f} s, "
                      f"peak RSS {estimate:,.0f} MB")
            print(f"peak RSS pandas ({what}) / humeval: {estimate / ours['peak_mb']:.1f}x")
    finally:
        if not args.keep_files:
            shutil.rmtree(directory, ignore_errors=True)
            print(f"deleted {directory}")


if __name__ == "__main__":
    main()
