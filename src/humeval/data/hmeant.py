"""The HMEANT annotation model (Lo & Wu 2011): semantic frames of a reference and of an MT output,
and the annotator's alignment of MT frames and roles to reference ones.

A ``Frame`` is a predicate (its token indices) with role fillers (``Role``: a type such as AGENT
and token indices). An ``Annotation`` holds, for one output of one system on one item by one
annotator, the reference frames, the output frames and the alignments, each ``full`` or
``partial`` (correctly or partially correctly translated). ``output=None`` marks an annotation of
a reference alone (used for the relative-frequency weights).

JSON format (``read_json`` / ``write_json``), one object per file::

    {"annotations": [
      {"item": "seg-1", "system": "sysA", "annotator": "ann1", "language": "en",
       "reference": {"length": 6, "text": "optional, tokenised",
                     "frames": [{"id": "r1", "predicate": [2],
                                 "roles": [{"id": "r1a", "type": "AGENT", "tokens": [0, 1]}]}]},
       "output": {"length": 5, "text": "…", "frames": [ …same shape… ]},
       "frame_alignments": [{"reference": "r1", "output": "h1", "type": "full"}],
       "role_alignments": [{"reference": "r1a", "output": "h1a", "type": "partial"}]}]}

Ids are unique within an annotation; a role's alignment only counts inside an aligned frame pair.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from humeval.errors import InputError

LINK_TYPES = ("full", "partial")


@dataclass
class Role:
    id: str
    type: str
    tokens: tuple[int, ...]


@dataclass
class Frame:
    id: str
    predicate: tuple[int, ...]
    roles: list[Role] = field(default_factory=list)

    def tokens(self) -> set[int]:
        return set(self.predicate).union(*(r.tokens for r in self.roles)) if self.roles else set(self.predicate)


@dataclass
class Side:
    length: int
    frames: list[Frame]
    text: str | None = None


@dataclass
class Annotation:
    item: str
    system: str | None
    annotator: str
    reference: Side
    output: Side | None = None
    frame_links: list[tuple[str, str, str]] = field(default_factory=list)  # (ref frame id, output frame id, type)
    role_links: list[tuple[str, str, str]] = field(default_factory=list)  # (ref role id, output role id, type)
    language: str | None = None


@dataclass
class AnnotationSet:
    """Annotations plus what could not be used, with counts (``skipped``: reason → count)."""
    annotations: list[Annotation]
    skipped: dict[str, int] = field(default_factory=dict)
    source: str = ""

    def outputs(self) -> list[Annotation]:
        return [a for a in self.annotations if a.output is not None]

    def references(self) -> list[Annotation]:
        return [a for a in self.annotations if a.output is None]

    def skip(self, reason: str, count: int = 1):
        if count:
            self.skipped[reason] = self.skipped.get(reason, 0) + count


def _side(obj, path, where) -> Side:
    try:
        frames = [Frame(str(f["id"]), tuple(int(t) for t in f["predicate"]),
                        [Role(str(r["id"]), str(r["type"]), tuple(int(t) for t in r["tokens"])) for r in f.get("roles", [])])
                  for f in obj.get("frames", [])]
        length = int(obj["length"]) if "length" in obj else len(str(obj["text"]).split())
    except (KeyError, TypeError, ValueError) as e:
        raise InputError(path, None, f"{where}: malformed frame or role ({e!r})",
                         "frames need id, predicate (token list), roles with id, type, tokens; a side needs length or text") from None
    return Side(length, frames, obj.get("text"))


def read_json(path) -> AnnotationSet:
    """Annotations in humeval's HMEANT JSON format (see the module doc)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(path, None, "file not found", "check the path") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(path, getattr(e, "lineno", None), f"not valid JSON ({e})", "write UTF-8 JSON as in the format") from None
    entries = data.get("annotations") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise InputError(path, 1, "no 'annotations' list", 'the file is {"annotations": [...]}')
    result = AnnotationSet([], source=str(path))
    for k, e in enumerate(entries):
        where = f"annotation {k}"
        try:
            ann = Annotation(str(e["item"]), e.get("system"), str(e.get("annotator", "")), _side(e["reference"], path, where),
                             _side(e["output"], path, where) if e.get("output") else None,
                             language=e.get("language"))
        except (KeyError, TypeError):
            raise InputError(path, None, f"{where}: needs item and reference", "see the HMEANT JSON format") from None
        for kind, links in (("frame", e.get("frame_alignments", [])), ("role", e.get("role_alignments", []))):
            for link in links:
                if link.get("type") not in LINK_TYPES:
                    result.skip(f"{kind} alignments of type {link.get('type')!r}")
                    continue
                target = ann.frame_links if kind == "frame" else ann.role_links
                target.append((str(link["reference"]), str(link["output"]), link["type"]))
        result.annotations.append(ann)
    return result


def write_json(annotations: AnnotationSet | list[Annotation], path):
    """Write annotations in the JSON format ``read_json`` reads."""
    items = annotations.annotations if isinstance(annotations, AnnotationSet) else annotations

    def side(s: Side | None):
        if s is None:
            return None
        out = {"length": s.length, "frames": [{"id": f.id, "predicate": list(f.predicate),
                                               "roles": [{"id": r.id, "type": r.type, "tokens": list(r.tokens)}
                                                         for r in f.roles]} for f in s.frames]}
        if s.text is not None:
            out["text"] = s.text
        return out
    data = {"annotations": [{"item": a.item, "system": a.system, "annotator": a.annotator, "language": a.language,
                             "reference": side(a.reference), "output": side(a.output),
                             "frame_alignments": [{"reference": r, "output": o, "type": t} for r, o, t in a.frame_links],
                             "role_alignments": [{"reference": r, "output": o, "type": t} for r, o, t in a.role_links]}
                            for a in items]}
    Path(path).write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
