"""Generic pairwise judgments in CSV, TSV, JSONL or Parquet, with a column mapping.

One row per comparison. ``columns`` maps humeval's names to the file's: ``a``, ``b``
(the two systems), ``outcome`` (which one won), and optionally ``item``, ``judge``,
``track``, ``group``. Without a mapping two layouts are recognised:

- LLM arena: ``model_a``, ``model_b``, ``winner`` ∈ {model_a, model_b, tie, tie (bothbad)},
  with ``question_id`` as the item and ``judge`` as the judge when present;
- humeval's own (what ``humeval convert`` writes): ``system_a``, ``system_b``, ``outcome``
  ∈ {0 tie, 1 a preferred, 2 b preferred}, ``item``, ``judge``, ``track``, ``group``.

Outcome labels are read through ``outcomes`` (label -> 0/1/2); the default knows the arena
labels, ``a``/``b``/``tie`` and 0/1/2. Rows with no outcome, a missing system name, or a
system compared with itself are counted and skipped; an unknown outcome label is an error.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from humeval.data.judgments import Judgments, ReadReport
from humeval.data.readers._arrow import encode_arrow, first_row_line, kind_of, load_table
from humeval.data.tables import Comparisons
from humeval.errors import InputError

FORMAT = "pairwise"
LAYOUTS = {
    "arena": {"a": "model_a", "b": "model_b", "outcome": "winner", "item": "question_id", "judge": "judge"},
    "humeval": {"a": "system_a", "b": "system_b", "outcome": "outcome", "item": "item",
                "judge": "judge", "track": "track", "group": "group"},
}
OUTCOMES = {"model_a": 1, "model_b": 2, "tie": 0, "tie (bothbad)": 0, "both_bad": 0, "bothbad": 0,
            "a": 1, "b": 2, "system_a": 1, "system_b": 2, "0": 0, "1": 1, "2": 2}
COLUMNS_FIX = "pass columns={'a': …, 'b': …, 'outcome': …} (CLI: --columns a=COL,b=COL,outcome=COL)"


def looks_like(header_cells: list[str]) -> bool:
    return any(all(layout[k] in header_cells for k in ("a", "b", "outcome")) for layout in LAYOUTS.values())


def read_pairwise(path, columns: dict[str, str] | None = None, outcomes: dict | None = None,
                  encoding: str = "utf-8", kind: str | None = None) -> Judgments:
    """Read one comparison per row into ``Comparisons``."""
    kind = kind or kind_of(path)
    table = load_table(path, kind, encoding)
    mapping = _mapping(table.column_names, columns, path)
    report = ReadReport(str(path), f"{FORMAT} ({kind})", rows=table.num_rows)
    if table.num_rows == 0:
        raise InputError(path, None, "the file has no rows", "check that the export finished")
    (a, b), systems = encode_arrow(table[mapping["a"]], table[mapping["b"]])
    outcome = _outcomes(table[mapping["outcome"]], outcomes or OUTCOMES, path, first_row_line(kind))
    kwargs = {"systems": systems}
    for name, label_set in (("item", "items"), ("judge", "judges"), ("track", "tracks")):
        if name in mapping:
            (kwargs[name],), kwargs[label_set] = encode_arrow(table[mapping[name]])
    if "group" in mapping:
        kwargs["group"] = _integers(table[mapping["group"]], path, mapping["group"])
    keep = np.ones(len(a), dtype=bool)
    line0 = first_row_line(kind)
    for reason, bad in (("rows without an outcome", outcome < 0),
                        ("rows without both system names", (a < 0) | (b < 0)),
                        ("rows comparing a system with itself", (a == b) & (a >= 0))):
        bad &= keep
        report.skip(reason, int(bad.sum()), np.nonzero(bad)[0][:5] + line0)
        keep &= ~bad
    if not keep.all():
        kwargs = {k: (v[keep] if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
        a, b, outcome = a[keep], b[keep], outcome[keep]
    comparisons = Comparisons(a=a, b=b, outcome=outcome, **kwargs)
    return Judgments(report, comparisons=comparisons if keep.all() else comparisons.compact())


def _mapping(names: list[str], columns: dict[str, str] | None, path) -> dict[str, str]:
    if columns:
        mapping = dict(columns)
        absent = [f"{k}={v}" for k, v in mapping.items() if v not in names]
        if absent or not all(k in mapping for k in ("a", "b", "outcome")):
            raise InputError(path, 1, f"column mapping {mapping} does not fit the columns {names}",
                             COLUMNS_FIX)
        return mapping
    for layout in LAYOUTS.values():
        if all(layout[k] in names for k in ("a", "b", "outcome")):
            return {k: v for k, v in layout.items() if v in names}
    raise InputError(path, 1, f"cannot tell which columns hold the two systems and the outcome "
                     f"(columns: {', '.join(names)})", COLUMNS_FIX)


def _outcomes(column: pa.ChunkedArray, table: dict, path, line0: int) -> np.ndarray:
    """Map outcome labels to 0/1/2 through ``table``; missing -> -1; unknown -> error."""
    if pa.types.is_floating(column.type):
        column = pc.cast(column, pa.int64())
    (codes,), labels = encode_arrow(column)
    folded = {str(k).strip().lower(): v for k, v in table.items()}
    lookup = np.full(len(labels) + 1, -1, dtype=np.int8)
    for i, label in enumerate(labels):
        key = label.strip().lower()
        if key == "":
            continue
        if key not in folded:
            first = int(np.argmax(codes == i))
            raise InputError(path, first + line0 if line0 else None,
                             f"outcome {label!r} is not one of {sorted(set(map(str, table)))}"
                             + ("" if line0 else f" (row {first})"),
                             "pass outcomes={label: 0 tie / 1 a wins / 2 b wins} (CLI: --outcomes LABEL=N,…)")
        lookup[i] = folded[key]
    return lookup[codes]


def _integers(column: pa.ChunkedArray, path, name: str) -> np.ndarray:
    try:
        if pa.types.is_dictionary(column.type):
            column = column.cast(pa.string())
        return column.cast(pa.int32()).fill_null(-1).to_numpy()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise InputError(path, None, f"column {name!r} must hold integers", "map a different column") from None
