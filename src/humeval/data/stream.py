"""Streaming ingest: Parquet or CSV datasets (a directory, hive-partitioned too, or a glob) and
DuckDB databases or SQL queries, reduced batch by batch to sufficient statistics.

The sufficient statistics are a ``Comparisons`` table with weights: one row per distinct
(a, b, outcome, bothbad, track, category, judge_kind[, judge, item, group]) and ``weight`` = how many rows
of the input it stands for (the sum of a weight column when one is mapped). Every model with
``weighted = True`` (the Bradley–Terry family, the counting heuristics, Hopkins & May's
independent models) fits on it exactly as on the rows, since it sees the data only through
``pair_cells``, the weighted pair-count table (``humeval.ranking.base``); the others repeat the
rows first and say how big that is.

How: record batches of the needed columns only (``pyarrow.dataset`` scanner) are integer-coded
against running label dictionaries (a batch's dictionary, not its rows, goes through Python),
counted per distinct row by ``numpy.bincount`` on a mixed-radix key (``numpy.unique`` when the
key space is large), and the partial tables are added up. Memory is bounded by the number of
distinct rows — systems² × outcomes × tracks × categories (× units kept) — not by the rows read.
With DuckDB (``duckdb:///path.db?query=…``, ``sql=``, or ``engine="duckdb"``) DuckDB's own
``GROUP BY`` does the reduction and the same coding runs on its (small) result.

The unit columns a bootstrap resamples (judge, item, group) make rows distinct, so they are kept
only when asked (``keep=``). Covariates make every row distinct: streaming refuses them.
Row order is not kept: models that play comparisons in order (TrueSkill, Elo) see them grouped.
"""

from __future__ import annotations

import csv
import glob as globbing
import math
import os
import re
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.dataset as ds

from humeval.data.judgments import Judgments, ReadReport, nonempty
from humeval.data.readers._arrow import kind_of
from humeval.data.readers._io import shown
from humeval.data.readers.arena import TRUE
from humeval.data.readers.pairwise import BOTHBAD, COLUMNS_FIX, _mapping, _outcome_table, _own_layout
from humeval.data.tables import Comparisons
from humeval.errors import InputError

SCHEME = "duckdb://"
BATCH_ROWS = 1 << 20  # rows per record batch: a few tens of MB of codes, whatever the dataset's size
UNITS = ("judge", "item", "group")  # the columns a bootstrap resamples by, kept only on request
EXTRA_KEYS = ("weight", "category")  # column keys beyond the pairwise reader's
ENGINES = ("auto", "arrow", "duckdb")
MERGE_ROWS = 1 << 18  # partial tables are merged when they add up to more rows than this (a few MB)
READAHEAD = 4  # batches and files read ahead: memory stays a few batches, whatever the dataset


def is_dataset(path) -> bool:
    """Whether ``path`` names a dataset rather than one file: a ``duckdb://`` address, a
    directory, or a glob pattern (``*``, ``?``, ``[``) that is not itself an existing file."""
    text = str(path)
    if text.startswith(SCHEME):
        return True
    if os.path.isdir(text):
        return True
    return any(c in text for c in "*?[") and not os.path.exists(text)


