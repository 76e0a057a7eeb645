"""The campaign's judgments as humeval's tables and files (what ``humeval.read`` reads back).

- ``comparisons``: every comparison the leaderboard ranks: the pairwise tasks' answers (a = the
  output shown first, outcome 0 tie, 1 first preferred, 2 second preferred), then the C(k, 2)
  comparisons of each k-way ranking (``Rankings.expand``), each with group = its task id (one
  group per ranking); written in humeval's pairwise layout (``data.export.pairwise_frame``: CSV,
  TSV, JSONL or Parquet), so ``humeval rank comparisons.csv`` ranks what the board ranks.
- ``rankings``: the ranking tasks' answers (``Rankings``, rank 1 best).
- ``ratings``: the DA and ESA answers (``Ratings``, criterion ``DA`` or ``ESA``, scale 0–100,
  ``kind`` SYSTEM / BAD_REF / REPEAT); the long-form ratings file holds the system outputs'
  ratings only (the ratings reader has no kind column), the controls go to ``controls`` files.
- ``documents``: the document-level DA/ESA scores (``document_scores``; ``ratings(documents=True)``),
  in the long-form ratings layout with item = the document id, which the ratings reader reads
  back (``humeval rank documents.csv -m z-mean`` ranks systems by their documents' scores).
- ``esa``: the ESA answers in the ESA reader's CSV layout (system, item, score, error_spans as
  WMT24's JSON list of {start_i, end_i, severity}, annotator, segment_type TGT or BAD, lp):
  ``humeval.read`` reads the error spans' counts too; repeats are left out (the reader keeps one
  score per annotator and output).
- ``mqm``: the MQM-lite answers as Google's per-error MQM TSV (system, doc, doc_id, seg_id,
  rater, source, target, category, severity; a ``No-error`` row for an output without errors),
  which ``read_mqm`` scores with Freitag et al.'s weights; ``mqm_ratings`` is the same score
  (``MQMWeights``: −(5 · major + 1 · minor), Non-translation 25) for the leaderboard. The layout
  has one rating per (system, segment, rater), so an annotator's second answer to the same output
  (issued again once every segment was seen) is written as rater ``name#2`` (``#3``, …): read
  back, it stays a rating of its own, as on the board, instead of adding its errors to the first.
- ``appraise_csv``: WMT's ranking CSV as Appraise exported it for WMT10–14 (srclang, trglang,
  srcIndex, documentId, segmentId, judgeId, systemNNumber, systemNId, systemNrank): ranking tasks
  and pairwise tasks (a two-way ranking: the preferred output rank 1, the other 2, a tie 1 and 1).

- ``judgments``: every answered task, controls included, one row each: task id, type, kind
  (SYSTEM, BAD_REF: an attention check with a degraded output, REPEAT, DOCUMENT: a document-level
  score, its item ``document <id>``), the task it controls,
  item, systems and the texts shown (JSON lists), annotator, the answer as JSON (with ESA spans
  and MQM errors), issue and answer times (UTC, ISO 8601), seconds taken, and ``passed`` for the
  controls with a crisp rule (a pairwise BAD_REF: the intact output preferred; a DA/ESA BAD_REF:
  scored below the annotator's rating of the intact output; a pairwise or ranking REPEAT: the same
  answer; a ``TUTORIAL`` item: its ``answer`` in the campaign file; empty otherwise: a repeated
  score is judged by the Wilcoxon test in ``da_quality``). Tutorial items (item ``tutorial N``)
  appear only here: no export that ranks systems holds them. ``attention``: ``loud`` or ``silent``
  for an attention check (``tasks.attention_kind``); ``ai_kept``, ``ai_removed``, ``ai_added``: an
  ESA^AI task's pre-filled spans kept or removed and the spans added (``ai_edits``).
- ``annotators``: per annotator, tasks and minutes, tutorial items right, attention checks loud
  and silent with the failed ones, and the completion code shown (``attention``).

Only ``SYSTEM`` answers go into the comparisons, rankings and ratings that rank systems; controls
are kept apart (``kind``) and summarised by ``leaderboard.quality``.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime, timezone

import numpy as np
import pandas as pd

from humeval.data.export import frame, write
from humeval.data.tables import Comparisons, Rankings, Ratings
from humeval.serve.tasks import DOCUMENT, KNOWN, known_item, known_name

EXPORTS = ("comparisons", "ratings", "controls", "judgments", "annotators", "esa", "mqm", "appraise", "documents")
CRITERIA = {"da": "DA", "esa": "ESA"}


def answered(db, task_type, kinds=("SYSTEM",)) -> list[dict]:
    """Answered tasks of ``task_type`` (a name or a tuple of names) and ``kinds``, in answer order."""
    types = (task_type,) if isinstance(task_type, str) else tuple(task_type)
    marks, type_marks = ",".join("?" * len(kinds)), ",".join("?" * len(types))
    rows = db.query(f"SELECT t.id, t.type, t.kind, t.item_id, t.systems, t.control_of, a.name AS judge, j.answer "
                    f"FROM judgments j JOIN tasks t ON t.id = j.task_id JOIN accounts a ON a.id = t.annotator_id "
                    f"WHERE t.type IN ({type_marks}) AND t.kind IN ({marks}) ORDER BY j.id", (*types, *kinds))
    return [{**dict(r), "systems": json.loads(r["systems"]), "answer": json.loads(r["answer"])} for r in rows]


def _labels(db):
    systems = tuple(r[0] for r in db.query("SELECT name FROM systems ORDER BY id"))
    items = tuple(r[0] for r in db.query("SELECT name FROM items ORDER BY id"))
    return systems, items


def _judges(rows):
    judges = tuple(dict.fromkeys(r["judge"] for r in rows))
    code = {j: i for i, j in enumerate(judges)}
    return judges, np.array([code[r["judge"]] for r in rows], dtype=np.int32)


def comparisons(db, campaign) -> Comparisons:
    rows = answered(db, "pairwise")
    systems, items = _labels(db)
    judges, judge = _judges(rows)
    n = len(rows)
    pick = np.array([r["systems"] for r in rows], dtype=np.int32).reshape(n, 2)
    return Comparisons(a=pick[:, 0], b=pick[:, 1], outcome=np.array([r["answer"]["outcome"] for r in rows], np.int8),
                       item=np.array([r["item_id"] for r in rows], np.int32), judge=judge,
                       group=np.array([r["id"] for r in rows], np.int32), track=np.zeros(n, np.int32),
                       systems=systems, items=items, judges=judges, tracks=(campaign.track,))


def all_comparisons(db, campaign) -> Comparisons:
    """Pairwise answers, then the comparisons of k-way answers (group = the ranking's task id)."""
    parts = [comparisons(db, campaign)]
    ranked = rankings(db, campaign)
    if len(ranked):
        parts.append(ranked.expand())
    return Comparisons.concat(parts) if len(parts) > 1 else parts[0]


def rankings(db, campaign) -> Rankings:
    rows = answered(db, "ranking")
    systems, items = _labels(db)
    judges, judge = _judges(rows)
    n, k = len(rows), campaign.k
    return Rankings(system=np.array([r["systems"] for r in rows], np.int32).reshape(n, k),
                    rank=np.array([r["answer"]["ranks"] for r in rows], np.int32).reshape(n, k),
                    item=np.array([r["item_id"] for r in rows], np.int32), judge=judge,
                    track=np.zeros(n, np.int32), id=np.array([r["id"] for r in rows], np.int32),
                    systems=systems, items=items, judges=judges, tracks=(campaign.track,))


def scored(rows) -> list[dict]:
    """One row per output rated: a contrastive ESA answer (``{"outputs": [...]}``) becomes one row
    per output shown, with ``systems`` = [that system] and its own score and spans."""
    out = []
    for r in rows:
        if "outputs" in r["answer"]:
            out += [{**r, "systems": [s], "answer": part, "position": i}
                    for i, (s, part) in enumerate(zip(r["systems"], r["answer"]["outputs"]))]
        else:
            out.append(r)
    return out


def ratings(db, campaign, kinds=("SYSTEM",), documents: bool = False) -> Ratings:
    """DA and ESA scores of ``kinds``; ``documents=True``: the document-level scores instead
    (kind ``DOCUMENT``), one item per document (its id), their kind SYSTEM."""
    from humeval.serve.tasks import KINDS
    rows = scored(answered(db, tuple(CRITERIA), (DOCUMENT,) if documents else kinds))
    systems, items = _labels(db)
    item = [r["item_id"] for r in rows]
    if documents:
        items = tuple(dict.fromkeys(campaign.documents or ()))
        item = [items.index(campaign.documents[i]) for i in item]
        rows = [{**r, "kind": "SYSTEM"} for r in rows]
    judges, judge = _judges(rows)
    n = len(rows)
    criteria = tuple(CRITERIA[t] for t in campaign.tasks if t in CRITERIA) or ("DA",)
    return Ratings(item=np.array(item, np.int32),
                   system=np.array([r["systems"][0] for r in rows], np.int32), judge=judge,
                   track=np.zeros(n, np.int32),
                   criterion=np.array([criteria.index(CRITERIA[r["type"]]) for r in rows], np.int32),
                   kind=np.array([KINDS.index(r["kind"]) for r in rows], np.int8),
                   score=np.array([r["answer"]["score"] for r in rows], np.float64),
                   systems=systems, items=items, judges=judges, tracks=(campaign.track,), criteria=criteria,
                   kinds=KINDS, scale="0-100")


def ratings_frame(table: Ratings) -> pd.DataFrame:
    """Long-form ratings with the columns the ratings reader takes (and ``kind`` for controls)."""
    df = table.to_pandas()
    return df[[c for c in ("track", "item", "system", "judge", "criterion", "kind", "score") if c in df]]


def appraise_rows(db, campaign) -> list[list]:
    """Rows of WMT's ranking CSV (Appraise's WMT10–14 export), ``campaign.k`` slots wide (2 when
    the campaign has pairwise tasks only)."""
    systems, items = _labels(db)
    width = campaign.k if "ranking" in campaign.tasks else 2
    src, trg = campaign.track.split("-")
    header = ["srclang", "trglang", "srcIndex", "documentId", "segmentId", "judgeId"]
    header += [f"system{i}{x}" for i in range(1, width + 1) for x in ("Number", "Id")]
    header += [f"system{i}rank" for i in range(1, width + 1)]
    out = [header]
    for task_type in ("pairwise", "ranking"):
        for r in answered(db, task_type):
            if task_type == "pairwise":
                o = r["answer"]["outcome"]
                ranks = [1, 1] if o == 0 else [1, 2] if o == 1 else [2, 1]
            else:
                ranks = r["answer"]["ranks"]
            slots = [(r["id"], systems[s]) for s in r["systems"]] + [("", "")] * (width - len(r["systems"]))
            ranks = list(ranks) + [-1] * (width - len(ranks))
            item = items[r["item_id"]]
            document = campaign.documents[r["item_id"]] if campaign.documents else "-1"
            out.append([src, trg, item, document, item, r["judge"], *[x for slot in slots for x in slot], *ranks])
    return out


def appraise_csv(db, campaign) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(appraise_rows(db, campaign))
    return buffer.getvalue()


def esa_frame(db, campaign) -> pd.DataFrame:
    """ESA answers (system outputs and degraded copies) in the ESA reader's CSV layout."""
    systems, items = _labels(db)
    rows = scored(answered(db, "esa", ("SYSTEM", "BAD_REF")))
    return pd.DataFrame({"system": [systems[r["systems"][0]] for r in rows], "item": [items[r["item_id"]] for r in rows],
                         "score": [r["answer"]["score"] for r in rows],
                         "error_spans": [json.dumps([{**x, "error_type": ""} for x in r["answer"]["spans"]])
                                         for r in rows],
                         "annotator": [r["judge"] for r in rows],
                         "segment_type": ["TGT" if r["kind"] == "SYSTEM" else "BAD" for r in rows],
                         "lp": campaign.track}, columns=["system", "item", "score", "error_spans", "annotator",
                                                         "segment_type", "lp"])


def mqm_frame(db, campaign) -> pd.DataFrame:
    """MQM-lite answers in Google's per-error MQM TSV layout (tabs and line breaks in texts become spaces)."""
    systems, items = _labels(db)
    texts = {r[0]: (r[1], r[2]) for r in db.query("SELECT id, source, name FROM items")}
    outputs = {(r[0], r[1]): r[2] for r in db.query("SELECT item_id, system_id, text FROM outputs")}
    rows, seen = [], {}
    for r in answered(db, "mqm"):
        source, name = texts[r["item_id"]]
        # the layout has one rating per (system, segment, rater): the reader adds up every row of one,
        # so an annotator's second answer to the same output is written as rater "name#2"
        again = seen[(r["judge"], r["item_id"], r["systems"][0])] = seen.get((r["judge"], r["item_id"], r["systems"][0]), 0) + 1
        rater = r["judge"] if again == 1 else f"{r['judge']}#{again}"
        base = [systems[r["systems"][0]], campaign.documents[r["item_id"]] if campaign.documents else "doc", name, name, rater, " ".join(source.split()),
                " ".join(outputs[(r["item_id"], r["systems"][0])].split())]
        rows += [base + [e["category"], e["severity"].capitalize()] for e in r["answer"]["errors"]] or \
            [base + ["No-error", "No-error"]]
    return pd.DataFrame(rows, columns=["system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category",
                                       "severity"])


def mqm_ratings(db, campaign) -> Ratings:
    """One MQM score per answered MQM-lite task: −Σ error weights (``MQMWeights``; 0 = no error)."""
    from humeval.data.readers.mqm import SCALE, MQMWeights
    weights = MQMWeights()
    rows = answered(db, "mqm")
    systems, items = _labels(db)
    judges, judge = _judges(rows)
    n = len(rows)
    score = [-sum(weights.of(e["severity"], e["category"]) for e in r["answer"]["errors"]) for r in rows]
    return Ratings(item=np.array([r["item_id"] for r in rows], np.int32),
                   system=np.array([r["systems"][0] for r in rows], np.int32), judge=judge,
                   track=np.zeros(n, np.int32), criterion=np.zeros(n, np.int32), score=np.array(score, np.float64),
                   systems=systems, items=items, judges=judges, tracks=(campaign.track,), criteria=("MQM",),
                   scale=SCALE)


def _iso(seconds) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="seconds")


