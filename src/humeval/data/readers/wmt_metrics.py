"""Reading WMT metrics-task files: metric scores and the DA human scores they are judged against.

- Metric score files (``<METRIC>.sys.score[.gz]``, ``<METRIC>.seg.score[.gz]``), tab-separated,
  no header: system level ``METRIC LP TESTSET REFSET SYSTEM SCORE``; segment level
  ``METRIC LP TESTSET REFSET SYSTEM DOCID SEG SCORE``.
- DA files of the WMT20 manual evaluation (space-separated with a header): system level
  ``RAW.SCR Z.SCR N SYS N.ALL``; segment level ``SYS SID RAW.SCR Z.SCR N``, whose global segment
  id maps to (DOCID, SEG) through the ``details`` file (``global_seg_id testset lp docid seg``).

Scores come back as pandas Series: system level indexed by system, segment level by (item, system)
with item = "DOCID:SEG", the same key for metric and human scores. A score that is not a finite
number, a line with the wrong number of fields, and a second score for the same key are errors
naming the line.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from humeval.data.readers._io import first_line, read_bytes, read_text
from humeval.data.readers._sniff import check_delimiter, one_line_end
from humeval.data.readers.wmt_da import _need, _rows, _score, _scored
from humeval.errors import InputError

SYS_COLUMNS = ["metric", "lp", "testset", "refset", "system", "score"]
SEG_COLUMNS = ["metric", "lp", "testset", "refset", "system", "docid", "seg", "score"]


def _series(path, keys: list, lines: list[int], values: list[float], names) -> pd.Series:
    """Scores indexed by ``keys``; a key given twice is an error naming both lines."""
    seen: dict = {}
    for key, line in zip(keys, lines):
        if key in seen:
            raise InputError(path, line, f"a second score for {key!r} (the first is on line {seen[key]})",
                             "remove the duplicate line; each key has one score")
        seen[key] = line
    index = pd.MultiIndex.from_tuples(keys, names=names) if isinstance(names, list) else pd.Index(keys, name=names)
    return pd.Series(values, index=index, dtype=float)


def read_metric_scores(path, refset: str | None = None, lp: str | None = None) -> tuple[str, str, pd.Series]:
    """(metric name, level "sys" or "seg", scores). With several reference sets, ``refset`` names
    one; else the first whose name is the test set's (WMT's standard reference, e.g. REFSET
    ``newstest2020`` of TESTSET ``newstest2020``, the one WMT20's tables use), else the file's first.
    ``lp`` keeps one language pair."""
    data = read_bytes(path)
    check_delimiter(path, first_line(data), "\t", needed=6)
    first = first_line(data).split("\t")
    if len(first) not in (6, 8):
        raise InputError(path, 1, f"{len(first)} tab-separated fields, expected 6 (system level) or 8 (segment level)",
                         "is this a WMT metrics-task score file?")
    level, width = ("sys", 6) if len(first) == 6 else ("seg", 8)
    text = one_line_end(read_text(path))
    if refset is None:  # a file may list other references first (WMT20's chrF++: newstestM2020 before newstest2020)
        refset = next((c[3] for c in (ln.split("\t") for ln in text.splitlines()) if len(c) == width
                       and c[2] == c[3] and (not lp or c[1] == lp)), None)
    metric, chosen, keys, lines, values, refsets = None, refset, [], [], [], set()
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) != width:
            raise InputError(path, number, f"{len(cells)} tab-separated fields, expected {width} as on line 1",
                             "check the tabs of this line")
        if lp and cells[1] != lp:
            continue
        refsets.add(cells[3])
        chosen = chosen or cells[3]
        if cells[3] != chosen:
            continue
        metric = metric or cells[0]
        value = _score(cells[-1].strip(), path, number, "the score")
        if value is None:
            raise InputError(path, number, "the score is missing", "write a number")
        keys.append(cells[4] if level == "sys" else (f"{cells[5]}:{cells[6]}", cells[4]))
        lines.append(number)
        values.append(value)
    if not keys and refsets:
        raise InputError(path, None, f"no scores against the reference set {refset!r}",
                         f"choose one the file has: {', '.join(sorted(refsets))}")
    if not keys:
        raise InputError(path, None, f"no scores{' for ' + lp if lp else ''}", "check the language pair")
    return metric, level, _series(path, keys, lines, values, "system" if level == "sys" else ["item", "system"])


def read_da_scores(path, details=None, column: str = "Z.SCR") -> tuple[str, pd.Series]:
    """(level, scores) from a WMT DA file; segment level needs ``details`` for the item keys."""
    header, rows = _rows(path, "utf-8", needed=3)
    segment = "sid" in header
    system, sid, score = _need(path, header, ["sys", "sid" if segment else "sys", column.lower()])
    if segment and details is None:
        raise InputError(path, None, "segment-level DA scores need the details file mapping SID to document and segment",
                         "pass details= (CLI: --details input/<lp>.details.txt)")
    key = _details(details) if segment else {}
    keys, lines, values = [], [], []
    for number, cells, value in _scored(rows, len(header), path, score, column):
        if segment and cells[sid] not in key:
            raise InputError(details, None, f"segment id {cells[sid]} of {Path(path).name} (line {number}) is not in it",
                             "use the details file of the same language pair")
        keys.append((key[cells[sid]], cells[system]) if segment else cells[system])
        lines.append(number)
        values.append(value)
    if not keys:
        raise InputError(path, None, "no scores", "check the file")
    return ("seg" if segment else "sys"), _series(path, keys, lines, values, ["item", "system"] if segment else "system")


def _details(path) -> dict[str, str]:
    """global segment id → "DOCID:SEG" from a details file (``id testset lp docid seg``, tab-separated)."""
    out = {}
    for number, line in enumerate(one_line_end(read_text(path)).splitlines(), 1):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) != 5:
            raise InputError(path, number, f"{len(cells)} tab-separated fields, expected 5 (id testset lp docid seg)",
                             "is this a details file of the WMT metrics task?")
        if cells[0] in out:
            raise InputError(path, number, f"segment id {cells[0]} appears twice", "ids must be unique")
        out[cells[0]] = f"{cells[3]}:{cells[4]}"
    return out


SEGMENT_NAMES = ("item", "segment", "seg", "seg_id", "segment_id", "segid", "sid")


def read_segment_scores(path, refset: str | None = None) -> tuple[str, pd.Series]:
    """(metric name, scores indexed by (item, system)) from a segment-level score file: WMT's
    ``<METRIC>.seg.score`` layout (8 tab-separated fields, no header; items "DOCID:SEG"), or a plain
    table with a header naming ``system``, the segment (one of ``SEGMENT_NAMES``; items as written)
    and ``score`` — comma- or tab-separated, the metric named by its file's stem. A missing or
    non-finite score and a second score for the same (segment, system) are errors naming the line."""
    data = read_bytes(path)
    first = first_line(data)
    if first.count("\t") in (5, 7) and not {c.strip().lower() for c in first.split("\t")} & {"system", "score"}:
        name, level, scores = read_metric_scores(path, refset=refset)
        if level != "seg":
            raise InputError(path, None, "system-level scores cannot judge segments",
                             "pass a segment-level file (<METRIC>.seg.score…)")
        return name, scores
    delimiter = "\t" if "\t" in first else ","
    header = [c.strip().strip('"').lower() for c in first.split(delimiter)]
    segment = next((n for n in SEGMENT_NAMES if n in header), None)
    missing = [n for n, found in (("system", "system" in header), ("segment", segment),
                                  ("score", "score" in header)) if not found]
    if missing:
        raise InputError(path, 1, f"missing column{'s' if len(missing) > 1 else ''}: {', '.join(missing)} "
                         f"(found {', '.join(header)})",
                         "give a WMT .seg.score file, or a table with the columns system, segment (or item, seg_id) "
                         "and score")
    where = [header.index(n) for n in ("system", segment, "score")]
    keys, lines, values = [], [], []
    for number, line in enumerate(one_line_end(read_text(path)).splitlines()[1:], 2):
        if not line.strip():
            continue
        cells = line.split(delimiter)
        if len(cells) != len(header):
            raise InputError(path, number, f"{len(cells)} fields, the header has {len(header)}",
                             "check the separators of this line")
        system, item, text = (cells[i].strip().strip('"') for i in where)
        value = _score(text, path, number, "the score")
        if value is None:
            raise InputError(path, number, "the score is missing", "write a number, or leave the line out")
        keys.append((item, system))
        lines.append(number)
        values.append(value)
    if not keys:
        raise InputError(path, None, "no scores", "check the file")
    return Path(path).stem, _series(path, keys, lines, values, ["item", "system"])
