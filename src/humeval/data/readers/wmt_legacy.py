"""WMT07–WMT09 manual-evaluation layout.

``TASK,TYPE,ITEM_ID,ANNOTATOR_ID,TIME,SYSTEM_0,SCORE_0_A,SCORE_0_B,…,SYSTEM_4,SCORE_4_A,SCORE_4_B``
(WMT07/08: comma-separated; statmt.org/wmt08/results.html: "System judgments (up to 5)", so a
row judging fewer than five systems is short and is padded; ``-`` is a missing score or rank;
a file without the header line is read with these columns when its second field is a judgment
type such as ``RANK``). WMT09: tab-separated, a leading ``JUDGEMENT_ID``, an
``ANNOTATOR_TYPE_COUNT`` column after ``ANNOTATOR_ID`` and a trailing free-text ``EXTRA``
that may contain ``"`` (so quoting is off) and may be missing from a row.

- ``RANK`` rows: a k-way ranking in ``SCORE_x_A`` -> ``Rankings``.
- ``NIST`` rows: two 1–5 scores per output. WMT07 collected adequacy and fluency, but the
  file does not say which of A and B is which, so both are kept as criteria ``SCORE_A`` and
  ``SCORE_B``; ``score_names=("adequacy", "fluency")`` names them if you know -> ``Ratings``.
- ``EDIT`` rows: the post-edit of ``SYSTEM_0``'s output in ``EXTRA`` -> ``PostEdits``.
- Other types are counted and skipped.
"""

from __future__ import annotations

import csv
import re

import pandas as pd

from humeval.data.builders import RankingRows, parse_rank
from humeval.data.judgments import Judgments, ReadReport
from humeval.data.readers._io import (
    check_names,
    decode,
    finite_number,
    first_line,
    read_bytes,
    records,
    shown,
    text_stream,
)
from humeval.data.readers._sniff import check_delimiter, one_line_end
from humeval.data.tables import PostEdits, Ratings
from humeval.errors import InputError

FORMAT = "wmt-legacy"
BASE = ("TASK", "TYPE", "ITEM_ID", "ANNOTATOR_ID")


TYPES = ("RANK", "NIST", "EDIT", "EDIT_ACCEPT", "CONSTITUENT", "CONSTITUENT_ACCEPT")
IMPLICIT = [*BASE, "TIME"] + [f"{c}" for k in range(5) for c in (f"SYSTEM_{k}", f"SCORE_{k}_A", f"SCORE_{k}_B")]
MISSING = ("", "-", "-1", "NA", "N/A")


def looks_like(header: str) -> bool:
    cells = re.split(r"[\t,]", header)
    return (all(c in cells for c in BASE) and "SYSTEM_0" in cells) or _headerless(header)


def _headerless(line: str) -> bool:
    cells = line.split(",")
    return "\t" not in line and len(cells) >= 6 and cells[1].strip() in TYPES


