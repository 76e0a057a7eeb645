"""A small reader for WMT's DA segment-score files (``ad-seg-scores-XX-YY.csv``).

Space-separated, header ``SYS SID RAW.SCR Z.SCR N``: per (system, segment) the mean raw score
and mean z-score of the N ratings the segment got (WMT20 news and metrics tasks). Each row
becomes two ratings of the segment, criterion "raw" and criterion "z" (the annotators are
not in the file, so the z-scores are the organisers'). Not yet registered with
``humeval.read``: call ``read_wmt_segment_scores`` directly.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from humeval.data.judgments import Judgments, ReadReport
from humeval.data.readers._io import decode, read_bytes
from humeval.data.readers._tracks import track_from_path
from humeval.data.tables import Ratings
from humeval.errors import InputError

FORMAT = "wmt-da-seg"
HEADER = ["SYS", "SID", "RAW.SCR", "Z.SCR", "N"]


def track_of(path) -> str | None:
    """``ad-seg-scores-de-en.csv`` -> ``de-en``; else the language pair the path names."""
    match = re.search(r"seg-scores-([a-z]{2,3})-([a-z]{2,3})", Path(path).name)
    return f"{match.group(1)}-{match.group(2)}" if match else track_from_path(path)


def looks_like(header: str) -> bool:
    return header.split() == HEADER


def read_wmt_segment_scores(path, encoding: str = "utf-8") -> Judgments:
    """Ratings (criteria "raw" and "z", one per segment each) from a WMT DA segment-score file."""
    lines = decode(read_bytes(path), path, encoding).split("\n")
    if not looks_like(lines[0]):
        raise InputError(path, 1, f"expected the header {' '.join(HEADER)!r}, found {lines[0][:60]!r}",
                         "is this a WMT ad-seg-scores file?")
    report = ReadReport(str(path), FORMAT)
    rows = []
    for number, text in enumerate(lines[1:], 2):
        fields = text.split()
        if not fields:
            continue
        report.rows += 1
        if len(fields) != 5:
            raise InputError(path, number, f"{len(fields)} fields, expected SYS SID RAW.SCR Z.SCR N", "check this line")
        try:
            raw, z, n = float(fields[2]), float(fields[3]), int(fields[4])
        except ValueError:
            raise InputError(path, number, f"RAW.SCR, Z.SCR, N must be numbers: {' '.join(fields[2:])!r}",
                             "fix the line") from None
        if not (np.isfinite(raw) and np.isfinite(z)):
            report.skip("segments without a score (NA)", lines=[number])
            continue
        rows.append((fields[0], fields[1], raw, z, n))
    if not rows:
        raise InputError(path, None, "no segment scores", "the file has a header only")
    df = pd.DataFrame(rows, columns=["system", "item", "raw", "z", "n"])
    long = pd.concat([df.assign(criterion="raw", score=df["raw"]), df.assign(criterion="z", score=df["z"])])
    long["track"] = track_of(path)
    report.notes.append(f"{int(df['n'].sum()):,} ratings averaged into {len(df):,} segment scores")
    ratings = Ratings.from_pandas(long[["system", "item", "criterion", "score", "track"]], scale="")
    return Judgments(report, ratings=ratings)
