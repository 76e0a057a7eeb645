"""Writing tables to files: humeval's pairwise layout, long-form ratings and post-edits."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from humeval.data.readers.arena import COVARIATE_PREFIX
from humeval.data.tables import Comparisons, Table
from humeval.errors import InputError

SUFFIXES = (".parquet", ".csv", ".tsv", ".jsonl")


def pairwise_frame(comparisons: Comparisons) -> pd.DataFrame:
    """The layout ``read_pairwise`` recognises: track, item, judge, group, system_a, system_b,
    outcome (0 tie, 1 system_a preferred, 2 system_b preferred); then the arena columns the
    table uses: judge_kind (human or an automatic judge's name), bothbad (ties marked both bad), weight (when any is not 1), category, and one
    column ``cov:NAME`` per covariate (``COVARIATE_PREFIX``), which ``read_pairwise`` reads back
    as covariate NAME without being told."""
    df = comparisons.to_pandas(covariates=False)  # they follow as cov:NAME (a NAME could shadow "weight")
    df = df.rename(columns={"a": "system_a", "b": "system_b"})
    arena = [name for name, used in (("judge_kind", (comparisons.judge_kind >= 0).any()),
                                     ("bothbad", comparisons.bothbad.any()), ("weight", comparisons.weighted),
                                     ("category", (comparisons.category >= 0).any())) if used]
    df = df[["track", "item", "judge", "group", "system_a", "system_b", "outcome", *arena]]
    for j, name in enumerate(comparisons.covariate_names):
        df[COVARIATE_PREFIX + name] = comparisons.covariates[:, j]
    return df


def frame(table: Table) -> pd.DataFrame:
    if isinstance(table, Comparisons):
        return pairwise_frame(table)
    df = table.to_pandas()
    if "judge_kind" in df and df["judge_kind"].isna().all():  # written only when the file said who judged
        df = df.drop(columns="judge_kind")
    return df


def write(df: pd.DataFrame, path) -> Path:
    """Write by the file ending: .parquet, .csv, .tsv or .jsonl. A command's result table
    (``--out``) gets its reproducibility signature as a last column (``humeval.signature.stamp``)."""
    from humeval.signature import stamp
    path = Path(path)
    df = stamp(df, path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise InputError(path, None, f"cannot write {suffix or 'a file without an ending'}",
                         f"name the output with one of {', '.join(SUFFIXES)}")
    if suffix == ".parquet":
        df.to_parquet(path, index=False)
    elif suffix == ".jsonl":
        df.to_json(path, orient="records", lines=True, force_ascii=False, double_precision=15)  # default: 10 digits
    else:
        df.to_csv(path, index=False, sep="\t" if suffix == ".tsv" else ",")
    return path