def read_wmt_legacy(path, encoding: str = "utf-8", score_names=("SCORE_A", "SCORE_B")) -> Judgments:
    """Read a WMT07–WMT09 judgments file into rankings, ratings and post-edits."""
    data = read_bytes(path)
    first = first_line(data)
    tabbed = "\t" in first
    check_delimiter(path, first, "\t" if tabbed else ",", needed=len(BASE))
    text = one_line_end(decode(data, path, encoding))
    reader = csv.reader(text_stream(text), delimiter="\t" if tabbed else ",",
                        quoting=csv.QUOTE_NONE if tabbed else csv.QUOTE_MINIMAL)
    rows = records(reader, path)
    header = list(IMPLICIT) if _headerless(first) else [h.strip() for h in next(rows)[1]]
    check_names(header, path)
    where = {h: i for i, h in enumerate(header)}
    missing = [c for c in BASE if c not in where]
    slots = sorted(int(m.group(1)) for m in (re.fullmatch(r"SYSTEM_(\d+)", h) for h in header) if m)
    missing += [f"SCORE_{k}_{x}" for k in slots for x in "AB" if f"SCORE_{k}_{x}" not in where]
    if missing or not slots:
        raise InputError(path, 1, f"not a WMT07–09 header: missing {', '.join(missing) or 'SYSTEM_0'}",
                         "the header must name TASK,TYPE,ITEM_ID,ANNOTATOR_ID,SYSTEM_0,SCORE_0_A,SCORE_0_B,…")
    extra = where.get("EXTRA")
    report = ReadReport(str(path), FORMAT)
    if _headerless(first):
        report.notes.append("no header line: read with the WMT07/08 columns " + ",".join(IMPLICIT[:8]) + ",…")
    rankings, ratings, edits = RankingRows(), [], []
    for line, fields in rows:
        if not fields or fields == [""]:
            report.skip("blank lines", lines=[line])
            continue
        fields = _fit(fields, header, extra, path, line, "\t" if tabbed else ",")
        task, kind, item, judge = (fields[where[c]].strip() for c in BASE)
        systems = [fields[where[f"SYSTEM_{k}"]].strip() or None for k in slots]
        report.rows += 1
        if kind == "RANK":
            ranks = [parse_rank(_missing(fields[where[f"SCORE_{k}_A"]]), path, line, f"SCORE_{k}_A")
                     for k in slots]
            rankings.add(task, item, judge, systems, ranks)
        elif kind == "NIST":
            for k, system in zip(slots, systems):
                for letter, name in zip("AB", score_names):
                    cell = fields[where[f"SCORE_{k}_{letter}"]]
                    value = _score(cell, path, line, f"SCORE_{k}_{letter}")
                    if value is None and system is None:
                        continue  # an unused slot of a row judging fewer systems
                    if system is None:
                        report.skip("NIST scores without a system name", lines=[line])
                    elif value is None:
                        report.skip(f"NIST scores missing (written '{shown(cell.strip(), 10)}')", lines=[line])
                    else:
                        ratings.append((task, item, system, judge, name, value))
        elif kind == "EDIT":
            text_ = fields[extra] if extra is not None else ""
            if systems[0] is None or not text_.strip():
                report.skip("EDIT rows without a system or an edit", lines=[line])
                continue
            edits.append((task, item, systems[0], judge, "EDIT", text_))
        else:
            report.skip(f"rows of type {kind or '(empty)'} (not a ranking, score or edit)", lines=[line])
    if not report.rows:
        raise InputError(path, None, "the file has a header but no judgments", "check that the export finished")
    out = Judgments(report, rankings=rankings.build() if len(rankings) else None)
    if ratings:
        df = pd.DataFrame(ratings, columns=["track", "item", "system", "judge", "criterion", "score"])
        out.ratings = Ratings.from_pandas(df, scale="1-5")
    if edits:
        df = pd.DataFrame(edits, columns=["track", "item", "system", "editor", "action", "post_edit"])
        out.post_edits = PostEdits.from_pandas(df)
    return out


def _fit(fields, header, extra, path, line, delimiter):
    """Rows may lack EXTRA; EXTRA text may hold the delimiter itself (quoting is off); rows
    judging fewer systems than the header has slots for are short (WMT07/08)."""
    if len(fields) == len(header):
        return fields
    if extra is not None and extra == len(header) - 1:
        if len(fields) == len(header) - 1:
            return fields + [""]
        if len(fields) > len(header):
            return fields[:extra] + [delimiter.join(fields[extra:])]
    elif next(i for i, h in enumerate(header) if re.fullmatch(r"SYSTEM_\d+", h)) < len(fields) < len(header):
        return fields + [""] * (len(header) - len(fields))
    raise InputError(path, line, f"{len(fields)} fields, expected {len(header)} as in the header",
                     "check the delimiters in this row")


def _score(text: str, path, line: int, column: str):
    return finite_number(text.strip(), MISSING, path, line, column, "a number or empty", "fix the value or leave it empty")


def _missing(text: str) -> str:
    """``-`` (WMT07/08) and the other missing-value marks read as an unset rank."""
    return "" if text.strip() in MISSING else text
