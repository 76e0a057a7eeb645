"""Writing tables to files: humeval's pairwise layout, long-form ratings and post-edits."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from humeval.data.tables import Comparisons, Table
from humeval.errors import InputError

SUFFIXES = (".parquet", ".csv", ".tsv", ".jsonl")


def pairwise_frame(comparisons: Comparisons) -> pd.DataFrame:
    """The layout ``read_pairwise`` recognises: track, item, judge, group, system_a, system_b,
    outcome (0 tie, 1 system_a preferred, 2 system_b preferred); then the arena columns the
    table uses: bothbad (ties marked both bad), weight (when any is not 1), category, and one
    column per covariate (by its name; read them back with ``covariates=``)."""
    df = comparisons.to_pandas()
    df = df.rename(columns={"a": "system_a", "b": "system_b"})
    arena = [name for name, used in (("bothbad", comparisons.bothbad.any()), ("weight", comparisons.weighted),
                                     ("category", (comparisons.category >= 0).any())) if used]
    return df[["track", "item", "judge", "group", "system_a", "system_b", "outcome", *arena,
               *comparisons.covariate_names]]


def frame(table: Table) -> pd.DataFrame:
    return pairwise_frame(table) if isinstance(table, Comparisons) else table.to_pandas()


def write(df: pd.DataFrame, path) -> Path:
    """Write by the file ending: .parquet, .csv, .tsv or .jsonl."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise InputError(path, None, f"cannot write {suffix or 'a file without an ending'}",
                         f"name the output with one of {', '.join(SUFFIXES)}")
    if suffix == ".parquet":
        df.to_parquet(path, index=False)
    elif suffix == ".jsonl":
        df.to_json(path, orient="records", lines=True, force_ascii=False)
    else:
        df.to_csv(path, index=False, sep="\t" if suffix == ".tsv" else ",")
    return path
