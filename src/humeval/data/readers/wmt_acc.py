"""WMT10 acceptability judgments, ``data_ACC.csv``.

CSV ``srclang,trglang,srcIndex,documentId,segmentId,judgeId,systemNumber,systemId,editId,judgment``:
one row per judgment of whether a post-edit from ``data_EDT.tsv`` (joined on ``editId``) still
means what the reference means (Callison-Burch et al. 2010, §4: the edit-then-judge task whose
share of YES per system is WMT10's editing result). ``judgment`` YES / NO become scores 1 / 0
of criterion ``acceptability`` (so a system's mean score is its share of acceptable edits);
UNK ("no judgment was provided", the organisers' README) is counted and skipped, as is any other
value. The track is ``srclang-trglang``, the item the source segment's ``srcIndex`` (as in the
ranking files), the judge ``judgeId``.
"""

from __future__ import annotations

import csv

import pandas as pd

from humeval.data.judgments import Judgments, ReadReport, nonempty
from humeval.data.readers._io import check_names, csv_rows, read_text, records, shown, text_stream
from humeval.data.tables import Ratings
from humeval.errors import InputError

FORMAT = "wmt-acc"
HEADER = ["srclang", "trglang", "srcindex", "documentid", "segmentid", "judgeid", "systemnumber", "systemid",
          "editid", "judgment"]
SCORES = {"YES": 1.0, "NO": 0.0}


def looks_like(header: str) -> bool:
    cells = [c.strip().strip('"').lower() for c in header.split(",")]
    return cells[:3] == HEADER[:3] and "editid" in cells and "judgment" in cells


def read_wmt_acc(path, encoding: str = "utf-8") -> Judgments:
    """Read WMT10 ``data_ACC.csv`` into ``Ratings`` (YES = 1, NO = 0; UNK counted and skipped)."""
    reader = csv.reader(text_stream(read_text(path, encoding)))
    header = [h.strip().lower() for h in next(records(reader, path))[1]]
    check_names(header, path)
    missing = [h for h in HEADER if h not in header]
    if missing:
        raise InputError(path, 1, f"not the WMT10 acceptability header: missing {', '.join(missing)}",
                         "expected " + ",".join(["srclang", "trglang", "srcIndex", "documentId", "segmentId",
                                                 "judgeId", "systemNumber", "systemId", "editId", "judgment"]))
    at = {h: header.index(h) for h in HEADER}
    report = ReadReport(str(path), FORMAT)
    rows = []
    for line, fields in csv_rows(reader, len(header), report, path, "check for a comma inside a field that is not quoted"):
        verdict = fields[at["judgment"]].strip().upper()
        if verdict not in SCORES:
            report.skip(f"judgments '{shown(verdict, 40)}' (neither YES nor NO)", lines=[line])
            continue
        system, item = fields[at["systemid"]].strip(), fields[at["srcindex"]].strip()
        if not system or not item:
            report.skip("rows without a system or source segment", lines=[line])
            continue
        rows.append((f"{fields[at['srclang']].strip()}-{fields[at['trglang']].strip()}", item, system,
                     fields[at["judgeid"]].strip(), SCORES[verdict]))
    if not rows:
        return nonempty(Judgments(report))
    df = pd.DataFrame(rows, columns=["track", "item", "system", "judge", "score"])
    df["criterion"] = "acceptability"
    ratings = Ratings.from_pandas(df, scale="acceptable edit: YES = 1, NO = 0", higher_is_better=True)
    return Judgments(report, ratings=ratings)
