"""Campaigns imported from other platforms' files (``humeval serve --import FILE --into DIR``).

Three layouts are read (the same ones humeval's readers take the results of):

- **Pearmut** campaign JSON (zouharvi/pearmut ``examples/*.json``): ``{"info": {"protocol": "ESA" |
  "DA" | "MQM", …}, "campaign_id", "data": [task → [document → [segment]]]}``, each segment
  ``{"item_id", "src", "tgt": {model: text}, "error_spans": {model: spans}, "validation": {model:
  {"score": [low, high], "warning"}}}``. Segments with ``validation`` become tutorial items
  (``item_id`` starting ``tutorial``) or attention checks (loud when they carry a ``warning``,
  silent otherwise), one per model; ``error_spans`` become ESA^AI's pre-filled spans; several
  models per segment under ESA make a contrastive ESA campaign.
- **Appraise** batches JSON (AppraiseDev/Appraise ``Examples/*/batches*.json``): a list of
  ``{"items": [{"itemID", "itemType": "TGT" | "BAD" | "REF" | "CHK", "documentID", "sourceText",
  "targetText", "targetID" (the system), "mqm": {"tutorial": {…}, "payload": spans} | []}, …],
  "task": {"sourceLanguage", "targetLanguage", …}}``. ``TGT`` items are the outputs (``payload``:
  ESA^AI's spans); ``mqm.tutorial`` items become tutorial items (a ``score_target`` passes within
  ±15, as its instruction asks for "around" a score); Appraise's own ``BAD``, ``REF`` and ``CHK``
  controls are counted and left out (humeval makes its own degraded outputs, ``quality``).
  Items with an ``mqm`` field make an ESA campaign, others DA.
- **WMT** JSONL (WMT25's ``wmt25-genmt-humeval.jsonl``): ``{"doc_id": "<lp>_#_<domain>_#_<doc>_#_<seg>",
  "src_text", "tgt_text": {system: text}}`` per line: an ESA campaign, documents from ``doc_id``,
  the track from its language pair; ``tutorial`` segments are counted and left out.

humeval judges line-aligned outputs (every system on every segment): a segment missing some
systems' outputs is left out and counted in the import's report, never silently. Accounts: one
annotator per Pearmut task or Appraise batch (at least 3) and an organiser, with random passwords
written in the campaign file and the report. Every problem is an ``InputError`` naming the file,
the line where it can be found, and the fix.
"""

from __future__ import annotations

import json
import re
import secrets
from collections import Counter
from pathlib import Path

from humeval.errors import InputError

SEP = "_#_"  # WMT's and Pearmut's field separator in document ids


class Builder:
    """Segments (document, source, {system: output}, {system: spans}) and known-answer items, as read."""

    def __init__(self, path: Path, text: str):
        self.path, self.text = path, text
        self.segments: dict[tuple[str, str], dict] = {}
        self.tutorial: list[dict] = []
        self.checks: list[dict] = []
        self.skipped: Counter = Counter()
        self.track = "src-tgt"
        self.annotators = 3
        self.layout = "wmt"

    def line(self, needle) -> int | None:
        """The first line of the file holding ``needle`` (an id), to name in an error."""
        at = self.text.find(str(needle))
        return None if at < 0 else self.text.count("\n", 0, at) + 1

    def fail(self, needle, problem: str, fix: str):
        raise InputError(self.path, self.line(needle) if needle is not None else None, problem, fix)

    def add(self, document: str, source: str, system: str, output: str, spans=None, where=None):
        for name, value in (("source", source), ("output", output), ("system", system)):
            if not isinstance(value, str) or not value.strip():
                self.fail(where, f"a segment's {name} is {value!r}, not text", f"give every segment a {name} text")
        if "\n" in source or "\n" in output:  # humeval's campaign files hold one segment a line
            source, output = " ".join(source.split()), " ".join(output.split())
            self.skipped["line breaks inside a segment joined with spaces"] += 1
            spans = None
        entry = self.segments.setdefault((document, source), {"outputs": {}, "spans": {}})
        entry["outputs"][system] = output
        if spans:
            entry["spans"][system] = [{"start_i": int(x["start_i"]), "end_i": int(x["end_i"]), "severity": x["severity"]}
                                      for x in spans if isinstance(x, dict) and isinstance(x.get("start_i"), int)
                                      and isinstance(x.get("end_i"), int) and 0 <= x["start_i"] < x["end_i"] <= len(output)
                                      and x.get("severity") in ("minor", "major")]
            if len(entry["spans"][system]) < len(spans):
                self.skipped["pre-filled spans outside their output or without a severity minor/major"] += \
                    len(spans) - len(entry["spans"][system])


