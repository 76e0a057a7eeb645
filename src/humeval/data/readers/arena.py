"""The arena columns of a pairwise file: covariates (style control), weights and a category.

``columns(table, …)`` reads them from an arrow table and returns what the pairwise reader needs:
the rows to skip (by reason) and, once the kept rows are known, the ``Comparisons`` keywords.

Style features are FastChat's (``fastchat/serve/monitor/rating_systems.py``,
``preprocess_for_style``, used by ``compute_style_control``): from ``conv_metadata`` the
token count of the answers and the counts of markdown headers (h1–h6 summed), list items
(ordered + unordered) and bold spans (``**`` + ``__``), for each element

    d = (x_a − x_b) / (x_a + x_b + 1).

``style=True`` keeps d as it is: d = 0 means "no difference in style", so the abilities a model
reports with the covariates at zero are style-free (scale them with the model's
``standardize``). ``style="fastchat"`` also standardises as FastChat does, (d − mean d) / sd d
over the battles (an element without spread stays 0), for numbers equal to FastChat's.
Covariates written by ``humeval convert`` (``humeval.data.export.pairwise_frame``) are columns
``cov:NAME`` (``COVARIATE_PREFIX``): the reader of humeval's own layout takes every such column as
covariate NAME unless told otherwise, and a covariate named NAME finds a column ``cov:NAME``.
A name may reach into nested records with dots (``conv_metadata.sum_assistant_a_tokens``,
``category_tag.math_v0.1.math``); a record of counts (``{"h1": 2, "h2": 0}``) counts as its sum.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from humeval.data.readers._arrow import encode_arrow, place
from humeval.data.readers._io import shown
from humeval.errors import InputError

# FastChat's style elements: our name -> the conv_metadata fields of answers a and b
STYLE = {"length": ("sum_assistant_a_tokens", "sum_assistant_b_tokens"),
         "headers": ("header_count_a", "header_count_b"), "lists": ("list_count_a", "list_count_b"),
         "bold": ("bold_count_a", "bold_count_b")}
METADATA = "conv_metadata"
COVARIATE_PREFIX = "cov:"  # the header of a covariate column humeval writes: cov:NAME
STYLES = (False, None, True, "fastchat")


@dataclass
class ArenaColumns:
    """The arena columns read from one file, before the rows to keep are known."""

    skips: list = field(default_factory=list)  # (reason, mask of rows to skip)
    notes: list = field(default_factory=list)
    covariates: np.ndarray | None = None  # (rows, p)
    names: tuple = ()
    standardise: tuple = ()  # positions of covariates standardised over the kept rows (style)
    weight: np.ndarray | None = None
    category: tuple | None = None  # (codes, labels)

    def finish(self, keep: np.ndarray) -> dict:
        """``Comparisons`` keywords for all rows (the reader takes ``keep`` after), with the
        style features standardised over the kept rows."""
        out = {}
        if self.covariates is not None:
            x = self.covariates.copy()
            for j in self.standardise:
                kept = x[keep, j]
                sd = kept.std()
                x[:, j] = (x[:, j] - kept.mean()) / (sd if sd > 0 else 1.0)
            out["covariates"], out["covariate_names"] = np.nan_to_num(x), self.names
        if self.weight is not None:
            out["weight"] = np.nan_to_num(self.weight)
        if self.category is not None:
            out["category"], out["categories"] = self.category
        return out


def columns(table: pa.Table, path, kind: str, covariates=None, style: bool | str = False, weight: str | None = None,
            category: str | None = None) -> ArenaColumns:
    """Read the covariate, weight and category columns named (see the module docstring)."""
    if style not in STYLES:
        raise InputError(path, None, f"style={style!r} is not one of {STYLES}",
                         "pass style=True (the ratios) or style='fastchat' (standardised as FastChat does)")
    result = ArenaColumns()
    blocks, names = [], []
    for spec in specs(covariates):
        if "/" in spec and not has_column(table, spec):
            left, right = spec.split("/", 1)
            values = numbers(column(table, left, path), path, left, kind) - \
                numbers(column(table, right, path), path, right, kind)
            name = f"{left}-{right}"
        else:
            found = spec if has_column(table, spec) or not has_column(table, COVARIATE_PREFIX + spec) \
                else COVARIATE_PREFIX + spec
            values, name = numbers(column(table, found, path), path, found, kind), spec.removeprefix(COVARIATE_PREFIX)
        if name in names:
            raise InputError(path, None, f"covariate {shown(name)} is named twice", "name each covariate once")
        blocks.append(values)
        names.append(name)
    if style:
        for name, (element_a, element_b) in STYLE.items():
            if name in names:
                raise InputError(path, None, f"covariate {shown(name)} is named twice (it is a style feature)",
                                 "rename the column or leave out the style features")
            x_a = counts(table, element_a, path, kind)
            x_b = counts(table, element_b, path, kind)
            if style == "fastchat":
                result.standardise += (len(blocks),)
            blocks.append((x_a - x_b) / (x_a + x_b + 1.0))
            names.append(name)
        result.notes.append("style features (FastChat's): " + ", ".join(
            f"{n} = ({a} − {b}) / (sum + 1)" for n, (a, b) in STYLE.items())
            + (", each standardised over the battles as FastChat does" if style == "fastchat" else ""))
    if blocks:
        result.covariates = np.column_stack(blocks)
        result.names = tuple(names)
        for j, name in enumerate(names):
            result.skips.append((f"rows without a value of covariate {shown(name)}", np.isnan(result.covariates[:, j])))
    if weight:
        w = numbers(column(table, weight, path), path, weight, kind, finite=False)  # one check, in file order
        with np.errstate(invalid="ignore"):
            bad = ~np.isnan(w) & ((w < 0) | ~np.isfinite(w))
        if bad.any():
            first = int(np.argmax(bad))
            line, row = place(kind, first)
            raise InputError(path, line, f"weight '{shown(weight)}' is {w[first]:g}{row}; a weight must be finite "
                             "and ≥ 0", "fix the value, or leave the cell empty to skip the row")
        result.weight = w
        result.skips += [(f"rows without a weight ({shown(weight)})", np.isnan(w)),
                         (f"rows of weight 0 ({shown(weight)})", w == 0)]
    if category:
        values = column(table, category, path)
        if pa.types.is_nested(values.type.value_type if pa.types.is_dictionary(values.type) else values.type):
            raise InputError(path, None, f"category column {shown(category)} holds records, not labels",
                             f"name a field inside it with a dot ({shown(category)}.FIELD)")
        (codes,), labels = encode_arrow(values)
        result.category = (codes, labels)
        if (codes < 0).any():
            result.notes.append(f"{int((codes < 0).sum()):,} rows have no {shown(category)} (no category board)")
    return result


def written(table: pa.Table) -> list[str]:
    """The covariate columns humeval wrote (``cov:NAME``), in file order."""
    return [name for name in table.column_names if name.startswith(COVARIATE_PREFIX) and name != COVARIATE_PREFIX]


def specs(covariates) -> list[str]:
    """Covariate names from a list or a comma-separated string; blanks dropped (None or False: none)."""
    if covariates is None or covariates is False:
        return []
    parts = covariates.split(",") if isinstance(covariates, str) else list(covariates)
    return [str(p).strip() for p in parts if str(p).strip()]


def has_column(table: pa.Table, name: str) -> bool:
    try:
        column(table, name, None)
    except InputError:
        return False
    return True


def column(table: pa.Table, name: str, path) -> pa.ChunkedArray:
    """The column ``name``, or a field of a nested record named with dots (the longest column
    or field name that fits is taken first, since names such as ``criteria_v0.1`` hold dots)."""
    if name in table.column_names:
        return table[name]
    current, rest = None, name
    names = table.column_names
    while rest:
        head = next((n for n in sorted(names, key=len, reverse=True) if rest == n or rest.startswith(n + ".")), None)
        if head is None:
            known = ", ".join(names[:12]) + (", …" if len(names) > 12 else "")
            raise InputError(path, 1, f"no column '{shown(name)}' (columns{' of the record' if current else ''}: "
                             f"{shown(known)})", "check the name; fields of nested records are named with dots")
        current = table[head] if current is None else pc.struct_field(current, [names.index(head)])
        rest = rest[len(head) + 1:]
        if rest:
            if not pa.types.is_struct(current.type):
                raise InputError(path, 1, f"{shown(name)}: {shown(head)} is not a record", "check the name")
            names = [current.type.field(i).name for i in range(current.type.num_fields)]
    return current


def counts(table: pa.Table, element: str, path, kind: str) -> np.ndarray:
    """A style count: ``conv_metadata.ELEMENT`` or a top-level ``ELEMENT`` column."""
    for name in (f"{METADATA}.{element}", element):
        if has_column(table, name):
            return numbers(column(table, name, path), path, name, kind)
    raise InputError(path, 1, f"style features need {METADATA}.{element} (FastChat's clean_battle metadata) or a "
                     f"column {element}", "read an arena battles file with conv_metadata, or name --covariates")


def numbers(values: pa.ChunkedArray, path, name: str, kind: str, finite: bool = True) -> np.ndarray:
    """A numeric column as floats, NaN where missing (null, empty, NaN); a record of counts is
    its sum (null when the record is). Text that is not a number is an error naming its row, and
    so is an infinite value unless ``finite=False`` (the caller checks the range itself)."""
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    if pa.types.is_struct(values.type):
        parts = [numbers(pc.struct_field(values, [i]), path, f"{name}.{values.type.field(i).name}", kind)
                 for i in range(values.type.num_fields)]
        total = np.nansum(np.column_stack(parts), axis=1) if parts else np.zeros(len(values))
        valid = np.asarray(values.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        return np.where(valid, total, np.nan)
    if pa.types.is_null(values.type):
        return np.full(len(values), np.nan)
    text = pa.types.is_string(values.type) or pa.types.is_large_string(values.type)
    if not (text or pa.types.is_boolean(values.type) or pa.types.is_integer(values.type)
            or pa.types.is_floating(values.type)):
        raise InputError(path, None, f"column {shown(name)} holds {values.type} values, expected numbers",
                         "name a numeric column")
    if text:
        blank = pc.or_kleene(pc.equal(pc.utf8_trim_whitespace(values), ""),
                             pc.is_in(pc.utf8_lower(pc.utf8_trim_whitespace(values)), pa.array(MISSING)))
        values = pc.if_else(blank, pa.scalar(None, values.type), values)
        try:
            values = pc.cast(pc.utf8_trim_whitespace(values), pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            _raise_not_number(values.to_pylist(), path, name, kind)
    # safe=False: an integer beyond 2**53 becomes the nearest float (arrow's safe cast refuses it)
    out = values.cast(pa.float64(), safe=False).fill_null(np.nan).to_numpy(zero_copy_only=False).astype(float)
    infinite = np.isinf(out) if finite else np.zeros(0, dtype=bool)
    if infinite.any():
        first = int(np.argmax(infinite))
        line, row = place(kind, first)
        raise InputError(path, line, f"{shown(name)} is {out[first]}, not a finite number{row}",
                         "fix the value, or leave the cell empty to skip the row")
    return out


MISSING = ["nan", "na", "null", "none"]  # cells that mean "no value" in a numeric column
TRUE, FALSE = ("true", "1", "1.0", "yes"), ("false", "0", "0.0", "no", "")


def flags(values: pa.ChunkedArray, path, name: str, kind: str) -> np.ndarray:
    """A yes/no column (bool, 0/1, or true/false text; empty = no) as booleans; anything else is
    an error naming its row."""
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    if pa.types.is_boolean(values.type):
        return values.fill_null(False).to_numpy(zero_copy_only=False).astype(bool)
    cells = [str(v).strip().lower() if v is not None else "" for v in values.to_pylist()]
    for i, cell in enumerate(cells):
        if cell not in TRUE + FALSE:
            line, row = place(kind, i)
            raise InputError(path, line, f"{shown(name)} is '{shown(cell, 40)}', expected true or false{row}",
                             "write true/false or 1/0")
    return np.array([cell in TRUE for cell in cells], dtype=bool)


def _raise_not_number(cells, path, name: str, kind: str):
    for i, cell in enumerate(cells):
        try:
            float(cell) if cell is not None else None
        except ValueError:
            line, row = place(kind, i)
            raise InputError(path, line, f"{shown(name)} is '{shown(cell.strip(), 40)}', expected a number{row}",
                             "fix the value, or leave the cell empty to skip the row") from None
    raise InputError(path, None, f"column {shown(name)} cannot be read as numbers", "check the column")