def read_dataset(path, format: str | None = None, columns: dict | None = None, outcomes: dict | None = None,
                 encoding: str = "utf-8", keep=(), sql: str | None = None, engine: str = "auto",
                 batch_rows: int = BATCH_ROWS, weight: str | None = None, category: str | None = None,
                 covariates=None, style=False) -> Judgments:
    """Read a dataset of pairwise judgments as weighted distinct comparisons (see the module doc).

    ``path``: a directory of Parquet or CSV/TSV files (hive partitions ``key=value/`` become
    columns), a glob (``battles/**/*.parquet``), a DuckDB database file with ``sql``, or
    ``duckdb:///path.db?query=SELECT …`` (or ``?table=NAME``). ``sql`` on Parquet/CSV files runs
    on a view named ``battles`` over them. ``columns`` maps humeval's keys (the pairwise reader's,
    plus ``weight`` and ``category``) to the data's columns; ``weight=``/``category=`` name
    those columns as the pairwise reader's options do (humeval's own layout finds its ``weight``,
    ``category`` and ``bothbad`` columns by name); ``outcomes`` adds outcome labels.
    ``keep`` names the unit columns (judge, item, group) to keep. ``engine``: ``arrow`` (record
    batches), ``duckdb`` (its GROUP BY), or ``auto`` (DuckDB for SQL and ``duckdb://``, arrow
    otherwise)."""
    if format not in (None, "pairwise"):
        raise InputError(path, None, f"format {format} cannot be streamed: a dataset is read as pairwise judgments",
                         "read the files one by one, or drop --format")
    if covariates or style:
        raise InputError(path, None, "covariates (style control) make every comparison distinct, so they cannot "
                         "be reduced to counts while streaming", "read the files in memory (one file at a time) "
                         "for covariates")
    if engine not in ENGINES:
        raise InputError(path, None, f"unknown engine {engine!r}", f"use one of {', '.join(ENGINES)}")
    keep = tuple(keep or ())
    wrong = [k for k in keep if k not in UNITS]
    if wrong:
        raise InputError(path, None, f"keep= names {', '.join(wrong)}", f"the unit columns are {', '.join(UNITS)}")
    columns = dict(columns or {})
    extra = {k: columns.pop(k) for k in EXTRA_KEYS if k in columns}
    extra.update({k: v for k, v in (("weight", weight), ("category", category)) if v})
    table = _outcome_table(outcomes, path)
    text = str(path)
    if text.startswith(SCHEME) or sql is not None or engine == "duckdb":
        return _read_duckdb(text, sql, columns, extra, table, keep, encoding, batch_rows)
    files, kind, base = dataset_files(text)
    dataset = _open(files, kind, base, encoding, text)
    mapping = _full_mapping(dataset.schema.names, columns, extra, keep, text)
    reducer = Reducer(text, table)
    where = _Places(kind)
    scanner = dataset.scanner(columns=sorted(set(mapping.values())), batch_size=batch_rows, use_threads=True,
                              batch_readahead=READAHEAD, fragment_readahead=READAHEAD)
    try:
        for tagged in scanner.scan_batches():
            batch = tagged.record_batch
            source = getattr(tagged.fragment, "path", text)
            reducer.add(batch, mapping, where.of(source, batch.num_rows))
    except pa.ArrowException as error:
        raise InputError(text, None, f"cannot be read ({shown(error)})", "check the files") from None
    what = f"{kind} dataset, {len(files):,} file{'s' if len(files) > 1 else ''}, streamed"
    return reducer.judgments(what)


def dataset_files(path: str) -> tuple[list[str], str, str]:
    """(files, kind, base directory) of a directory or glob: Parquet, CSV or TSV files, one kind;
    hidden files and names starting with ``_`` (``_SUCCESS``, ``_metadata``) left out."""
    if os.path.isdir(path):
        base = path
        found = _walk(path)
    else:
        base = _glob_base(path)
        found = sorted(p for p in globbing.glob(path, recursive=True) if os.path.isfile(p))
    found = [f for f in found if not any(part.startswith((".", "_")) for part in Path(f).relative_to(base).parts)]
    if not found:
        raise InputError(path, None, "no files match" if not os.path.isdir(path) else "the directory holds no files",
                         "check the path or pattern (quote a glob so that the shell leaves it to humeval)")
    kinds = {kind_of(f) for f in found}
    if kinds - {"parquet", "csv", "tsv"}:
        other = next(f for f in found if kind_of(f) not in ("parquet", "csv", "tsv"))
        raise InputError(other, None, "a dataset is Parquet, CSV or TSV files; this one is "
                         f"{kind_of(other).upper()}", "narrow the pattern to the data files")
    if len(kinds) > 1:
        raise InputError(path, None, f"the files mix {' and '.join(sorted(kinds))}",
                         "narrow the pattern to one kind, e.g. '*.parquet'")
    compressed = [f for f in found if f.lower().endswith(".gz") and kinds != {"parquet"}]
    if compressed:
        raise InputError(compressed[0], None, "gzip-compressed text cannot be streamed by partition",
                         "decompress the files, or convert them to Parquet")
    return found, kinds.pop(), base


MAX_DATASET_FILES = 100_000  # files of one directory dataset: more is a mistyped folder (`humeval info /`)


