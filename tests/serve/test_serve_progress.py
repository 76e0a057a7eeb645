"""The organiser's progress over time (answers per hour or day by task type and annotator, a PNG
drawn on the server) and the agreement between annotators per protocol (``humeval.serve.agreement``:
WMT's ranking kappa for pairwise and k-way answers, Krippendorff's interval alpha for scores),
checked against hand-computed values."""

from __future__ import annotations

import collections
import re
from datetime import datetime, timezone

import numpy as np
import pandas as pd
import pytest
from serve_helpers import api_login
from test_serve_dashboard import campaign_app

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from humeval.data.tables import Comparisons, Ratings  # noqa: E402
from humeval.serve.agreement import comparison_agreement, score_agreement  # noqa: E402
from humeval.serve.dashboard import agreement_table  # noqa: E402
from humeval.serve.leaderboard import timeline  # noqa: E402

NOON = 1795694400  # 2026-11-26 12:00:00 UTC
PNG = b"\x89PNG\r\n\x1a\n"


def spread(db, hours):
    """Move judgment n's answer time to NOON + hours[n % len(hours)] hours (+ n seconds)."""
    with db.write() as conn:
        for (n,) in conn.execute("SELECT id FROM judgments").fetchall():
            conn.execute("UPDATE judgments SET submitted_at = ? WHERE id = ?", (NOON + hours[n % len(hours)] * 3600 + n, n))


def by_hand(db, column, fmt):
    """Answers per (time label, type or annotator), counted in Python from the rows."""
    rows = db.query(f"SELECT {column}, j.submitted_at FROM judgments j JOIN tasks t ON t.id = j.task_id "
                    "JOIN accounts a ON a.id = t.annotator_id")
    return collections.Counter((datetime.fromtimestamp(at, timezone.utc).strftime(fmt), key) for key, at in rows)


def as_counter(counts: pd.DataFrame, fmt) -> collections.Counter:
    return collections.Counter({(when.strftime(fmt), key): int(n) for when, row in counts.iterrows()
                                for key, n in row.items() if n})


def test_progress_counts_what_the_database_holds_per_hour_and_per_day(tmp_path):
    app, olga = campaign_app(tmp_path, 10, tasks=("pairwise", "da"))
    db = app.state.server.db
    spread(db, [0, 5, 10])  # 12:00, 17:00 and 22:00 UTC
    counts, step = timeline(db)
    assert step == "hour" and counts.index.name == "hour"
    assert list(counts.index.strftime("%H")) == [f"{h:02d}" for h in range(12, 23)]  # every hour, zeros too
    assert counts.loc[counts.index.hour.isin([12, 17, 22])].to_numpy().sum() == 20 == counts.to_numpy().sum()
    assert (counts.loc[~counts.index.hour.isin([12, 17, 22])] == 0).all().all()
    assert set(counts.columns) == {"pairwise", "da"}
    assert as_counter(counts, "%d %H") == by_hand(db, "t.type", "%d %H")
    annotators, _ = timeline(db, "annotator")
    assert as_counter(annotators, "%d %H") == by_hand(db, "a.name", "%d %H")
    assert annotators.sum().to_dict() == {"alice": 10, "bob": 10}
    spread(db, [0, 50, 75])  # over more than two days: one row per day
    counts, step = timeline(db)
    assert step == "day" and list(counts.index.strftime("%m-%d")) == ["11-26", "11-27", "11-28", "11-29"]
    assert as_counter(counts, "%m-%d") == by_hand(db, "t.type", "%m-%d")
    assert counts.loc[counts.index.day == 27].to_numpy().sum() == 0  # a day without answers is a zero row
    hourly, _ = timeline(db, step="hour")
    assert len(hourly) == 76 and hourly.to_numpy().sum() == 20


def test_the_progress_chart_is_served_to_organisers_only(tmp_path):
    app, olga = campaign_app(tmp_path, 0, tasks=("pairwise", "da"))
    page = olga.get("/organiser").text
    assert "chart/progress.png" not in page and olga.get("/organiser/chart/progress.png").status_code == 404
    worker = TestClient(app)
    headers = api_login(worker, "alice")
    for _ in range(6):
        task = worker.get("/api/task").json()
        answer = {"outcome": 1} if task["type"] == "pairwise" else {"score": 60}
        assert worker.post(f"/api/task/{task['task']}", json=answer, headers=headers).status_code == 200
    spread(app.state.server.db, [0, 3])
    page = olga.get("/organiser").text
    assert '<img src="/organiser/chart/progress.png"' in page and "<h2>Progress over time</h2>" in page
    png = olga.get("/organiser/chart/progress.png")
    assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    assert png.content[:8] == PNG and len(png.content) > 5000
    assert worker.get("/organiser/chart/progress.png").status_code == 403
    assert TestClient(app).get("/organiser/chart/progress.png").status_code == 401


