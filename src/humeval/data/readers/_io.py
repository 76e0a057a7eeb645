"""Getting text out of a user's file, with errors that name the file and the line."""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import math
import os
import re
import stat
import tarfile
from pathlib import Path

import numpy as np

from humeval.errors import InputError

ENCODING_FIX = "save the file as UTF-8, or pass encoding= (CLI: --encoding) naming its real encoding"
SHOWN = 200  # characters of a user's text an error message echoes at most
# byte-order marks, longest first (the UTF-32 LE mark begins with the UTF-16 LE one)
BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def shown(text, limit: int | None = SHOWN) -> str:
    """``text`` as an error message may echo it: control characters and NUL escaped as repr
    escapes them (``\\x00``, ``\\x1b``; tab and newline too), cut to ``limit`` characters
    (``None``: not cut)."""
    text = str(text)
    limit = len(text) if limit is None else limit
    cut = len(text) > limit
    text = "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text[:limit])
    return text + (" …" if cut else "")


# Bounded decompression: a .gz / .tar.gz file may expand to at most MAX_EXPANDED bytes, and past
# RATIO_FLOOR bytes to at most MAX_RATIO times its compressed size (text compresses 3–20×; a
# "decompression bomb" of zeros 1,000×), so a small archive never fills the memory.
MAX_EXPANDED = 2 << 30
MAX_RATIO = 50
RATIO_FLOOR = 100 << 20
CHUNK = 16 << 20
# What a file that is not text starts with: (magic bytes, what it is, how to get text out of it)
MAGIC = ((b"PK\x03\x04", "a zip archive", "extract the file you want from it"),
         (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Excel (.xls) or other Office file",
          "open it in a spreadsheet program and save it as CSV (UTF-8)"),
         (b"\x1f\x8b", "gzip-compressed", "name it with a .gz ending (humeval decompresses .gz files) or gunzip it"),
         (b"BZh", "bzip2-compressed", "decompress it (bunzip2) first"),
         (b"\xfd7zXZ\x00", "xz-compressed", "decompress it (unxz) first"),
         (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", "extract the file you want from it"),
         (b"PAR1", "a Parquet file", "give it a .parquet ending"),
         (b"%PDF", "a PDF document", "export the table from the program that made it as CSV"))
XLSX = "an Excel workbook (.xlsx)"


def check_path(path) -> Path:
    """``path`` as a ``Path`` when it names a regular file (or a symbolic link to one) that can
    be opened; else an ``InputError``: a missing file, a folder, a FIFO, a device or a socket
    (reading a FIFO with no writer waits forever; /dev/zero never ends), a folder on the way
    that cannot be read, a symbolic-link loop."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise InputError(path, None, "no such file", "check the path") from None
    except PermissionError:
        raise InputError(path, None, "cannot be read: permission denied (on the file or a folder above it)",
                         "check the permissions (ls -l), or copy the file somewhere readable") from None
    except OSError as error:  # a symbolic-link loop, a name too long, …
        raise InputError(path, None, f"cannot be opened ({shown(error.strerror or error)})", "check the path") from None
    if stat.S_ISDIR(mode):
        if not os.access(path, os.R_OK | os.X_OK):
            raise InputError(path, None, "is a folder that cannot be read (permission denied)",
                             "check the folder's permissions, or name a file inside it")
        raise InputError(path, None, "is a folder, not a file", "name a file inside it")
    if not stat.S_ISREG(mode):
        what = ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
        raise InputError(path, None, f"is {what}, not a regular file: reading it may never end",
                         "save the data to a regular file and name that file")
    if not os.access(path, os.R_OK):
        raise InputError(path, None, "cannot be read: permission denied", "check the file's permissions (ls -l)")
    return path


def read_bytes(path) -> bytes:
    """The file's bytes; ``.gz`` is decompressed and a ``.tar.gz`` holding one file is opened,
    both bounded (``MAX_EXPANDED``, ``MAX_RATIO``). A file that is not text (a spreadsheet, an
    archive, a PDF) is refused by its first bytes, saying what it is."""
    path = check_path(path)
    name = path.name.lower()
    try:
        if name.endswith((".tar.gz", ".tgz")):
            with tarfile.open(path) as tar:
                members = [m for m in tar.getmembers() if m.isfile()]
                if len(members) != 1:
                    raise InputError(path, None, f"the archive holds {len(members)} files, expected one",
                                     "extract it and read the file you want")
                data = bounded_read(tar.extractfile(members[0]), path)
        elif name.endswith(".gz"):
            with gzip.open(path) as handle:
                data = bounded_read(handle, path)
        else:
            data = path.read_bytes()
    except (OSError, EOFError, tarfile.TarError, gzip.BadGzipFile) as error:
        raise InputError(path, None, f"cannot be read as a compressed file ({shown(error)})",
                         "check that it is not truncated, or remove the .gz ending if it is plain text")
    if is_blank(data):
        raise InputError(path, None, "the file is empty", "check that the export finished")
    check_magic(data, path)
    return data


def bounded_read(handle, path) -> bytes:
    """All of a decompressing ``handle``, refused once it passes ``MAX_EXPANDED`` bytes, or
    ``RATIO_FLOOR`` bytes and ``MAX_RATIO`` times the compressed file's size."""
    packed = max(os.path.getsize(path), 1)
    parts, total = [], 0
    while chunk := handle.read(CHUNK):
        total += len(chunk)
        if total > MAX_EXPANDED or (total > RATIO_FLOOR and total > MAX_RATIO * packed):
            raise InputError(path, None, f"the archive expands past {total:,} bytes from {packed:,} (limits: "
                             f"{MAX_EXPANDED:,} bytes, or {MAX_RATIO}× the compressed size past {RATIO_FLOOR:,} "
                             "bytes): a decompression bomb or a file too large to read whole",
                             "decompress it yourself and check what it holds; split a genuine large file")
        parts.append(chunk)
    return b"".join(parts)


def check_magic(data: bytes, path) -> None:
    """An ``InputError`` saying what the file is when its first bytes mark a spreadsheet, an
    archive or another binary format rather than text."""
    for magic, what, fix in MAGIC:
        if data.startswith(magic):
            if magic == b"PK\x03\x04" and b"xl/" in data[:1 << 16]:
                what, fix = XLSX, "open it in a spreadsheet program and save each sheet as CSV (UTF-8)"
            raise InputError(path, None, f"is {what}, not a text table", fix)


def is_blank(data: bytes) -> bool:
    """Nothing but white space, NUL bytes and byte-order marks (their bytes, in any order, as
    ``bytes.strip`` would remove them): a search for the first other byte, no copy of the data."""
    return _NOT_BLANK.search(data) is None


_NOT_BLANK = re.compile(b"[^" + re.escape(b"\x00\r\n\t\x0b\x0c " + bytes(set(b"".join(b for b, _ in BOMS)))) + b"]")


def is_utf8(encoding: str) -> bool:
    return encoding.lower().replace("_", "-") in ("utf-8", "utf8")


def check_encoding(encoding, path) -> str:
    """``encoding`` if Python knows it as a text codec, else an ``InputError``."""
    try:
        b"".decode(encoding)
    except (LookupError, TypeError):
        raise InputError(path, None, f"unknown encoding {shown(encoding)!r}",
                         "use a Python codec name such as latin-1 or utf-16") from None
    return encoding


def encoding_of(data: bytes, encoding: str = "utf-8") -> str:
    """The codec to decode ``data`` with: the one a byte-order mark names when the caller asked
    for the default (UTF-8), else the caller's."""
    if is_utf8(encoding):
        return next((codec for bom, codec in BOMS if data.startswith(bom)), "utf-8")
    return encoding


def decode(data: bytes, path, encoding: str = "utf-8") -> str:
    """Decode (a byte-order mark decides between UTF-8, UTF-16 and UTF-32 unless ``encoding``
    names another codec), turning a decoding error into the line and column of the offending
    byte, and a first line that looks mis-decoded (NUL bytes, replacement characters) into an
    error that says "encoding"."""
    codec = encoding_of(data, encoding)
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise InputError(path, line, f"not valid {codec}: byte 0x{data[error.start]:02x} at column {column} "
                         "(wrong encoding?)", ENCODING_FIX) from None
    except LookupError:  # not a codec, or not a text codec (rot13)
        raise InputError(path, None, f"unknown encoding {shown(encoding)!r}",
                         "use a Python codec name such as latin-1 or utf-16") from None
    text = text.removeprefix("\ufeff")
    if "\r" in text and "\n" not in text:  # CR-only line ends (classic Mac OS): one line end for every reader
        text = text.replace("\r", "\n")
    check_header(until_newline(text), path, codec)
    return text


def until_newline(text: str) -> str:
    """The text up to its first line feed (without copying the rest, as ``split`` would)."""
    end = text.find("\n")
    return text if end < 0 else text[:end]


def check_header(header: str, path, codec: str = "utf-8") -> None:
    """A first line holding NUL bytes or replacement characters was decoded with the wrong codec."""
    bad = header.count("\x00") + header.count("\ufffd")
    if bad and bad >= max(1, len(header) // 10):
        raise InputError(path, 1, f"the header '{shown(header, 60)}' holds {bad} NUL or replacement characters: "
                         f"the file is not {codec} (a UTF-16 file without a byte-order mark?)",
                         "check the file's encoding and pass encoding= (CLI: --encoding), e.g. utf-16-le")


FIELD_LIMIT = csv.field_size_limit()  # Python's csv refuses a longer field (131,072 characters)


def records(reader, path, multiline: bool = False):
    """(first line, fields) of each record of a ``csv.reader``, the header included. A record
    that ``csv`` cannot read (a field longer than ``FIELD_LIMIT``: a very long line, or an
    unbalanced quote that swallowed the rest of the file) is an ``InputError`` naming the line
    where the record starts; so is, unless ``multiline``, a record running over several lines
    with a line break inside a quoted field (a stray quote, or lines merged by re-saving a
    tab-separated file with commas), in formats whose fields hold no line breaks."""
    start = reader.line_num + 1
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise InputError(path, start, f"line {start} is longer than {FIELD_LIMIT:,} characters or has an "
                             f"unbalanced quote (the csv module stopped at line {reader.line_num}: {shown(error)})",
                             "close the quote (write a quote inside a field as \"\"), or shorten the line") from None
        if not multiline and any("\n" in f or "\r" in f for f in fields):  # also a quote open at the end
            raise InputError(path, start, f"a quoted field runs from line {start} over {reader.line_num - start + 1:,} "
                             "lines (this format's fields hold no line breaks): an unbalanced quote, or a "
                             "tab-separated file saved with commas", "close the quote (write a quote inside a field "
                             "as \"\"), or save the file with the delimiter its format uses")
        yield start, fields
        start = reader.line_num + 1


def check_names(names, path, line: int = 1) -> None:
    """A header whose column names repeat (empty names aside) is an ``InputError``: a reader
    would take one of the two columns and silently ignore the other."""
    seen = {}
    for name in names:
        key = str(name).strip().lower()
        if key:
            seen[key] = seen.get(key, 0) + 1
    repeated = [k for k, n in seen.items() if n > 1]
    if repeated:
        raise InputError(path, line, f"the header names column(s) {shown(', '.join(repeated))} more than once",
                         "rename or remove the duplicated column")


JSON_DEPTH = 64  # deepest nesting of JSON arrays and objects read (a judgments record needs 3 or 4)
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')


def check_json_depth(data: bytes, path, limit: int = JSON_DEPTH) -> None:
    """Refuse JSON nested deeper than ``limit`` arrays and objects before a parser sees it (a
    deeply nested value crashes a C parser, or exhausts Python's recursion). The brackets
    outside strings are counted, vectorised, a block of ``CHUNK`` bytes at a time."""
    if data.count(b"[") + data.count(b"{") <= limit:
        return
    bare = np.frombuffer(_JSON_STRING.sub(b'""', data), dtype=np.uint8)
    step = np.zeros(256, dtype=np.int8)
    step[[ord("["), ord("{")]] = 1
    step[[ord("]"), ord("}")]] = -1
    depth = 0
    for start in range(0, len(bare), CHUNK):
        steps = step[bare[start:start + CHUNK]]
        where = np.flatnonzero(steps)
        running = depth + np.cumsum(steps[where], dtype=np.int64)
        if len(running) and running.max() > limit:
            at = start + int(where[np.argmax(running > limit)])
            line = int(np.count_nonzero(bare[:at] == 10)) + 1
            raise InputError(path, line, f"JSON nested deeper than {limit} arrays or objects",
                             "flatten the value (a judgments record needs a few levels at most)")
        depth = int(running[-1]) if len(running) else depth


def read_text(path, encoding: str = "utf-8") -> str:
    return decode(read_bytes(path), path, encoding)


def text_stream(text: str) -> io.StringIO:
    """A stream for the csv module (newline='' keeps CRLF handling to csv)."""
    return io.StringIO(text, newline="")


def head_text(data: bytes, encoding: str = "utf-8", size: int = 4096) -> str:
    """The start of a file's bytes decoded as ``decode`` would, replacement characters where the
    head cuts a character or does not fit the codec."""
    codec = encoding_of(data, encoding)
    try:
        text = data[:size].decode(codec, errors="replace")
    except LookupError:
        text = data[:size].decode("utf-8", errors="replace")
    if "\r" in text and "\n" not in text:  # CR-only line ends, as ``decode`` reads them
        text = text.replace("\r", "\n")
    return text.removeprefix("\ufeff")


def first_line(data: bytes, encoding: str = "utf-8") -> str:
    return head_text(data, encoding).split("\n", 1)[0].rstrip("\r")


SCALE_LIMIT = 1e12  # no human score, rank, weight or count is larger: 1e308 would make a mean inf


def finite_number(text: str, missing, path, line: int, what: str, expected: str, fix: str) -> float | None:
    """A cell's number: None when it is one of the ``missing`` markers, an error naming the line
    when it is not a finite number (NaN and inf are never scores) or lies beyond ±``SCALE_LIMIT``."""
    if text in missing:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise InputError(path, line, f"{what} is {shown(text)!r}, expected {expected}", fix)
    if abs(value) > SCALE_LIMIT:
        raise InputError(path, line, out_of_scale(what, value), fix)
    return value


def out_of_scale(what: str, value: float) -> str:
    return f"{shown(what)} is {value:g}, beyond ±{SCALE_LIMIT:g}: out of scale for a judgment (a mean would overflow)"


def check_scale(values: np.ndarray, path, what: str, where) -> None:
    """An ``InputError`` at the first finite value beyond ±``SCALE_LIMIT``; ``where(index)``
    gives (line, text to add) of a row (``_arrow.place``)."""
    with np.errstate(invalid="ignore"):
        big = np.abs(values) > SCALE_LIMIT
    big &= np.isfinite(values)
    if big.any():
        first = int(np.argmax(big))
        line, row = where(first)
        raise InputError(path, line, out_of_scale(what, float(values[first])) + row,
                         "fix the value, or leave it empty to skip the row")


def csv_rows(reader, width: int, report, path, fix: str):
    """(line, fields) of each data row of a ``csv.reader`` whose header has ``width`` fields: blank
    lines skipped and counted, a row of another width an error naming its line (``fix``: what to
    look for), every row read counted in ``report.rows``."""
    for line, fields in records(reader, path):
        if not fields or all(not f.strip() for f in fields):
            report.skip("blank lines", lines=[line])
            continue
        if len(fields) != width:
            raise InputError(path, line, f"{len(fields)} fields, expected {width} as in the header", fix)
        report.rows += 1
        yield line, fields
