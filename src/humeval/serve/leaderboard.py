"""The organiser's live view: progress, the ranking with intervals and clusters, and annotator
quality from the controls.

``Leaderboard`` recomputes on a timer in a background thread (only when new judgments arrived)
and swaps in the finished result, so a request reads the last result and a submission never
waits for a fit. The server runs the computation itself in a child process (``process=True``),
so its bootstrap does not hold the request threads' interpreter lock either. The ranking of pairwise and k-way answers is Bradley–Terry (``BradleyTerry``,
N(0, 1) prior) with ``bootstrap`` (``campaign.bootstrap`` resamples of comparisons): score
interval, rank range and WMT's rank clusters (``BootstrapResult.table``). DA answers are ranked
and ESA answers are ranked as WMT does, each on its own, and MQM-lite answers by their mean MQM
score (``model="mqm"``) (``humeval.ratings.rank_ratings``:
z-mean, Wilcoxon rank-sum clusters, bootstrap intervals by segment).

With a ``[stop]`` table in the campaign, the pairwise comparisons so far are checked against its
targets (``humeval.serve.stopping.verdict``: the plan's verdict, "continue" or "stop").

Quality: DA controls and ESA controls, each on their own, by
``humeval.ratings.quality.annotator_qc`` (degraded-reference Wilcoxon test, repeat consistency).
Pairwise controls: the share of degraded-reference tasks where the intact output won, and the
share of repeats answered the same way.

Progress over time: ``timeline`` counts the answers per hour or day, per task type and per
annotator (the organiser's progress chart). Agreement between annotators who judged the same
output: ``humeval.serve.agreement``.
"""

from __future__ import annotations

import json
import threading
import time
import traceback

import numpy as np

# pandas and humeval.serve.export are imported in the functions that compute: they run in the
# leaderboard's own process (``process=True``), and the web server imports ``Leaderboard`` alone


def progress(db) -> dict[str, pd.DataFrame]:
    """Answered tasks per annotator (by type and kind) and per system (outputs judged)."""
    import pandas as pd
    rows = db.query("SELECT a.name AS annotator, t.type, t.kind, t.systems FROM judgments j "
                    "JOIN tasks t ON t.id = j.task_id JOIN accounts a ON a.id = t.annotator_id")
    systems = [r[0] for r in db.query("SELECT name FROM systems ORDER BY id")]
    df = pd.DataFrame([dict(r) for r in rows], columns=["annotator", "type", "kind", "systems"])
    by_annotator = (df.assign(column=df["type"] + " " + df["kind"].str.lower())
                    .pivot_table(index="annotator", columns="column", values="kind", aggfunc="size", fill_value=0)
                    if len(df) else pd.DataFrame(index=pd.Index([], name="annotator")))
    counts = pd.DataFrame(0, index=pd.Index(systems, name="system"),
                          columns=["pairwise", "ranking", "da", "esa", "mqm"])
    shown = df[df["kind"] == "SYSTEM"]
    for task_type, part in shown.groupby("type"):
        codes = np.concatenate([np.unique(json.loads(s)) for s in part["systems"]]) if len(part) else []
        counts[task_type] = np.bincount(np.asarray(codes, dtype=np.int64), minlength=len(systems))
    return {"annotators": by_annotator, "systems": counts}


STEPS = {"hour": 3600, "day": 86400}


