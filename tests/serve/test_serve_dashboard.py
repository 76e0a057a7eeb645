"""The organiser's dashboard: human times (no raw epoch), one consistent count, tables formatted as
the report's (no index-name rows, no NaN: "not enough ratings"), ESA controls under their own
heading, systems with too few ratings named as such, export links only for what exists, and a
server-rendered PNG chart of each ranking with its intervals."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from serve_helpers import api_login, write_campaign
from test_serve_flow import prefer_lower

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from humeval.serve.app import create_app  # noqa: E402
from humeval.serve.campaign import load_campaign  # noqa: E402
from humeval.serve.dashboard import html_table, when  # noqa: E402


def campaign_app(tmp_path, answers, **options):
    campaign = load_campaign(write_campaign(tmp_path, **options))
    app = create_app(campaign, leaderboard=False)
    for name in ("alice", "bob"):
        worker = TestClient(app)
        headers = api_login(worker, name)
        for _ in range(answers):
            task = worker.get("/api/task").json()
            assert worker.post(f"/api/task/{task['task']}", json=prefer_lower(task), headers=headers).status_code == 200
    olga = TestClient(app)
    api_login(olga, "olga")
    return app, olga


def test_times_are_human_and_tables_are_formatted_as_the_report():
    assert when(1795695539, 1795695551) == "2026-11-26 12:18:59 UTC (12 s ago)"  # the "as of 1795695539"
    assert when(1795695539, 1795695539 + 3600) == "2026-11-26 12:18:59 UTC (60 min ago)"
    df = pd.DataFrame({"ratings": [3, 1200], "p (degraded lower)": [0.012, np.nan], "bad_ref_pass_rate": [1.0, np.nan]},
                      index=pd.Index(["alice", "bob"], name="annotator"))
    assert str(html_table(df, "q")) == (
        '<table id="q"><thead><tr><th>annotator</th><th>ratings</th><th>p (degraded lower)</th>'
        "<th>bad_ref_pass_rate</th></tr></thead><tbody><tr><td>alice</td><td>3</td><td>0.012</td><td>100.0%</td></tr>"
        "<tr><td>bob</td><td>1,200</td><td>not enough ratings</td><td>not enough ratings</td></tr></tbody></table>")


def test_every_task_type_one_count_own_quality_sections_and_a_chart(tmp_path):
    app, olga = campaign_app(tmp_path, 40, tasks=("pairwise", "ranking", "da", "esa", "mqm"), extra="k = 3\n",
                             bad_reference=0.2, repeat=0.1)
    page = olga.get("/organiser").text
    summary = re.search(r'<p id="summary">(.*?)</p>', page, flags=re.S).group(1)
    assert not re.search(r"\b1\d{9}\b", page)  # no raw epoch anywhere
    total = int(re.match(r"([\d,]+) judgments as of \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", summary).group(1))
    assert total == 80 == app.state.server.db.one("SELECT COUNT(*) FROM judgments")[0]
    parts = re.findall(r"([\d,]+) (pairwise|rankings|DA|ESA|MQM-lite)\b", summary)
    assert sum(int(n) for n, _ in parts) == total and len(parts) == 5
    controls = app.state.server.db.one("SELECT COUNT(*) FROM tasks t JOIN judgments j ON j.task_id = t.id "
                                       "WHERE t.kind <> 'SYSTEM'")[0]
    assert controls > 0 and f"{controls} of them quality controls" in summary
    assert "NaN" not in page and "nan<" not in page and "<th></th>" not in page
    assert page.count("<thead>") == page.count("<table")  # one header row per table, no index-name row
    for heading in ("Ranking from pairwise and k-way", "Ranking from DA", "Ranking from ESA", "Ranking from MQM-lite",
                    "DA quality controls", "ESA quality controls", "Pairwise quality controls"):
        assert heading in page, heading
    board = app.state.server.board.latest
    for criterion in ("da", "esa"):  # each protocol's controls counted against its own ratings only
        own = app.state.server.db.query("SELECT a.name, COUNT(*) FROM judgments j JOIN tasks t ON t.id = j.task_id "
                                        "JOIN accounts a ON a.id = t.annotator_id WHERE t.type = ? AND "
                                        "t.kind = 'SYSTEM' GROUP BY a.name", (criterion,))
        assert board[f"{criterion}_quality"]["ratings"].to_dict() == dict(own)
    for key in ("pairwise", "da", "esa", "mqm"):
        assert f'src="/organiser/chart/{key}.png"' in page
        png = olga.get(f"/organiser/chart/{key}.png")
        assert png.status_code == 200 and png.content[:8] == b"\x89PNG\r\n\x1a\n" and len(png.content) > 5000
    assert olga.get("/organiser/chart/nothing.png").status_code == 404
    alice = TestClient(app)
    api_login(alice, "alice")
    assert alice.get("/organiser/chart/pairwise.png").status_code == 403
    links = re.findall(r'href="/organiser/export/([^"]+)"', page)
    assert set(links) == {"comparisons.csv", "comparisons.parquet", "ratings.csv", "ratings.parquet", "controls.csv",
                          "controls.parquet", "judgments.csv", "judgments.parquet", "esa.csv", "esa.parquet",
                          "mqm.tsv", "appraise.csv", "annotators.csv", "annotators.parquet"}
    assert all(olga.get(f"/organiser/export/{link}").status_code == 200 for link in links)


def test_too_few_ratings_are_named_and_exports_only_for_what_exists(tmp_path):
    app, olga = campaign_app(tmp_path, 0, tasks=("da",))
    page = olga.get("/organiser").text
    assert "No judgments to export yet." in page and "/organiser/export/" not in page
    worker = TestClient(app)
    headers = api_login(worker, "alice")
    for _ in range(3):  # DA tasks go to the least-rated system: sys0–sys3 get 3 ratings among them
        task = worker.get("/api/task").json()
        worker.post(f"/api/task/{task['task']}", json=prefer_lower(task), headers=headers)
    page = olga.get("/organiser").text
    counts = dict(app.state.server.db.query("SELECT json_extract(t.systems, '$[0]'), COUNT(*) FROM tasks t "
                                            "JOIN judgments j ON j.task_id = t.id GROUP BY 1"))
    never = [f"sys{s}" for s in range(4) if s not in counts]
    assert len(never) == 1
    unranked = re.search(r'<p class="unranked">Not ranked yet \(not enough ratings\): (.*?)\.</p>', page).group(1)
    assert f"{never[0]} (0 judgments)" in unranked  # shown as such, not silently dropped
    assert "NaN" not in page
    links = set(re.findall(r'href="/organiser/export/([^".]+)\.', page))
    assert links == {"ratings", "controls", "judgments", "annotators"}  # no comparisons, ESA, MQM or Appraise links for DA alone