def intact_index(shown, text) -> int:
    """Which of a pairwise BAD_REF task's two texts is the intact output (the other is degraded)."""
    return 0 if shown[0] == text else 1


def passed(row, first, outputs, campaign=None):
    """Whether a control was passed (see the module docstring), or None without a crisp rule."""
    answer = row["answer"]
    if row["kind"] in KNOWN:
        item = known_item(campaign, row)
        return None if item is None else item.passed(answer)
    if row["kind"] == "BAD_REF" and row["type"] == "pairwise":
        intact = intact_index(row["shown"], outputs[(row["item_id"], row["systems"][0])])
        return answer["outcome"] == intact + 1
    original = first.get(row["control_of"])
    if original is None:
        return None
    if row["kind"] == "BAD_REF" and "score" in answer:  # (contrastive ESA: the original's first output)
        return answer["score"] < (original["outputs"][0] if "outputs" in original else original)["score"]
    if row["kind"] == "REPEAT" and row["type"] in ("pairwise", "ranking"):
        return answer == original
    return None


def item_name(row, items, campaign) -> str:
    """The item column of a task: the segment's name, a known-answer item's (``tasks.known_name``),
    or for a document-level score ``document <id>``."""
    if row["kind"] == DOCUMENT:
        return f"document {campaign.documents[row['item_id']]}"
    return known_name(row, campaign) if row["kind"] in KNOWN else items[row["item_id"]]


