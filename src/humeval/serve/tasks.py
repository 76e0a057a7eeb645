"""Issuing tasks and taking in answers.

Each annotator has at most one open task; asking again returns it (a page reload shows the same
task). A new task takes the campaign's next task type in turn and is, with the campaign's
shares, a quality control (WMT's design, Graham et al. 2017; ``humeval.ratings.quality``):

- ``BAD_REF``: an output with a phrase replaced by a phrase of the same length from another
  segment's output, of length 1 for 1–3 words, 2 for 4–5, 3 for 6–8, 4 for 9–15, 5 for 16–20 and
  ⌊n/4⌋ above (WMT17 findings, §3.1.2). Pairwise: the output against its own degraded copy (the
  intact one should win). DA: the degraded copy of an output the annotator already rated (the
  degraded one should score lower).
- ``REPEAT``: a task the annotator already answered, shown again.

Before any of these, an annotator answers the campaign's ``[[tutorial]]`` items in order (kind
``TUTORIAL``; they cannot be skipped); each answer is told right or wrong with the item's feedback,
and none is ever ranked or counted towards the quota.

- ``CHECK``: one of the campaign's ``[[checks]]`` (an attention check with a known answer), at the
  share ``quality.checks``, of the task type in turn, each at most once per annotator. It looks like
  any task (item name: a number after the last segment's); a loud check tells the annotator after
  the answer that it was one and whether it was passed, a silent one is only recorded.

With ``document_scores`` (and the campaign's documents), DA and ESA system tasks follow
WMT's document-level DA as WMT20–22 ran it in Appraise (Barrault et al. 2020; Kocmi et al. 2022): an annotator scores one
system's output of a document segment by segment, in order, and after the document's last segment
scores the whole document (kind ``DOCUMENT``: the answer ``{"score"}``, shown the document's
segments, ``item_id`` its last segment); then a document the annotator has not scored yet, from its
first segment, with the system the annotator has scored least (ties: the fewest ratings overall),
so that each annotator's scores span systems, as WMT's document HITs mix systems (z-scores are
per annotator). Controls and other task types may come
in between; the document goes on where it stopped. With contrastive ESA, ESA tasks stay side by
side and only DA goes by document.

Each answered task is degraded or repeated at most once (WMT pairs each original with one
control); when none is left, a system task is issued instead.

Otherwise (``SYSTEM``): pairwise tasks take the next pair of ``humeval.active.strategies``'
strategy (its ``next_batch`` fills a queue of ``batch`` pairs; every answer updates it online with
``update``), or, with ``strategy = "grm"``, a system against the campaign's ``baseline`` on a
segment, chosen by ``GRMUncertainty`` (the system whose GRM ability is least certain, on its most
informative segment) from a GRM refitted on all answers each time the queue of ``batch`` runs
out (random systems and segments until a first batch is answered; the refit, about a second,
holds up that one request); ranking tasks show ``k`` distinct random systems (WMT's random 5-way rankings); DA
and ESA tasks rate the system with the fewest ratings of that type so far. The segment is drawn at random among those
the annotator has not seen yet (any segment once all are seen).

``submit`` writes an answer once: the same answer again returns the first receipt (a retry), a
different answer to an answered task is refused (409), a task issued to someone else is refused
(403), a skipped or expired task is stale (409).
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time

import numpy as np

from humeval.active.strategies import GRMUncertainty, PairState, UniformPairs, make_strategy
from humeval.serve.campaign import RATED

KINDS = ("SYSTEM", "BAD_REF", "REPEAT")
DOCUMENT = "DOCUMENT"  # a document-level score (``document_scores``): not a control, ranked apart
KNOWN = ("TUTORIAL", "CHECK")  # kinds of tasks on the campaign file's known-answer items (item_id: the item's index)
SEVERITIES = ("minor", "major")
# MQM-lite: the top level of the MQM typology (Lommel et al. 2014; Freitag et al. 2021's categories)
CATEGORIES = ("Accuracy", "Fluency", "Terminology", "Style", "Locale convention", "Non-translation", "Other")


class Refused(Exception):
    """An answer or a request the server refuses: HTTP ``status`` and a message for the user."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status

    def __reduce__(self):  # pickles whole (the default would call Refused(message) alone)
        return type(self), (self.status, str(self))


