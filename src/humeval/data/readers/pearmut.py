"""Pearmut's annotation log (zouharvi/pearmut): ``data/annotations/<campaign>.jsonl`` on the server
(``data/outputs/`` in older versions), or the dashboard's "download annotations" file
``annotations.json`` (``{"<campaign_id>": [entry, …], …}``).

Each entry is one submission, as the server's ``/log-response`` stores it (its request payload
plus ``user_id`` and ``item_i``)::

    {"user_id": "alice", "item_i": 3,
     "item": [{"item_id": "doc7_#_0", "src": "...", "tgt": {"modelA": "...", "modelB": "..."}}, ...],
     "annotation": [{"modelA": {"score": 85, "error_spans": [{"start_i": 11, "end_i": 16,
                                                              "severity": "minor", "category": null}]},
                     "modelB": {"score": 92, "error_spans": []}},
                    null, ...],
     "comment": "...", "actions": [...]}

``annotation`` runs parallel to ``item`` (one document's segments; ``null`` for a skipped item).
Older logs hold one item per entry: ``annotation`` is then the dict of models itself and ``item``
absent. An entry whose ``annotation`` is ``"__RESET__"`` (the organiser reset the user's task)
voids that user's earlier entries for the same ``item_i``, as Pearmut does. Entries whose
``item_i`` starts with ``welcome_``, ``random_`` or ``goodbye_`` (tutorials, attention checks,
forms) are counted and skipped, as Pearmut's own scoring skips them; a later submission of the
same (user, item, model) replaces the earlier one (counted).

Each score becomes one row of ``Ratings``: item = ``item_id`` (else, as Pearmut does, the item
without its outputs: its other fields, shown as ``item_i:position`` when the log carries no
ids), system = the model, judge = ``user_id``, track = the campaign id for ``annotations.json``.
The log does not say which protocol the campaign ran: ``protocol=`` (the campaign's
``info.protocol``: ``DA``, ``ESA``, ``MQM``…) names the criterion; without it the criterion is
``score`` and a note says so. Scores are Pearmut's 0–100 slider.
"""

from __future__ import annotations

import json
import math

import pandas as pd

from humeval.data.judgments import Judgments, ReadReport, nonempty
from humeval.data.readers._io import decode, read_bytes, shown
from humeval.data.readers._jsonl import first_keys, json_lines
from humeval.data.readers.esa import tally_spans
from humeval.data.tables import Ratings
from humeval.errors import InputError

FORMAT = "pearmut"
RESET = "__RESET__"  # Pearmut's RESET_MARKER
SPECIAL = ("welcome_", "random_", "goodbye_")


def looks_like(line: str) -> bool:
    """A JSON line with Pearmut's ``user_id``, ``item_i`` and ``annotation``."""
    return {"user_id", "item_i", "annotation"} <= first_keys(line)


def looks_like_download(text: str) -> bool:
    """The dashboard's ``annotations.json``: an object of campaign ids → lists of Pearmut entries."""
    stripped = text.lstrip()
    if not stripped.startswith("{"):
        return False
    start = stripped.find("[")
    entry = stripped.find("{", start) if start >= 0 else -1
    if entry < 0:
        return False
    try:
        record, _ = json.JSONDecoder().raw_decode(stripped, entry)
    except ValueError:
        return False
    return isinstance(record, dict) and {"user_id", "item_i"} <= set(record)