def attention_kind(row, campaign) -> str:
    """``loud`` for an attention check the annotator is told about, ``silent`` for one only
    recorded (a silent ``[[checks]]`` item, a degraded output), empty for other tasks."""
    if row["kind"] == "CHECK":
        item = known_item(campaign, row)
        return "loud" if item is None or item.loud else "silent"
    return "silent" if row["kind"] == "BAD_REF" else ""


def attention(db, campaign) -> pd.DataFrame:
    """Per annotator: tasks answered (tutorial items apart) and minutes spent, tutorial items answered
    and right, loud and silent attention checks with the failed ones (a check counts once it has a
    crisp pass rule: a DA/ESA degraded output needs its original's score), and the completion code
    the annotator was shown (empty before the quota is done, or without ``[completion]``)."""
    df = judgments_frame(db, campaign)
    names = [r[0] for r in db.query("SELECT name FROM accounts WHERE role = 'annotator' ORDER BY id")]
    rows = []
    for name in names:
        part = df[df["annotator"] == name]
        real, decided = part[part["kind"] != "TUTORIAL"], part[part["passed"] != ""]
        loud, silent = decided[decided["attention"] == "loud"], decided[decided["attention"] == "silent"]
        tutorial = part[part["kind"] == "TUTORIAL"]
        rows.append({"annotator": name, "tasks": len(real), "minutes": round(float(part["seconds"].sum()) / 60, 1),
                     "tutorial": len(tutorial), "tutorial_right": int((tutorial["passed"] == "yes").sum()),
                     "loud_checks": len(loud), "loud_failed": int((loud["passed"] == "no").sum()),
                     "silent_checks": len(silent), "silent_failed": int((silent["passed"] == "no").sum())})
    out = pd.DataFrame(rows, columns=["annotator", "tasks", "minutes", "tutorial", "tutorial_right", "loud_checks",
                                      "loud_failed", "silent_checks", "silent_failed"]).set_index("annotator")
    out["failed"] = out["loud_failed"] + out["silent_failed"]
    c = campaign.completion
    out["completion_code"] = ["" if c is None or tasks < campaign.quota else c.for_failures(failed)
                              for tasks, failed in zip(out["tasks"], out["failed"])]
    return out


