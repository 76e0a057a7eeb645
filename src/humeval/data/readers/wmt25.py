"""WMT25's human evaluation, as its organisers publish it: ``data/wmt25-genmt-humeval.jsonl`` of
wmt-conference/wmt25-general-mt (and ``wmt25-genmt-humevalMQM.jsonl`` for the MQM pairs).

One JSON object per segment, as the organisers' ``humeval/08-compute_clusters.py`` reads it::

    {"doc_id": "en-cs_CZ_#_news_#_<document>_#_<segment>",
     "src_text": "...", "tgt_text": {"<system>": "...", ...},
     "scores": {"<system>": [{"score": 87.0, "errors": [{"start_i": 3, "end_i": 9, "severity": "minor"}],
                              "annotator": "en-cs_#_annotator3", ...},      # wave 1
                             {"score": NaN, ...}],                          # wave 2
                ...}}

``scores`` maps each system to its annotations, one per wave (WMT25 had two); a score that is
``NaN`` or ``null`` marks a wave that did not rate that output and is counted and skipped. A
segment without annotations (``"scores": {}``) is counted. Older drafts of the file hold a
dict per system with ``human1``/``errors1``/``annotator1`` (and ``human2`` …) instead of the list,
or the key ``human`` for ``score``: both are read.

Each rating becomes one row of ``Ratings``: item = ``doc_id`` (language pair, domain, document
and segment), system, judge = ``annotator`` (unknown when absent or ``"unknown"``), track = the
language pair of ``doc_id`` (``en-cs_CZ``). The criterion is ``ESA`` (scores 0–100), or ``MQM``
when the file name says MQM (the organisers' MQM file holds −MQM scores); ``criterion=`` overrides.
Tutorial segments (``tutorial`` in ``doc_id``) are counted and skipped. Error spans are counted by
severity in the notes, spans whose position is ``"missing"`` separately.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from humeval.data.judgments import Judgments, ReadReport, nonempty
from humeval.data.readers._jsonl import first_keys, json_lines
from humeval.data.readers._io import shown
from humeval.data.readers.esa import tally_spans
from humeval.data.tables import Ratings
from humeval.errors import InputError

FORMAT = "wmt25-jsonl"
KEYS = {"doc_id", "scores", "tgt_text"}
SEP = "_#_"


def looks_like(line: str) -> bool:
    """A JSON object with WMT25's ``doc_id``, ``scores`` and ``tgt_text``."""
    return KEYS <= first_keys(line)


def read_wmt25(path, encoding: str = "utf-8", criterion: str | None = None) -> Judgments:
    """Read WMT25's human-evaluation JSONL (see the module doc) into ``Ratings``."""
    criterion = criterion or ("MQM" if "mqm" in Path(path).name.lower() else "ESA")
    report = ReadReport(str(path), FORMAT)
    rows = []
    severities: dict[str, int] = {}
    gaps = {"missing": 0}
    for line, record in json_lines(path, encoding, "one WMT25 segment (a JSON object)"):
        report.rows += 1
        doc_id, scores = record.get("doc_id"), record.get("scores")
        if not isinstance(doc_id, str) or not doc_id or not isinstance(scores, dict):
            raise InputError(path, line, "a WMT25 line needs a doc_id string and a scores object",
                             "is this WMT25's wmt25-genmt-humeval.jsonl?")
        if "tutorial" in doc_id:
            report.skip("tutorial segments", lines=[line])
            continue
        if not scores:
            report.skip("segments nobody annotated (scores {})", lines=[line])
            continue
        track = doc_id.split(SEP, 1)[0]
        for system, annotations in scores.items():
            for wave, annotation in _waves(annotations, path, line, system):
                score = annotation.get("score", annotation.get("human"))
                if score is None or (isinstance(score, float) and math.isnan(score)):
                    report.skip("system outputs a wave did not rate (score NaN or null)", lines=[line])
                    continue
                if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
                    raise InputError(path, line, f"the score of {shown(system)} in wave {wave} is "
                                     f"{shown(score)}, expected a number", "fix the score, or write NaN when unrated")
                judge = annotation.get("annotator")
                judge = judge if isinstance(judge, str) and judge and judge != "unknown" else None
                errors = annotation.get("errors")
                tally_spans(errors if isinstance(errors, list) else [], severities, gaps)
                rows.append((track, judge, system, doc_id, float(score)))
    if not rows:
        nonempty(Judgments(report))
    df = pd.DataFrame(rows, columns=["track", "judge", "system", "item", "score"])
    df["criterion"] = criterion
    if df["judge"].isna().any():
        report.notes.append(f"{int(df['judge'].isna().sum()):,} ratings name no annotator (judge unknown)")
    if severities:
        report.notes.append("error spans: " + ", ".join(f"{n:,} {s}" for s, n in sorted(severities.items())))
    if gaps["missing"]:
        report.notes.append(f"{gaps['missing']:,} error spans have no position (\"missing\"): counted by severity")
    report.notes.append(f"criterion {criterion}" + (" (the file name says MQM)" if criterion == "MQM" else ""))
    scale = "-MQM (0 = no errors, higher is better)" if criterion == "MQM" else "0-100"
    return Judgments(report, ratings=Ratings.from_pandas(df, scale=scale))


def _waves(annotations, path, line: int, system: str):
    """(wave number from 1, annotation dict) of one system's annotations: the released list, or an
    older draft's dict with numbered keys (human1, annotator1, errors1, …)."""
    if isinstance(annotations, list):
        for wave, annotation in enumerate(annotations, 1):
            if annotation is None:
                continue
            if not isinstance(annotation, dict):
                raise InputError(path, line, f"an annotation of {shown(system)} is not an object",
                                 "write each wave's annotation as an object with score, errors, annotator")
            yield wave, annotation
    elif isinstance(annotations, dict):
        numbered = sorted({int(k[5:]) for k in annotations if k.startswith("human") and k[5:].isdigit()})
        if not numbered:
            yield 1, annotations
        for wave in numbered:
            yield wave, {"score": annotations.get(f"human{wave}"), "errors": annotations.get(f"errors{wave}"),
                         "annotator": annotations.get(f"annotator{wave}")}
    else:
        raise InputError(path, line, f"the annotations of {shown(system)} are neither a list nor an object",
                         "is this WMT25's wmt25-genmt-humeval.jsonl?")

