"""The campaign file of ``humeval serve``: one TOML file (read with ``tomllib``) saying what is
judged, how the next judgment is chosen, which quality controls are mixed in, and who may log in.

```toml
name = "demo"
track = "deu-eng"                 # source-target: srclang and trglang of the WMT CSV export
tasks = ["pairwise", "da"]        # pairwise (preference with ties), ranking (k-way, WMT), da (0–100 slider),
                                  # esa (error spans marked minor/major, then the 0–100 slider; Kocmi et al. 2024),
                                  # mqm (MQM-lite: error spans with a category and a severity, no score)
strategy = "trueskill"            # uniform, wmt, trueskill, bt-order, bt-outcome, grm (pairwise tasks)
# baseline = "sysA"               # grm only: every pairwise task pits a system against this one
k = 5                             # outputs per ranking task
seed = 1
database = "demo.sqlite"          # relative to this file, or a postgresql:// URL; `--db` overrides
# contrastive = 3                 # ESA tasks show this many systems' outputs of one source side by side,
                                  # each with its spans and score (contrastive ESA, as Pearmut runs it)
# context = 2                     # with data.documents: segments shown before and after (read-only)
# document_scores = true          # with data.documents: DA/ESA segments in document order, one system's
                                  # document at a time, then a score of the whole document (as WMT's
                                  # document-level DA in Appraise); exported as documents.csv (with
                                  # contrastive, DA only: contrastive ESA stays side by side)
# quota = 100                     # tasks per annotator: the page shows "12 of 100", then no more tasks
# header_timeout = 10             # seconds a connection may take to send a request's head, then closed
# body_timeout = 30               # seconds a request body may take between chunks, then 408

[data]                            # plain text, one segment per line, all files line-aligned
source = "source.txt"
reference = "reference.txt"       # optional; shown to annotators when given
ai_spans = "ai_spans.jsonl"       # optional, ESA^AI: error spans of an automatic judge pre-filled in ESA
                                  # tasks, one JSON object a line: {"system", "item" (line number), "spans":
                                  # [{"start_i", "end_i", "severity"}]}; the annotator edits them
documents = "documents.txt"       # optional: each segment's document id; the page then shows `context`
                                  # segments before and after it in its document (WMT's document-level DA)
[data.systems]
sysA = "systems/sysA.txt"
sysB = "systems/sysB.txt"

[quality]                         # WMT's controls, as shares of the tasks issued
bad_reference = 0.1               # an output with a phrase replaced from another segment
repeat = 0.1                      # a task the annotator already answered, asked again
checks = 0.05                     # one of the [[checks]] below (attention checks with known answers)

[instructions]                    # optional: what a task type's page says (each has a default)
da = "How well does the translation express the source's meaning?"

[stop]                            # optional: when the budget suffices (see humeval.serve.stopping)
width = 0.8                       # every system's 95% score interval at most this wide
p_top = 0.95                      # P(top system identified), by `humeval plan`'s simulation

[[tutorial]]                      # optional: items every annotator answers first, told right or wrong
type = "pairwise"                 # one of tasks; known-answer items (tutorial and checks) are never ranked
source = "Der Hund bellt."
outputs = ["The dog barks.", "The cat barks."]   # pairwise 2, ranking 2+, da/esa/mqm 1
answer = 1                        # pairwise 0 (tie), 1 or 2; ranking: ranks; da/esa: [low, high] score;
                                  # mqm: [fewest, most] errors marked
feedback = "The second translation has the wrong animal."

[[checks]]                        # attention checks, mixed in at quality.checks; same keys as [[tutorial]]
type = "da"
source = "Bitte geben Sie dieser Übersetzung 0 Punkte."
outputs = ["Please give this translation a score of 0."]
answer = [0, 10]
loud = true                       # loud (default): the annotator is told it was a check and the result;
                                  # false: silent, only recorded (as WMT's degraded outputs are)
feedback = "The text asked for a score of 0."  # shown after "That was an attention check: passed." (or failed)

[completion]                      # optional, with quota: the code shown once the quota is done (Prolific, MTurk)
code = "C1A2B3"
failed_code = "NOPASS"            # optional: shown instead after more than max_failed failed checks
max_failed = 0                    # (loud and silent [[checks]], and degraded outputs with a crisp rule)

[[accounts]]
name = "alice"
role = "annotator"                # or "organiser"
password_hash = "scrypt$16384$8$1$…"   # `humeval serve --hash-password`; `password = "…"` also works
```

Every problem is an ``InputError`` naming the file, the key and the fix; ``load_campaign`` checks
everything (files exist, are line-aligned, names are unique) before the server starts, and
``humeval serve --check`` runs only that.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from humeval.errors import InputError
from humeval.serve.stopping import STOP_KEYS, StopRule

TASKS = ("pairwise", "ranking", "da", "esa", "mqm")
RATED = ("da", "esa", "mqm")  # task types that judge one output
STRATEGIES = ("uniform", "wmt", "trueskill", "bt-order", "bt-outcome", "grm")
ROLES = ("annotator", "organiser")
SYNCHRONOUS = ("full", "normal")
KEYS = {"name", "track", "tasks", "strategy", "baseline", "k", "seed", "database", "batch", "task_timeout",
        "leaderboard_interval", "bootstrap", "synchronous", "data", "quality", "accounts", "stop", "header_timeout",
        "body_timeout", "quota", "instructions", "tutorial", "checks",
        "completion", "context", "contrastive", "document_scores"}
KNOWN_KEYS = {"type", "source", "reference", "outputs", "answer", "feedback"}
# What each task type's page tells the annotator (``[instructions]`` in the campaign file replaces any)
INSTRUCTIONS = {
    "pairwise": "Read the source, then both translations. Choose the one that conveys the source's meaning better "
                "and reads more naturally; choose \"both are as good\" only when you cannot tell them apart. "
                "Keys: A, T (tie), B.",
    "ranking": "Rank every translation from 1 (best) down; give equal ranks to translations of equal quality. "
               "Each rank starts empty: choose one for every translation.",
    "da": "How well does the translation express the meaning of the source? 0 = not at all, 100 = perfectly. "
          "Move the slider or type the number; an untouched score is not accepted.",
    "esa": "First mark every error: select the wrong characters with the mouse (or Shift and the arrow keys) and "
           "press 1 (minor) or 2 (major); click a marked error in the list to change or remove it. A minor error "
           "hampers the reading a little, a major one changes the meaning or makes the text hard to understand. "
           "Mark missing content on the word next to where it is missing. Then score the translation from 0 to 100 "
           "(ESA, Kocmi et al. 2024). Without script, mark each word in the list below the text.",
    "mqm": "Mark every error: select the wrong characters, choose the category, then press 1 (minor) or 2 "
           "(major). Categories follow MQM's top level: accuracy (meaning), fluency (grammar, spelling), "
           "terminology, style, locale conventions (dates, numbers), non-translation, other. No score is asked.",
}



@dataclass
class Account:
    name: str
    role: str
    password_hash: str
    password: str | None = field(default=None, repr=False)  # given in clear in the campaign file


@dataclass
class KnownItem:
    """A tutorial item (or an attention check): texts and the answer that passes it.

    ``answer``: pairwise 0/1/2; ranking the expected ranks (passed when every pair the expected
    ranks order strictly is ordered the same way); da/esa a [low, high] score range; mqm a
    [fewest, most] range of errors marked."""
    type: str
    source: str
    outputs: tuple[str, ...]
    answer: object
    feedback: str = ""
    reference: str | None = None
    loud: bool = True  # an attention check: the annotator is told (``False``: only recorded)

    def passed(self, answer: dict) -> bool:
        """Whether a canonical answer (``tasks.canonical``) passes this item."""
        if self.type == "pairwise":
            return answer["outcome"] == self.answer
        if self.type == "ranking":
            want, got = self.answer, answer["ranks"]
            return all((want[i] < want[j]) == (got[i] < got[j]) for i in range(len(want)) for j in range(len(want))
                       if want[i] != want[j])
        low, high = self.answer
        value = len(answer["errors"]) if self.type == "mqm" else answer["score"]
        return low <= value <= high


@dataclass
class Completion:
    """The completion code shown when an annotator's quota is done (crowd platforms pay on it):
    ``failed_code`` instead after more than ``max_failed`` failed attention checks."""
    code: str
    failed_code: str | None = None
    max_failed: int = 0

    def for_failures(self, failed: int) -> str:
        return self.failed_code if self.failed_code is not None and failed > self.max_failed else self.code


@dataclass
class Campaign:
    path: Path
    name: str
    track: str
    tasks: tuple[str, ...]
    strategy: str
    k: int
    seed: int
    database: Path | str  # an SQLite file, or a postgresql:// URL
    items: tuple[str, ...]  # item names: 1-based line numbers
    source: tuple[str, ...]
    reference: tuple[str, ...] | None
    outputs: dict[str, tuple[str, ...]]  # system → one output per item
    bad_reference: float = 0.0
    repeat: float = 0.0
    accounts: list[Account] = field(default_factory=list)
    batch: int = 20
    baseline: str | None = None
    task_timeout: float = 3600.0
    leaderboard_interval: float = 5.0
    bootstrap: int = 200
    synchronous: str = "full"
    stop: StopRule | None = None
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    quota: int | None = None  # tasks per annotator (then "12 of 100" and no more tasks)
    instructions: dict[str, str] = field(default_factory=lambda: dict(INSTRUCTIONS))
    tutorial: tuple[KnownItem, ...] = ()  # answered first by every annotator; never ranked
    checks: tuple[KnownItem, ...] = ()  # attention checks, issued at the share ``checks``
    checks_share: float = 0.0
    completion: Completion | None = None
    documents: tuple[str, ...] | None = None  # each segment's document id (data.documents)
    context: int = 2  # segments of its document shown before and after a segment
    contrastive: int = 1  # outputs an ESA task shows side by side (1: plain ESA)
    ai_spans: dict | None = None  # (system index, item index) → pre-filled error spans (ESA^AI)
    document_scores: bool = False  # DA/ESA in document order, then a document-level score (needs documents;
    #                                DA only with contrastive ESA)

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(self.outputs)


def _fail(path, problem: str, fix: str):
    raise InputError(path, None, problem, fix)


def _get(table: dict, key: str, kind, default, path, where: str = ""):
    value = table.get(key, default)
    ok = isinstance(value, kind) and not (kind in (int, (int, float)) and isinstance(value, bool))
    if not ok:
        name = {int: "whole number", str: "string", dict: "table", list: "list", bool: "true or false"}.get(kind, "number")
        _fail(path, f"{where}{key} = {value!r} is not a {name}", f"give {where}{key} as a {name}")
    return value


def _lines(path: Path, campaign: Path, key: str) -> tuple[str, ...]:
    if not path.is_file():
        _fail(campaign, f"data.{key}: file {path} does not exist", "give a path relative to the campaign file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise InputError(path, None, f"not UTF-8 text ({error.reason} at byte {error.start})",
                         "save the file as UTF-8") from None
    lines = text.splitlines()
    if not lines:
        _fail(path, "the file is empty", "give one segment per line")
    return tuple(lines)


def load_campaign(path, database=None) -> Campaign:
    """Read and check a campaign file (see the module docstring); ``database`` overrides its own."""
    path = Path(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        _fail(path, "no such campaign file", "give the path of a .toml campaign file (`humeval serve --demo DIR` "
              "writes one)")
    except tomllib.TOMLDecodeError as error:
        _fail(path, f"not valid TOML: {error}", "fix the TOML syntax")
    unknown = sorted(set(raw) - KEYS)
    if unknown:
        _fail(path, f"unknown key {', '.join(unknown)}", f"use only {', '.join(sorted(KEYS))}")
    base = path.parent
    tasks = raw.get("tasks", ["pairwise"])
    tasks = [tasks] if isinstance(tasks, str) else tasks
    if not isinstance(tasks, list) or not tasks or any(t not in TASKS for t in tasks):
        _fail(path, f"tasks = {tasks!r}", f"give a list of task types among {', '.join(TASKS)}")
    strategy = _get(raw, "strategy", str, "uniform", path)
    if strategy not in STRATEGIES:
        _fail(path, f"unknown strategy {strategy!r}", f"use one of {', '.join(STRATEGIES)}")
    if strategy == "wmt" and "ranking" not in tasks:
        _fail(path, "strategy = \"wmt\" asks for WMT's 5-way rankings but tasks has no \"ranking\"",
              "add \"ranking\" to tasks or choose a pairwise strategy")
    track = _get(raw, "track", str, "src-tgt", path)
    if track.count("-") != 1 or not all(track.split("-")):
        _fail(path, f"track = {track!r}", "name the track source-target, e.g. \"deu-eng\"")
    data = _get(raw, "data", dict, None, path)
    source = _lines(base / _get(data, "source", str, None, path, "data."), path, "source")
    reference = None
    if "reference" in data:
        reference = _lines(base / _get(data, "reference", str, None, path, "data."), path, "reference")
    documents = None
    if "documents" in data:
        documents = _lines(base / _get(data, "documents", str, None, path, "data."), path, "documents")
        documents = tuple(d.strip() for d in documents)
        if not all(documents):
            line = documents.index("") + 1
            raise InputError(base / data["documents"], line, "an empty document id",
                             "give every segment's document id, one a line, line-aligned with the source")
        runs = [d for i, d in enumerate(documents) if i == 0 or documents[i - 1] != d]
        if len(runs) != len(set(runs)):
            again = next(d for d in runs if runs.count(d) > 1)
            line = next(i + 1 for i in range(1, len(documents)) if documents[i] == again and documents[i - 1] != again)
            raise InputError(base / data["documents"], line, f"document {again!r} comes back after other documents",
                             "keep each document's segments on consecutive lines")
    context = _get(raw, "context", int, 2, path)
    if context < 0:
        _fail(path, f"context = {context}", "give the number of segments shown before and after, ≥ 0")
    systems = _get(data, "systems", dict, None, path, "data.")
    if len(systems) < 2:
        _fail(path, f"data.systems names {len(systems)} system(s)", "name at least two systems")
    outputs = {str(name): _lines(base / _get(systems, name, str, None, path, "data.systems."), path,
                                 f"systems.{name}") for name in systems}
    for name, lines in [("reference", reference), ("documents", documents)] + list(outputs.items()):
        if lines is not None and len(lines) != len(source):
            _fail(path, f"data {name} has {len(lines)} lines but the source has {len(source)}",
                  "give line-aligned files: one segment per line in every file")
    contrastive = _get(raw, "contrastive", int, 1, path)
    if contrastive != 1 and ("esa" not in tasks or not 2 <= contrastive <= len(outputs)):
        _fail(path, f"contrastive = {contrastive} (with tasks {tasks} and {len(outputs)} systems)",
              f"give 2 ≤ contrastive ≤ {len(outputs)} and \"esa\" in tasks, or leave contrastive out")
    document_scores = _get(raw, "document_scores", bool, False, path)
    # contrastive ESA stays side by side: document scores then apply to DA alone (so DA must be there)
    scored = {"da", "esa"} if contrastive == 1 else {"da"}
    if document_scores and (documents is None or not scored & set(tasks)):
        _fail(path, "document_scores = true needs data.documents and \"da\" or \"esa\" in tasks (\"da\" with "
              "contrastive ESA, which stays side by side)",
              "give each segment's document id in data.documents and a DA or plain ESA task, or leave "
              "document_scores out")
    ai_spans = None
    if "ai_spans" in data:
        if "esa" not in tasks:
            _fail(path, "data.ai_spans pre-fills ESA tasks and tasks has no \"esa\"", "add \"esa\" to tasks")
        ai_spans = read_ai_spans(base / _get(data, "ai_spans", str, None, path, "data."), outputs)
    baseline = raw.get("baseline")
    if strategy == "grm" and (baseline not in outputs or "pairwise" not in tasks):
        _fail(path, f"strategy = \"grm\" needs pairwise tasks and baseline = one of the systems (got {baseline!r})",
              f"add baseline = \"{next(iter(outputs))}\" (or another system) and \"pairwise\" to tasks")
    if strategy != "grm" and baseline is not None:
        _fail(path, "baseline is only used by strategy = \"grm\"", "remove baseline or set strategy = \"grm\"")
    k = _get(raw, "k", int, min(5, len(outputs)), path)
    if "ranking" in tasks and not 2 <= k <= len(outputs):
        _fail(path, f"k = {k}", f"give 2 ≤ k ≤ {len(outputs)} (the number of systems)")
    quality = _get(raw, "quality", dict, {}, path)
    shares = {key: float(_get(quality, key, (int, float), 0.0, path, "quality."))
              for key in ("bad_reference", "repeat", "checks")}
    unknown = sorted(set(quality) - set(shares))
    if unknown:
        _fail(path, f"unknown key quality.{', quality.'.join(unknown)}", f"use only {', '.join(shares)}")
    if any(not 0 <= v < 1 for v in shares.values()) or sum(shares.values()) >= 1:
        _fail(path, f"quality shares {shares}", "give shares from 0 to below 1 that sum to below 1 (WMT: about 0.1 each)")
    accounts = _accounts(raw.get("accounts", []), path)
    numbers = {key: _get(raw, key, (int, float), default, path) for key, default in
               (("task_timeout", 3600.0), ("leaderboard_interval", 5.0), ("header_timeout", 10.0),
                ("body_timeout", 30.0))}
    counts = {key: _get(raw, key, int, default, path) for key, default in (("batch", 20), ("bootstrap", 200),
                                                                            ("seed", 0))}
    if min(numbers.values()) <= 0 or counts["batch"] < 1:
        _fail(path, f"{', '.join(numbers)} and batch must be positive", "give positive numbers")
    if counts["bootstrap"] != 0 and counts["bootstrap"] < 2:
        _fail(path, f"bootstrap = {counts['bootstrap']}", "give 0 (no intervals) or at least 2 resamples")
    synchronous = _get(raw, "synchronous", str, "full", path)
    if synchronous not in SYNCHRONOUS:
        _fail(path, f"synchronous = {synchronous!r}", f"use one of {', '.join(SYNCHRONOUS)}")
    stop = _stop(raw, path, tasks, counts["bootstrap"])
    quota = raw.get("quota")
    if quota is not None and (isinstance(quota, bool) or not isinstance(quota, int) or quota < 1):
        _fail(path, f"quota = {quota!r}", "give the number of tasks each annotator does, a whole number ≥ 1")
    given = _get(raw, "instructions", dict, {}, path)
    if set(given) - set(TASKS) or not all(isinstance(v, str) for v in given.values()):
        _fail(path, f"instructions names {', '.join(sorted(set(given) - set(TASKS))) or 'a value that is not text'}",
              f"give [instructions] as text for some of {', '.join(TASKS)}")
    checks = _known_items(raw, "checks", path, tasks)
    if bool(checks) != bool(shares["checks"]):
        _fail(path, f"quality.checks = {shares['checks']} with {len(checks)} [[checks]] items",
              "give both [[checks]] items and quality.checks (the share of tasks that are checks), or neither")
    from humeval.serve.db import is_url
    db = database if database is not None else _get(raw, "database", str, path.stem + ".sqlite", path)
    db = str(db) if is_url(db) else Path(db) if database is not None else base / db
    return Campaign(path=path, name=_get(raw, "name", str, path.stem, path), track=track, tasks=tuple(tasks),
                    strategy=strategy, baseline=baseline, k=k, seed=counts["seed"], database=db,
                    items=tuple(str(i + 1) for i in range(len(source))), source=source, reference=reference,
                    outputs=outputs, accounts=accounts, batch=counts["batch"], bootstrap=counts["bootstrap"],
                    task_timeout=float(numbers["task_timeout"]),
                    leaderboard_interval=float(numbers["leaderboard_interval"]), synchronous=synchronous, stop=stop,
                    header_timeout=float(numbers["header_timeout"]), body_timeout=float(numbers["body_timeout"]),
                    quota=quota, instructions={**INSTRUCTIONS, **given},
                    tutorial=_known_items(raw, "tutorial", path, tasks), checks=checks, documents=documents, context=context,
                    contrastive=contrastive, ai_spans=ai_spans, document_scores=document_scores,
                    checks_share=shares.pop("checks"), completion=_completion(raw, path, quota), **shares)


def _stop(raw, path, tasks, bootstrap) -> StopRule | None:
    if "stop" not in raw:
        return None
    table = _get(raw, "stop", dict, None, path)
    unknown = sorted(set(table) - STOP_KEYS)
    if unknown:
        _fail(path, f"unknown key stop.{', stop.'.join(unknown)}", f"use only {', '.join(sorted(STOP_KEYS))}")
    if not {"width", "p_top"} & set(table):
        _fail(path, "[stop] names no target", "give stop.width (interval width) and/or stop.p_top (0 to 1)")
    if not {"pairwise", "ranking"} & set(tasks):
        _fail(path, "[stop] targets rank systems from pairwise or ranking tasks, and tasks has neither",
              "add \"pairwise\" or \"ranking\" to tasks, or remove [stop]")
    rule = StopRule(min_comparisons=_get(table, "min_comparisons", int, 50, path, "stop."),
                    simulations=_get(table, "simulations", int, 50, path, "stop."))
    if "width" in table:
        rule.width = float(_get(table, "width", (int, float), None, path, "stop."))
        if rule.width <= 0:
            _fail(path, f"stop.width = {rule.width}", "give a positive interval width (Bradley–Terry log-odds)")
        if not bootstrap:
            _fail(path, "stop.width needs intervals but bootstrap = 0", "set bootstrap to 100 or more")
    if "p_top" in table:
        rule.p_top = float(_get(table, "p_top", (int, float), None, path, "stop."))
        if not 0 < rule.p_top <= 1:
            _fail(path, f"stop.p_top = {rule.p_top}", "give a probability above 0, at most 1 (e.g. 0.95)")
    if rule.min_comparisons < 0 or rule.simulations < 2:
        _fail(path, "stop.min_comparisons must be ≥ 0 and stop.simulations ≥ 2", "give larger numbers")
    return rule


def read_ai_spans(path: Path, outputs: dict) -> dict:
    """ESA^AI's pre-filled spans (see the module docstring): (system index, item index) → spans,
    each checked to lie inside that output (character offsets, as ESA's ``error_spans``)."""
    import json
    if not path.is_file():
        raise InputError(path, None, "no such file of automatic error spans", "give data.ai_spans relative to the "
                         "campaign file")
    names = list(outputs)
    out = {}
    for line, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not text.strip():
            continue
        try:
            row = json.loads(text)
        except json.JSONDecodeError as error:
            raise InputError(path, line, f"not JSON: {error.msg}", "write one JSON object a line") from None
        fix = 'write {"system": "sysA", "item": 3, "spans": [{"start_i": 0, "end_i": 4, "severity": "minor"}]}'
        if not isinstance(row, dict) or row.get("system") not in outputs:
            raise InputError(path, line, f"system {row.get('system') if isinstance(row, dict) else row!r} is not one "
                             f"of the campaign's ({', '.join(names)})", fix)
        item, spans = row.get("item"), row.get("spans")
        n = len(outputs[row["system"]])
        if isinstance(item, str) and item.isdigit():
            item = int(item)
        if not isinstance(item, int) or isinstance(item, bool) or not 1 <= item <= n:
            raise InputError(path, line, f"item {item!r} is not a line number from 1 to {n}", fix)
        text_out = outputs[row["system"]][item - 1]
        if not isinstance(spans, list) or not all(
                isinstance(x, dict) and isinstance(x.get("start_i"), int) and isinstance(x.get("end_i"), int)
                and 0 <= x["start_i"] < x["end_i"] <= len(text_out) and x.get("severity") in ("minor", "major")
                for x in spans):
            raise InputError(path, line, f"spans must lie inside the output ({len(text_out)} characters) with "
                             "severity minor or major", fix)
        key = (names.index(row["system"]), item - 1)
        if key in out:
            raise InputError(path, line, f"a second line for system {row['system']}, item {item}",
                             "give each output's spans on one line")
        out[key] = sorted(({"start_i": x["start_i"], "end_i": x["end_i"], "severity": x["severity"]} for x in spans),
                          key=lambda x: (x["start_i"], x["end_i"]))
    return out


def _completion(raw, path, quota) -> Completion | None:
    if "completion" not in raw:
        return None
    table = _get(raw, "completion", dict, None, path)
    unknown = sorted(set(table) - {"code", "failed_code", "max_failed"})
    if unknown:
        _fail(path, f"unknown key completion.{', completion.'.join(unknown)}", "use only code, failed_code, max_failed")
    if quota is None:
        _fail(path, "[completion] without quota: a completion code is shown once an annotator's quota is done",
              "add quota = (the number of tasks each annotator does)")
    code = _get(table, "code", str, None, path, "completion.")
    failed = table.get("failed_code")
    if failed is not None and not isinstance(failed, str) or not code:
        _fail(path, "completion.code (and failed_code) must be non-empty text", "give the codes as strings")
    max_failed = _get(table, "max_failed", int, 0, path, "completion.")
    if max_failed < 0:
        _fail(path, f"completion.max_failed = {max_failed}", "give a whole number ≥ 0")
    return Completion(code, failed, max_failed)


def _known_items(raw, key: str, path, tasks) -> tuple[KnownItem, ...]:
    """``[[tutorial]]`` (or ``[[checks]]``) entries, checked (see ``KnownItem``)."""
    entries = raw.get(key, [])
    if not isinstance(entries, list):
        _fail(path, f"{key} is not a list of tables", f"write each item as [[{key}]] with keys")
    out = []
    for i, entry in enumerate(entries, 1):
        where = f"{key}[{i}]."
        if not isinstance(entry, dict):
            _fail(path, f"{key}[{i}] is not a table", f"write each item as [[{key}]] with keys")
        unknown = sorted(set(entry) - KNOWN_KEYS - ({"loud"} if key == "checks" else set()))
        if unknown:
            _fail(path, f"unknown key {where}{f', {where}'.join(unknown)}", f"use only {', '.join(sorted(KNOWN_KEYS))}")
        kind = _get(entry, "type", str, None, path, where)
        if kind not in tasks:
            _fail(path, f"{where}type = {kind!r} is not one of the campaign's tasks", f"use one of {', '.join(tasks)}")
        outputs = _get(entry, "outputs", list, None, path, where)
        wanted = {"pairwise": "exactly 2", "ranking": "2 or more"}.get(kind, "exactly 1")
        if not all(isinstance(o, str) and o for o in outputs) or \
                not (len(outputs) == 2 if kind == "pairwise" else len(outputs) >= 2 if kind == "ranking" else
                     len(outputs) == 1):
            _fail(path, f"{where}outputs has {len(outputs)} text(s) for a {kind} item", f"give {wanted} non-empty texts")
        answer = entry.get("answer")
        number = (int, float)
        if kind == "pairwise":
            ok = answer in (0, 1, 2) and not isinstance(answer, bool)
            need = "0 (tie), 1 (first better) or 2 (second better)"
        elif kind == "ranking":
            ok = isinstance(answer, list) and len(answer) == len(outputs) and \
                all(isinstance(r, int) and 1 <= r <= len(outputs) for r in answer)
            need = f"a list of {len(outputs)} ranks from 1 (best) to {len(outputs)}"
        else:
            ok = isinstance(answer, list) and len(answer) == 2 and all(isinstance(x, number) for x in answer) and \
                0 <= answer[0] <= answer[1] and (kind == "mqm" or answer[1] <= 100)
            need = ("[fewest, most] errors to mark, e.g. [1, 3]" if kind == "mqm" else
                    "[low, high]: the scores from 0 to 100 that pass, e.g. [0, 40]")
        if not ok:
            _fail(path, f"{where}answer = {answer!r} does not fit a {kind} item", f"give answer = {need}")
        reference = entry.get("reference")
        if reference is not None and not isinstance(reference, str):
            _fail(path, f"{where}reference is not text", "give the reference as a string or leave it out")
        out.append(KnownItem(kind, _get(entry, "source", str, None, path, where), tuple(outputs),
                             list(answer) if isinstance(answer, list) else answer,
                             _get(entry, "feedback", str, "", path, where), reference,
                             _get(entry, "loud", bool, True, path, where)))
    return tuple(out)


def _accounts(raw, path) -> list[Account]:
    from humeval.serve.auth import hash_password, parse_hash
    if not isinstance(raw, list) or not raw:
        _fail(path, "no [[accounts]]", "add [[accounts]] tables with name, role and password_hash (no open "
              "registration: only listed accounts can log in)")
    accounts, seen = [], set()
    for i, entry in enumerate(raw, 1):
        where = f"accounts[{i}]."
        if not isinstance(entry, dict):
            _fail(path, f"accounts[{i}] is not a table", "write each account as [[accounts]] with keys")
        name = _get(entry, "name", str, None, path, where)
        role = _get(entry, "role", str, "annotator", path, where)
        if not name or name in seen:
            _fail(path, f"{where}name {name!r} is empty or repeated", "give every account its own name")
        if role not in ROLES:
            _fail(path, f"{where}role = {role!r}", f"use one of {', '.join(ROLES)}")
        if ("password" in entry) == ("password_hash" in entry):
            _fail(path, f"{where} needs exactly one of password, password_hash",
                  "give password_hash (from `humeval serve --hash-password`)")
        if "password_hash" in entry:
            hashed = _get(entry, "password_hash", str, None, path, where)
            if parse_hash(hashed) is None:
                _fail(path, f"{where}password_hash is not an scrypt hash", "make one with `humeval serve --hash-password`")
        else:
            password = _get(entry, "password", str, None, path, where)
            if len(password) < 8:
                _fail(path, f"{where}password is shorter than 8 characters", "give a longer password")
            hashed = hash_password(password)
        seen.add(name)
        accounts.append(Account(name, role, hashed, entry.get("password")))
    if not any(a.role == "annotator" for a in accounts):
        _fail(path, "no annotator account", "add an [[accounts]] with role = \"annotator\"")
    return accounts