def judgments_frame(db, campaign) -> pd.DataFrame:
    """Every answered task, controls and tutorial items included (see the module docstring)."""
    systems, items = _labels(db)
    outputs = {(r[0], r[1]): r[2] for r in db.query("SELECT item_id, system_id, text FROM outputs")}
    rows = db.query("SELECT t.id, t.type, t.kind, t.control_of, t.item_id, t.systems, t.shown, t.issued_at, t.prefill, "
                    "a.name AS judge, j.answer, j.submitted_at FROM judgments j JOIN tasks t ON t.id = j.task_id "
                    "JOIN accounts a ON a.id = t.annotator_id ORDER BY j.id")
    rows = [{**dict(r), "systems": json.loads(r["systems"]), "shown": json.loads(r["shown"]),
             "answer": json.loads(r["answer"])} for r in rows]
    first = {r["id"]: r["answer"] for r in rows}
    out = []
    for r in rows:
        check = passed(r, first, outputs, campaign) if r["kind"] != "SYSTEM" else None
        out.append({"task": r["id"], "type": r["type"], "kind": r["kind"],
                    "control_of": r["control_of"], "item": item_name(r, items, campaign),
                    "systems": json.dumps([systems[s] for s in r["systems"]], ensure_ascii=False),
                    "shown": json.dumps(r["shown"], ensure_ascii=False), "annotator": r["judge"],
                    "answer": json.dumps(r["answer"], ensure_ascii=False, sort_keys=True),
                    "issued_at": _iso(r["issued_at"]), "submitted_at": _iso(r["submitted_at"]),
                    "seconds": round(r["submitted_at"] - r["issued_at"], 3),
                    "passed": "" if check is None else ("yes" if check else "no"),
                    "attention": attention_kind(r, campaign), **ai_edits(r)})
    df = pd.DataFrame(out, columns=["task", "type", "kind", "control_of", "item", "systems", "shown", "annotator",
                                    "answer", "issued_at", "submitted_at", "seconds", "passed", "attention",
                                    "ai_kept", "ai_removed", "ai_added"])
    return df.astype({"control_of": "Int64", "ai_kept": "Int64", "ai_removed": "Int64", "ai_added": "Int64"})