def timeline(db, by: str = "type", step: str | None = None) -> tuple[pd.DataFrame, str]:
    """Judgments answered per hour or per day (UTC), one column per task type (``by="type"``) or
    per annotator (``by="annotator"``), controls and tutorial items included (every answer the
    summary counts), every step from the first answer's to the last one's (zeros included).

    ``step``: "hour" or "day"; by default hours when the answers span at most two days, else days.
    Returns (counts, step); the index holds each step's start as a UTC timestamp."""
    import pandas as pd
    column = "t.type" if by == "type" else "a.name"
    rows = db.query(f"SELECT {column}, j.submitted_at FROM judgments j JOIN tasks t ON t.id = j.task_id "
                    "JOIN accounts a ON a.id = t.annotator_id")
    df = pd.DataFrame([tuple(r) for r in rows], columns=["key", "at"])
    if step is None:
        step = "hour" if not len(df) or df["at"].max() - df["at"].min() <= 2 * STEPS["day"] else "day"
    start = (df["at"] // STEPS[step] * STEPS[step]).astype("int64") if len(df) else pd.Series([], dtype="int64")
    counts = pd.crosstab(start, df["key"]) if len(df) else pd.DataFrame(index=pd.Index([], dtype="int64"))
    if len(df):
        counts = counts.reindex(range(int(start.min()), int(start.max()) + 1, STEPS[step]), fill_value=0)
    counts.index = pd.to_datetime(counts.index, unit="s", utc=True)
    counts.index.name, counts.columns.name = step, None
    return counts, step


def pairwise_quality(db) -> pd.DataFrame:
    """Per annotator: degraded-reference tasks and the share the intact output won; repeats and
    the share answered as the first time."""
    import pandas as pd

    from humeval.serve import export
    out: dict[str, dict] = {}
    texts = {(r[0], r[1]): r[2] for r in db.query("SELECT item_id, system_id, text FROM outputs")}
    shown = {r[0]: json.loads(r[1]) for r in db.query("SELECT id, shown FROM tasks WHERE type = 'pairwise'")}
    for r in export.answered(db, "pairwise", ("BAD_REF",)):
        intact = export.intact_index(shown[r["id"]], texts[(r["item_id"], r["systems"][0])])
        entry = out.setdefault(r["judge"], {"bad_ref": 0, "bad_ref_passed": 0, "repeats": 0, "repeats_same": 0})
        entry["bad_ref"] += 1
        entry["bad_ref_passed"] += r["answer"]["outcome"] == intact + 1
    first = {r["id"]: r["answer"] for r in export.answered(db, "pairwise")}
    for r in export.answered(db, "pairwise", ("REPEAT",)):
        entry = out.setdefault(r["judge"], {"bad_ref": 0, "bad_ref_passed": 0, "repeats": 0, "repeats_same": 0})
        entry["repeats"] += 1
        entry["repeats_same"] += first.get(r["control_of"]) == r["answer"]
    df = pd.DataFrame.from_dict(out, orient="index")
    if len(df):
        with np.errstate(invalid="ignore", divide="ignore"):
            df["bad_ref_pass_rate"] = df["bad_ref_passed"] / df["bad_ref"]
            df["repeat_agreement"] = df["repeats_same"] / df["repeats"]
    df.index.name = "annotator"
    return df


def compute(db, campaign) -> dict:
    """Everything the organiser's page shows, computed once from one snapshot of the database (so
    its counts agree: ``judgments`` is the sum of ``counts``, per "type kind")."""
    with db.snapshot():
        return _compute(db, campaign)


def _compute(db, campaign) -> dict:
    from humeval.experiments.bootstrap import bootstrap
    from humeval.ranking.bradley_terry import BradleyTerry
    from humeval.serve import export
    result = {"computed_at": time.time(), "progress": progress(db), "notes": []}
    result["counts"] = {f"{r[0]} {r[1]}": r[2] for r in db.query(
        "SELECT t.type, t.kind, COUNT(*) FROM judgments j JOIN tasks t ON t.id = j.task_id GROUP BY t.type, t.kind")}
    result["judgments"] = sum(result["counts"].values())
    comps = export.all_comparisons(db, campaign)
    result["comparisons"] = len(comps)
    if len(comps):
        model = BradleyTerry()
        if campaign.bootstrap:
            table = bootstrap(model, comps, n=campaign.bootstrap, random_state=campaign.seed).table()
            result["pairwise"] = table[["score", "lower", "upper", "rank_lo", "rank_hi", "cluster"]]
        else:
            result["pairwise"] = model.fit(comps).ranking()
    if campaign.stop is not None:
        from humeval.serve.stopping import verdict
        try:
            result["stop"] = verdict(campaign.stop, comps, result.get("pairwise"), campaign.seed)
        except Exception as error:  # the verdict is advice: a failure is shown, the leaderboard stays
            result["notes"].append(f"stopping rule not available: {error!r}")
    ratings = export.ratings(db, campaign, ("SYSTEM", "BAD_REF", "REPEAT"))
    result["ratings"] = int((ratings.kind == 0).sum())
    if result["ratings"]:
        from humeval.ratings.quality import annotator_qc, system_ratings
        from humeval.ratings.rank import rank_ratings
        scored = system_ratings(ratings)
        for code, criterion in enumerate(ratings.criteria):
            part = scored.take(scored.criterion == code).compact()
            if not len(part):
                continue
            try:
                ranked = rank_ratings(part, model="z-mean", n_boot=campaign.bootstrap, random_state=campaign.seed)
                result[criterion.lower()] = ranked.table
            except ValueError as error:  # too few ratings for z scores or tests yet
                result["notes"].append(f"{criterion} ranking not available yet: {error}")
            # each protocol's controls on their own: a DA control pairs with a DA rating only
            qc = annotator_qc(ratings.take(ratings.criterion == code).compact())
            if len(qc.table):
                result[f"{criterion.lower()}_quality"] = qc.table
    mqm = export.mqm_ratings(db, campaign)
    if len(mqm):
        from humeval.ratings.rank import rank_ratings
        try:
            result["mqm"] = rank_ratings(mqm, model="mqm", n_boot=campaign.bootstrap, random_state=campaign.seed).table
        except ValueError as error:
            result["notes"].append(f"MQM ranking not available yet: {error}")
    result["pairwise_quality"] = pairwise_quality(db)
    result["timeline"] = {by: timeline(db, by)[0] for by in ("type", "annotator")}
    from humeval.serve.agreement import agreement
    result["agreement"] = agreement(db, campaign)
    return result


def compute_at(path: str, campaign) -> dict:
    """``compute`` on the database at ``path`` (file or URL), in the leaderboard's own process (it only reads)."""
    from humeval.serve.db import Database
    db = Database(path, "normal")
    try:
        return compute(db, campaign)
    finally:
        db.close()


class Leaderboard:
    """``compute`` every ``interval`` seconds in a daemon thread when the judgment count changed;
    ``latest`` is the last result (None before the first)."""

    def __init__(self, db, campaign, interval: float, process: bool = False):
        self.db, self.campaign, self.interval = db, campaign, interval
        self.pool = None
        if process:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor
            import os

            from humeval.serve.hardening import die_with_parent
            self.pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=die_with_parent, initargs=(os.getpid(),))
        self.latest: dict | None = None
        self.error: str | None = None
        self._seen = -1
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def refresh(self) -> dict | None:
        count = self.db.one("SELECT COUNT(*) FROM judgments")[0]
        if count != self._seen or self.latest is None:
            try:
                if self.pool is not None:
                    latest = self.pool.submit(compute_at, self.db.url, self.campaign).result()
                else:
                    latest = compute(self.db, self.campaign)
                # its own count (one snapshot): answers that came in meanwhile make the next refresh
                self.latest, self.error, self._seen = latest, None, latest["judgments"]
            except Exception:  # the page says what failed; serving goes on
                self.error = traceback.format_exc(limit=3)
        return self.latest

    def _run(self):
        while not self._stop.is_set():
            self.refresh()
            self._stop.wait(self.interval)

    def start(self):
        self._thread = threading.Thread(target=self._run, name="leaderboard", daemon=True)
        self._thread.start()

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
