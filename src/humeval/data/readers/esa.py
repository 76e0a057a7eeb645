"""Error Span Annotation (ESA; Kocmi et al. 2024): per annotator, a 0–100 score of an output after
marking its error spans (minor or major), as WMT24 ran it in Appraise.

Two layouts, comma-separated:

- **WMT24's Appraise export** (``esa_generalMT2024_wave2.csv`` of wmt-conference/wmt24-news-systems
  ``humeval/``), no header, 12 fields per row, as WMT24's ``tools.py`` names them: ``user_id,
  system_id, segment_id, segment_type, source_lang, target_lang, score, doc_id,
  is_complete_document, error_spans, start_time, end_time``. ``segment_type`` is ``TGT`` (a
  system output) or ``BAD`` (a degraded copy of the output of the same system and segment, its
  ``doc_id`` ending in ``#bad``); ``error_spans`` is a JSON list of
  ``{"start_i", "end_i", "severity", "error_type"}``; languages are ISO 639-3 (``eng``), mapped
  to the two-letter codes WMT24 uses (track ``en-ja``).
- **a CSV with a header** naming at least system, segment and score columns (``system`` /
  ``system_id``; ``item`` / ``segment_id`` / ``seg_id``; ``score`` / ``esa_score``), an error-span
  column (``error_spans`` / ``esa_spans``, which makes the file ESA) and optionally the annotator
  (``annotator`` / ``user_id`` / ``judge`` / ``rater``), ``segment_type`` / ``type``, ``doc_id``,
  ``lp`` or ``source_lang`` + ``target_lang``, ``end_time``.

As WMT24 does before ranking: rows of the tutorial (system names containing ``tutorial``),
of documents marked ``#incomplete`` (fillers) or ``#dup`` are skipped and counted; when an
annotator scored the same output twice only the latest (``end_time``, else the later row) is
kept. ``BAD`` rows are counted and skipped unless ``controls=True``, which keeps them as
``BAD_REF`` in ``Ratings.kind`` (``TGT`` becomes ``SYSTEM``, as in WMT DA files) for
``humeval.ratings.quality``. Error spans are counted by severity in the report's notes; a span
cell that is not a JSON list is noted with its line (the score is kept). A score that is not a number is an
error naming its line; an empty score is counted and skipped.
"""

from __future__ import annotations

import csv
import json
import math

import pandas as pd

from humeval.data.judgments import Judgments, ReadReport, nonempty
from humeval.data.readers._io import check_names, decode, finite_number, read_bytes, records, shown, text_stream
from humeval.data.readers._tracks import track_from_path
from humeval.data.tables import Ratings
from humeval.errors import InputError

FORMAT = "esa"
WMT24 = ("user_id", "system_id", "segment_id", "segment_type", "source_lang", "target_lang", "score", "doc_id",
         "is_complete_document", "error_spans", "start_time", "end_time")
ALIASES = {
    "system": ("system", "system_id", "sys_id"),
    "item": ("item", "segment_id", "seg_id", "segment", "sid"),
    "score": ("score", "esa_score", "overall"),
    "spans": ("error_spans", "esa_spans"),
    "judge": ("annotator", "user_id", "judge", "rater", "workerid"),
    "kind": ("segment_type", "type", "kind"),
    "doc": ("doc_id", "document"),
    "track": ("lp", "track", "langs"),
    "src": ("source_lang", "src_lang"),
    "trg": ("target_lang", "tgt_lang"),
    "time": ("end_time",),
}
KINDS = {"TGT": "SYSTEM", "SYSTEM": "SYSTEM", "BAD": "BAD_REF", "BAD_REF": "BAD_REF"}
LANGUAGES = {"eng": "en", "ces": "cs", "hin": "hi", "zho": "zh", "jpn": "ja", "rus": "ru", "ukr": "uk",
             "deu": "de", "isl": "is", "spa": "es"}  # WMT24's tools.py langcode_mapping


def _cells(line: str) -> list[str]:
    try:
        return next(csv.reader([line]))
    except (csv.Error, StopIteration):
        return []


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def looks_like(header: str) -> bool:
    """WMT24's headerless 12-field rows, or a header with system, segment, score and error-span columns."""
    cells = [c.strip() for c in _cells(header)]
    if len(cells) == len(WMT24) and cells[3].upper() in KINDS and _number(cells[6]) and cells[9].startswith("["):
        return True
    return looks_like_header(header)


def looks_like_header(header: str) -> bool:
    names = {c.strip().lower() for c in _cells(header)}
    return all(names & set(ALIASES[k]) for k in ("system", "item", "score", "spans"))