def comparisons(rows):
    """(a, b, outcome, item, judge) rows over systems A, B, C and judges alice, bob."""
    a, b, outcome, item, judge = (np.array(c) for c in zip(*rows))
    n = len(rows)
    return Comparisons(a=a.astype(np.int32), b=b.astype(np.int32), outcome=outcome.astype(np.int8),
                       item=item.astype(np.int32), judge=judge.astype(np.int32), group=np.arange(n, dtype=np.int32),
                       track=np.zeros(n, np.int32), systems=("A", "B", "C"), items=("0", "1", "2", "3"),
                       judges=("alice", "bob"), tracks=("t",))


def test_pairwise_agreement_rate_and_kappa_by_hand():
    table = comparisons([(0, 1, 1, 0, 0), (0, 1, 1, 0, 1),  # segment 0, A–B: both A (<), agree
                         (0, 2, 1, 1, 0), (0, 2, 2, 1, 1),  # segment 1, A–C: A and C, disagree
                         (1, 2, 2, 2, 0), (2, 1, 1, 2, 1),  # segment 2, B–C: both C (shown in either order), agree
                         (0, 1, 0, 3, 0), (1, 0, 0, 3, 1),  # segment 3, A–B: both ties, agree
                         (1, 2, 1, 0, 0)])  # segment 0, B–C: alice only (not shared; its label counts in P(E))
    row = comparison_agreement(table)
    assert row["shared items"] == 4 and row["annotators"] == 2
    # P(A) = 3/4; labels <: 4, >: 3, =: 2 of 9, P(E) = (16 + 9 + 4)/81 = 29/81; kappa = (3/4 − 29/81)/(52/81) = 127/208
    assert row["agreement rate"] == pytest.approx(0.75, abs=1e-12)
    assert row["value"] == pytest.approx(127 / 208, abs=1e-12)
    alone = comparison_agreement(comparisons([(0, 1, 1, 0, 0), (0, 1, 2, 1, 1)]))  # different segments
    assert alone["shared items"] == 0 and np.isnan(alone["value"])


def test_score_agreement_is_krippendorffs_interval_alpha_by_hand():
    # units (item, system): (0, sys0) alice 10 bob 20; (1, sys0) 50 and 50; (0, sys1) 90 and 70;
    # alice's repeat of (1, sys0) at 100 is left out (her first score counts), (2, sys1) has alice only
    item, system, judge, score = (np.array(c) for c in zip(
        (0, 0, 0, 10), (0, 0, 1, 20), (1, 0, 0, 50), (1, 0, 1, 50), (0, 1, 0, 90), (0, 1, 1, 70), (1, 0, 0, 100),
        (2, 1, 0, 30)))
    n = len(item)
    table = Ratings(item=item.astype(np.int32), system=system.astype(np.int32), judge=judge.astype(np.int32),
                    track=np.zeros(n, np.int32), criterion=np.zeros(n, np.int32), score=score.astype(float),
                    systems=("sys0", "sys1"), items=("0", "1", "2"), judges=("alice", "bob"), tracks=("t",),
                    criteria=("DA",), scale="0-100")
    row = score_agreement(table)
    assert row["shared items"] == 3 and row["annotators"] == 2 and np.isnan(row["agreement rate"])
    # D_o = (2·100 + 0 + 2·400)/6; D_e = Σ_{i≠j} (x_i − x_j)²/(6·5) over 10, 20, 50, 50, 90, 70 = 2·(40350/9)/5
    d_o, d_e = 1000 / 6, 2 * (40350 / 9) / 5
    assert row["value"] == pytest.approx(1 - d_o / d_e, abs=1e-9)  # 0.90706
    html = str(agreement_table(pd.DataFrame([row, {**row, "shared items": 0, "annotators": 0, "value": np.nan}],
                                            index=pd.Index(["DA", "ESA"], name="protocol"))))
    assert "<td>DA</td><td>3</td><td>2</td><td>Krippendorff&#39;s alpha (interval)</td><td>–</td><td>0.907 (only 3 shared items: rough)</td>" in html
    assert "<td>ESA</td><td>0</td><td>0</td>" in html and "not enough overlap" in html


