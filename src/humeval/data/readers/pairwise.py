"""Generic pairwise judgments in CSV, TSV, JSONL or Parquet, with a column mapping.

One row per comparison. ``columns`` maps humeval's names to the file's: ``a``, ``b``
(the two systems), ``outcome`` (which one won), and optionally ``item``, ``judge``,
``track``, ``group`` and ``judge_kind`` (who judged: ``human`` or an automatic judge's name; read
whenever a column of that name is present, for ``humeval ppi``). Without a mapping two layouts are recognised:

- LLM arena: ``model_a``, ``model_b``, ``winner`` ∈ {model_a, model_b, tie, tie (bothbad)},
  with ``question_id`` as the item and ``judge`` as the judge when present;
- humeval's own (what ``humeval convert`` writes): ``system_a``, ``system_b``, ``outcome``
  ∈ {0 tie, 1 a preferred, 2 b preferred}, ``item``, ``judge``, ``track``, ``group``, and when
  present ``bothbad`` (true/1 for a both-bad tie), ``weight``, ``category`` and covariates
  ``cov:NAME`` (read as covariate NAME unless ``covariates`` or ``style`` is given;
  ``covariates=False`` reads none).

Outcome labels are read through ``outcomes`` (label -> 0/1/2); the default knows the arena
labels, ``a``/``b``/``tie`` and 0/1/2. ``tie (bothbad)`` (also ``bothbad``, ``both_bad``) is a
tie flagged ``bothbad``, kept apart from a plain ``tie``. Rows with no outcome, a missing system
name, or a system compared with itself are counted and skipped; an unknown outcome label is an
error.

Arena columns (``humeval.data.readers.arena`` reads them; see ``read_pairwise``): per-battle
covariates (user-named numeric columns, or FastChat's style features from ``conv_metadata``), a
weight column and a category column. A name may reach into a nested record with dots
(``category_tag.math_v0.1.math``).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

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
from humeval.data.readers import arena
from humeval.data.readers._io import shown
from humeval.data.tables import Comparisons
from humeval.errors import InputError

FORMAT = "pairwise"
LAYOUTS = {
    "arena": {"a": "model_a", "b": "model_b", "outcome": "winner", "item": "question_id", "judge": "judge",
              "judge_kind": "judge_kind"},
    "humeval": {"a": "system_a", "b": "system_b", "outcome": "outcome", "item": "item",
                "judge": "judge", "track": "track", "group": "group", "judge_kind": "judge_kind"},
}
OUTCOMES = {"model_a": 1, "model_b": 2, "tie": 0, "tie (bothbad)": 0, "both_bad": 0, "bothbad": 0,
            "a": 1, "b": 2, "system_a": 1, "system_b": 2, "0": 0, "1": 1, "2": 2}
BOTHBAD = ("tie (bothbad)", "both_bad", "bothbad")  # ties the judge marked "both are bad"
KEYS = ("a", "b", "outcome", "item", "judge", "track", "group", "judge_kind")
COLUMNS_FIX = "pass columns={'a': …, 'b': …, 'outcome': …} (CLI: --columns a=COL,b=COL,outcome=COL)"


def looks_like(header_cells: list[str], columns: dict | None = None) -> bool:
    """A layout, with the user's ``columns`` over it, finds a, b and outcome in the header."""
    return any(all({**layout, **(columns or {})}[k] in header_cells for k in ("a", "b", "outcome"))
               for layout in LAYOUTS.values())


ROLES = {"a": "the first system", "b": "the second system", "outcome": "the outcome"}
LAYOUT_NAMES = {"arena": "arena battles", "humeval": "humeval's pairwise layout"}


def near_miss(header_cells: list[str], columns: dict | None = None, path=None) -> InputError | None:
    """When a layout, with the user's ``columns`` over it, finds two of a, b and outcome in the
    header but not the third (an arena file with ``model_a`` and ``model_b`` but no ``winner``),
    the error that names the missing column and the fix; None otherwise."""
    for name, layout in LAYOUTS.items():
        mapping = {**layout, **(columns or {})}
        found = [k for k in ("a", "b", "outcome") if mapping[k] in header_cells]
        if len(found) != 2:
            continue
        key = next(k for k in ("a", "b", "outcome") if k not in found)
        column = mapping[key]
        labels = (" holding model_a, model_b, tie or tie (bothbad)" if name == "arena" else
                  " holding 0 (tie), 1 (a preferred) or 2 (b preferred)") if key == "outcome" else ""
        present = ", ".join(mapping[k] for k in found)
        known = ", ".join(header_cells[:12]) + (", …" if len(header_cells) > 12 else "")
        return InputError(path, 1, f"the header looks like {LAYOUT_NAMES[name]} ({shown(present)}) but has no "
                          f"column '{shown(column)}' for {ROLES[key]} (columns: {shown(known)})",
                          f"add a column {shown(column)}{labels}, or name the column that holds {ROLES[key]}: "
                          f"columns={{'{key}': COL}} (CLI: --columns {key}=COL)")
    return None


