"""WMT ranking CSV, the WMT10–WMT14 layout.

``srclang,trglang,srcIndex,documentId,segmentId,judgeId,system1Number,system1Id,…,
system5Id,system1rank,…,system5rank``: one row per k-way ranking; rank 1 is best, ties are
allowed, ``-1`` means the rank was left blank; ``_ref`` is the human reference. The track is
``srclang-trglang`` and the item the source segment's ``srcIndex``.
"""

from __future__ import annotations

import csv
import re

from humeval.data.builders import RankingRows, parse_rank
from humeval.data.judgments import Judgments, ReadReport
from humeval.data.readers._io import read_text, text_stream
from humeval.errors import InputError

BASE = ("srclang", "trglang", "srcIndex", "judgeId")
FORMAT = "wmt-csv"


def looks_like(header: str) -> bool:
    return header.startswith("srclang,trglang,srcIndex")


def read_wmt_csv(path, encoding: str = "utf-8") -> Judgments:
    """Read a WMT10–WMT14 ranking CSV into ``Rankings`` (and their ``Comparisons``)."""
    report = ReadReport(str(path), FORMAT)
    reader = csv.reader(text_stream(read_text(path, encoding)))
    header = next(reader)
    where = {name: i for i, name in enumerate(header)}
    slots = sorted(int(m.group(1)) for m in (re.fullmatch(r"system(\d+)Id", h) for h in header) if m)
    missing = [c for c in BASE if c not in where] + \
        [f"system{k}rank" for k in slots if f"system{k}rank" not in where]
    if missing or not slots:
        raise InputError(path, 1, f"not a WMT ranking header: missing {', '.join(missing) or 'system1Id…'}",
                         "the header must be srclang,trglang,srcIndex,documentId,segmentId,judgeId,"
                         "system1Number,system1Id,…,system1rank,…")
    ids = [where[f"system{k}Id"] for k in slots]
    ranks = [where[f"system{k}rank"] for k in slots]
    src, trg, item, judge = (where[c] for c in BASE)
    rows = RankingRows()
    for fields in reader:
        line = reader.line_num
        if not fields or fields == [""]:
            report.skip("blank lines", lines=[line])
            continue
        if len(fields) != len(header):
            raise InputError(path, line, f"{len(fields)} fields, expected {len(header)} as in the header",
                             "check for a stray or missing comma in this row")
        systems, values = [], []
        for k, (i, r) in enumerate(zip(ids, ranks)):
            systems.append(fields[i] or None)
            values.append(parse_rank(fields[r], path, line, f"system{slots[k]}rank"))
        rows.add(f"{fields[src]}-{fields[trg]}", fields[item], fields[judge], systems, values)
    if not len(rows):
        raise InputError(path, None, "the file has a header but no rankings", "check that the export finished")
    report.rows = len(rows)
    return Judgments(report, rankings=rows.build())

