"""Loading tabular files through pyarrow, and integer-coding arrow columns."""

from __future__ import annotations

import csv
import io
import json
import os
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.json as pajson
import pyarrow.parquet as pq

from humeval.data.readers._io import (
    check_json_depth,
    check_header,
    check_names,
    check_path,
    decode,
    encoding_of,
    read_bytes,
    records,
    shown,
    until_newline,
)
from humeval.data.readers._sort import sort_order
from humeval.errors import InputError


def kind_of(path, encoding: str = "utf-8") -> str:
    """csv, tsv, jsonl, json or parquet, from the file name (a .gz ending is looked through); a
    .json file whose text (in ``encoding``, or the one its byte-order mark names) starts with "["
    is one JSON array of records ("json", as FastChat's clean_battle files are), any other .json
    is read as JSON lines."""
    name = Path(path).name.lower().removesuffix(".gz")
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    if name.endswith(".json") and _starts_with_bracket(path, encoding):
        return "json"
    if name.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    if name.endswith((".tsv", ".tab")):
        return "tsv"
    return "csv"


def _starts_with_bracket(path, encoding: str = "utf-8") -> bool:
    """Whether the file's first non-blank character is "[" (False when it cannot be read); a
    byte-order mark (UTF-8, UTF-16, UTF-32) or ``encoding`` says how to decode the first bytes."""
    import gzip
    if not os.path.isfile(path):  # a FIFO or a device is refused by the reader, never opened here
        return False
    try:
        opener = gzip.open if str(path).lower().endswith(".gz") else open
        with opener(path, "rb") as handle:
            head = handle.read(4096)
        text = head.decode(encoding_of(head, encoding), errors="ignore")
    except (OSError, EOFError, LookupError):
        return False
    return text.lstrip("\ufeff \t\r\n").startswith("[")


def first_row_line(kind: str) -> int:
    """The number of data row 0: its file line (CSV/TSV have a header line), or 1 for Parquet,
    which has no lines and counts rows from 1 (``unit``)."""
    return {"csv": 2, "tsv": 2}.get(kind, 1)


def unit(kind: str) -> str:
    """What ``first_row_line`` counts: file lines, rows of a Parquet file, or records of a JSON array."""
    return {"parquet": "row", "json": "record"}.get(kind, "line")


def place(kind: str, index: int) -> tuple[int | None, str]:
    """Where data row ``index`` (0-based) is, for an ``InputError``: its file line, or for
    Parquet (a JSON array) no line and " (row N)" (" (record N)"), 1-based, to add to the problem."""
    if kind in ("parquet", "json"):
        return None, f" ({unit(kind)} {index + 1})"
    return index + first_row_line(kind), ""


def check_columns(table: pa.Table, used, path) -> None:
    """The columns a reader uses exist once each and hold text or numbers, not lists or records."""
    names = table.column_names
    for name in used:
        if names.count(name) > 1:
            raise InputError(path, 1, f"column '{shown(name)}' appears {names.count(name)} times in the header",
                             "rename or remove the duplicate column")
        kind = table.schema.field(name).type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        if pa.types.is_nested(kind):
            raise InputError(path, None, f"column '{shown(name)}' holds {kind} values (lists or records), "
                             "expected text or numbers", "write one value per cell")


def user_columns(columns: dict | None, keys, names: list[str], kind: str, fix: str, path) -> dict[str, str]:
    """The user's ``columns=`` mapping, checked: every key is one of ``keys`` (the format's) and
    every column it names is in the file (``names``)."""
    given = dict(columns or {})
    unknown = [k for k in given if k not in keys]
    if unknown:
        raise InputError(path, None, f"columns= has unknown key(s) {', '.join(map(repr, unknown))}",
                         f"the keys of a {kind} file are {', '.join(keys)}")
    absent = [f"{k}={v}" for k, v in given.items() if v not in names]
    if absent:
        raise InputError(path, 1, f"columns= names {shown(', '.join(absent))}, not in the file "
                         f"(columns: {shown(', '.join(names))})", fix)
    return given


DELIMITERS = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|", "space": " "}