def read_pairwise(path, columns: dict[str, str] | None = None, outcomes: dict | None = None,
                  encoding: str = "utf-8", kind: str | None = None, covariates=None, style: bool | str = False,
                  weight: str | None = None, category: str | None = None, delimiter: str | None = None) -> Judgments:
    """Read one comparison per row into ``Comparisons``.

    ``columns`` may name only some keys: the others keep the layout the file's header fits.
    ``outcomes`` adds labels to (or overrides labels of) the default outcome table.

    Arena options (``humeval.data.readers.arena``): ``covariates`` — column names (or one
    comma-separated string) each holding a feature difference a − b, or pairs ``COL_A/COL_B``
    whose difference is taken; ``style`` — FastChat's four style features (length, headers,
    lists, bold) from ``conv_metadata`` (True: the ratios; "fastchat": standardised as FastChat
    does); ``weight`` — a column of non-negative battle weights;
    ``category`` — a label column (prompt category, language, …) for per-category boards.
    ``delimiter``: the field delimiter of a text file (default: comma, tab for .tsv).
    ``covariates=False`` reads no covariates, not even the ``cov:NAME`` columns of humeval's layout.
    Missing values in these columns are counted skips; text in a numeric column, a negative or
    infinite weight are errors naming the row."""
    kind = kind or kind_of(path, encoding)
    table = load_table(path, kind, encoding, delimiter)
    mapping = _mapping(table.column_names, columns, path)
    check_columns(table, mapping.values(), path)
    labels = _outcome_table(outcomes, path)
    report = ReadReport(str(path), FORMAT, rows=table.num_rows, unit=unit(kind), detail=kind)
    if table.num_rows == 0:
        raise InputError(path, None, "the file has no rows", "check that the export finished")
    table = dictionary_columns(table, [mapping[k] for k in ("a", "b", "outcome", "item", "judge", "track", "judge_kind")
                                       if k in mapping])
    (a, b), systems = encode_arrow(table[mapping["a"]], table[mapping["b"]])
    outcome, bothbad = _outcomes(table[mapping["outcome"]], labels, path, kind)
    if _own_layout(mapping):  # what humeval convert writes: its arena columns too
        if "bothbad" in table.column_names:
            bothbad = arena.flags(table["bothbad"], path, "bothbad", kind) & (outcome == 0)
        weight = weight or ("weight" if "weight" in table.column_names else None)
        category = category or ("category" if "category" in table.column_names else None)
        if covariates is None and not style:  # the covariates convert wrote (cov:NAME)
            covariates = arena.written(table) or None
    kwargs = {"systems": systems}
    if bothbad.any():
        kwargs["bothbad"] = bothbad
    extra = arena.columns(table, path, kind, covariates, style, weight, category)
    for name, label_set in (("item", "items"), ("judge", "judges"), ("track", "tracks"), ("judge_kind", "judge_kinds")):
        if name in mapping:
            (kwargs[name],), kwargs[label_set] = encode_arrow(table[mapping[name]])
    check_judge_kinds(kwargs.get("judge_kinds", ()), path)
    if "group" in mapping:
        kwargs["group"] = _integers(table[mapping["group"]], path, mapping["group"], kind)
    keep = report.skip_rows((("rows without an outcome", outcome < 0),
                             ("rows without both system names", (a < 0) | (b < 0)),
                             ("rows comparing a system with itself", (a == b) & (a >= 0)),
                             *extra.skips), first_row_line(kind))
    if not keep.any():
        return nonempty(Judgments(report, comparisons=Comparisons(a=a[:0], b=b[:0], outcome=outcome[:0])))
    kwargs.update(extra.finish(keep))
    report.notes.extend(extra.notes)
    if not keep.all():
        kwargs = {k: (v[keep] if isinstance(v, np.ndarray) and len(v) == len(keep) else v)
                  for k, v in kwargs.items()}
        a, b, outcome = a[keep], b[keep], outcome[keep]
    comparisons = Comparisons(a=a, b=b, outcome=outcome, **kwargs)
    return Judgments(report, comparisons=comparisons if keep.all() else comparisons.compact())