def degrade(text: str, donor: str, rng) -> str:
    """``text`` with a phrase replaced by a phrase of ``donor`` (see the module docstring)."""
    words, other = text.split(), donor.split() or ["…"]
    n = len(words)
    if n == 0:
        return donor
    length = next((m for limit, m in ((3, 1), (5, 2), (8, 3), (15, 4), (20, 5)) if n <= limit), n // 4)
    start = int(rng.integers(0, n - length + 1))
    offset = int(rng.integers(0, max(1, len(other) - length + 1)))
    phrase = [other[(offset + i) % len(other)] for i in range(length)]
    out = words[:start] + phrase + words[start + length:]
    if out == words:  # the donor phrase happened to be the same words
        out = words[:start] + ["…"] * length + words[start + length:]
    return " ".join(out)


def word_offsets(text: str) -> list[tuple[int, int]]:
    """(start, end) character offsets of the whitespace-separated words of ``text``."""
    return [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]


def marked_spans(text: str, marks) -> list[dict]:
    """Error spans from per-word marks: ESA's ``"minor"``/``"major"``, or MQM-lite's
    ``"Category|severity"`` (anything else: no error). Runs of adjacent words with the same mark
    become one span of character offsets [start_i, end_i) with its severity (and category)."""
    out, previous = [], None
    for i, ((start, end), mark) in enumerate(zip(word_offsets(text), marks)):
        category, _, severity = mark.rpartition("|") if isinstance(mark, str) else ("", "", "")
        known = severity in SEVERITIES and (not category or category in CATEGORIES)
        if known and previous is not None and previous == (i - 1, mark):
            out[-1]["end_i"] = end
        elif known:
            out.append({"start_i": start, "end_i": end, "severity": severity, **({"category": category}
                                                                                  if category else {})})
        previous = (i, mark) if known else None
    return out


def _spans(raw, text: str, categories: bool) -> list[dict]:
    """Checked error spans, sorted: offsets inside ``text``, a known severity (and category)."""
    spans = []
    for x in raw:
        span = {"start_i": int(x["start_i"]), "end_i": int(x["end_i"]), "severity": x["severity"]}
        if categories:
            span["category"] = x["category"]
            if span["category"] not in CATEGORIES:
                raise ValueError
        if not 0 <= span["start_i"] < span["end_i"] <= len(text) or span["severity"] not in SEVERITIES:
            raise ValueError
        spans.append(span)
    return sorted(spans, key=lambda x: (x["start_i"], x["end_i"]))


def canonical(task_type: str, answer, k: int, text: str = "", texts=None) -> str:
    """The answer checked and written canonically (so a retry compares equal), or ``Refused``.
    A contrastive ESA task (``k`` > 1 outputs ``texts``) takes ``{"outputs": [{"score", "spans"}, …]}``,
    one entry per output in the order shown."""
    if not isinstance(answer, dict):
        raise Refused(400, "the answer must be an object")
    if task_type == "esa" and k > 1:
        parts = answer.get("outputs")
        if not isinstance(parts, list) or len(parts) != k:
            raise Refused(400, f"a contrastive ESA answer is {{\"outputs\": [{k} objects {{\"score\", \"spans\"}}]}}, "
                               "one per output in the order shown")
        return json.dumps({"outputs": [json.loads(canonical("esa", part, 1, t)) for part, t in zip(parts, texts)]},
                          sort_keys=True)
    try:
        if task_type == "pairwise":
            outcome = answer["outcome"]
            if isinstance(outcome, str) and outcome.isdigit():
                outcome = int(outcome)
            if outcome not in (0, 1, 2) or isinstance(outcome, bool):
                raise ValueError
            value = {"outcome": int(outcome)}
        elif task_type == "ranking":
            ranks = [int(r) for r in answer["ranks"]]
            if len(ranks) != k or any(not 1 <= r <= k for r in ranks):
                raise ValueError
            value = {"ranks": ranks}
        elif task_type == "mqm":
            value = {"errors": _spans(answer.get("errors", []), text, categories=True)}
        else:
            score = float(answer["score"])
            if not 0 <= score <= 100:
                raise ValueError
            value = {"score": score}
            if task_type == "esa":
                value["spans"] = _spans(answer.get("spans", []), text, categories=False)
    except (KeyError, TypeError, ValueError):
        need = {"pairwise": '{"outcome": 0 (tie), 1 (first better) or 2 (second better)}',
                "ranking": f'{{"ranks": [{k} ranks from 1 (best) to {k}]}}',
                "da": '{"score": a number from 0 to 100}',
                "esa": '{"score": 0 to 100, "spans": [{"start_i", "end_i" (character offsets in the output), '
                       '"severity": "minor" or "major"}]}',
                "mqm": '{"errors": [{"start_i", "end_i" (character offsets in the output), "severity": "minor" or '
                       f'"major", "category": one of {", ".join(CATEGORIES)}}}]}}'}[task_type]
        raise Refused(400, f"a {task_type} answer is {need}") from None
    return json.dumps(value, sort_keys=True)


def ranking_pairs(systems, ranks):
    """The C(k, 2) comparisons (a, b, outcome) of one ranking (rank 1 best; equal ranks tie)."""
    out = []
    for i in range(len(systems)):
        for j in range(i + 1, len(systems)):
            out.append((systems[i], systems[j], 0 if ranks[i] == ranks[j] else 1 if ranks[i] < ranks[j] else 2))
    return out


class Issuer:
    """Chooses tasks for one campaign and keeps the strategy's model up to date (thread-safe)."""

    def __init__(self, campaign, db):
        self.campaign, self.db = campaign, db
        self.n = len(campaign.systems)
        self.lock = threading.Lock()
        self.rng = np.random.default_rng(campaign.seed)
        strategy = make_strategy("uniform" if campaign.strategy in ("wmt", "grm") else campaign.strategy)
        self.strategy = strategy if strategy.kind == "pairs" else UniformPairs()
        self.strategy.reset(self.n)
        self.state = PairState(self.n)
        self.queue: list[tuple] = []
        self.grm = self.grm_model = None
        # the GRM refit thread: started on the first refit, woken by _refit_wanted; refit_idle is set
        # while no refit is asked for or running
        self._refitter, self._refit_wanted, self._closing = None, threading.Event(), False
        self.refit_idle = threading.Event()
        self.refit_idle.set()
        self._fitted_at, self.refits = 0, 0
        if campaign.strategy == "grm":
            self.base = campaign.systems.index(campaign.baseline)
            self.others = [i for i in range(self.n) if i != self.base]
            self.grm = GRMUncertainty([campaign.systems[i] for i in self.others], campaign.items)
        self._replay()
        if self.grm is not None:  # after a restart: fit the answers replayed
            self._refit_grm()

    # -- the strategy's model --------------------------------------------------------------------
    def _replay(self):
        """After a restart: feed every answered pairwise/ranking task to the strategy again."""
        pairs = []
        for row in self.db.query("SELECT t.type, t.systems, j.answer FROM judgments j JOIN tasks t ON t.id = j.task_id "
                                 "WHERE t.kind = 'SYSTEM' AND t.type IN ('pairwise', 'ranking') ORDER BY j.id"):
            pairs.extend(self._comparisons(row["type"], json.loads(row["systems"]), json.loads(row["answer"])))
        if pairs:
            with self.lock:
                for _ in range(3 if hasattr(self.strategy, "theta") else 1):  # Newton steps from zero
                    self._learn(pairs, add=_ == 0)

    @staticmethod
    def _comparisons(task_type, systems, answer):
        if task_type == "pairwise":
            return [(systems[0], systems[1], answer["outcome"])]
        return ranking_pairs(systems, answer["ranks"])

    def _learn(self, pairs, add: bool = True):
        a, b, o = (np.array(x, dtype=np.int64) for x in zip(*pairs))
        if add:
            self.state.add(a, b, o)
        self.strategy.update(self.state, a, b, o)

    def _next_grm(self) -> tuple[int, int, int]:
        """(system, baseline, segment) in a random order of presentation (see the module docstring)."""
        if not self.queue:
            model = self.grm_model
            if model is not None:
                system, segment = self.grm.choose(model, self.campaign.batch, self.rng)
                system = [self.others[s] for s in system]
            else:
                system = [self.others[s] for s in self.rng.integers(0, len(self.others), self.campaign.batch)]
                segment = self.rng.integers(0, len(self.campaign.items), self.campaign.batch)
            self.queue = [(int(s), int(g)) for s, g in zip(system, segment)]
            self._refit_grm()
        system, segment = self.queue.pop(0)
        pair = (system, self.base) if self.rng.random() < 0.5 else (self.base, system)
        return (*pair, segment)

    def _refit_grm(self):
        """Ask the refit thread for a GRM fitted on every answer so far (if a batch of new ones came
        in since its last fit); it runs off the request path, and ``_next_grm`` uses the newest
        finished fit."""
        if self.state.size - self._fitted_at < self.campaign.batch:
            return
        if self._refitter is None:
            self._refitter = threading.Thread(target=self._refit_loop, name="grm-refit", daemon=True)
            self._refitter.start()
        self._refit_wanted.set()

    def _refit_loop(self):
        from humeval.ranking.grm import GRM
        from humeval.serve.export import comparisons
        while True:
            self._refit_wanted.wait()
            if self._closing:
                self.db.close()
                return
            self._refit_wanted.clear()
            self.refit_idle.clear()
            try:
                data = comparisons(self.db, self.campaign)
                self._fitted_at = len(data)
                model = GRM(baseline=self.campaign.baseline).fit(data)
                with self.lock:
                    self.grm_model, self.refits = model, self.refits + 1
            except (ValueError, np.linalg.LinAlgError):  # e.g. one system never judged yet: keep the last fit
                pass
            finally:
                if not self._refit_wanted.is_set():
                    self.refit_idle.set()

    def close(self):
        """Stop the refit thread (the server's shutdown)."""
        self._closing = True
        self._refit_wanted.set()
        if self._refitter is not None:
            self._refitter.join(timeout=30)

    def _next_pair(self) -> tuple[int, int]:
        if not self.queue:
            batch = self.strategy.next_batch(self.state, self.campaign.batch, self.rng)
            if len(batch) == 0:
                batch = UniformPairs().next_batch(self.state, self.campaign.batch, self.rng)
            self.queue = [tuple(int(x) for x in p) for p in batch]
        return self.queue.pop(0)

    # -- issuing ---------------------------------------------------------------------------------
    def current(self, annotator_id: int) -> dict:
        """The annotator's open task, or a new one."""
        with self.lock, self.db.write(durable=False) as conn:
            now = time.time()
            row = conn.execute("SELECT * FROM tasks WHERE annotator_id = ? AND status = 'open'",
                               (annotator_id,)).fetchone()
            if row is not None and row["issued_at"] + self.campaign.task_timeout >= now:
                return dict(row)
            if row is not None:
                conn.execute("UPDATE tasks SET status = 'expired' WHERE id = ?", (row["id"],))
            return self._issue(conn, annotator_id, now)

    def skip(self, annotator_id: int, token: str):
        with self.db.write(durable=False) as conn:
            row = self._own(conn, annotator_id, token)
            if row["kind"] == "TUTORIAL":
                raise Refused(409, "a tutorial item cannot be skipped: answer it to see the feedback")
            if row["status"] != "open":
                raise Refused(409, f"task {token} is no longer open ({row['status']})")
            conn.execute("UPDATE tasks SET status = 'skipped' WHERE id = ?", (row["id"],))

    def _issue(self, conn, annotator_id, now) -> dict:
        c, rng = self.campaign, self.rng
        learnt = conn.execute("SELECT COUNT(*) FROM judgments j JOIN tasks t ON t.id = j.task_id WHERE "
                              "t.annotator_id = ? AND t.kind = 'TUTORIAL'", (annotator_id,)).fetchone()[0]
        if learnt < len(c.tutorial):  # the tutorial first, in the campaign file's order
            item = c.tutorial[learnt]
            return self._insert(conn, annotator_id, item.type, {"kind": "TUTORIAL", "item_id": learnt, "systems": [],
                                                                "shown": list(item.outputs)}, now)
        done = conn.execute("SELECT COUNT(*) FROM tasks WHERE annotator_id = ? AND kind <> 'TUTORIAL'",
                            (annotator_id,)).fetchone()[0]
        task_type = c.tasks[done % len(c.tasks)]
        u = rng.random()
        task = None
        if task_type == "mqm" and u < c.bad_reference + c.repeat:
            pass  # MQM-lite has no degraded or repeated controls: WMT's controls are defined for scores
        elif u < c.bad_reference and task_type in ("pairwise", *RATED):
            task = self._bad_reference(conn, annotator_id, task_type)
        elif u < c.bad_reference + c.repeat:
            task = self._repeat(conn, annotator_id, task_type)
        elif u < c.bad_reference + c.repeat + c.checks_share:
            task = self._check(conn, annotator_id, task_type)
        # DA and plain ESA only: MQM-lite marks errors segment by segment (no document score of it)
        by_document = c.document_scores and (task_type == "da" or (task_type == "esa" and c.contrastive == 1))
        if task is None and by_document:
            task = self._document_task(conn, annotator_id, task_type)
        if task is None:
            task = self._system_task(conn, annotator_id, task_type)
        if task_type == "esa" and c.ai_spans is not None and task["kind"] not in ("BAD_REF", DOCUMENT):
            task["prefill"] = [c.ai_spans.get((s, task["item_id"]), []) for s in task["systems"]]
        return self._insert(conn, annotator_id, task_type, task, now)

    @staticmethod
    def _insert(conn, annotator_id, task_type, task, now) -> dict:
        token = secrets.token_urlsafe(12)
        prefill = json.dumps(task["prefill"]) if task.get("prefill") is not None else None
        row = conn.execute("INSERT INTO tasks (token, annotator_id, type, kind, item_id, systems, shown, control_of, "
                           "issued_at, status, prefill) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?) RETURNING *",
                           (token, annotator_id, task_type, task["kind"], task["item_id"], json.dumps(task["systems"]),
                            json.dumps(task["shown"], ensure_ascii=False), task.get("control_of"), now, prefill))
        return dict(row.fetchone())

    def _texts(self, conn, item_id, systems):
        return [conn.execute("SELECT text FROM outputs WHERE item_id = ? AND system_id = ?", (item_id, s)).fetchone()[0]
                for s in systems]

    def _fresh_item(self, conn, annotator_id) -> int:
        n_items = len(self.campaign.items)
        seen = {r[0] for r in conn.execute("SELECT item_id FROM tasks WHERE annotator_id = ? AND kind = 'SYSTEM'",
                                           (annotator_id,))}
        if len(seen) >= n_items:
            return int(self.rng.integers(n_items))
        while True:
            item = int(self.rng.integers(n_items))
            if item not in seen:
                return item

    def _system_task(self, conn, annotator_id, task_type) -> dict:
        item = self._fresh_item(conn, annotator_id)
        if task_type == "pairwise" and self.grm is not None:
            a, b, item = self._next_grm()
            systems = [a, b]
        elif task_type == "pairwise":
            systems = list(self._next_pair())
        elif task_type == "ranking":
            systems = [int(s) for s in self.rng.permutation(self.n)[:self.campaign.k]]
        elif task_type == "esa" and self.campaign.contrastive > 1:  # contrastive ESA: several outputs side by side
            systems = [int(s) for s in self.rng.permutation(self.n)[:self.campaign.contrastive]]
        else:
            systems = [self._fewest(conn, task_type)]
        return {"kind": "SYSTEM", "item_id": item, "systems": systems, "shown": self._texts(conn, item, systems)}

    def _fewest(self, conn, task_type, annotator_id=None) -> int:
        """A system (at random among ties) with the fewest ``task_type`` system tasks issued so far;
        with ``annotator_id``, the fewest issued to that annotator first, then the fewest overall."""
        counts = np.zeros(self.n)
        for s, count in conn.execute("SELECT systems, COUNT(*) FROM tasks WHERE type = ? AND kind = 'SYSTEM' "
                                     "GROUP BY systems", (task_type,)):
            counts[json.loads(s)[0]] = count
        if annotator_id is not None:
            own = np.zeros(self.n)
            for s, count in conn.execute("SELECT systems, COUNT(*) FROM tasks WHERE type = ? AND kind = 'SYSTEM' AND "
                                         "annotator_id = ? GROUP BY systems", (task_type, annotator_id)):
                own[json.loads(s)[0]] = count
            counts = np.where(own == own.min(), counts, np.inf)
        return int(self.rng.choice(np.flatnonzero(counts == counts.min())))

    def _document_task(self, conn, annotator_id, task_type) -> dict:
        """``document_scores``: the next segment of the document under way, its document score after
        its last segment, or the first segment of a document not scored yet (module docstring)."""
        documents = self.campaign.documents
        last = conn.execute("SELECT kind, item_id, systems FROM tasks WHERE annotator_id = ? AND type = ? AND kind IN "
                            "('SYSTEM', 'DOCUMENT') ORDER BY id DESC LIMIT 1", (annotator_id, task_type)).fetchone()
        if last is not None and last["kind"] == "SYSTEM":
            item, systems = last["item_id"], json.loads(last["systems"])[:1]
            if item + 1 < len(documents) and documents[item + 1] == documents[item]:
                return {"kind": "SYSTEM", "item_id": item + 1, "systems": systems,
                        "shown": self._texts(conn, item + 1, systems)}
            segments = [j for j in range(len(documents)) if documents[j] == documents[item]]
            return {"kind": DOCUMENT, "item_id": item, "systems": systems,
                    "shown": [self._texts(conn, j, systems)[0] for j in segments]}
        done = {documents[r[0]] for r in conn.execute("SELECT item_id FROM tasks WHERE annotator_id = ? AND type = ? "
                                                      "AND kind = 'DOCUMENT'", (annotator_id, task_type))}
        firsts = [j for j in range(len(documents)) if j == 0 or documents[j - 1] != documents[j]]
        fresh = [j for j in firsts if documents[j] not in done] or firsts
        item = fresh[int(self.rng.integers(len(fresh)))]
        # the system this annotator has scored least: per-annotator z-scores need several systems each
        systems = [self._fewest(conn, task_type, annotator_id)]
        return {"kind": "SYSTEM", "item_id": item, "systems": systems, "shown": self._texts(conn, item, systems)}

    def _donor(self, conn, item_id) -> str:
        n_items = len(self.campaign.items)
        other = (item_id + 1 + int(self.rng.integers(max(1, n_items - 1)))) % n_items if n_items > 1 else item_id
        return self._texts(conn, other, [int(self.rng.integers(self.n))])[0]

    def _bad_reference(self, conn, annotator_id, task_type):
        if task_type == "pairwise":
            item, system = self._fresh_item(conn, annotator_id), int(self.rng.integers(self.n))
            text = self._texts(conn, item, [system])[0]
            bad = degrade(text, self._donor(conn, item), self.rng)
            shown = [text, bad] if self.rng.random() < 0.5 else [bad, text]
            return {"kind": "BAD_REF", "item_id": item, "systems": [system, system], "shown": shown,
                    "degraded": shown.index(bad)}
        rated = conn.execute("SELECT t.id, t.item_id, t.systems, t.shown FROM tasks t JOIN judgments j ON j.task_id = t.id "
                             "WHERE t.annotator_id = ? AND t.type = ? AND t.kind = 'SYSTEM' AND t.id NOT IN "
                             "(SELECT control_of FROM tasks WHERE kind = 'BAD_REF' AND control_of IS NOT NULL)",
                             (annotator_id, task_type)).fetchall()
        if not rated:
            return None
        row = rated[int(self.rng.integers(len(rated)))]
        text = json.loads(row["shown"])[0]  # (contrastive ESA: the first output, as a plain ESA task)
        return {"kind": "BAD_REF", "item_id": row["item_id"], "systems": json.loads(row["systems"])[:1],
                "shown": [degrade(text, self._donor(conn, row["item_id"]), self.rng)], "control_of": row["id"]}

    def _check(self, conn, annotator_id, task_type):
        asked = {r[0] for r in conn.execute("SELECT item_id FROM tasks WHERE annotator_id = ? AND kind = 'CHECK'",
                                            (annotator_id,))}
        left = [i for i, item in enumerate(self.campaign.checks) if item.type == task_type and i not in asked]
        if not left:
            return None
        n = left[int(self.rng.integers(len(left)))]
        return {"kind": "CHECK", "item_id": n, "systems": [], "shown": list(self.campaign.checks[n].outputs)}

    def _repeat(self, conn, annotator_id, task_type):
        rows = conn.execute("SELECT t.* FROM tasks t JOIN judgments j ON j.task_id = t.id WHERE t.annotator_id = ? "
                            "AND t.type = ? AND t.kind = 'SYSTEM' AND t.id NOT IN (SELECT control_of FROM tasks "
                            "WHERE kind = 'REPEAT' AND control_of IS NOT NULL)", (annotator_id, task_type)).fetchall()
        if not rows:
            return None
        row = rows[int(self.rng.integers(len(rows)))]
        return {"kind": "REPEAT", "item_id": row["item_id"], "systems": json.loads(row["systems"]),
                "shown": json.loads(row["shown"]), "control_of": row["id"]}

    # -- answers ---------------------------------------------------------------------------------
    @staticmethod
    def _own(conn, annotator_id, token):
        row = conn.execute("SELECT * FROM tasks WHERE token = ?", (token,)).fetchone()
        if row is None:
            raise Refused(404, f"no task {token}")
        if row["annotator_id"] != annotator_id:
            raise Refused(403, f"task {token} was not issued to you")
        return row

    def submit(self, annotator_id: int, token: str, answer) -> dict:
        """Write the answer once; returns {"receipt", "repeated"} (``repeated``: a retry)."""
        with self.db.write() as conn:
            row = self._own(conn, annotator_id, token)
            shown = json.loads(row["shown"])
            kind = "da" if row["kind"] == DOCUMENT else row["type"]  # a document score: {"score"} only
            value = canonical(kind, answer, len(shown), shown[0], shown)
            old = conn.execute("SELECT answer, receipt FROM judgments WHERE task_id = ?", (row["id"],)).fetchone()
            if old is not None:
                if old["answer"] != value:
                    raise Refused(409, f"task {token} was already answered ({old['answer']}); an answer is final")
                return {"receipt": old["receipt"], "repeated": True, **self.told(row, value)}
            if row["status"] != "open" or row["issued_at"] + self.campaign.task_timeout < time.time():
                raise Refused(409, f"task {token} is stale ({'expired' if row['status'] == 'open' else row['status']}); "
                                   "ask for a new task")
            receipt = secrets.token_hex(8)
            conn.execute("INSERT INTO judgments (task_id, annotator_id, answer, receipt, submitted_at) "
                         "VALUES (?, ?, ?, ?, ?)", (row["id"], annotator_id, value, receipt, time.time()))
            conn.execute("UPDATE tasks SET status = 'done' WHERE id = ?", (row["id"],))
        if row["kind"] == "SYSTEM" and row["type"] in ("pairwise", "ranking"):
            with self.lock:
                self._learn(self._comparisons(row["type"], json.loads(row["systems"]), json.loads(value)))
        return {"receipt": receipt, "repeated": False, **self.told(row, value)}

    def told(self, task, answer) -> dict:
        """What the annotator is told about a known-answer task: ``{"tutorial": {"passed",
        "feedback"}}``, or ``{"check": …}`` for a loud attention check (nothing for other tasks)."""
        item = known_item(self.campaign, task)
        if item is None or (task["kind"] == "CHECK" and not item.loud):
            return {}
        answer = json.loads(answer) if isinstance(answer, str) else answer
        return {task["kind"].lower(): {"passed": item.passed(answer), "feedback": item.feedback}}


def known_item(campaign, task):
    """The campaign's tutorial item or attention check a task shows, or None (a segment's task, or
    an item since removed from the campaign file)."""
    items = {"TUTORIAL": campaign.tutorial, "CHECK": campaign.checks}.get(task["kind"], ())
    return items[task["item_id"]] if task["item_id"] < len(items) else None


def known_name(task, campaign) -> str:
    """A known-answer task's item name: ``tutorial N``, or for a check a number after the last
    segment's (a check looks like any other task)."""
    if task["kind"] == "TUTORIAL":
        return f"tutorial {task['item_id'] + 1}"
    return str(len(campaign.items) + task["item_id"] + 1)


def public(task: dict, db, campaign=None) -> dict:
    """What the annotator sees of a task: no system names, no control kind (a tutorial item says
    it is one: ``tutorial`` = [its number, how many])."""
    if task["kind"] in KNOWN:
        n, item = task["item_id"], known_item(campaign, task)
        out = {"task": task["token"], "type": task["type"], "item": known_name(task, campaign),
               "source": item.source if item else "", "reference": item.reference if item else None,
               "outputs": json.loads(task["shown"])}
        return {**out, "tutorial": [n + 1, len(campaign.tutorial)]} if task["kind"] == "TUTORIAL" else out
    if task["kind"] == DOCUMENT:
        return document_task(task, campaign)
    item = db.one("SELECT name, source, reference FROM items WHERE id = ?", (task["item_id"],))
    out = {"task": task["token"], "type": task["type"], "item": item["name"], "source": item["source"],
           "reference": item["reference"], "outputs": json.loads(task["shown"])}
    if campaign is not None and campaign.documents is not None:
        out.update(document_context(campaign, task["item_id"], json.loads(task["systems"]), len(out["outputs"])))
    if task.get("prefill"):
        out["prefill"] = json.loads(task["prefill"])
    return out


def document_context(campaign, item: int, systems, shown: int) -> dict:
    """The segment's document and up to ``campaign.context`` segments of it before and after
    (read-only context, as WMT's document-level DA shows; Kocmi et al. 2022): their source, and
    for a task that shows one output, the same system's outputs of them (several outputs side by
    side get the source only: the columns' neighbours would tell a degraded copy by its twin)."""
    documents, n = campaign.documents, campaign.context
    system = campaign.systems[systems[0]] if shown == 1 and systems else None

    def segment(j):
        return {"item": campaign.items[j], "source": campaign.source[j],
                "output": campaign.outputs[system][j] if system else None}
    before = [segment(j) for j in range(max(0, item - n), item) if documents[j] == documents[item]]
    after = [segment(j) for j in range(item + 1, min(len(documents), item + n + 1)) if documents[j] == documents[item]]
    position = [j for j in range(len(documents)) if documents[j] == documents[item]]
    return {"document": documents[item], "position": [position.index(item) + 1, len(position)],
            "before": before, "after": after}


def document_task(task: dict, campaign) -> dict:
    """What the annotator sees of a document-level score task: the document's segments (source,
    reference when the campaign has one, and the system's output shown), to be scored as a whole."""
    documents, item = campaign.documents, task["item_id"]
    segments = [j for j in range(len(documents)) if documents[j] == documents[item]]
    shown = json.loads(task["shown"])
    return {"task": task["token"], "type": task["type"], "item": f"document {documents[item]}",
            "document": documents[item], "document_score": True, "outputs": shown,
            "segments": [{"item": campaign.items[j], "source": campaign.source[j],
                          "reference": campaign.reference[j] if campaign.reference else None, "output": text}
                         for j, text in zip(segments, shown)]}
