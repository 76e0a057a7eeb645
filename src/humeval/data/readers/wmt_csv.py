"""WMT ranking CSV, the WMT10–WMT16 layouts.

- WMT10–14: ``srclang,trglang,srcIndex,documentId,segmentId,judgeId,system1Number,system1Id,…,
  system5Id,system1rank,…,system5rank``: one row per k-way ranking.
- WMT15–16 per-language-pair files (``wmt15.deu-eng.csv``, written by the organisers' ``xml2csv.py``
  with Python's csv module, so CRLF line ends): ``srclang,trglang,srcIndex,segmentId,judgeID,
  system1Id,system1rank,system2Id,system2rank,rankingID``: one row per pair of the 5-way ranking
  ``rankingID``; the rows of one ranking are put back together into one ranking. In the
  "collapsed" files a system id may join several systems with ``+``: they produced one identical
  output, shown once and ranked once (Bojar et al. 2015, §3.2).

Headers are matched case-insensitively (``judgeId``/``judgeID``). Rank 1 is best, ties are
allowed, ``-1`` means the rank was left blank; ``_ref`` is the human reference. The track is
``srclang-trglang`` and the item the source segment's ``srcIndex``. Systems that shared one
output are not compared with each other (counted), or tie with ``keep_shared_outputs=True`` as in
WMT15–16's own expansion; rows pairing a system with itself are skipped and counted.
"""

from __future__ import annotations

import csv
import re

import numpy as np

from humeval.data.builders import RankingRows, parse_rank
from humeval.data.judgments import Judgments, ReadReport
from humeval.data.readers._io import check_names, csv_rows, decode, first_line, read_bytes, records, text_stream
from humeval.data.readers._sniff import check_delimiter, one_line_end
from humeval.data.tables import Rankings
from humeval.errors import InputError

BASE = ("srclang", "trglang", "srcindex", "judgeid")
FORMAT = "wmt-csv"
SELF = "rows pairing a system with itself"
CONFLICT = "rankings whose rows give one system two different ranks"
MAX_OUTPUTS = int(np.iinfo(Rankings.SCHEMA["output"].dtype).max)  # the widest ranking the output column holds


def looks_like(header: str) -> bool:
    return header.lower().replace('"', "").startswith("srclang,trglang,srcindex")


def read_wmt_csv(path, encoding: str = "utf-8", keep_shared_outputs: bool = False,
                 shared_separator: str | None = "+") -> Judgments:
    """Read a WMT10–WMT16 ranking CSV into ``Rankings`` (and their ``Comparisons``).

    ``shared_separator`` splits a system id naming several systems with one shared output
    (``None`` keeps ids whole); ``keep_shared_outputs`` makes those systems ties.
    """
    data = read_bytes(path)
    check_delimiter(path, first_line(data), ",", needed=len(BASE))
    text = one_line_end(decode(data, path, encoding))
    reader = csv.reader(text_stream(text))
    header = [h.strip().lower() for h in next(records(reader, path))[1]]
    check_names(header, path)
    where = {name: i for i, name in enumerate(header)}
    slots = sorted(int(m.group(1)) for m in (re.fullmatch(r"system(\d+)id", h) for h in header) if m)
    missing = [c for c in BASE if c not in where] + \
        [f"system{k}rank" for k in slots if f"system{k}rank" not in where]
    if missing or not slots:
        raise InputError(path, 1, f"not a WMT ranking header: missing {', '.join(missing) or 'system1Id…'}",
                         "the header must be srclang,trglang,srcIndex,documentId,segmentId,judgeId,"
                         "system1Number,system1Id,…,system1rank,… (WMT15–16: …,judgeID,system1Id,"
                         "system1rank,system2Id,system2rank,rankingID)")
    if len(slots) > MAX_OUTPUTS:
        raise InputError(path, 1, f"{len(slots)} system slots, at most {MAX_OUTPUTS} are supported",
                         "split the rankings into smaller ones")
    ids = [where[f"system{k}id"] for k in slots]
    ranks = [where[f"system{k}rank"] for k in slots]
    src, trg, item, judge = (where[c] for c in BASE)
    group = where.get("rankingid")
    report = ReadReport(str(path), FORMAT)
    rows, groups = RankingRows(), {}
    for line, fields in csv_rows(reader, len(header), report, path, "check for a stray or missing comma in this row"):
        names = [fields[i].strip() or None for i in ids]
        values = [parse_rank(fields[r], path, line, f"system{slots[k]}rank") for k, r in enumerate(ranks)]
        key = (f"{fields[src]}-{fields[trg]}", fields[item], fields[judge])
        if group is None:
            _add(rows, key, list(zip(names, values)), shared_separator)
            continue
        if len(set(n for n in names if n)) < sum(1 for n in names if n):
            report.skip(SELF, lines=[line])
            continue
        ranking = groups.setdefault(fields[group], {"key": key, "entries": {}, "bad": False})
        for name, value in zip(names, values):
            if name is not None and ranking["entries"].setdefault(name, value) != value:
                ranking["bad"] = True
    if group is not None:
        for ranking in groups.values():
            if ranking["bad"]:
                report.skip(CONFLICT)
            elif len(ranking["entries"]) > MAX_OUTPUTS:
                report.skip(f"rankings of more than {MAX_OUTPUTS} outputs (not supported)")
            else:
                _add(rows, ranking["key"], list(ranking["entries"].items()), shared_separator)
        report.notes.append(f"{report.rows:,} pairwise rows put back together into {len(rows):,} "
                            "rankings by rankingID")
    if not len(rows):
        why = f"all skipped: {'; '.join(report.skipped)}" if report.skipped else "the file has a header but no rankings"
        raise InputError(path, None, f"no rankings ({why})", "check that the export finished")
    out = Judgments(report, rankings=rows.build())
    return out.expand(keep_shared_outputs=True) if keep_shared_outputs else out


def _add(rows: RankingRows, key, entries, separator) -> None:
    """One ranking from (system id, rank) entries; an id joining several systems gives each
    of them a position with the entry's rank and output."""
    systems, ranks, outputs = [], [], []
    for output, (name, rank) in enumerate(entries):
        parts = name.split(separator) if name and separator else [name]
        for part in parts:
            systems.append(part.strip() or None if part else None)
            ranks.append(rank)
            outputs.append(output)
    rows.add(*key, systems, ranks, outputs)