def read_esa(path, encoding: str = "utf-8", controls: bool = False, keep_incomplete: bool = False) -> Judgments:
    """Read an ESA CSV (see the module doc) into ``Ratings`` (criterion ``ESA``, scale 0–100)."""
    reader = csv.reader(text_stream(decode(read_bytes(path), path, encoding)))
    lines = records(reader, path)
    first = next(lines, (1, None))[1]
    if not first:
        raise InputError(path, None, "the file is empty", "check that the export finished")
    headerless = len(first) == len(WMT24) and first[3].strip().upper() in KINDS and _number(first[6].strip())
    names = list(WMT24) if headerless else [c.strip().lower() for c in first]
    check_names(names, path)
    at = _columns(path, names)
    fallback = track_from_path(path)
    report = ReadReport(str(path), FORMAT)
    latest: dict[tuple, tuple] = {}
    severities: dict[str, int] = {}
    unreadable: list[int] = []

    def rows():
        if headerless:
            yield 1, first
        yield from lines

    for line, fields in rows():
        if not fields or all(not f.strip() for f in fields):
            continue
        if len(fields) != len(names):
            raise InputError(path, line, f"{len(fields)} fields, expected {len(names)}"
                             + (" (WMT24's ESA export)" if headerless else " as in the header"),
                             "check the quoting of the error spans on this line")
        report.rows += 1
        get = _getter(fields, at)
        system, item, doc = get("system"), get("item"), get("doc")
        kind = KINDS.get(get("kind").upper(), get("kind").upper()) if "kind" in at else "SYSTEM"
        if not system or not item:
            report.skip("rows without a system or segment", lines=[line])
            continue
        if "tutorial" in system.lower():
            report.skip("tutorial rows (as WMT24)", lines=[line])
            continue
        if "#dup" in doc:
            report.skip("rows of duplicated documents (#dup, as WMT24)", lines=[line])
            continue
        if "#incomplete" in doc and not keep_incomplete:
            report.skip("rows of incomplete filler documents (#incomplete, left out as WMT24)", lines=[line])
            continue
        if kind != "SYSTEM" and not controls:
            report.skip(f"quality-control rows of type {shown(get('kind'), 20)} (controls=True keeps them)",
                        lines=[line])
            continue
        score = finite_number(get("score"), ("",), path, line, "score", "a number from 0 to 100",
                              "fix the score, or leave it empty to skip the row")
        if score is None:
            report.skip("rows without a score", lines=[line])
            continue
        if "spans" in at and not _count_spans(get("spans"), severities):
            unreadable.append(line)
        track = _track(get("track"), get("src"), get("trg")) or fallback
        key = (track, get("judge"), system, item, kind)
        when = _time(get("time"), line)
        if key in latest:
            kept_earlier = latest[key][0] > when
            report.skip("earlier scores of an output the annotator scored again (the latest is kept, as WMT24)",
                        lines=[line if kept_earlier else latest[key][2]])
            if kept_earlier:
                continue
        latest[key] = (when, score, line)
    if not latest:
        nonempty(Judgments(report))
    df = pd.DataFrame([(*key, value[1]) for key, value in latest.items()],
                      columns=["track", "judge", "system", "item", "kind", "score"])
    df["judge"] = df["judge"].where(df["judge"] != "", None)
    df["track"] = df["track"].astype(object).where(df["track"].notna(), None)
    df["criterion"] = "ESA"
    if unreadable:
        report.notes.append(f"{len(unreadable):,} error-span cells are not a JSON list (their scores are kept; "
                            f"line {', '.join(map(str, unreadable[:3]))}{', …' if len(unreadable) > 3 else ''})")
    if severities:
        report.notes.append("error spans: " + ", ".join(f"{n:,} {s}" for s, n in sorted(severities.items())))
    return Judgments(report, ratings=Ratings.from_pandas(df, scale="0-100"))


def _getter(fields: list[str], at: dict[str, int]):
    """The stripped cell of a key in this row ('' when the file has no such column)."""
    return lambda key: fields[at[key]].strip() if key in at else ""


def _columns(path, names: list[str]) -> dict[str, int]:
    at = {}
    for key, aliases in ALIASES.items():
        found = next((names.index(a) for a in aliases if a in names), None)
        if found is not None:
            at[key] = found
    missing = [k for k in ("system", "item", "score") if k not in at]
    if missing:
        raise InputError(path, 1, f"an ESA file needs columns for {', '.join(missing)} (found {shown(', '.join(names))})",
                         "name them system, segment_id and score, or give WMT24's 12-field export")
    return at


def _track(track: str, src: str, trg: str) -> str | None:
    if track:
        return track
    if src and trg:
        return f"{LANGUAGES.get(src.lower(), src)}-{LANGUAGES.get(trg.lower(), trg)}"
    return None


def _time(text: str, line: int) -> float:
    try:
        value = float(text)
    except ValueError:
        return float(line)
    return value if math.isfinite(value) else float(line)


def _count_spans(text: str, severities: dict[str, int]) -> bool:
    """Add the spans' severities to ``severities``; False when the cell is not a JSON list."""
    if not text:
        return True
    try:
        spans = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested too deep, counted as not a JSON list
        return False
    if not isinstance(spans, list):
        return False
    for span in spans:
        severity = str(span.get("severity", "unknown")).lower() if isinstance(span, dict) else "unknown"
        severities[severity] = severities.get(severity, 0) + 1
    return True