def delimiter_of(delimiter: str | None, kind: str, path) -> str:
    """The field delimiter: the user's (one character, or a name in ``DELIMITERS``), else a tab
    for TSV and a comma for CSV; a delimiter given for a JSON or Parquet file is an error."""
    if delimiter is None:
        return "\t" if kind == "tsv" else ","
    if kind not in ("csv", "tsv"):
        raise InputError(path, None, f"delimiter= does not apply to a {kind} file", "leave out --delimiter")
    value = DELIMITERS.get(str(delimiter).lower(), delimiter)
    if len(value) != 1 or value in "\"\r\n":
        raise InputError(path, None, f"delimiter {shown(delimiter)!r} is not one character",
                         "pass one character, or tab, comma, semicolon, pipe or space")
    return value


def load_table(path, kind: str, encoding: str = "utf-8", delimiter: str | None = None) -> pa.Table:
    """Read the whole file as an arrow table; text columns stay strings. ``delimiter``: the
    field delimiter of a CSV/TSV file (``delimiter_of``)."""
    delimiter = delimiter_of(delimiter, kind, path)
    if kind == "parquet":
        check_path(path)
        try:
            schema = pq.read_schema(path)
            text = [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
            # labels come out dictionary-encoded: no per-row Python strings, a fraction of the memory
            return pq.read_table(path, read_dictionary=text)
        except FileNotFoundError:
            raise InputError(path, None, "no such file", "check the path") from None
        except (pa.ArrowException, OSError) as error:
            raise InputError(path, None, f"not a readable Parquet file ({shown(error)})",
                             "check the file, or give a .csv/.jsonl name if it is text") from None
    data = read_bytes(path)
    if kind in ("csv", "tsv") and encoding_of(data, encoding) == "utf-8" and b"\n" in data:
        return _read_csv(data, path, delimiter, encoding)
    text = decode(data, path, encoding)  # locates bad bytes; arrow would only say "invalid"
    if encoding_of(data, encoding) != "utf-8" or "\n" not in text:  # another codec, a byte-order mark or
        data = text.encode("utf-8")  # CR-only line ends (decode made them LF): arrow reads UTF-8 lines
    if kind in ("json", "jsonl"):
        check_json_depth(data, path)  # before arrow's C parser, which a deep value crashes
    if kind == "json":
        return _json_array(text, path)
    buffer = io.BytesIO(data)
    if kind == "jsonl":
        try:
            return pajson.read_json(buffer)
        except pa.ArrowInvalid as error:
            _raise_json_error(path, text, error)
    return _read_csv(data, path, delimiter, encoding, text)


def _read_csv(data: bytes, path, delimiter: str, encoding: str, text: str | None = None) -> pa.Table:
    """CSV/TSV ``data`` (UTF-8 with LF line ends) through arrow's parser, every column a string.
    ``text``: the data decoded, or None when only the header line has been: arrow checks the
    rows' UTF-8 itself, and the whole text is decoded only to locate an error (``decode`` names
    the line and column of a bad byte)."""
    if text is None:
        try:
            head = data[:data.index(b"\n")].decode("utf-8")
        except UnicodeDecodeError:
            decode(data, path, encoding)  # raises, locating the byte
        check_header(head, path)
    else:
        head = until_newline(text)
    header = next(csv.reader([head.rstrip("\r")], delimiter=delimiter))
    check_names(header, path)
    try:
        table = pacsv.read_csv(  # a BufferReader hands arrow the bytes without the copy a BytesIO makes
            pa.BufferReader(pa.py_buffer(data)), parse_options=pacsv.ParseOptions(delimiter=delimiter),
            convert_options=pacsv.ConvertOptions(column_types={h: pa.string() for h in header},
                                                 strings_can_be_null=True))
    except pa.ArrowInvalid as error:
        _raise_csv_error(path, text if text is not None else decode(data, path, encoding), delimiter, len(header),
                         error)
    if b'"' in data and table.num_rows + 1 < data.count(b"\n"):  # fewer rows than lines: blank lines, quoted
        # line breaks, or a quote left open that swallowed the rest of the file (without a quote
        # character only blank lines: one memchr instead of counting the lines)
        _check_quotes(path, text if text is not None else decode(data, path, encoding), delimiter)
    return table


def _check_quotes(path, text: str, delimiter: str) -> None:
    """An ``InputError`` at the line where a quoted field starts that never closes (Python's csv
    in strict mode stops there) or that passes the csv field limit; line breaks inside closed
    quotes are text."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    for _ in records(reader, path, multiline=True):
        pass


def _json_array(text: str, path) -> pa.Table:
    """One JSON array of records as a table; nested records become struct columns (keys that
    only some records have are null in the others). The records are decoded one at a time and
    handed to arrow as JSON lines, so memory holds the text and the table, never a list of
    millions of Python dicts."""
    decoder = json.JSONDecoder()
    lines = []
    position = _SPACE.match(text, text.index("[") + 1).end()
    while position < len(text) and text[position] != "]":
        start = position
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as error:
            raise InputError(path, error.lineno, f"not valid JSON ({error.msg} at column {error.colno})",
                             "write one JSON array of records, or one record per line (.jsonl)") from None
        if not isinstance(value, dict):
            raise InputError(path, text.count("\n", 0, start) + 1, f"record {len(lines) + 1} of the JSON array is "
                             "not an object", "write one JSON array of records ({…}, {…})")
        lines.append(text[start:position].replace("\n", " ").replace("\r", " "))  # raw newlines only sit between tokens
        position = _SPACE.match(text, position).end()
        if position < len(text) and text[position] == ",":
            position = _SPACE.match(text, position + 1).end()
        elif position >= len(text) or text[position] != "]":
            raise InputError(path, text.count("\n", 0, position) + 1, "expected ',' or ']' after a record",
                             "check that the file is one complete JSON array")
    if not lines:
        return pa.table({})
    joined = "\n".join(lines)
    try:
        return pajson.read_json(io.BytesIO(joined.encode("utf-8")))
    except pa.ArrowInvalid as error:
        _raise_json_error(path, joined, error, unit="record")


_SPACE = re.compile(r"[ \t\r\n]*")


def _raise_csv_error(path, text, delimiter, width, error):
    for line, fields in records(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter), path):
        if fields and len(fields) != width:
            fix = "check the delimiters and quotes in this row"
            head = until_newline(text)
            if width == 1 and len(head.split()) == len(fields):  # WMT's *-good-stnd.csv: a spaced header, tabbed rows
                fix = (f"the header's names are separated by spaces and this row's fields by "
                       f"{'tabs' if delimiter == chr(9) else repr(delimiter)}: separate both the same way")
            raise InputError(path, line, f"{len(fields)} fields, expected {width} as in the header", fix)
    raise InputError(path, None, f"cannot be parsed as {'TSV' if delimiter == chr(9) else 'CSV'} ({shown(error)})",
                     "check the delimiters and quotes")


def _raise_json_error(path, text, error, unit: str = "line"):
    """The first line that is not a JSON object, or whose value of a key has another JSON type
    than on the first line that gave that key a value; else arrow's own message. With
    ``unit="record"`` the lines are the records of a JSON array, named by number."""
    if unit == "record":
        try:
            _raise_json_error(path, text, error)
        except InputError as found:
            where = f" (record {found.line})" if found.line else ""
            raise InputError(path, None, found.problem.replace(" on line ", " in record ") + where,
                             "give every record the same keys with the same types") from None
    seen: dict[str, tuple[str, int]] = {}
    from humeval.data.readers._jsonl import json_objects
    for number, value in json_objects(text, path, "one JSON object"):
        for key, cell in _fields(value):
            if cell is None:
                continue
            kind = _JSON_TYPES.get(type(cell), "number")
            first = seen.setdefault(key, (kind, number))
            if first[0] != kind:
                raise InputError(path, number, f"'{shown(key)}' is a {kind} here but a {first[0]} on line {first[1]}",
                                 "give every line the same keys with the same types")
    raise InputError(path, None, f"the JSON lines do not have consistent fields ({shown(error)})",
                     "give every line the same keys with the same types")


_JSON_TYPES = {str: "string", bool: "boolean", list: "list", dict: "record"}


def _fields(record: dict, prefix: str = ""):
    """(dotted key, value) of a record's fields and, inside nested records, of theirs (arrow
    infers one type per nested field too: conv_metadata.header_count_a.h1)."""
    for key, cell in record.items():
        yield prefix + str(key), cell
        if isinstance(cell, dict):
            yield from _fields(cell, f"{prefix}{key}.")


def dictionary_columns(table: pa.Table, names) -> pa.Table:
    """``table`` with the named text columns dictionary-encoded, several at once (arrow's
    hashing releases the GIL; as many threads as arrow's pool, ``pyarrow.cpu_count()``, which
    humeval's thread policy sets), so that ``encode_arrow`` only sorts each column's distinct
    labels. The values are unchanged: every reader of the table sees the same cells."""
    todo = [name for name in dict.fromkeys(names) if table.column_names.count(name) == 1
            and table.schema.field(name).type in (pa.string(), pa.large_string())]
    threads = min(len(todo), pa.cpu_count())
    if threads < 2:
        return table
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(threads) as pool:
        encoded = list(pool.map(lambda name: table[name].combine_chunks().dictionary_encode(), todo))
    for name, column in zip(todo, encoded):
        table = table.set_column(table.column_names.index(name), name, pa.chunked_array([column]))
    return table


def encode_arrow(*columns: pa.ChunkedArray) -> tuple[list[np.ndarray], tuple[str, ...]]:
    """Integer-code arrow columns against one shared sorted label tuple (null/blank -> -1).

    Each column is dictionary-encoded once (Parquet columns arrive that way and are only
    unified across chunks), and the labels are sorted and looked up by arrow's compute
    functions, so Python sees neither the rows nor, until the final tuple, the labels. A label
    of white space only is blank as ``str.strip`` says (the same characters trimmed); arrow
    sorts UTF-8 by bytes, which is Python's code-point order."""
    per_column = []
    for column in columns:
        if pa.types.is_dictionary(column.type):
            column = column.unify_dictionaries()
            dictionary = column.chunk(0).dictionary if column.num_chunks else pa.array([], pa.string())
            indices = pa.chunked_array([c.indices for c in column.chunks], type=column.type.index_type)
        else:
            encoded = (column.cast(pa.string()) if column.type != pa.string() else column).combine_chunks() \
                .dictionary_encode()
            dictionary, indices = encoded.dictionary, encoded.indices
        dictionary = dictionary.cast(pa.string())
        blank = pc.fill_null(pc.equal(pc.utf8_trim(dictionary, characters=_WHITE_SPACE), ""), True)
        if indices.null_count:
            indices = indices.fill_null(-1)  # -1 picks the -1 appended to the mapping below
        per_column.append((dictionary, blank, indices.to_numpy(zero_copy_only=False)))  # int32: gathered as is
    if len(per_column) == 1:
        coded = _encode_unique(*per_column[0])
        if coded is not None:
            return coded
    kept = [pc.filter(dictionary, pc.invert(blank)) for dictionary, blank, _ in per_column]
    names = pc.unique(pa.chunked_array(kept, type=pa.string()).combine_chunks()) if kept else pa.array([], pa.string())
    names = names.take(sort_order(names))
    codes = []
    for dictionary, blank, indices in per_column:
        position = pc.if_else(blank, None, pc.index_in(dictionary, value_set=names))
        mapping = np.append(pc.fill_null(position, -1).to_numpy(zero_copy_only=False), -1).astype(np.int32)
        codes.append(mapping[indices])
    return codes, tuple(names.to_pylist())


def _encode_unique(dictionary: pa.Array, blank: pa.Array, indices: np.ndarray):
    """``encode_arrow`` of one column whose dictionary holds each value once (what
    ``dictionary_encode`` makes, and most dictionaries read from files): the sorted labels are
    the dictionary sorted, and each entry's code is its rank among the kept entries, so no
    label is hashed again (an item column of 500,000 distinct ids took 0.6 s through the
    general path, most of it hashing). None when a value repeats (arrow allows that in a
    dictionary), for the general path."""
    order = sort_order(dictionary)
    ranked = dictionary.take(pa.array(order))
    if len(ranked) > 1 and pc.any(pc.equal(ranked.slice(1), ranked.slice(0, len(ranked) - 1))).as_py():
        return None
    keep = ~blank.to_numpy(zero_copy_only=False)[order]
    mapping = np.full(len(dictionary) + 1, -1, dtype=np.int32)  # the last -1 is picked by null rows (-1)
    mapping[order[keep]] = np.arange(int(keep.sum()), dtype=np.int32)
    return [mapping[indices]], tuple(ranked.filter(pa.array(keep)).to_pylist())


# the characters str.strip() removes, those for which str.isspace() is true (test_readers checks the list)
_WHITE_SPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
