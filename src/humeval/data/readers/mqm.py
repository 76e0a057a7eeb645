"""Google MQM annotations (Freitag et al. 2021), per error or as segment averages.

Per-error TSV (no quoting): ``system doc doc_id seg_id rater source target category
severity [comment]``; one row per marked error (or one ``No-error`` row). The WMT23
side-by-side files say ``globalSegId`` for the segment and may come as a ``.tsv.tar.gz``.
Each (system, segment, rater) becomes one score, the negated weighted error count
(higher is better, 0 = no error), with the standard weights (Freitag et al. 2021, §3.3):
Major 5, Minor 1, Minor ``Fluency/Punctuation`` 0.1, Major ``Non-translation`` 25.
Rows with another severity (e.g. the quality-control value ``HOTW-test``) are counted and
skipped.

Segment-average files ``system mqm_avg_score seg_id`` (whitespace-separated, ``None`` =
not rated) give one score per (system, segment) with the judge unknown.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, replace

import pandas as pd

from humeval.data.judgments import Judgments, ReadReport, nonempty
from humeval.data.readers._io import (
    SCALE_LIMIT,
    check_names,
    decode,
    out_of_scale,
    read_bytes,
    records,
    shown,
    text_stream,
)
from humeval.data.readers._tracks import track_from_path
from humeval.data.tables import Ratings
from humeval.errors import InputError

FORMAT, AVG_FORMAT = "mqm", "mqm-avg"
SCALE = "-MQM (0 = no errors, higher is better)"


@dataclass(frozen=True)
class MQMWeights:
    """Error weights; override any of them: ``MQMWeights(major=10)`` or a dict to ``read_mqm``."""

    major: float = 5.0
    minor: float = 1.0
    minor_punctuation: float = 0.1
    non_translation: float = 25.0

    def of(self, severity: str, category: str) -> float | None:
        severity = severity.strip().lower()
        if severity == "major":
            return self.non_translation if category.strip().lower().startswith("non-translation") else self.major
        if severity == "minor":
            return self.minor_punctuation if category.strip() == "Fluency/Punctuation" else self.minor
        if severity in ("no-error", "neutral"):
            return 0.0
        return None


def looks_like(header: str) -> bool:
    cells = header.split("\t")
    return "severity" in cells and "rater" in cells and "system" in cells


def looks_like_avg(header: str) -> bool:
    return header.split() == ["system", "mqm_avg_score", "seg_id"]


def read_mqm(path, weights: MQMWeights | dict | None = None, encoding: str = "utf-8") -> Judgments:
    """Per-(system, segment, rater) MQM scores from a per-error MQM TSV."""
    weights = replace(MQMWeights(), **weights) if isinstance(weights, dict) else (weights or MQMWeights())
    reader = csv.reader(text_stream(decode(read_bytes(path), path, encoding)), delimiter="\t",
                        quoting=csv.QUOTE_NONE)
    lines = records(reader, path)
    header = next(lines)[1]
    check_names(header, path)
    segment = "seg_id" if "seg_id" in header else "globalSegId"
    need = ["system", segment, "rater", "category", "severity"]
    missing = [c for c in need if c not in header]
    if missing:
        raise InputError(path, 1, f"not an MQM header: missing {', '.join(missing)}",
                         "expected system, doc, doc_id, seg_id, rater, source, target, category, severity")
    at = {c: header.index(c) for c in need}
    report = ReadReport(str(path), FORMAT)
    penalty: dict[tuple[str, str, str], float] = {}
    seen, repeated = set(), 0
    for line, fields in lines:
        if not fields or fields == [""]:
            continue
        if len(fields) < len(need) or max(at.values()) >= len(fields):
            raise InputError(path, line, f"{len(fields)} fields, too few for the header's {len(header)}",
                             "check for a line break inside a field")
        report.rows += 1
        row = hash(tuple(fields))  # a hash, not the row: memory stays one integer per row
        repeated += row in seen
        seen.add(row)
        severity, category = fields[at["severity"]], fields[at["category"]]
        weight = weights.of(severity, category)
        if weight is None:
            report.skip(f"rows with severity '{shown(severity, 40)}'", lines=[line])
            continue
        key = (fields[at["system"]].strip(), fields[at[segment]].strip(), fields[at["rater"]].strip())
        if not key[0] or not key[1]:
            report.skip("rows without a system or segment", lines=[line])
            continue
        penalty[key] = penalty.get(key, 0.0) + weight
    if not penalty:
        nonempty(Judgments(report))
    df = pd.DataFrame(list(penalty), columns=["system", "item", "judge"])
    df["score"] = [-p for p in penalty.values()]
    df["track"], df["criterion"] = track_from_path(path), "MQM"
    report.notes.append(f"weights: {weights}")
    if repeated:  # kept: two identical error rows may be two errors; a file written twice doubles every penalty
        report.notes.append(f"{repeated:,} rows repeat an earlier row exactly (all counted: each adds its "
                            "penalty again; check that the file was not concatenated twice)")
    return Judgments(report, ratings=Ratings.from_pandas(df, scale=SCALE))


def read_mqm_avg(path, encoding: str = "utf-8") -> Judgments:
    """Segment-average MQM scores (``system mqm_avg_score seg_id``); judge unknown."""
    lines = decode(read_bytes(path), path, encoding).split("\n")
    if not looks_like_avg(lines[0]):
        raise InputError(path, 1, f"expected the header 'system mqm_avg_score seg_id', found '{shown(lines[0], 60)}'",
                         "is this a segment-average MQM file?")
    report = ReadReport(str(path), AVG_FORMAT)
    rows = []
    for number, text in enumerate(lines[1:], 2):
        if not text.strip():
            continue
        fields = text.split()
        if len(fields) != 3:
            raise InputError(path, number, f"{len(fields)} fields, expected system, score, seg_id",
                             "check this line")
        report.rows += 1
        if fields[1] == "None":
            report.skip("segments not rated (None)", lines=[number])
            continue
        try:
            score = float(fields[1])
        except ValueError:
            score = None
        if score is None or not math.isfinite(score):
            raise InputError(path, number, f"score '{shown(fields[1])}' is not a finite number",
                             "fix the score, or write None for a segment not rated")
        if abs(score) > SCALE_LIMIT:
            raise InputError(path, number, out_of_scale("score", score), "fix the score")
        rows.append((fields[0], fields[2], score))
    if not rows:
        nonempty(Judgments(report))
    df = pd.DataFrame(rows, columns=["system", "item", "score"])
    df["track"], df["criterion"] = track_from_path(path), "MQM"
    return Judgments(report, ratings=Ratings.from_pandas(df, scale=SCALE))