def _mapping(names: list[str], columns: dict[str, str] | None, path) -> dict[str, str]:
    """The user's ``columns`` over the first layout that, with them, has a, b and outcome."""
    given = user_columns(columns, KEYS, names, "pairwise", COLUMNS_FIX, path)
    for layout in LAYOUTS.values():
        mapping = {**{k: v for k, v in layout.items() if v in names}, **given}
        if all(k in mapping for k in ("a", "b", "outcome")):
            return mapping
    error = near_miss(names, given, path)
    if error is not None:
        raise error
    raise InputError(path, 1, f"cannot tell which columns hold the two systems and the outcome "
                     f"(columns: {shown(', '.join(names))})", COLUMNS_FIX)


def check_judge_kinds(kinds, path) -> None:
    """judge_kind says who judged (human, or which automatic judge): a few values, stored as int8."""
    if len(kinds) > 127:
        raise InputError(path, None, f"the judge_kind column holds {len(kinds):,} different values; it says who judged "
                         "('human' or an automatic judge's name), at most 127 kinds",
                         "put individual annotators in the judge column, and only their kind in judge_kind")


def _own_layout(mapping: dict) -> bool:
    """Whether the file is in humeval's own layout (system_a, system_b, outcome)."""
    own = LAYOUTS["humeval"]
    return all(mapping[k] == own[k] for k in ("a", "b", "outcome"))


def _outcome_table(outcomes: dict | None, path) -> dict[str, int]:
    """The default labels, then the user's; every code must be 0, 1 or 2."""
    for label, code in (outcomes or {}).items():
        if isinstance(code, bool) or code not in (0, 1, 2):
            raise InputError(path, None, f"outcomes= maps '{shown(label)}' to '{shown(code)}'",
                             "the codes are 0 (tie), 1 (a wins) and 2 (b wins)")
    return {str(k).strip().lower(): int(v) for k, v in {**OUTCOMES, **(outcomes or {})}.items()}


def _outcomes(column: pa.ChunkedArray, table: dict[str, int], path, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Map outcome labels to 0/1/2 through ``table``; missing (null, empty, NaN) -> -1; an
    unknown label, or a number that is not whole (1.5, inf), is an error naming its row.
    Also returns which rows are both-bad ties (a ``BOTHBAD`` label that ``table`` makes a tie)."""
    if pa.types.is_floating(column.type):
        values = column.to_numpy(zero_copy_only=False).astype(float)
        missing = np.isnan(values)
        with np.errstate(invalid="ignore"):
            bad = ~missing & ~((np.abs(values) < 2 ** 53) & (values == np.round(values)))
        if bad.any():
            first = int(np.argmax(bad))
            line, row = place(kind, first)
            raise InputError(path, line, f"outcome {float(values[first])} is not a whole number{row}",
                             "write outcomes as 0 (tie), 1 (a wins), 2 (b wins) or labels")
        column = pa.chunked_array([pa.array(np.where(missing, 0, values).astype(np.int64), mask=missing)])
    (codes,), labels = encode_arrow(column)
    lookup = np.full(len(labels) + 1, -1, dtype=np.int8)
    both = np.zeros(len(labels) + 1, dtype=bool)
    for i, label in enumerate(labels):
        key = label.strip().lower()
        if key == "":
            continue
        if key not in table:
            line, row = place(kind, int(np.argmax(codes == i)))
            known = sorted({k for k in table if k})
            raise InputError(path, line, f"outcome '{shown(label)}' is not one of {shown(known)}{row}",
                             "pass outcomes={label: 0 tie / 1 a wins / 2 b wins} (CLI: --outcomes LABEL=N,…)")
        lookup[i] = table[key]
        both[i] = key in BOTHBAD and table[key] == 0
    return lookup[codes], both[codes]


def _integers(column: pa.ChunkedArray, path, name: str, kind: str) -> np.ndarray:
    """An integer column (the group id); empty -> -1; anything else that is not an int32 is an
    error naming its row."""
    if pa.types.is_dictionary(column.type):
        column = column.cast(pa.string())
    try:
        return column.cast(pa.int32()).fill_null(-1).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    limits = np.iinfo(np.int32)
    for i, value in enumerate(column.to_pylist()):
        text = str(value).strip()
        try:
            number = float(text) if value is not None and text else 0.0
            whole = number.is_integer() and limits.min <= number <= limits.max
        except ValueError:
            whole = False
        if not whole:
            line, row = place(kind, i)
            raise InputError(path, line, f"{shown(name)} is '{shown(text, 40)}', expected a whole number{row}",
                             "fix the value, or map a different column") from None
    return np.array([int(float(v)) if v is not None and str(v).strip() else -1 for v in column.to_pylist()],
                    dtype=np.int32)