def read_pearmut(path, encoding: str = "utf-8", protocol: str | None = None) -> Judgments:
    """Read a Pearmut annotation log or ``annotations.json`` (see the module doc) into ``Ratings``."""
    report = ReadReport(str(path), FORMAT)
    latest: dict[tuple, tuple[float, int]] = {}
    severities: dict[str, int] = {}
    gaps = {"missing": 0}
    voided = 0
    for campaign, entries in _campaigns(path, encoding):
        kept: list[tuple[int, dict]] = []
        for line, entry in entries:
            report.rows += 1
            if entry.get("annotation") == RESET:
                before = len(kept)
                kept = [(n, e) for n, e in kept
                        if (e.get("user_id"), e.get("item_i")) != (entry.get("user_id"), entry.get("item_i"))]
                voided += before - len(kept)
                report.skip("task resets (__RESET__ markers)", lines=[line] if line is not None else [])
                continue
            kept.append((line, entry))
        for line, entry in kept:
            _entry_scores(entry, line, campaign, path, report, latest, severities, gaps)
    if voided:
        report.skip("submissions voided by a later task reset", voided)
    if not latest:
        nonempty(Judgments(report))
    df = pd.DataFrame([(*key, value[0]) for key, value in latest.items()],
                      columns=["track", "judge", "item", "system", "score"])
    df["criterion"] = protocol or "score"
    if protocol is None:
        report.notes.append("the log does not name the campaign's protocol: criterion 'score' (pass protocol=, "
                            "the campaign's info.protocol, e.g. ESA or DA)")
    if severities:
        report.notes.append("error spans: " + ", ".join(f"{n:,} {s}" for s, n in sorted(severities.items())))
    if gaps["missing"]:
        report.notes.append(f"{gaps['missing']:,} error spans have no position (\"missing\")")
    return Judgments(report, ratings=Ratings.from_pandas(df, scale="0-100"))


def _campaigns(path, encoding):
    """(campaign id or None, [(line, entry), …]) for a log (one campaign) or an annotations.json."""
    text = decode(read_bytes(path), path, encoding)
    if looks_like_download(text):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise InputError(path, error.lineno, f"not valid JSON ({error.msg})",
                             "download annotations.json again from the dashboard") from None
        for campaign, entries in data.items():
            if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
                raise InputError(path, None, f"campaign {shown(campaign)} is not a list of entries",
                                 "give Pearmut's annotations.json unchanged")
            yield str(campaign), [(None, e) for e in entries]
        return
    yield None, list(json_lines(path, encoding, "one Pearmut log entry (a JSON object)"))


def _entry_scores(entry, line, campaign, path, report, latest, severities, gaps):
    user, item_i, annotation = entry.get("user_id"), entry.get("item_i"), entry.get("annotation")
    at = [line] if line is not None else []  # annotations.json entries have no line of their own
    if isinstance(item_i, str) and item_i.startswith(SPECIAL):
        report.skip("tutorial, attention-check and form entries (item_i welcome_/random_/goodbye_)", lines=at)
        return
    if not isinstance(user, str) or not user:
        raise InputError(path, line, "an entry without a user_id", "give Pearmut's log unchanged")
    items = entry.get("item")
    if isinstance(annotation, dict):  # older logs: one item per entry
        annotation, items = [annotation], [items] if isinstance(items, dict) else [None]
    if not isinstance(annotation, list):
        report.skip("entries without annotations (form answers, comments)", lines=at)
        return
    items = items if isinstance(items, list) else [None] * len(annotation)
    for position, (item, models) in enumerate(zip(items, annotation)):
        if models is None:
            report.skip("skipped items (annotation null)", lines=at)
            continue
        if not isinstance(models, dict):
            raise InputError(path, line, f"annotation {position} is not an object of model → answer",
                             "give Pearmut's log unchanged")
        label = _item_label(item, item_i, position)
        for model, answer in models.items():
            score = answer.get("score") if isinstance(answer, dict) else None
            if score is None:
                report.skip("answers without a score (custom sliders, forms)", lines=at)
                continue
            if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
                raise InputError(path, line, f"the score of {shown(model)} is {shown(score)}, expected a number",
                                 "give Pearmut's log unchanged")
            spans = answer.get("error_spans")
            tally_spans(spans if isinstance(spans, list) else [], severities, gaps)
            key = (campaign, user, label, str(model))
            if key in latest:
                report.skip("earlier answers replaced by a later submission", lines=at)
            latest[key] = (float(score), line)


def _item_label(item, item_i, position: int) -> str:
    """``item_id``; else the item without its outputs (Pearmut's own fallback); else item_i:position."""
    if isinstance(item, dict):
        if item.get("item_id") is not None:
            return str(item["item_id"])
        return json.dumps({k: v for k, v in item.items() if k != "tgt"}, sort_keys=True, ensure_ascii=False)
    return f"{item_i}:{position}"