def ai_edits(row) -> dict:
    """ESA^AI: of the spans pre-filled, how many the annotator kept (same offsets and severity) or
    removed, and how many spans are new (a pre-filled span changed counts as removed and added);
    summed over a contrastive task's outputs; None without pre-filled spans."""
    if not row.get("prefill"):
        return {"ai_kept": None, "ai_removed": None, "ai_added": None}
    answer = row["answer"]
    parts = answer["outputs"] if "outputs" in answer else [answer]
    kept = removed = added = 0
    for given, part in zip(json.loads(row["prefill"]), parts):
        before = {(x["start_i"], x["end_i"], x["severity"]) for x in given}
        after = {(x["start_i"], x["end_i"], x["severity"]) for x in part["spans"]}
        kept, removed, added = kept + len(before & after), removed + len(before - after), added + len(after - before)
    return {"ai_kept": kept, "ai_removed": removed, "ai_added": added}


def export_frame(db, campaign, what: str) -> pd.DataFrame:
    if what == "comparisons":
        return frame(all_comparisons(db, campaign))
    if what == "judgments":
        return judgments_frame(db, campaign)
    if what == "annotators":
        return attention(db, campaign).reset_index()
    if what == "ratings":
        return ratings_frame(ratings(db, campaign)).drop(columns="kind")
    if what == "esa":
        return esa_frame(db, campaign)
    if what == "mqm":
        return mqm_frame(db, campaign)
    if what == "documents":
        return ratings_frame(ratings(db, campaign, documents=True)).drop(columns="kind")
    if what == "controls":
        return ratings_frame(ratings(db, campaign, ("SYSTEM", "BAD_REF", "REPEAT")))
    raise ValueError(f"unknown export {what!r}; choose from {', '.join(EXPORTS)}")


def export(db, campaign, what: str, path):
    """Write one export to ``path`` (by its ending: .csv, .tsv, .jsonl, .parquet; ``appraise``: .csv;
    ``mqm``: .tsv)."""
    if what == "appraise":
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(appraise_csv(db, campaign))
        return path
    if what == "mqm":  # the MQM reader splits on tabs without quoting
        mqm_frame(db, campaign).to_csv(path, sep="\t", index=False, quoting=csv.QUOTE_NONE, escapechar=None)
        return path
    return write(export_frame(db, campaign, what), path)