def _walk(path: str) -> list[str]:
    """The files under the directory ``path``, sorted, hidden ones (``.``, ``_``) left out; a
    directory that cannot be listed (no permission, gone while walking), or more than
    ``MAX_DATASET_FILES`` files, is an ``InputError``."""
    problems: list[OSError] = []
    found = []
    for root, dirs, files in os.walk(path, onerror=problems.append):
        if problems:
            break
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        found += [f for f in (os.path.join(root, name) for name in files) if os.path.isfile(f)]
        if len(found) > MAX_DATASET_FILES:
            raise InputError(path, None, f"the directory holds more than {MAX_DATASET_FILES:,} files",
                             "name the dataset's own folder, or a glob of its files (e.g. 'battles/**/*.parquet')")
    if problems:
        error = problems[0]
        raise InputError(path, None, f"cannot read the directory {error.filename} ({error.strerror})",
                         "check its permissions, or name a folder that holds only the dataset")
    return sorted(found)


def _glob_base(pattern: str) -> str:
    """The directory part of a glob before its first wildcard (the root of hive partitions)."""
    parts = Path(pattern).parts
    fixed = []
    for part in parts:
        if any(c in part for c in "*?["):
            break
        fixed.append(part)
    return str(Path(*fixed)) if fixed else "."