def _known(kind: str, source: str, output: str, low, high, feedback: str, loud: bool = True) -> dict:
    return {"type": kind, "source": source, "outputs": [output], "answer": [low, high],
            "feedback": re.sub(r"<[^>]+>", "", feedback or "").strip(), "loud": loud}


def _pearmut(b: Builder, raw: dict) -> str:
    info = raw.get("info") if isinstance(raw.get("info"), dict) else {}
    protocol = str(info.get("protocol", "ESA" if info.get("protocol_error_spans") else "DA")).upper()
    kind = {"ESA": "esa", "DA": "da", "MQM": "mqm"}.get(protocol)
    if kind is None:
        b.fail('"protocol"', f"Pearmut protocol {protocol!r} has no humeval task type",
               "use a campaign whose info.protocol is DA, ESA or MQM")
    data = raw.get("data")
    if not isinstance(data, list) or not data:
        b.fail('"data"', "no \"data\" list of tasks", "give Pearmut's campaign file (info, campaign_id, data)")
    b.annotators = max(3, len(data))
    for t, task in enumerate(data):
        documents = task if isinstance(task, list) else [task]
        for d, document in enumerate(documents):
            for segment in document if isinstance(document, list) else [document]:
                if not isinstance(segment, dict) or not isinstance(segment.get("tgt"), (dict, str)):
                    b.fail(None, f"task {t + 1}, document {d + 1}: a segment without \"tgt\"",
                           "give each segment src and tgt ({model: text})")
                item = str(segment.get("item_id", f"t{t}d{d}"))
                targets = segment["tgt"] if isinstance(segment["tgt"], dict) else {"system": segment["tgt"]}
                validation = segment.get("validation")
                if isinstance(validation, dict):
                    for model, rule in validation.items():
                        score = rule.get("score") if isinstance(rule, dict) else None
                        if model not in targets or not (isinstance(score, list) and len(score) == 2):
                            b.fail(item, f"item {item}: validation of {model!r} without a [low, high] score",
                                   "give validation: {model: {\"score\": [low, high]}} for models in tgt")
                        entry = _known(kind if kind != "mqm" else "esa", segment.get("src", ""), targets[model],
                                       *score, rule.get("warning", ""), loud=bool(rule.get("warning")))
                        (b.tutorial if item.startswith("tutorial") else b.checks).append(entry)
                    continue
                document_id = item.split(SEP)[0] if SEP in item else f"task{t + 1}-doc{d + 1}"
                spans = segment.get("error_spans") if isinstance(segment.get("error_spans"), dict) else {}
                for model, output in targets.items():
                    b.add(document_id, segment.get("src"), model, output, spans.get(model), item)
    return kind


