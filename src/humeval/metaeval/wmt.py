"""Reading WMT metrics-task files: metric scores and the DA human scores they are judged against.

- Metric score files (``<METRIC>.sys.score[.gz]``, ``<METRIC>.seg.score[.gz]``), tab-separated,
  no header: system level ``METRIC LP TESTSET REFSET SYSTEM SCORE``; segment level
  ``METRIC LP TESTSET REFSET SYSTEM DOCID SEG SCORE``.
- DA files of the WMT20 manual evaluation (space-separated with a header): system level
  ``RAW.SCR Z.SCR N SYS N.ALL``; segment level ``SYS SID RAW.SCR Z.SCR N``, whose global segment
  id maps to (DOCID, SEG) through the ``details`` file (``global_seg_id testset lp docid seg``).

Scores come back as pandas Series: system level indexed by system, segment level by (item, system)
with item = "DOCID:SEG", the same key for metric and human scores.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from humeval.data.readers._io import read_text
from humeval.errors import InputError

SYS_COLUMNS = ["metric", "lp", "testset", "refset", "system", "score"]
SEG_COLUMNS = ["metric", "lp", "testset", "refset", "system", "docid", "seg", "score"]


def read_metric_scores(path, refset: str | None = None, lp: str | None = None) -> tuple[str, str, pd.Series]:
    """(metric name, level "sys" or "seg", scores). With several reference sets, the first one in
    the file is used unless ``refset`` names one; ``lp`` keeps one language pair."""
    text = read_text(path)
    first = text.split("\n", 1)[0].split("\t")
    if len(first) not in (6, 8):
        raise InputError(path, 1, f"{len(first)} tab-separated fields, expected 6 (system level) or 8 (segment level)",
                         "is this a WMT metrics-task score file?")
    level = "sys" if len(first) == 6 else "seg"
    df = pd.read_csv(io.StringIO(text), sep="\t", header=None, names=SYS_COLUMNS if level == "sys" else SEG_COLUMNS,
                     dtype={"seg": str, "docid": str, "system": str})
    if lp:
        df = df[df.lp == lp]
    if df.empty:
        raise InputError(path, None, f"no scores{' for ' + lp if lp else ''}", "check the language pair")
    chosen = refset or df.refset.iloc[0]
    df = df[df.refset == chosen]
    if level == "sys":
        scores = df.set_index("system")["score"].astype(float)
    else:
        scores = pd.Series(df.score.astype(float).to_numpy(),
                           index=pd.MultiIndex.from_arrays([df.docid + ":" + df.seg, df.system], names=["item", "system"]))
    return str(df.metric.iloc[0]), level, scores


def read_da_scores(path, details=None, column: str = "Z.SCR") -> tuple[str, pd.Series]:
    """(level, scores) from a WMT DA file; segment level needs ``details`` for the item keys."""
    text = read_text(path)
    df = pd.read_csv(io.StringIO(text), sep=r"\s+")
    if column not in df.columns or "SYS" not in df.columns:
        raise InputError(path, 1, f"expected the columns SYS and {column}, found {', '.join(df.columns)}",
                         "is this a WMT DA score file (ad-sys-scores or ad-seg-scores)?")
    if "SID" not in df.columns:
        return "sys", df.set_index("SYS")[column].astype(float)
    if details is None:
        raise InputError(path, None, "segment-level DA scores need the details file mapping SID to document and segment",
                         "pass details= (CLI: --details input/<lp>.details.txt)")
    mapping = pd.read_csv(details, sep="\t", header=None, names=["sid", "testset", "lp", "docid", "seg"],
                          dtype={"docid": str, "seg": str})
    key = dict(zip(mapping.sid, mapping.docid + ":" + mapping.seg))
    missing = sorted(set(df.SID) - set(key))
    if missing:
        raise InputError(details, None, f"{len(missing)} segment ids of {Path(path).name} are not in it "
                         f"(e.g. {missing[:3]})", "use the details file of the same language pair")
    grouped = df.assign(item=df.SID.map(key)).groupby(["item", "SYS"])[column].mean()
    grouped.index = grouped.index.set_names(["item", "system"])
    return "seg", grouped.astype(float)
