"""Ratings in long form: one score per row, in CSV, TSV, JSONL or Parquet.

Columns (rename with ``columns``): ``item``, ``system``, ``score`` (required), ``judge``,
``track``, ``criterion`` (optional). Empty or NaN scores are counted and skipped; a score that
is not a number is an error naming its line.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from humeval.data.judgments import Judgments, ReadReport
from humeval.data.readers._arrow import encode_arrow, first_row_line, kind_of, load_table
from humeval.data.tables import Ratings
from humeval.errors import InputError

FORMAT = "ratings"
DEFAULT = {"item": "item", "system": "system", "judge": "judge", "score": "score",
           "track": "track", "criterion": "criterion"}
REQUIRED = ("item", "system", "score")


def looks_like(header_cells: list[str]) -> bool:
    return all(c in header_cells for c in REQUIRED)


def read_ratings(path, columns: dict[str, str] | None = None, scale: str = "",
                 higher_is_better: bool = True, encoding: str = "utf-8") -> Judgments:
    """Read long-form ratings into a ``Ratings`` table."""
    kind = kind_of(path)
    table = load_table(path, kind, encoding)
    names = table.column_names
    mapping = {k: v for k, v in {**DEFAULT, **(columns or {})}.items() if v in names}
    if not all(k in mapping for k in REQUIRED):
        raise InputError(path, 1, f"ratings need columns for {', '.join(REQUIRED)}; found {', '.join(names)}",
                         "pass columns={'item': …, 'system': …, 'score': …} (CLI: --columns item=COL,…)")
    report = ReadReport(str(path), f"{FORMAT} ({kind})", rows=table.num_rows)
    score = _floats(table[mapping["score"]], path, first_row_line(kind), mapping["score"])
    kwargs = {}
    for name, label_set in (("item", "items"), ("system", "systems"), ("judge", "judges"),
                            ("track", "tracks"), ("criterion", "criteria")):
        if name in mapping:
            (kwargs[name],), kwargs[label_set] = encode_arrow(table[mapping[name]])
    bad = np.isnan(score)
    report.skip("rows without a score (empty or NaN)", int(bad.sum()), np.nonzero(bad)[0][:5] + first_row_line(kind))
    keep = ~bad
    ratings = Ratings(score=score[keep], scale=scale, higher_is_better=higher_is_better,
                      **{k: (v[keep] if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()})
    return Judgments(report, ratings=ratings if keep.all() else ratings.compact())


def _floats(column: pa.ChunkedArray, path, line0: int, name: str) -> np.ndarray:
    if pa.types.is_floating(column.type) or pa.types.is_integer(column.type):
        return column.cast(pa.float64()).fill_null(np.nan).to_numpy()
    text = pc.utf8_trim_whitespace(column.cast(pa.string()))
    blank = pc.or_(pc.is_null(text), pc.equal(text, ""))
    try:
        return pc.if_else(blank, None, text).cast(pa.float64()).fill_null(np.nan).to_numpy()
    except pa.ArrowInvalid:
        values = text.to_pylist()
        for i, v in enumerate(values):
            if v:
                try:
                    float(v)
                except ValueError:
                    raise InputError(path, i + line0 if line0 else None, f"{name} is {v!r}, expected a number",
                                     "fix the value, or leave it empty to skip the row") from None
        raise
