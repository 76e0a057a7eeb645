"""JSON lines, one object per line, with the line of anything that is not."""

from __future__ import annotations

import json
import re

from humeval.data.readers._io import check_json_depth, decode, read_bytes
from humeval.errors import InputError


def json_lines(path, encoding: str = "utf-8", what: str = "a JSON object"):
    """(line number, object) of every non-blank line; a line that is not valid JSON or not an object
    is an ``InputError`` naming it, and so is JSON nested too deep (``check_json_depth``: Python's
    parser would exhaust its recursion). ``NaN`` is read as a float (Python writes it so)."""
    data = read_bytes(path)
    check_json_depth(data, path)
    yield from json_objects(decode(data, path, encoding), path, what)


def json_objects(text: str, path, what: str = "a JSON object"):
    """``json_lines`` on text already decoded (the arrow reader's error path reads its lines again)."""
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(path, number, f"not valid JSON ({error.msg} at column {error.colno})",
                             f"write {what} per line") from None
        if not isinstance(value, dict):
            raise InputError(path, number, f"a line must be {what}, found a JSON {type(value).__name__}",
                             f"write {what} per line")
        yield number, value


def first_keys(line: str) -> set[str]:
    """The keys of the JSON object on ``line`` (empty when it is not one)."""
    try:
        value = json.loads(line)
    except ValueError:
        return set()
    return set(value) if isinstance(value, dict) else set()


_KEY = re.compile(r'"([^"\\]{1,64})"\s*:')


def head_keys(line: str) -> set[str]:
    """``first_keys``, or, when ``line`` is the head of a JSON line too long to decode whole (an LLM
    judge's record holds prompts and answers), the names written as keys in it (nested ones too:
    enough to recognise a layout by a few distinctive keys)."""
    keys = first_keys(line)
    if keys or not line.lstrip().startswith("{"):
        return keys
    return set(_KEY.findall(line))