def one_annotator(tmp_path):
    """The organiser's client of a DA campaign where alice alone scored 5 outputs (no overlap)."""
    alone, olga = campaign_app(tmp_path, 0, tasks=("da",))
    worker = TestClient(alone)
    headers = api_login(worker, "alice")
    for _ in range(5):
        task = worker.get("/api/task").json()
        worker.post(f"/api/task/{task['task']}", json={"score": 40}, headers=headers)
    return olga


def test_the_page_shows_agreement_per_protocol_and_says_when_there_is_no_overlap(tmp_path):
    app, olga = campaign_app(tmp_path, 30, tasks=("pairwise", "ranking", "da"), extra="k = 3\n", n_items=4)
    page = olga.get("/organiser").text
    table = re.search(r'<table id="agreement">.*?</table>', page, flags=re.S).group(0)
    rows = {m[0]: m[1:] for m in re.findall(r"<tr><td>([^<]+)</td><td>([\d,]+)</td><td>(\d+)</td>", table)}
    assert set(rows) == {"pairwise", "rankings (k-way)", "DA"}
    db = app.state.server.db
    shared = db.one("SELECT COUNT(*) FROM (SELECT t.item_id, json_extract(t.systems, '$[0]') FROM tasks t "
                    "JOIN judgments j ON j.task_id = t.id WHERE t.type = 'da' AND t.kind = 'SYSTEM' "
                    "GROUP BY 1, 2 HAVING COUNT(DISTINCT t.annotator_id) = 2)")[0]
    assert shared > 0 and rows["DA"] == (str(shared), "2")
    board = app.state.server.board.latest["agreement"]
    assert board.loc["DA", "value"] == pytest.approx(1.0)  # the judge scores each system the same: alpha 1

    olga = one_annotator(tmp_path / "alone")
    table = re.search(r'<table id="agreement">.*?</table>', olga.get("/organiser").text, flags=re.S).group(0)
    assert "<td>DA</td><td>0</td><td>0</td>" in table and "not enough overlap" in table


def test_the_leaderboard_api_gives_the_pages_agreement_numbers(tmp_path):
    """``/api/leaderboard``'s ``agreement`` holds the organiser page's rows: the same protocols,
    shared items and annotators, and the values the page rounds (3 decimals; the rate in percent);
    the DA alpha is 1 (the judge scores each system the same); with one annotator the value is null
    where the page says "not enough overlap"."""
    app, olga = campaign_app(tmp_path, 30, tasks=("pairwise", "ranking", "da"), extra="k = 3\n", n_items=4)
    table = re.search(r'<table id="agreement">.*?</table>', olga.get("/organiser").text, flags=re.S).group(0)
    page = {m[0]: m[1:] for m in re.findall(r"<tr>" + r"<td>([^<]*)</td>" * 6 + "</tr>", table)}
    api = {row["protocol"]: row for row in olga.get("/api/leaderboard").json()["agreement"]}
    assert set(api) == set(page) == {"pairwise", "rankings (k-way)", "DA"}
    for protocol, (shared, annotators, measure, rate, value) in page.items():
        row = api[protocol]
        assert (str(row["shared_items"]), str(row["annotators"]), row["measure"].replace("'", "&#39;")) == (
            shared, annotators, measure)
        assert rate == ("–" if row["agreement_rate"] is None else f"{100 * row['agreement_rate']:.1f}%")
        if row["value"] is not None:
            assert float(value.split(" ")[0]) == pytest.approx(row["value"], abs=5e-4)
            # under 30 shared items the page flags the figure as rough, and the API says so too
            assert value.endswith(f"(only {row['shared_items']} shared items: rough)") == (row["shared_items"] < 30)
        assert row["rough"] is (0 < row["shared_items"] < 30)
    assert api["DA"]["value"] == pytest.approx(1.0) and api["DA"]["agreement_rate"] is None
    assert api["DA"]["shared_items"] > 0 and api["DA"]["annotators"] == 2

    olga = one_annotator(tmp_path / "alone")
    assert olga.get("/api/leaderboard").json()["agreement"] == [
        {"protocol": "DA", "shared_items": 0, "annotators": 0, "measure": "Krippendorff's alpha (interval)",
         "agreement_rate": None, "value": None, "rough": False}]