def _open(files: list[str], kind: str, base: str, encoding: str, path: str) -> ds.Dataset:
    """A pyarrow dataset over ``files``; hive partition directories become dictionary columns;
    Parquet text columns come dictionary-encoded, CSV cells all as text."""
    partitioning = ds.HivePartitioning.discover(infer_dictionary=True)
    try:
        if kind == "parquet":
            first = ds.dataset(files[0], format="parquet").schema
            text = [f.name for f in first if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
            fmt = ds.ParquetFileFormat(read_options=ds.ParquetReadOptions(dictionary_columns=text))
        else:
            delimiter = "\t" if kind == "tsv" else ","
            with open(files[0], encoding=encoding, newline="") as handle:
                header = next(csv.reader([handle.readline().rstrip("\r\n")], delimiter=delimiter))
            fmt = ds.CsvFileFormat(parse_options=pacsv.ParseOptions(delimiter=delimiter),
                                   read_options=pacsv.ReadOptions(encoding=encoding),
                                   convert_options=pacsv.ConvertOptions(column_types={h: pa.string() for h in header},
                                                                        strings_can_be_null=True))
        return ds.dataset(files, format=fmt, partitioning=partitioning, partition_base_dir=base)
    except (pa.ArrowException, OSError, UnicodeDecodeError, StopIteration) as error:
        raise InputError(path, None, f"cannot be opened as a {kind} dataset ({shown(error)})",
                         "check that every file is readable and has the same columns") from None


def _full_mapping(names: list[str], columns: dict, extra: dict, keep: tuple, path: str) -> dict[str, str]:
    """humeval key -> the data's column: the pairwise layouts under ``columns``, plus ``extra``
    (weight, category); unit columns only when kept."""
    absent = [f"{k}={v}" for k, v in extra.items() if v not in names]
    if absent:
        raise InputError(path, 1, f"columns= names {shown(', '.join(absent))}, not in the data "
                         f"(columns: {shown(', '.join(names))})", COLUMNS_FIX)
    mapping = {**_mapping(names, columns, path), **extra}
    if _own_layout(mapping):  # what humeval convert writes: its arena columns too
        mapping.update({k: k for k in ("weight", "category", "bothbad") if k in names and k not in mapping})
    missing = [u for u in keep if u not in mapping]
    if missing:
        raise InputError(path, None, f"asked to keep {', '.join(missing)} but the data has no such column "
                         f"(columns: {shown(', '.join(names))})", f"map it: columns={{'{missing[0]}': COLUMN}}")
    return {k: v for k, v in mapping.items() if k not in UNITS or k in keep}


class _Places:
    """Where a batch's rows are: per file, the number of the batch's first row (file line for
    CSV/TSV, 1-based row for Parquet)."""

    def __init__(self, kind: str):
        self.kind, self.seen = kind, {}

    def of(self, source: str, rows: int) -> tuple[str, int, str]:
        start = self.seen.get(source, 0)
        self.seen[source] = start + rows
        first = start + (2 if self.kind in ("csv", "tsv") else 1)
        return source, first, "line" if self.kind in ("csv", "tsv") else "row"


def local_codes(column: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """A batch column as (indices into its own dictionary, the dictionary); a null is index
    ``len(dictionary)``. Parquet text read as dictionaries costs nothing here; other columns
    are dictionary-encoded by arrow (numbers become text, as the in-memory readers make them)."""
    if not pa.types.is_dictionary(column.type):
        if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
            column = column.cast(pa.string())
        column = pc.dictionary_encode(column)
    indices = column.indices
    if indices.null_count:
        indices = pc.fill_null(indices, len(column.dictionary))
    return indices.to_numpy(zero_copy_only=False), column.dictionary


class Labels:
    """A running dictionary of labels: code = order of first sight; ``-1`` for null or blank."""

    def __init__(self):
        self.index: dict[str, int] = {}
        self.names: list[str] = []

    def lookup(self, dictionary: pa.Array) -> np.ndarray:
        """Codes of a batch's dictionary entries, and −1 for its null slot after them."""
        labels = dictionary.cast(pa.string()).to_pylist()
        return np.fromiter((*map(self._code, labels), -1), dtype=np.int64, count=len(labels) + 1)

    def _code(self, label) -> int:
        if label is None or not label.strip():
            return -1
        code = self.index.get(label)
        if code is None:
            code = self.index[label] = len(self.names)
            self.names.append(label)
        return code

    def sorted(self) -> tuple[tuple[str, ...], np.ndarray]:
        """The labels sorted, and old code -> new code (index -1 stays -1)."""
        order = np.argsort(np.array(self.names, dtype=object), kind="stable") if self.names else np.zeros(0, int)
        recode = np.empty(len(self.names) + 1, dtype=np.int64)
        recode[order], recode[-1] = np.arange(len(order)), -1
        return tuple(self.names[i] for i in order), recode


class Reducer:
    """Adds record batches up into weighted distinct comparisons (see the module doc).

    A batch is counted in its own dictionaries' codes first (a mixed-radix key over the batch's
    dictionary indices, ``bincount``), so the per-row work is a few integer operations; only its
    distinct cells are then translated to the running labels, checked and kept."""

    CODED = {"track": "tracks", "category": "categories", "judge": "judges", "item": "items",
             "judge_kind": "judge_kinds"}

    def __init__(self, path: str, outcomes: dict[str, int]):
        self.path, self.outcomes = path, outcomes
        self.systems = Labels()
        self.labels = {name: Labels() for name in self.CODED}
        self.parts: list[tuple[dict[str, np.ndarray], np.ndarray]] = []
        self.held = self.merged = 0
        self.rows = 0
        self.report = ReadReport(path, "pairwise", unit="row")

    def add(self, batch: pa.RecordBatch, mapping: dict[str, str], place=None, rows: np.ndarray | None = None) -> None:
        """Code, check and count one batch (``place`` = (file, number of its first row, unit));
        ``rows``: how many input rows each batch row stands for (a pre-aggregated batch), else 1."""
        n = batch.num_rows
        if n == 0:
            return
        self.rows += n if rows is None else int(rows.sum())
        column = lambda key: batch.column(batch.schema.get_field_index(mapping[key]))
        keys = [k for k in ("a", "b", "outcome", "bothbad", "track", "category", "judge_kind", "judge", "item",
                            "group") if k in mapping]
        local = {k: local_codes(column(k)) for k in keys}
        weight = None
        if "weight" in mapping:  # a missing weight: the row is skipped and counted, as the file reader does
            weight = _weights(column("weight"), self.path, place)
            missing = np.isnan(weight)
            if missing.any():
                self.report.skip(f"rows without a weight ({shown(mapping['weight'])})",
                                 int(missing.sum() if rows is None else rows[missing].sum()))
                weight = np.where(missing, 0.0, weight)
        if weight is None:
            cells, counts = reduce_rows({k: v[0] for k, v in local.items()}, rows, offset=0)
            totals = counts
        else:
            cells, counts, totals = reduce_rows({k: v[0] for k, v in local.items()}, rows, offset=0, extra=weight)
        # the cells in running codes (outcome and both-bad flag in one: 2·outcome + bothbad)
        lookup = self.systems.lookup(local["a"][1]), self.systems.lookup(local["b"][1])
        a, b = lookup[0][cells["a"]], lookup[1][cells["b"]]
        code, bad = self._outcomes(local["outcome"], place)
        outcome = code[cells["outcome"]]
        bad = bad[cells["outcome"]]
        if "bothbad" in local:  # humeval's own layout: a flag column beside outcome 0
            bad = bad | (_flags(local["bothbad"][1])[cells["bothbad"]] & (outcome == 0))
        cols = {"a": a, "b": b, "outcome": outcome * 2 + bad}
        for key in ("track", "category", "judge_kind", "judge", "item"):
            if key in local:
                cols[key] = self.labels[key].lookup(local[key][1])[cells[key]]
        if "group" in local:
            cols["group"] = _group_ids(local["group"][1], self.path, place)[cells["group"]]
        checks = (("rows without an outcome", outcome < 0), ("rows without both system names", (a < 0) | (b < 0)),
                  ("rows comparing a system with itself", (a == b) & (a >= 0)))
        keep = np.ones(len(a), dtype=bool)
        for reason, wrong in checks:
            wrong = wrong & keep
            if wrong.any():
                self.report.skip(reason, int(counts[wrong].sum()))
                keep &= ~wrong
        keep &= totals > 0  # a weight of 0 counts nothing
        self._hold({k: v[keep] for k, v in cols.items()}, totals[keep])

    def _outcomes(self, local, place) -> tuple[np.ndarray, np.ndarray]:
        """Per entry of the batch's outcome dictionary (and its null slot): the code 0/1/2
        (−1 missing) and the both-bad flag; numbers are labels too ("1", "1.0"); an unknown
        label is an error naming its row."""
        indices, dictionary = local
        labels = dictionary.cast(pa.string()).to_pylist()
        code = np.full(len(labels) + 1, -1, dtype=np.int64)
        bad = np.zeros(len(labels) + 1, dtype=np.int64)
        for i, label in enumerate(labels):
            code[i] = self._outcome(label, indices, i, place)
            bad[i] = label is not None and label.strip().lower() in BOTHBAD and code[i] == 0
        return code, bad

    def _outcome(self, label, indices, i, place) -> int:
        key = "" if label is None else label.strip().lower()
        if key in self.outcomes:
            return self.outcomes[key]
        try:
            number = float(key) if key else math.nan
        except ValueError:
            number = None
        if number is not None and math.isnan(number):
            return -1
        if number is not None and number.is_integer() and str(int(number)) in self.outcomes:
            return self.outcomes[str(int(number))]
        source, line, row = self.path, None, ""
        if place is not None:
            source, first, unit = place
            at = first + int(np.argmax(indices == i))
            line, row = (at, "") if unit == "line" else (None, f" (row {at})")
        known = sorted({k for k in self.outcomes if k})
        raise InputError(source, line, f"outcome '{shown(label)}' is not one of {shown(known)}{row}",
                         "pass outcomes={label: 0 tie / 1 a wins / 2 b wins} (CLI: --outcomes LABEL=N,…)")

    def _hold(self, cols: dict[str, np.ndarray], weight: np.ndarray) -> None:
        self.parts.append((cols, weight))
        self.held += len(weight)
        if self.held > max(MERGE_ROWS, 2 * self.merged) and len(self.parts) > 1:
            self.parts = [reduce_rows(*_stack(self.parts))]
            self.held = self.merged = len(self.parts[0][1])  # many distinct rows: merge less often

    def judgments(self, what: str) -> Judgments:
        """The weighted comparisons read so far, labels sorted, with the read report."""
        report = self.report
        report.detail, report.rows = what, self.rows
        if self.rows == 0:
            raise InputError(self.path, None, "the data has no rows", "check the files or the query")
        if not self.parts:
            return nonempty(Judgments(report, comparisons=Comparisons(a=np.zeros(0, np.int32), b=np.zeros(0, np.int32),
                                                                       outcome=np.zeros(0, np.int8))))
        cols, weight = reduce_rows(*_stack(self.parts)) if len(self.parts) > 1 else self.parts[0]
        systems, recode = self.systems.sorted()
        kwargs = {"a": recode[cols["a"]], "b": recode[cols["b"]], "systems": systems,
                  "outcome": (cols["outcome"] // 2).astype(np.int8), "bothbad": cols["outcome"] % 2 == 1,
                  "weight": weight}
        for key, label_set in self.CODED.items():
            if key in cols:
                names, recode = self.labels[key].sorted()
                kwargs[key], kwargs[label_set] = recode[cols[key]], names
        if "group" in cols:
            kwargs["group"] = cols["group"]
        comparisons = Comparisons(**kwargs)
        kept = [k for k in UNITS if k in cols]
        report.notes.append(f"streamed {self.rows:,} rows into {len(comparisons):,} distinct comparisons "
                            f"(weight = rows each stands for{'; kept ' + ', '.join(kept) if kept else ''})")
        return nonempty(Judgments(report, comparisons=comparisons))


def reduce_rows(cols: dict[str, np.ndarray], weight: np.ndarray | None, offset: int = 1, extra=None):
    """The distinct rows of the integer columns ``cols`` (codes ≥ −``offset``) and the summed
    ``weight`` of each (the row count when None); rows of weight 0 vanish. With ``extra`` (a
    second per-row array) its sums over the same rows come third. Rows are coded by a
    mixed-radix key and counted with ``bincount`` when the key space is small, else ``unique``."""
    shifted = [v.astype(np.int64) + offset if offset else v for v in cols.values()]
    n = len(shifted[0])
    if n == 0:
        empty = {k: v[:0] for k, v in cols.items()}, np.zeros(0)
        return empty if extra is None else (*empty, np.zeros(0))
    radix = [int(v.max()) + 1 for v in shifted]
    space = math.prod(radix)
    if space >= 2 ** 62:  # too many combinations for one int64 key: sort the rows themselves
        rows, inverse = np.unique(np.stack(shifted, axis=1), axis=0, return_inverse=True)
        inverse, size = inverse.ravel(), len(rows)
    else:
        key = shifted[0].astype(np.int64)
        for v, r in zip(shifted[1:], radix[1:]):
            key *= r
            key += v
        if space <= max(1 << 22, 4 * n):  # counting sort: no sort at all
            inverse, size = key, space
        else:
            distinct, inverse = np.unique(key, return_inverse=True)
            size = len(distinct)
    counts = np.bincount(inverse, weights=weight, minlength=size)
    cells = np.flatnonzero(counts)
    sums = None if extra is None else np.bincount(inverse, weights=extra, minlength=size)[cells]
    if space >= 2 ** 62:
        out = {k: rows[cells, j] - offset for j, k in enumerate(cols)}
    else:
        code = cells if size == space else distinct[cells]
        out = {}
        for name, r in reversed(list(zip(cols, radix))):
            code, digit = np.divmod(code, r)
            out[name] = digit - offset
        out = {k: out[k] for k in cols}
    counts = counts[cells].astype(np.float64)
    return (out, counts) if extra is None else (out, counts, sums)


def _stack(parts):
    names = list(parts[0][0])
    return ({k: np.concatenate([p[0][k] for p in parts]) for k in names},
            np.concatenate([p[1] for p in parts]))


def _weights(column: pa.Array, path: str, place) -> np.ndarray:
    """A weight column as floats, NaN where it is missing (null or NaN: the caller skips those
    rows); a negative or infinite weight, or text, is an error naming its row."""
    try:
        values = column.cast(pa.float64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        values = None
    bad = np.ones(len(column), dtype=bool) if values is None else ~(np.isnan(values) | (np.isfinite(values)
                                                                                       & (values >= 0)))
    if bad.any():
        i = int(np.argmax(bad))
        source, first, unit = place or (path, None, "row")
        at = None if first is None else first + i
        raw = column[i].as_py()
        raise InputError(source, at if unit == "line" else None,
                         f"weight '{shown(raw)}' is not a number ≥ 0{f' (row {at})' if unit == 'row' else ''}",
                         "fix the weight, or map another column as weight")
    return values


def _flags(dictionary: pa.Array) -> np.ndarray:
    """A both-bad flag column's dictionary as 0/1 (true, 1, yes count; the null slot is 0)."""
    labels = dictionary.cast(pa.string()).to_pylist()
    return np.array([str(x).strip().lower() in TRUE for x in labels] + [False], dtype=np.int64)


def _group_ids(dictionary: pa.Array, path: str, place) -> np.ndarray:
    """The group ids of a batch's group dictionary as whole numbers, −1 for empty and the null slot."""
    try:
        values = dictionary.cast(pa.string()).cast(pa.int64()).fill_null(-1).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        source = place[0] if place else path
        raise InputError(source, None, "the group column holds values that are not whole numbers",
                         "fix them, or do not keep group") from None
    return np.append(values, -1)


# -- DuckDB ---------------------------------------------------------------------------------------

def parse_address(address: str) -> tuple[str, str | None]:
    """``duckdb:///path.db?query=SQL`` (or ``?table=NAME``) -> (database path, SQL or None).
    The query may be percent-encoded; ``+`` stays a plus (SQL needs it)."""
    rest = address[len(SCHEME):]
    database, _, query = rest.partition("?")
    if database.startswith("/") and re.match(r"^/[A-Za-z]:", database):  # duckdb:///C:/x.db
        database = database[1:]
    database = unquote(database)
    if not query:
        return database, None
    key, _, value = query.partition("=")
    value = unquote(value)
    if key == "query":
        return database, value
    if key == "table":
        return database, f'SELECT * FROM "{value}"'
    raise InputError(address, None, f"unknown parameter {key!r} in the address",
                     "write duckdb:///path.db?query=SELECT … or duckdb:///path.db?table=NAME")


def _connect(path: str, sql: str | None, encoding: str):
    """A DuckDB connection and the SQL of the rows to read."""
    try:
        import duckdb
    except ImportError:
        raise InputError(path, None, "reading a DuckDB database or SQL needs the duckdb package",
                         "pip install 'humeval[scale]' (or pip install duckdb)") from None
    if path.startswith(SCHEME):
        database, query = parse_address(path)
        sql = sql or query
        if not sql:
            raise InputError(path, None, "the address names no query or table",
                             "add ?query=SELECT … or ?table=NAME, or pass --sql")
        return _database(duckdb, database), read_only(duckdb, sql, path), duckdb
    if sql is not None:
        read_only(duckdb, sql, path)
    if os.path.isfile(path) and kind_of(path) not in ("parquet",) and is_duckdb_file(path):
        if not sql:
            raise InputError(path, None, "a DuckDB database needs a query", "pass sql= (CLI: --sql 'SELECT …')")
        return _database(duckdb, path), sql, duckdb
    files, kind, base = dataset_files(path) if is_dataset(path) else ([path], kind_of(path), os.path.dirname(path))
    connection = _quiet(duckdb.connect())
    listed = "[" + ", ".join("'" + f.replace("'", "''") + "'" for f in files) + "]"
    if kind == "parquet":
        source = f"read_parquet({listed}, hive_partitioning = true)"
    else:
        if encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
            raise InputError(path, None, "DuckDB reads UTF-8 text only", "convert the files to UTF-8")
        delimiter = "\\t" if kind == "tsv" else ","
        source = f"read_csv({listed}, header = true, all_varchar = true, delim = E'{delimiter}', " \
                 "hive_partitioning = true)"
    connection.execute(f"CREATE VIEW battles AS SELECT * FROM {source}")
    return connection, sql or "SELECT * FROM battles", duckdb


def read_only(duckdb, sql: str, path) -> str:
    """``sql`` when it is one query that only reads (SELECT, WITH … SELECT, FROM …, VALUES,
    DESCRIBE, SUMMARIZE: DuckDB's parser says SELECT); anything else (COPY … TO, ATTACH, INSTALL,
    LOAD, CREATE, INSERT, SET, PRAGMA, EXPORT, several statements) is an ``InputError`` before it
    runs, so reading never writes a file or changes a database."""
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as error:
        raise InputError(path, None, f"the SQL does not parse: {shown(str(error).splitlines()[0])}",
                         "check the query") from None
    kinds = [str(s.type).rsplit(".", 1)[-1] for s in statements]
    if kinds != ["SELECT"]:
        what = "no statement" if not kinds else (f"{len(kinds)} statements" if len(kinds) > 1 else kinds[0])
        raise InputError(path, None, f"--sql reads with one query (SELECT, WITH …, FROM …); this is {what}",
                         "give one SELECT query: COPY, ATTACH, INSTALL, CREATE and other statements that write "
                         "or change anything are refused")
    return sql


def is_duckdb_file(path) -> bool:
    """Whether ``path`` is a DuckDB database (its header carries the magic bytes DUCK at 8)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(12)[8:12] == b"DUCK"
    except OSError:
        return False


def _quiet(connection):
    """No progress bar: DuckDB draws one on stdout for long queries otherwise."""
    connection.execute("SET enable_progress_bar = false")
    connection.execute("SET autoinstall_known_extensions = false")  # reading never downloads
    return connection


def _database(duckdb, database: str):
    if not os.path.isfile(database):
        raise InputError(database, None, "no such DuckDB database", "check the path")
    try:
        return _quiet(duckdb.connect(database, read_only=True))
    except duckdb.Error as error:
        raise InputError(database, None, f"cannot be opened as a DuckDB database ({shown(error)})",
                         "check the file") from None


def _read_duckdb(path, sql, columns, extra, table, keep, encoding, batch_rows) -> Judgments:
    """DuckDB's GROUP BY over the query's mapped columns, then the same coding and checks."""
    connection, sql, duckdb = _connect(path, sql, encoding)
    try:
        names = connection.sql(sql).columns
        mapping = _full_mapping(list(names), columns, extra, keep, path)
        quoted = lambda name: '"' + name.replace('"', '""') + '"'
        keys = [k for k in mapping if k != "weight"]
        select = ", ".join(f"CAST({quoted(mapping[k])} AS VARCHAR) AS {k}" if k != "group"
                           else f"{quoted(mapping[k])} AS {k}" for k in keys)
        if "weight" in mapping:
            raw = quoted(mapping["weight"])
            w = f"TRY_CAST({raw} AS DOUBLE)"
            missing = f"({raw} IS NULL OR isnan({w}))"  # skipped and counted, as the file reader does
            bad = f"(({raw} IS NOT NULL AND {w} IS NULL) OR {w} < 0 OR isinf({w}))"
            total = (f"SUM(CASE WHEN {missing} THEN 0 ELSE {w} END) AS weight, "
                     f"COALESCE(BOOL_OR({bad}), false) AS bad_weight, COUNT(*) FILTER (WHERE {missing}) AS missing_weight")
        else:
            total = "COUNT(*) AS weight, false AS bad_weight, 0 AS missing_weight"
        grouped = connection.sql(f"SELECT {select}, {total}, COUNT(*) AS rows FROM ({sql}) AS source GROUP BY ALL")
        # to_arrow_reader is DuckDB 2's name; 1.x has fetch_arrow_reader (deprecated in 2), same reader
        reader = (getattr(grouped, "to_arrow_reader", None) or grouped.fetch_arrow_reader)(batch_rows)
        reducer = Reducer(path, table)
        mapping_weight = mapping.get("weight")
        mapping = {k: k for k in [*keys, "weight"]}
        for batch in reader:
            rows = batch.column(batch.schema.get_field_index("rows")).to_numpy(zero_copy_only=False)
            bad = batch.column(batch.schema.get_field_index("bad_weight")).to_numpy(zero_copy_only=False)
            if bad.any():
                raise InputError(path, None, f"the weight column {mapping_weight!r} holds negative, infinite or "
                                 "non-numeric values", "fix the weights, or map another column as weight")
            missing = batch.column(batch.schema.get_field_index("missing_weight")).to_numpy(zero_copy_only=False)
            reducer.report.skip(f"rows without a weight ({shown(mapping_weight)})", int(missing.sum()))
            reducer.add(batch, mapping, None, rows)
    except duckdb.Error as error:
        raise InputError(path, None, f"DuckDB cannot run the query ({shown(error)})", "check the SQL") from None
    finally:
        connection.close()
    return reducer.judgments("DuckDB query, reduced by GROUP BY")
