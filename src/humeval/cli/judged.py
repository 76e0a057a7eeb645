"""Helpers of the commands that combine human and automatic judges (ppi, plan): the judge's labels
from a file of their own, and ratings as scores indexed by (item, system)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.cli.common import load, print_skips
from humeval.data.tables import Ratings
from humeval.errors import InputError


def with_judge_file(table, file, judge_file, judge_name, human_label, options, delimiter, sql, keep):
    """FILE's table (all human) and the judge file's table of the same kind, marked and stacked
    (``data.judge_files.combine``); returns (table, the judge's name). The judge file is read with
    FILE's reading options."""
    from pathlib import Path
    from humeval.data.judge_files import combine
    fmt, encoding, columns, outcomes, tracks, quiet = options
    judged = load(judge_file, fmt, encoding, columns, outcomes, tracks, quiet, delimiter=delimiter, sql=sql,
                  keep=keep)
    print_skips(judged.report, quiet)
    other = judged.ratings if isinstance(table, Ratings) else judged.comparisons
    if other is None:
        raise InputError(judge_file, None, f"holds no {'ratings' if isinstance(table, Ratings) else 'battles'}"
                         f" as {file} does", "give the judge's labels in the same kind of file as the humans'")
    name = judge_name or Path(judge_file).stem
    return combine(table, other, name, human_label, file, judge_file), name


def ratings_series(ratings) -> pd.Series:
    """Scores indexed by (item, system) labels."""
    items, systems = np.asarray(ratings.items, dtype=object), np.asarray(ratings.systems, dtype=object)
    index = pd.MultiIndex.from_arrays([items[ratings.item], systems[ratings.system]], names=["item", "system"])
    return pd.Series(ratings.score, index=index)
