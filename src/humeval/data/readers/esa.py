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
  to the two-letter codes WMT24 uses (track ``en-ja``). This is Appraise's current document-level
  export (``manage.py ExportSystemScoresToCSV``, ``DirectAssessmentDocumentResult.get_system_data``),
  WMT25's too; with ``--batch-info`` it appends ``batch_no, result_item_id`` (14 fields), and its
  item types also include ``REF`` (the reference, kind ``REF``) and ``CHK`` (a system output shown
  again, which Appraise's own system scores count with ``TGT``: kind ``REPEAT``), kept only with
  ``controls=True`` like ``BAD``.
- **a CSV with a header** naming at least system, segment and score columns (``system`` /
  ``system_id``; ``item`` / ``segment_id`` / ``seg_id``; ``score`` / ``esa_score``), an error-span
  column (``error_spans`` / ``esa_spans``, which makes the file ESA) and optionally the annotator
  (``annotator`` / ``user_id`` / ``judge`` / ``rater``), ``segment_type`` / ``type``, ``doc_id``,
  ``lp`` or ``source_lang`` + ``target_lang``, ``end_time``.

Each output is the item ``<doc_id>:<segment_id>`` when the file has documents (the document with
its ``#bad``/``#incomplete``/``#dup`` marks removed, so a control and its original share the item:
WMT24's ``orig_segment_id``), else the segment id; ``humeval.ratings.esa_wmt24`` reads the domain
(``test-en-<domain>_…``) from it.

As WMT24 does before ranking: rows of the tutorial (system names containing ``tutorial``),
of documents marked ``#incomplete`` (fillers) or ``#dup`` are skipped and counted; when an
annotator scored the same output twice only the latest (``end_time``, else the later row) is
kept. ``BAD`` rows are counted and skipped unless ``controls=True``, which keeps them as
``BAD_REF`` in ``Ratings.kind`` (``TGT`` becomes ``SYSTEM``, as in WMT DA files) for
``humeval.ratings.quality``. Error spans are counted by severity in the report's notes; a span
cell that is not a JSON list is noted with its line (the score is kept); spans whose ``start_i`` or
``end_i`` is the string ``"missing"`` (Appraise could not place them; 1,533 in all rows of WMT24's wave 2) are
counted in a note of their own, as are spans without an ``error_type`` key. A score that is not a
number is an error naming its line; an empty score is counted and skipped.

Annotators are the file's accounts (``user_id``). WMT24 gave one person up to 10 accounts
(``annotator_mapping.json``: person → accounts); ``annotators=`` (that file's path, or the dict)
makes the judges persons. Re-ratings are still resolved per account first, as WMT24 does; an
account the mapping does not list is an error naming its first line.
"""

from __future__ import annotations

import csv
import json
import math
import re

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
MARKS = re.compile(r"(#(?:bad|incomplete|dup))+$")  # WMT24's marks at the end of a control's doc_id
BATCH_INFO = ("batch_no", "result_item_id")  # ExportSystemScoresToCSV --batch-info appends these two
# Appraise's item types: TGT a system output, BAD a degraded copy, REF the reference, CHK a system output
# shown again (Appraise's own system scores count CHK with TGT; humeval keeps it apart as a repeat)
KINDS = {"TGT": "SYSTEM", "SYSTEM": "SYSTEM", "BAD": "BAD_REF", "BAD_REF": "BAD_REF", "REF": "REF", "CHK": "REPEAT",
         "REPEAT": "REPEAT"}
LANGUAGES = {"eng": "en", "ces": "cs", "hin": "hi", "zho": "zh", "jpn": "ja", "rus": "ru", "ukr": "uk",
             "deu": "de", "isl": "is", "spa": "es"}  # WMT24's tools.py langcode_mapping


def _cells(line: str) -> list[str]:
    try:
        return next(csv.reader([line]))
    except (csv.Error, StopIteration):
        return []


def is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def looks_like(header: str) -> bool:
    """Appraise's headerless 12- or 14-field rows, or a header with system, segment, score and error-span columns."""
    cells = [c.strip() for c in _cells(header)]
    if _headerless(cells) and cells[9].startswith("["):
        return True
    return looks_like_header(header)


def describe(line: str) -> str:
    """What made a line ESA, for the reader's "format guessed from …" note."""
    if looks_like_header(line):
        return "the header"
    return "WMT24's 12-field ESA rows" if len(_cells(line)) == len(WMT24) else "Appraise's 14-field ESA rows"


def _headerless(cells: list[str]) -> bool:
    """Appraise's document-level export: 12 fields (WMT24's files), 14 with --batch-info."""
    return (len(cells) in (len(WMT24), len(WMT24) + len(BATCH_INFO)) and cells[3].upper() in KINDS
            and is_number(cells[6]))


def looks_like_header(header: str) -> bool:
    names = {c.strip().lower() for c in _cells(header)}
    return all(names & set(ALIASES[k]) for k in ("system", "item", "score", "spans"))


def read_esa(path, encoding: str = "utf-8", controls: bool = False, keep_incomplete: bool = False,
             annotators=None) -> Judgments:
    """Read an ESA CSV (see the module doc) into ``Ratings`` (criterion ``ESA``, scale 0–100).

    ``annotators``: a person → accounts mapping (WMT24's ``annotator_mapping.json`` path, or a dict)
    to make the judges persons instead of accounts.
    """
    person = _person_of(annotators, path)
    reader = csv.reader(text_stream(decode(read_bytes(path), path, encoding)))
    lines = records(reader, path)
    first = next(lines, (1, None))[1]
    if not first:
        raise InputError(path, None, "the file is empty", "check that the export finished")
    headerless = _headerless([c.strip() for c in first])
    names = list(WMT24 + BATCH_INFO)[:len(first)] if headerless else [c.strip().lower() for c in first]
    check_names(names, path)
    at = _columns(path, names)
    fallback = track_from_path(path)
    report = ReadReport(str(path), FORMAT)
    latest: dict[tuple, tuple] = {}
    severities: dict[str, int] = {}
    span_gaps = {"missing": 0, "untyped": 0}
    unreadable: list[int] = []
    first_line: dict[str, int] = {}

    def rows():
        if headerless:
            yield 1, first
        yield from lines

    for line, fields in rows():
        if not fields or all(not f.strip() for f in fields):
            continue
        if len(fields) != len(names):
            raise InputError(path, line, f"{len(fields)} fields, expected {len(names)}"
                             + (" (Appraise's ESA export, as the first line)" if headerless else " as in the header"),
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
        if "spans" in at and not _count_spans(get("spans"), severities, span_gaps):
            unreadable.append(line)
        track = track_of(get("track"), get("src"), get("trg")) or fallback
        if doc:
            item = f"{MARKS.sub('', doc)}:{item}"  # WMT24's orig_segment_id (doc, segment), controls' marks removed
        first_line.setdefault(get("judge"), line)
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
    if person is not None:
        unmapped = sorted((n, a) for a, n in first_line.items() if a and a not in person)
        if unmapped:
            raise InputError(path, unmapped[0][0], f"account {shown(unmapped[0][1])} is not in the annotator mapping"
                             f" ({len(unmapped)} accounts are not)", "give the mapping that lists every account, "
                             "or read without annotators= to keep accounts as judges")
        df["judge"] = df["judge"].map(lambda a: person.get(a, a))
        people = df["judge"].nunique()
        report.notes.append(f"judges are the {people:,} persons of the annotator mapping "
                            f"({len([a for a in first_line if a]):,} accounts)")
    df["judge"] = df["judge"].where(df["judge"] != "", None)
    df["track"] = df["track"].astype(object).where(df["track"].notna(), None)
    df["criterion"] = "ESA"
    if unreadable:
        report.notes.append(f"{len(unreadable):,} error-span cells are not a JSON list (their scores are kept; "
                            f"line {', '.join(map(str, unreadable[:3]))}{', …' if len(unreadable) > 3 else ''})")
    if severities:
        report.notes.append("error spans: " + ", ".join(f"{n:,} {s}" for s, n in sorted(severities.items())))
    if span_gaps["missing"]:
        report.notes.append(f"{span_gaps['missing']:,} error spans have no position (start_i/end_i \"missing\"): "
                            "counted by severity, their place in the text unknown")
    if span_gaps["untyped"]:
        report.notes.append(f"{span_gaps['untyped']:,} error spans have no error_type key")
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


def track_of(track: str, src: str, trg: str) -> str | None:
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


def _person_of(annotators, path) -> dict[str, str] | None:
    """account → person from a person → accounts mapping (a dict, or the path of its JSON file)."""
    if annotators is None:
        return None
    where = path
    if not isinstance(annotators, dict):
        where = annotators
        try:
            annotators = json.loads(decode(read_bytes(annotators), annotators, "utf-8"))
        except ValueError as error:
            raise InputError(where, None, f"the annotator mapping is not JSON ({shown(error)})",
                             "give WMT24's annotator_mapping.json: {person: [account, …]}") from None
    if not isinstance(annotators, dict) or not all(isinstance(v, list) for v in annotators.values()):
        raise InputError(where, None, "the annotator mapping is not an object of person → list of accounts",
                         "give WMT24's annotator_mapping.json: {person: [account, …]}")
    person: dict[str, str] = {}
    for name, accounts in annotators.items():
        for account in accounts:
            if str(account) in person and person[str(account)] != name:
                raise InputError(where, None, f"account {shown(account)} is listed for two persons "
                                 f"({shown(person[str(account)])} and {shown(name)})",
                                 "list every account under one person")
            person[str(account)] = str(name)
    return person


def _count_spans(text: str, severities: dict[str, int], gaps: dict[str, int] | None = None) -> bool:
    """Add the spans' severities to ``severities`` (and spans without a position or an error_type to
    ``gaps``); False when the cell is not a JSON list."""
    if not text:
        return True
    try:
        spans = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested too deep, counted as not a JSON list
        return False
    if not isinstance(spans, list):
        return False
    tally_spans(spans, severities, gaps)
    return True


def tally_spans(spans: list, severities: dict[str, int], gaps: dict[str, int] | None = None) -> None:
    """Count a list of error spans by severity; with ``gaps``, also those whose ``start_i``/``end_i``
    is "missing" (``gaps["missing"]``) and those without an ``error_type`` key (``gaps["untyped"]``)."""
    for span in spans:
        severity = str(span.get("severity", "unknown")).lower() if isinstance(span, dict) else "unknown"
        severities[severity] = severities.get(severity, 0) + 1
        if gaps is not None and isinstance(span, dict):
            gaps["missing"] = gaps.get("missing", 0) + ("missing" in (span.get("start_i"), span.get("end_i")))
            gaps["untyped"] = gaps.get("untyped", 0) + ("error_type" not in span)
