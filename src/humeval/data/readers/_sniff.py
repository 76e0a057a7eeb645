"""Telling a wrong delimiter from a wrong file: when a header splits into one column at the
delimiter a reader expects but into several at another, the problem is the delimiter. Also one
line end: CR CR LF (a CRLF file saved again in text mode on Windows) is one line end, not two."""

from __future__ import annotations

import re

from humeval.errors import InputError

NAMES = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe", " ": "space"}


def columns(line: str, delimiter: str) -> list[str]:
    """The header's cells at ``delimiter`` (``" "`` means runs of spaces or tabs)."""
    line = line.strip("\r\n")
    cells = line.split() if delimiter == " " else line.split(delimiter)
    return [c.strip().strip('"') for c in cells]


def sniff(line: str, exclude: str = "") -> tuple[str, int] | None:
    """(delimiter, columns) of the candidate that splits ``line`` into the most non-empty
    columns (at least two), ignoring ``exclude``; None when no candidate splits it."""
    best = None
    for delimiter in NAMES:
        if delimiter == exclude or (delimiter == " " and not re.search(r"\S\s+\S", line)):
            continue
        n = sum(1 for c in columns(line, delimiter) if c)
        if n >= 2 and (best is None or n > best[1]):
            best = (delimiter, n)
    return best


def check_delimiter(path, line: str, delimiter: str, line_number: int = 1, needed: int = 2) -> None:
    """Raise an ``InputError`` saying "delimiter" when ``line`` has fewer than ``needed``
    columns at ``delimiter`` but another delimiter would split it."""
    if len(columns(line, delimiter)) >= needed:
        return
    other = sniff(line, exclude=delimiter)
    if other is None:
        return
    raise InputError(path, line_number,
                     f"wrong delimiter: the line has {len(columns(line, delimiter))} column(s) at the "
                     f"{NAMES.get(delimiter, repr(delimiter))} this format uses, but {other[1]} at "
                     f"{NAMES[other[0]]}s: it looks {NAMES[other[0]]}-delimited",
                     f"save the file {NAMES.get(delimiter, repr(delimiter))}-delimited (e.g. re-export it), "
                     "or read it with the format that uses that delimiter")


def one_line_end(text: str) -> str:
    """CR CR LF → CR LF, so that neither csv nor ``splitlines`` sees a blank line after each row."""
    return text.replace("\r\r\n", "\r\n")