def _appraise(b: Builder, raw: list) -> str:
    b.annotators = max(3, len(raw))
    kind = "da"
    for n, batch in enumerate(raw):
        if not isinstance(batch, dict) or not isinstance(batch.get("items"), list):
            b.fail(None, f"batch {n + 1} has no \"items\" list", "give Appraise's batches file: [{items, task}, …]")
        task = batch.get("task") if isinstance(batch.get("task"), dict) else {}
        if task.get("sourceLanguage") and task.get("targetLanguage"):
            b.track = f"{task['sourceLanguage']}-{task['targetLanguage']}"
        for item in batch["items"]:
            if not isinstance(item, dict):
                b.fail(None, f"batch {n + 1} holds an item that is not an object", "give items as JSON objects")
            where = f'"itemID": {item.get("itemID")}'
            mqm = item.get("mqm")
            if "mqm" in item:
                kind = "esa"
            tutorial = mqm.get("tutorial") if isinstance(mqm, dict) else None
            if isinstance(tutorial, dict):
                target = tutorial.get("score_target")
                low, high = (max(0, target - 15), min(100, target + 15)) if isinstance(target, (int, float)) else (0, 100)
                b.tutorial.append(_known("esa" if "mqm" in item else "da", item.get("sourceText", ""),
                                         item.get("targetText", ""), low, high, tutorial.get("instruction", "")))
                continue
            if item.get("itemType", "TGT") != "TGT":
                b.skipped[f"Appraise {item.get('itemType')} control items (humeval makes its own controls)"] += 1
                continue
            document = str(item.get("documentID", "doc")).split("#")[0]
            b.add(document, item.get("sourceText"), item.get("targetID"), item.get("targetText"),
                  mqm.get("payload") if isinstance(mqm, dict) else None, where)
    return kind


def _wmt(b: Builder) -> str:
    for line, text in enumerate(b.text.splitlines(), 1):
        if not text.strip():
            continue
        try:
            row = json.loads(text)
        except json.JSONDecodeError as error:
            raise InputError(b.path, line, f"not valid JSON ({error.msg})", "write one WMT segment object a line") \
                from None
        doc_id = row.get("doc_id") if isinstance(row, dict) else None
        if not isinstance(doc_id, str) or not isinstance(row.get("tgt_text"), dict):
            raise InputError(b.path, line, "a WMT line needs doc_id and tgt_text ({system: text})",
                             "give WMT25's wmt25-genmt-humeval.jsonl layout")
        if "tutorial" in doc_id:
            b.skipped["WMT tutorial segments"] += 1
            continue
        b.track = doc_id.split(SEP)[0] if SEP in doc_id else b.track
        document = SEP.join(doc_id.split(SEP)[:-1]) or doc_id
        for system, output in row["tgt_text"].items():
            if output is None:
                b.skipped["WMT outputs that are null"] += 1
                continue
            try:
                b.add(document, row.get("src_text"), system, output)
            except InputError as error:
                raise InputError(b.path, line, error.problem, error.fix) from None
    return "esa"


def read_manifest(path) -> tuple[Builder, str]:
    """Read a Pearmut, Appraise or WMT file (by its content); (what was read, the task type)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, None, "no such file", "give a Pearmut or Appraise campaign JSON, or a WMT JSONL file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise InputError(path, None, f"not UTF-8 text ({error.reason})", "save the file as UTF-8") from None
    b = Builder(path, text)
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        if text.lstrip().startswith("{") and "\n" in text.strip() and error.msg == "Extra data":
            return b, _wmt(b)  # several JSON objects, one a line
        raise InputError(path, error.lineno, f"not valid JSON ({error.msg})", "fix the JSON syntax") from None
    if isinstance(raw, dict) and "data" in raw and ("info" in raw or "campaign_id" in raw):
        b.layout = "pearmut"
        return b, _pearmut(b, raw)
    if isinstance(raw, list) and raw and isinstance(raw[0], dict) and "items" in raw[0]:
        b.layout = "appraise"
        return b, _appraise(b, raw)
    if isinstance(raw, dict) and "doc_id" in raw:
        return b, _wmt(b)
    raise InputError(path, 1, "neither Pearmut's campaign JSON, Appraise's batches JSON nor WMT's JSONL",
                     "give a file in one of those layouts (see humeval serve --help)")


def _toml(value) -> str:
    """A TOML value: JSON's strings, numbers and lists are valid TOML."""
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, bool) else str(value).lower()


