"""Getting text out of a user's file, with errors that name the file and the line."""

from __future__ import annotations

import codecs
import gzip
import io
import math
import tarfile
from pathlib import Path

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


def read_bytes(path) -> bytes:
    """The file's bytes; ``.gz`` is decompressed and a ``.tar.gz`` holding one file is opened."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, None, "no such file", "check the path")
    if path.is_dir():
        raise InputError(path, None, "is a folder, not a file", "name a file inside it")
    name = path.name.lower()
    try:
        if name.endswith((".tar.gz", ".tgz")):
            with tarfile.open(path) as tar:
                members = [m for m in tar.getmembers() if m.isfile()]
                if len(members) != 1:
                    raise InputError(path, None, f"the archive holds {len(members)} files, expected one",
                                     "extract it and read the file you want")
                data = tar.extractfile(members[0]).read()
        elif name.endswith(".gz"):
            data = gzip.decompress(path.read_bytes())
        else:
            data = path.read_bytes()
    except (OSError, EOFError, tarfile.TarError) as error:
        raise InputError(path, None, f"cannot be read as a compressed file ({error})",
                         "check that it is not truncated, or remove the .gz ending if it is plain text")
    if is_blank(data):
        raise InputError(path, None, "the file is empty", "check that the export finished")
    return data


def is_blank(data: bytes) -> bool:
    """Nothing but white space, NUL bytes and byte-order marks."""
    return not data.strip(b"\x00\r\n\t\x0b\x0c " + b"".join(b for b, _ in BOMS))


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
    check_header(text.split("\n", 1)[0], path, codec)
    return text


def check_header(header: str, path, codec: str = "utf-8") -> None:
    """A first line holding NUL bytes or replacement characters was decoded with the wrong codec."""
    bad = header.count("\x00") + header.count("\ufffd")
    if bad and bad >= max(1, len(header) // 10):
        raise InputError(path, 1, f"the header '{shown(header, 60)}' holds {bad} NUL or replacement characters: "
                         f"the file is not {codec} (a UTF-16 file without a byte-order mark?)",
                         "check the file's encoding and pass encoding= (CLI: --encoding), e.g. utf-16-le")


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
    return text.removeprefix("\ufeff")


def first_line(data: bytes, encoding: str = "utf-8") -> str:
    return head_text(data, encoding).split("\n", 1)[0].rstrip("\r")


def finite_number(text: str, missing, path, line: int, what: str, expected: str, fix: str) -> float | None:
    """A cell's number: None when it is one of the ``missing`` markers, an error naming the line
    when it is not a finite number (NaN and inf are never scores)."""
    if text in missing:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise InputError(path, line, f"{what} is {text!r}, expected {expected}", fix)
    return value


def csv_rows(reader, width: int, report, path, fix: str):
    """(line, fields) of each data row of a ``csv.reader`` whose header has ``width`` fields: blank
    lines skipped and counted, a row of another width an error naming its line (``fix``: what to
    look for), every row read counted in ``report.rows``."""
    for fields in reader:
        line = reader.line_num
        if not fields or all(not f.strip() for f in fields):
            report.skip("blank lines", lines=[line])
            continue
        if len(fields) != width:
            raise InputError(path, line, f"{len(fields)} fields, expected {width} as in the header", fix)
        report.rows += 1
        yield line, fields
