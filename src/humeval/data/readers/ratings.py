"""Ratings in long form: one score per row, in CSV, TSV, JSONL or Parquet.

Columns (rename with ``columns``): ``item``, ``system``, ``score`` (required), ``judge``,
``track``, ``criterion``, ``judge_kind`` (optional; "human" or the name of an automatic judge). Empty or NaN scores are counted and skipped; a score that
is not a number is an error naming its line.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from humeval.data.judgments import Judgments, ReadReport, nonempty
from humeval.data.readers._arrow import (
    check_columns,
    dictionary_columns,
    encode_arrow,
    first_row_line,
    kind_of,
    load_table,
    place,
    unit,
    user_columns,
)
from humeval.data.readers._io import check_scale, shown
from humeval.data.readers.pairwise import check_judge_kinds
from humeval.data.tables import Ratings
from humeval.errors import InputError

FORMAT = "ratings"
DEFAULT = {"item": "item", "system": "system", "judge": "judge", "score": "score",
           "track": "track", "criterion": "criterion", "judge_kind": "judge_kind"}
REQUIRED = ("item", "system", "score")
COLUMNS_FIX = "pass columns={'item': …, 'system': …, 'score': …} (CLI: --columns item=COL,…)"


def looks_like(header_cells: list[str], columns: dict | None = None) -> bool:
    """The header has item, system and score columns (named by ``columns`` or by default)."""
    return all({**DEFAULT, **(columns or {})}.get(k) in header_cells for k in REQUIRED)


def read_ratings(path, columns: dict[str, str] | None = None, scale: str = "",
                 higher_is_better: bool = True, encoding: str = "utf-8", delimiter: str | None = None) -> Judgments:
    """Read long-form ratings into a ``Ratings`` table.

    ``columns`` may name only some keys; the others keep their default column names.
    ``delimiter``: the field delimiter of a text file (default: comma, tab for .tsv)."""
    kind = kind_of(path)
    table = load_table(path, kind, encoding, delimiter)
    names = table.column_names
    given = user_columns(columns, tuple(DEFAULT), names, "ratings", COLUMNS_FIX, path)
    mapping = {k: v for k, v in {**DEFAULT, **given}.items() if v in names}
    if not all(k in mapping for k in REQUIRED):
        raise InputError(path, 1, f"ratings need columns for {', '.join(REQUIRED)}; found {shown(', '.join(names))}",
                         COLUMNS_FIX)
    check_columns(table, mapping.values(), path)
    report = ReadReport(str(path), FORMAT, rows=table.num_rows, unit=unit(kind), detail=kind)
    score = _floats(table[mapping["score"]], path, kind, mapping["score"])
    kwargs = {}
    roles = (("item", "items"), ("system", "systems"), ("judge", "judges"), ("track", "tracks"),
             ("criterion", "criteria"), ("judge_kind", "judge_kinds"))
    table = dictionary_columns(table, [mapping[name] for name, _ in roles if name in mapping])
    for name, label_set in roles:
        if name in mapping:
            (kwargs[name],), kwargs[label_set] = encode_arrow(table[mapping[name]])
    check_judge_kinds(kwargs.get("judge_kinds", ()), path)
    keep = report.skip_rows((("rows without a score (empty or NaN)", np.isnan(score)),
                             ("rows without an item or system name", (kwargs["item"] < 0) | (kwargs["system"] < 0))),
                            first_row_line(kind))
    ratings = Ratings(score=score[keep], scale=scale, higher_is_better=higher_is_better,
                      **{k: (v[keep] if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()})
    return nonempty(Judgments(report, ratings=ratings if keep.all() else ratings.compact()))


def _floats(column: pa.ChunkedArray, path, kind: str, name: str) -> np.ndarray:
    """Scores as floats (empty -> NaN); text that is not a number, or an infinite score, is an
    error naming its row."""
    if pa.types.is_floating(column.type) or pa.types.is_integer(column.type):
        values = column.cast(pa.float64()).fill_null(np.nan).to_numpy()
    else:
        text = pc.utf8_trim_whitespace(column.cast(pa.string()))
        blank = pc.or_(pc.is_null(text), pc.equal(text, ""))
        try:
            values = pc.if_else(blank, None, text).cast(pa.float64()).fill_null(np.nan).to_numpy()
        except pa.ArrowInvalid:  # find the culprit (Python also reads what arrow refuses, e.g. 1e400)
            values = np.full(len(text), np.nan)
            for i, v in enumerate(text.to_pylist()):
                if v:
                    try:
                        values[i] = float(v)
                    except ValueError:
                        line, row = place(kind, i)
                        raise InputError(path, line, f"{shown(name)} is '{shown(v)}', expected a number{row}",
                                         "fix the value, or leave it empty to skip the row") from None
    infinite = np.isinf(values)
    if infinite.any():
        line, row = place(kind, int(np.argmax(infinite)))
        raise InputError(path, line, f"{shown(name)} is {values[infinite][0]}, expected a finite number{row}",
                         "fix the value, or leave it empty to skip the row")
    check_scale(values, path, name, lambda i: place(kind, i))
    return values
