"""WMT10 post-edits, ``data_EDT.tsv``.

TSV with CRLF line ends: ``editId srclang trglang srcIndex documentId segmentId editorId
system1Number system1Id system1actionVal system1actionStr system1edit``. ``system1actionStr``
is EDIT (the edit is a post-edit), OK (no edit needed: the text is the unchanged output, so
it is both hypothesis and post-edit), BAD (too bad to correct: the text is the unchanged
output, with no post-edit) or N/A (nothing done: counted and skipped).
"""

from __future__ import annotations

import csv

import pandas as pd

from humeval.data.judgments import Judgments, ReadReport, nonempty
from humeval.data.readers._io import read_text, records, shown, text_stream
from humeval.data.tables import PostEdits
from humeval.errors import InputError

FORMAT = "wmt-edits"
HEADER = ["editId", "srclang", "trglang", "srcIndex", "documentId", "segmentId", "editorId",
          "system1Number", "system1Id", "system1actionVal", "system1actionStr", "system1edit"]
ACTIONS = ("EDIT", "OK", "BAD")


def looks_like(header: str) -> bool:
    return header.split("\t")[:3] == HEADER[:3]


def read_wmt_edits(path, encoding: str = "utf-8") -> Judgments:
    """Read WMT10 ``data_EDT.tsv`` into ``PostEdits``."""
    reader = csv.reader(text_stream(read_text(path, encoding)), delimiter="\t", quoting=csv.QUOTE_NONE)
    rows_ = records(reader, path)
    header = next(rows_)[1]
    if header != HEADER:
        raise InputError(path, 1, f"not the WMT10 edit header: '{shown(chr(9).join(header))}'", "expected " + " ".join(HEADER) + " (tab-separated)")
    at = {h: i for i, h in enumerate(HEADER)}
    report = ReadReport(str(path), FORMAT)
    rows = []
    for line, fields in rows_:
        if not fields or fields == [""]:
            continue
        if len(fields) != len(HEADER):
            raise InputError(path, line, f"{len(fields)} fields, expected {len(HEADER)}",
                             "check for a tab inside the edit text of this row")
        report.rows += 1
        action, text = fields[at["system1actionStr"]].strip(), fields[at["system1edit"]]
        if action not in ACTIONS:
            report.skip(f"rows with action '{shown(action, 40)}' (no edit, no verdict)", lines=[line])
            continue
        if not fields[at["system1Id"]].strip():
            report.skip("rows without a system", lines=[line])
            continue
        rows.append((f"{fields[at['srclang']]}-{fields[at['trglang']]}", fields[at["srcIndex"]],
                     fields[at["system1Id"]], fields[at["editorId"]], action,
                     None if action == "EDIT" else text, None if action == "BAD" else text))
    if not rows:
        nonempty(Judgments(report))
    df = pd.DataFrame(rows, columns=["track", "item", "system", "editor", "action", "hypothesis", "post_edit"])
    return Judgments(report, post_edits=PostEdits.from_pandas(df))
