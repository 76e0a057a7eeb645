"""Simulated arena battles as hive-partitioned Parquet (``DIR/category=NAME/part-K.parquet``),
for the streaming benchmark and the README's "At scale" examples. Not data of the repository:
write it under /tmp and delete it afterwards.

Known truth: K systems with Bradley–Terry abilities θ ~ N(0, 1) (seeded); each battle draws two
distinct systems uniformly, is a tie with probability ``ties`` (a third of the ties "tie
(bothbad)") and otherwise is won by a with probability σ(θ_a − θ_b). Columns as FastChat's
battles: model_a, model_b, winner ∈ {model_a, model_b, tie, tie (bothbad)} (dictionary-encoded
text), question_id (int32), judge (dictionary text); the category is the partition directory.

    python benchmarks/make_battles.py /tmp/battles --rows 100000000
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

CATEGORIES = ("coding", "creative", "hard", "math", "multilingual", "other", "reasoning", "roleplay")
WINNERS = ("model_a", "model_b", "tie", "tie (bothbad)")


def abilities(n_systems: int, seed: int = 0) -> dict[str, float]:
    """The true abilities θ by system name (``model-000`` …)."""
    theta = np.random.default_rng([seed, 0]).normal(0, 1, n_systems)
    return {f"model-{i:03d}": float(t) for i, t in enumerate(theta)}


def write_battles(directory, rows: int, n_systems: int = 50, n_judges: int = 1000, n_questions: int = 100_000,
                  ties: float = 0.15, chunk: int = 10_000_000, seed: int = 0) -> dict[str, float]:
    """Write ``rows`` battles under ``directory`` (one file per category per chunk of ``chunk``
    rows); returns the true abilities."""
    truth = abilities(n_systems, seed)
    theta = np.array(list(truth.values()))
    systems = pa.array(list(truth), pa.string())
    winners = pa.array(WINNERS, pa.string())
    judges = pa.array([f"judge-{i:04d}" for i in range(n_judges)], pa.string())
    directory = Path(directory)
    for k, start in enumerate(range(0, rows, chunk)):
        n = min(chunk, rows - start)
        rng = np.random.default_rng([seed, 1, k])
        a = rng.integers(0, n_systems, n, dtype=np.int32)
        b = ((a + rng.integers(1, n_systems, n, dtype=np.int32)) % n_systems).astype(np.int32)
        u = rng.random(n)
        won_a = rng.random(n) < 1 / (1 + np.exp(theta[b] - theta[a]))
        winner = np.where(u < ties / 3, 3, np.where(u < ties, 2, np.where(won_a, 0, 1))).astype(np.int8)
        category = rng.integers(0, len(CATEGORIES), n)
        question = rng.integers(0, n_questions, n, dtype=np.int32)
        judge = rng.integers(0, n_judges, n, dtype=np.int32)
        order = np.argsort(category, kind="stable")
        bounds = np.searchsorted(category[order], np.arange(len(CATEGORIES) + 1))
        for c, name in enumerate(CATEGORIES):
            idx = order[bounds[c]:bounds[c + 1]]
            table = pa.table({
                "model_a": pa.DictionaryArray.from_arrays(pa.array(a[idx]), systems),
                "model_b": pa.DictionaryArray.from_arrays(pa.array(b[idx]), systems),
                "winner": pa.DictionaryArray.from_arrays(pa.array(winner[idx]), winners),
                "question_id": pa.array(question[idx]),
                "judge": pa.DictionaryArray.from_arrays(pa.array(judge[idx]), judges)})
            part = directory / f"category={name}"
            part.mkdir(parents=True, exist_ok=True)
            pq.write_table(table, part / f"part-{k:05d}.parquet", row_group_size=1 << 20)
    return truth


def size_of(directory) -> int:
    """Bytes of the files under ``directory``."""
    return sum(p.stat().st_size for p in Path(directory).rglob("*") if p.is_file())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory")
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--systems", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if os.path.exists(args.directory) and any(Path(args.directory).iterdir()):
        parser.error(f"{args.directory} is not empty: remove it first")
    start = time.perf_counter()
    write_battles(args.directory, args.rows, args.systems, seed=args.seed)
    print(f"{args.rows:,} battles written to {args.directory} in {time.perf_counter() - start:.1f} s "
          f"({size_of(args.directory) / 2 ** 20:,.0f} MB)")


if __name__ == "__main__":
    main()