def import_manifest(path, folder) -> tuple[Path, dict]:
    """Write a campaign (texts and ``campaign.toml``) from a Pearmut, Appraise or WMT file into
    ``folder``; returns the campaign file and a report: segments, systems, the counts left out and
    why, and the accounts with their passwords."""
    b, kind = read_manifest(path)
    systems = sorted({s for entry in b.segments.values() for s in entry["outputs"]})
    if len(systems) < 2:
        b.fail(None, f"{len(systems)} system(s) found", "humeval ranks systems: give outputs of at least two")
    kept = [(key, entry) for key, entry in b.segments.items() if len(entry["outputs"]) == len(systems)]
    partial = len(b.segments) - len(kept)
    if partial:
        b.skipped[f"segments without every system's output (humeval judges all {len(systems)} on each)"] += partial
    if not kept:
        b.fail(None, f"no segment has outputs of all {len(systems)} systems ({', '.join(systems)})",
               "give every segment every system's output")
    order = list(dict.fromkeys(doc for (doc, _), _ in kept))  # each document's segments on consecutive lines
    kept.sort(key=lambda pair: order.index(pair[0][0]))
    folder = Path(folder)
    (folder / "systems").mkdir(parents=True, exist_ok=True)
    names = {s: re.sub(r"[^A-Za-z0-9_.-]", "_", s) for s in systems}

    def lines(name, values):
        (folder / name).write_text("\n".join(values) + "\n", encoding="utf-8")
    lines("source.txt", [source for (_, source), _ in kept])
    lines("documents.txt", [doc for (doc, _), _ in kept])
    for s in systems:
        lines(f"systems/{names[s]}.txt", [entry["outputs"][s] for _, entry in kept])
    spans = [{"system": s, "item": i + 1, "spans": entry["spans"][s]}
             for i, (_, entry) in enumerate(kept) for s in systems if entry["spans"].get(s)]
    tasks = [kind]
    contrastive = 1
    if kind == "esa" and b.layout == "pearmut" and max(len(e["outputs"]) for e in b.segments.values()) > 1:
        contrastive = len(systems)  # Pearmut's segments with several models: side by side
    if any(t["type"] not in tasks for t in b.tutorial + b.checks):
        tasks += sorted({t["type"] for t in b.tutorial + b.checks} - set(tasks))
    accounts = {f"ann{i + 1}": secrets.token_urlsafe(9) for i in range(b.annotators)}
    accounts["organiser"] = secrets.token_urlsafe(9)
    name = re.sub(r"[^A-Za-z0-9_-]", "-", Path(path).stem)
    toml = [f"name = {_toml(name)}", f"track = {_toml(b.track if b.track.count('-') == 1 else 'src-tgt')}",
            f"tasks = {_toml(tasks)}", 'strategy = "uniform"', "seed = 1", 'database = "campaign.sqlite"', "context = 2"]
    if contrastive > 1:
        toml.append(f"contrastive = {contrastive}")
    toml += ["", "[data]", 'source = "source.txt"', 'documents = "documents.txt"']
    if spans and "esa" in tasks:
        (folder / "ai_spans.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in spans),
                                               encoding="utf-8")
        toml.append('ai_spans = "ai_spans.jsonl"')
    toml += ["", "[data.systems]", *[f"{_toml(s)} = {_toml(f'systems/{names[s]}.txt')}" for s in systems], ""]
    toml += ["[quality]", "bad_reference = 0.1", "repeat = 0.1"]
    if b.checks:
        toml.append("checks = 0.05")
    toml.append("")
    for table, items in (("tutorial", b.tutorial), ("checks", b.checks)):
        for item in items:
            toml += [f"[[{table}]]", *[f"{key} = {_toml(value)}" for key, value in item.items()
                                       if key != "loud" or table == "checks"], ""]
    for account, password in accounts.items():
        role = "organiser" if account == "organiser" else "annotator"
        toml += ["[[accounts]]", f"name = {_toml(account)}", f"role = {_toml(role)}", f"password = {_toml(password)}",
                 ""]
    campaign = folder / "campaign.toml"
    campaign.write_text("\n".join(toml), encoding="utf-8")
    report = {"campaign": str(campaign), "segments": len(kept), "systems": systems, "tasks": tasks,
              "documents": len(order), "tutorial": len(b.tutorial), "checks": len(b.checks),
              "ai_spans": len(spans), "left_out": dict(b.skipped), "accounts": accounts}
    return campaign, report
