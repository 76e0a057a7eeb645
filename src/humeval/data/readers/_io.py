"""Getting text out of a user's file, with errors that name the file and the line."""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

from humeval.errors import InputError

ENCODING_FIX = "save the file as UTF-8, or pass encoding= (CLI: --encoding) naming its real encoding"


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
    if not data.strip():
        raise InputError(path, None, "the file is empty", "check that the export finished")
    return data


def decode(data: bytes, path, encoding: str = "utf-8") -> str:
    """Decode, turning a decoding error into the line and column of the offending byte."""
    try:
        return data.decode("utf-8-sig" if encoding.lower().replace("_", "-") == "utf-8" else encoding)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise InputError(path, line, f"not valid {encoding}: byte 0x{data[error.start]:02x} at column {column}",
                         ENCODING_FIX) from None
    except LookupError:
        raise InputError(path, None, f"unknown encoding {encoding!r}", "use a Python codec name such as latin-1")


def read_text(path, encoding: str = "utf-8") -> str:
    return decode(read_bytes(path), path, encoding)


def text_stream(text: str) -> io.StringIO:
    """A stream for the csv module (newline='' keeps CRLF handling to csv)."""
    return io.StringIO(text, newline="")


def first_line(data: bytes) -> str:
    head = data[:4096].split(b"\n", 1)[0]
    return head.decode("utf-8-sig", errors="replace").rstrip("\r")
