"""Reader for the HMEANT annotations of WMT13 outputs (Birch et al. 2013; bhaddow/hmeant-wmt13):
tab-separated tables with a header and ``NULL`` for missing values, in one directory:

    sentences       id language segment number version length
    sentences_text  id language segment number version text
    annotations     id sentence_id annotator ref_id
    actions         id annotation_id tokens            (frames: the predicate's token)
    slots           id action_id type tokens           (roles, comma-separated token indices)
    action_aligns   id ref_action_id hypo_action_id type
    slot_aligns     id ref_slot_id hypo_slot_id type

Version 00 is the reference, 01–03 the phrase-based, syntax-based and rule-based systems. For an
output sentence each annotator has two annotations: the reference's frames (``ref_id`` NULL; token
indices into the reference) and the output's frames, whose ``ref_id`` names the former; the
alignments link their actions and slots. Annotations of version 00 sentences are references
alone. Items are ``language-segment-number``. Alignments of type ``undefined`` or ``null``,
alignments pointing outside the annotation pair, and token indices beyond the sentence are
counted in ``AnnotationSet.skipped``.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import pandas as pd

from humeval.data.readers._io import decode, read_bytes, text_stream
from humeval.data.readers._sniff import check_delimiter, one_line_end
from humeval.errors import InputError
from humeval.data.hmeant import LINK_TYPES, Annotation, AnnotationSet, Frame, Role, Side

TABLES = ("sentences", "sentences_text", "annotations", "actions", "slots", "action_aligns", "slot_aligns")
NOT_EMPTY = ("sentences", "annotations")
SYSTEMS = {"01": "phrase-based", "02": "syntax-based", "03": "rule-based"}
COLUMNS = {"sentences": ["id", "language", "segment", "number", "version", "length"],
           "sentences_text": ["id", "text"],
           "annotations": ["id", "sentence_id", "annotator", "ref_id"], "actions": ["id", "annotation_id", "tokens"],
           "slots": ["id", "action_id", "type", "tokens"], "action_aligns": ["id", "ref_action_id", "hypo_action_id", "type"],
           "slot_aligns": ["id", "ref_slot_id", "hypo_slot_id", "type"]}


def _table(directory: Path, name: str, encoding: str = "utf-8") -> pd.DataFrame:
    """One table as strings (``NULL`` → missing) with its file ``line`` numbers; ids unique."""
    path = directory / name
    if not path.is_file():
        raise InputError(path, None, "missing", f"an hmeant-wmt13 directory holds the tables {', '.join(TABLES)}")
    data = read_bytes(path)
    text = one_line_end(decode(data, path, encoding))
    check_delimiter(path, text.split("\n", 1)[0], "\t", needed=len(COLUMNS[name]))
    reader = csv.reader(text_stream(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    header = [h.strip() for h in next(reader)]
    missing = [c for c in COLUMNS[name] if c not in header]
    if missing:
        raise InputError(path, 1, f"columns {missing} missing (found {', '.join(header)})",
                         "is this a table of the hmeant-wmt13 data?")
    rows, lines = [], []
    for fields in reader:
        if not fields or fields == [""]:
            continue
        if len(fields) != len(header):
            raise InputError(path, reader.line_num, f"{len(fields)} fields, expected {len(header)} as in the header",
                             "check the tabs of this row (is the file truncated?)")
        rows.append([None if f == "NULL" else f for f in fields])
        lines.append(reader.line_num)
    if not rows and name in NOT_EMPTY:
        raise InputError(path, None, f"the {name} table has a header but no rows", "check that the export finished")
    df = pd.DataFrame(rows, columns=header, dtype=object).assign(line=lines)
    twice = df.id.duplicated(keep=False) & df.id.notna()
    if twice.any():
        first, second = df.line[twice].iloc[:2]
        raise InputError(path, int(second), f"id {df.id[twice].iloc[0]!r} appears twice (lines {first} and {second})",
                         "ids must be unique within a table")
    return df


def _tokens(text, path, line, what) -> tuple[int, ...]:
    try:
        return tuple(int(t) for t in str(text or "").split(",") if t.strip())
    except ValueError:
        raise InputError(path, line, f"{what}: token list {text!r} is not comma-separated integers",
                         "tokens are 0-based indices like 3,4,5") from None


def _lengths(sentences: pd.DataFrame, path) -> dict[str, int]:
    out = {}
    for row in sentences.itertuples(index=False):
        try:
            out[row.id] = int(row.length)
        except (TypeError, ValueError):
            raise InputError(path, row.line, f"sentence {row.id}: length {row.length!r} is not a whole number",
                             "the length column counts the sentence's tokens") from None
    return out


def _links(table: pd.DataFrame, unit: str, known, owner, noun: str, result: AnnotationSet) -> dict[str, list]:
    """(ref id, hypo id, type) alignments of ``table`` by ``owner(hypo id)``; alignments of a type
    other than full/partial, or naming ids not in ``known``, are counted in ``result``."""
    links: dict[str, list] = defaultdict(list)
    for row in table.itertuples(index=False):
        ref, hypo = getattr(row, f"ref_{unit}_id"), getattr(row, f"hypo_{unit}_id")
        if row.type not in LINK_TYPES:
            result.skip(f"{noun} alignments of type {row.type!r}")
        elif ref not in known or hypo not in known:
            result.skip(f"{noun} alignments naming unknown {noun}s (is the {unit}s table complete?)")
        else:
            links[owner(hypo)].append((ref, hypo, row.type))
    return links


def read_wmt13(directory, encoding: str = "utf-8") -> AnnotationSet:
    """Every annotation in the directory: output annotations with their reference frames and
    alignments, and reference-only annotations (version 00)."""
    directory = Path(directory)
    if directory.is_file():
        directory = directory.parent
    if not directory.is_dir():
        raise InputError(directory, None, "no such directory", "name the hmeant-wmt13 data directory")
    t = {name: _table(directory, name, encoding) for name in TABLES}
    length_of = _lengths(t["sentences"], directory / "sentences")
    sentences = t["sentences"].set_index("id")
    text = t["sentences_text"].set_index("id")["text"]
    parts = sentences[["language", "segment", "number"]].fillna("")
    sentences["key"] = parts.language + "-" + parts.segment + "-" + parts.number
    result = AnnotationSet([], source=str(directory))
    versions00 = sentences[sentences.version == "00"]
    references = dict(zip(versions00.key[::-1], versions00.index[::-1]))  # the first sentence of an item
    result.skip("reference sentences repeating an item (the first is used)", len(versions00) - len(references))

    frames_of: dict[str, list[Frame]] = defaultdict(list)
    frame_by_id: dict[str, Frame] = {}
    for row in t["actions"].itertuples(index=False):
        frame = Frame(row.id, _tokens(row.tokens, directory / "actions", row.line, f"action {row.id}"))
        frames_of[row.annotation_id].append(frame)
        frame_by_id[row.id] = frame
    role_frame: dict[str, str] = {}
    for row in t["slots"].itertuples(index=False):
        frame = frame_by_id.get(row.action_id)
        if frame is None:
            result.skip("roles of unknown frames")
            continue
        frame.roles.append(Role(row.id, row.type, _tokens(row.tokens, directory / "slots", row.line, f"slot {row.id}")))
        role_frame[row.id] = row.action_id

    frame_annotation = {f.id: a for a, frames in frames_of.items() for f in frames}
    # alignments keyed by the output annotation they belong to
    frame_links = _links(t["action_aligns"], "action", frame_by_id, frame_annotation.get, "frame", result)
    role_links = _links(t["slot_aligns"], "slot", role_frame, lambda r: frame_annotation.get(role_frame[r]), "role",
                        result)

    def side(annotation_id, sentence_id) -> Side:
        length = length_of[sentence_id]
        frames = frames_of.get(annotation_id, [])
        beyond = sum(1 for f in frames for k in f.tokens() if k >= length)
        result.skip("token indices beyond the sentence length (ignored)", beyond)
        return Side(length, frames, text.get(sentence_id))

    annotations = t["annotations"]
    by_id = annotations.set_index("id")
    result.skip("frames of unknown annotations", sum(len(f) for a, f in frames_of.items() if a not in by_id.index))
    for row in annotations.itertuples(index=False):
        if row.sentence_id not in sentences.index:
            result.skip("annotations of unknown sentences")
            continue
        sentence = sentences.loc[row.sentence_id]
        if sentence.version == "00":
            result.annotations.append(Annotation(sentence.key, None, row.annotator, side(row.id, row.sentence_id),
                                                 language=sentence.language))
            continue
        if pd.isna(row.ref_id):
            continue  # the reference frames of an output annotation; read with it
        if row.ref_id not in by_id.index or sentence.key not in references:
            result.skip("output annotations without their reference annotation")
            continue
        ref_sentence = references[sentence.key]
        own_frames = {f.id for f in frames_of.get(row.id, [])}
        ref_frames = {f.id for f in frames_of.get(row.ref_id, [])}
        own_roles = {r.id for f in frames_of.get(row.id, []) for r in f.roles}
        ref_roles = {r.id for f in frames_of.get(row.ref_id, []) for r in f.roles}
        flinks = [l for l in frame_links.get(row.id, []) if l[0] in ref_frames and l[1] in own_frames]
        rlinks = [l for l in role_links.get(row.id, []) if l[0] in ref_roles and l[1] in own_roles]
        result.skip("alignments outside their annotation pair",
                    len(frame_links.get(row.id, [])) - len(flinks) + len(role_links.get(row.id, [])) - len(rlinks))
        result.annotations.append(Annotation(
            sentence.key, SYSTEMS.get(sentence.version, sentence.version), row.annotator,
            side(row.ref_id, ref_sentence), side(row.id, row.sentence_id), flinks, rlinks, sentence.language))
    return result
