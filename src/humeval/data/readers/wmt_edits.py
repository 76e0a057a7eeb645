"""WMT10 post-edits, ``data_EDT.tsv``.

TSV with CRLF line ends: ``editId srclang trglang srcIndex documentId segmentId editorId
system1Number system1Id system1actionVal system1actionStr system1edit``. ``system1actionStr``
is EDIT (the edit is a post-edit), OK (no edit needed: the text is the unchanged output, so
it is both hypothesis and post-edit), BAD (too bad to correct: the text is the unchanged
output, with no post-edit) or N/A (nothing done: counted and skipped).

An EDIT row carries only the edit. The output it corrects is the text of an OK or BAD row of
the same track, segment (``srcIndex``) and system, when another editor judged that output: the
reader fills it in, so that HTER is computed on every post-edit whose output the file holds
(WMT10: 428 of 4,093 EDIT rows), and notes how many EDIT rows stay without their output.
A line repeating the header inside the data (two files concatenated) is an error naming it.
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
        if fields == HEADER:
            raise InputError(path, line, "the header line appears again inside the data",
                             "remove the repeated header (were two files concatenated?)")
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
    _fill_outputs(df, report)
    return Judgments(report, post_edits=PostEdits.from_pandas(df))


def _fill_outputs(df: pd.DataFrame, report: ReadReport) -> None:
    """Give each EDIT row the output it corrects: the text of an OK or BAD row of the same
    (track, segment, system), which is that output unchanged (the organisers' README.txt)."""
    edit = (df.action == "EDIT").to_numpy()
    if not edit.any():
        return
    keys = ["track", "item", "system"]
    given = df[~edit].drop_duplicates(keys)
    outputs = dict(zip(zip(*(given[k] for k in keys)), given["hypothesis"]))
    found = [outputs.get(key) for key in zip(*(df.loc[edit, k] for k in keys))]
    df.loc[edit, "hypothesis"] = pd.Series(found, index=df.index[edit], dtype=object)
    filled = sum(x is not None for x in found)
    report.notes.append(f"{filled:,} of {int(edit.sum()):,} EDIT rows given the output they correct from an OK/BAD "
                        f"row of the same segment and system; the file does not carry the output of the other "
                        f"{int(edit.sum()) - filled:,} (no HTER for them)")
