"""Appraise's segment-level CSV export (AppraiseDev/Appraise, ``manage.py ExportSystemScoresToCSV``).

Headerless rows, as ``DirectAssessmentResult.get_system_data(extended_csv=True)`` writes them::

    user_id, system_id, segment_id, item_type, source_lang, target_lang, score, start_time, end_time

and two more fields, ``batch_no, result_item_id``, with ``--batch-info`` (11 fields). A system id
joining several systems with ``+`` has already been split into one row per system by Appraise.
``item_type`` is ``TGT`` (a system output), ``BAD`` (a degraded copy), ``REF`` (the reference) or
``CHK`` (a system output shown again; Appraise's own system scores count it with ``TGT``): only
``TGT`` rows are read unless ``controls=True``, which keeps every row with its kind (``SYSTEM``,
``BAD_REF``, ``REF``, ``REPEAT``) for ``humeval.ratings.quality``; skipped controls are counted by
type. Languages are Appraise's 3-letter codes (``eng``, ``ces``), mapped to WMT's two-letter ones
for the track. The criterion is ``DA`` (0–100 sliders).

The document-level export (12 or 14 fields: also the document, its completeness and the error
spans) is the ESA reader's (``humeval.data.readers.esa``).
"""

from __future__ import annotations

import csv

import pandas as pd

from humeval.data.judgments import Judgments, ReadReport, nonempty
from humeval.data.readers._io import decode, finite_number, read_bytes, shown, text_stream
from humeval.data.readers.esa import KINDS, is_number, track_of
from humeval.data.tables import Ratings
from humeval.errors import InputError

FORMAT = "appraise-csv"
FIELDS = ("user_id", "system_id", "segment_id", "item_type", "source_lang", "target_lang", "score",
          "start_time", "end_time")
BATCH_INFO = ("batch_no", "result_item_id")


def looks_like(line: str) -> bool:
    """9 or 11 headerless fields: an item type in the fourth, numbers in the seventh to ninth."""
    try:
        cells = [c.strip() for c in next(csv.reader([line]))]
    except (csv.Error, StopIteration):
        return False
    return (len(cells) in (len(FIELDS), len(FIELDS) + len(BATCH_INFO)) and cells[3].upper() in KINDS
            and all(is_number(c) for c in cells[6:9]))


def read_appraise_csv(path, encoding: str = "utf-8", controls: bool = False) -> Judgments:
    """Read Appraise's segment-level CSV export (see the module doc) into ``Ratings`` (criterion DA)."""
    reader = csv.reader(text_stream(decode(read_bytes(path), path, encoding)))
    report = ReadReport(str(path), FORMAT)
    rows = []
    width = None
    for fields in reader:
        line = reader.line_num
        if not fields or all(not f.strip() for f in fields):
            continue
        fields = [f.strip() for f in fields]
        width = width or len(fields)
        if len(fields) != width or width not in (len(FIELDS), len(FIELDS) + len(BATCH_INFO)):
            raise InputError(path, line, f"{len(fields)} fields, expected {width if width in (9, 11) else '9 or 11'} "
                             "(Appraise's segment-level export)", "check this line's commas and quotes")
        report.rows += 1
        user, system, segment, kind_text, src, trg, score_text = fields[:7]
        kind = KINDS.get(kind_text.upper())
        if kind is None:
            raise InputError(path, line, f"item type {shown(kind_text, 20)}, expected TGT, BAD, REF or CHK",
                             "is this Appraise's ExportSystemScoresToCSV output?")
        if kind != "SYSTEM" and not controls:
            report.skip(f"quality-control rows of type {kind_text.upper()} (controls=True keeps them)", lines=[line])
            continue
        if not system or not segment:
            report.skip("rows without a system or segment", lines=[line])
            continue
        score = finite_number(score_text, ("", "None"), path, line, "score", "a number from 0 to 100",
                              "fix the score, or leave it empty to skip the row")
        if score is None:
            report.skip("rows without a score", lines=[line])
            continue
        rows.append((track_of("", src, trg), user or None, system, segment, kind, score))
    if not rows:
        nonempty(Judgments(report))
    df = pd.DataFrame(rows, columns=["track", "judge", "system", "item", "kind", "score"])
    df["criterion"] = "DA"
    return Judgments(report, ratings=Ratings.from_pandas(df, scale="0-100"))
