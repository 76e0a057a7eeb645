"""The organiser's page: progress per annotator and system, the leaderboard recomputed in the
background thread (it changes as judgments arrive), and the quality controls' summary."""

from __future__ import annotations

import sqlite3
import time

import pytest
from serve_helpers import api_login, write_campaign
from test_serve_flow import prefer_lower

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from humeval.serve.app import create_app  # noqa: E402
from humeval.serve.campaign import load_campaign  # noqa: E402


def wait_for(client, judgments, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        board = client.get("/api/leaderboard").json()
        if board["judgments"] == judgments:
            return board
        time.sleep(0.1)
    raise AssertionError(f"the leaderboard never reached {judgments} judgments: {board}")


def test_leaderboard_progress_and_quality_live(tmp_path):
    campaign = load_campaign(write_campaign(tmp_path, tasks=("pairwise", "da"), n_items=20, bad_reference=0.15,
                                            repeat=0.15))
    with TestClient(create_app(campaign)) as organiser:  # the context runs the background thread
        api_login(organiser, "olga")
        assert organiser.get("/api/leaderboard").json()["judgments"] == 0
        workers = []
        for name in ("alice", "bob"):
            worker = TestClient(organiser.app)
            workers.append((worker, api_login(worker, name)))
        def judge(rounds: int) -> int:  # every worker answers ``rounds`` tasks; how many answers
            for _ in range(rounds):
                for worker, headers in workers:
                    task = worker.get("/api/task").json()
                    answer = worker.post(f"/api/task/{task['task']}", json=prefer_lower(task), headers=headers)
                    assert answer.status_code == 200
            return rounds * len(workers)

        done = judge(2)
        early = wait_for(organiser, done)
        done += judge(40)
        late = wait_for(organiser, done)
        assert late["comparisons"] > early["comparisons"] and late["computed_at"] > early["computed_at"]
        assert [row["system"] for row in late["pairwise"]] == ["sys0", "sys1", "sys2", "sys3"]
        assert all(row["lower"] <= row["score"] <= row["upper"] for row in late["pairwise"])
        page = organiser.get("/organiser").text
        backup = tmp_path / "backup.sqlite"  # taken while serving: every judgment so far is in it
        backup.write_bytes(organiser.get("/organiser/backup").content)
        with sqlite3.connect(backup) as copy:
            assert copy.execute("SELECT COUNT(*) FROM judgments").fetchone()[0] == done
    for table in ('id="pairwise"', 'id="da"', 'id="pairwise-quality"', 'id="da-quality"', "Judged per annotator",
                  "System outputs judged"):
        assert table in page, table
    server = organiser.app.state.server
    from humeval.serve.leaderboard import compute
    board = compute(server.db, campaign)
    quality = board["pairwise_quality"]
    assert set(quality.index) == {"alice", "bob"}
    # the judge always prefers the intact output and answers a repeat as the first time
    assert (quality["bad_ref_pass_rate"].dropna() == 1).all() and quality["bad_ref"].sum() > 0
    assert (quality["repeat_agreement"].dropna() == 1).all() and quality["repeats"].sum() > 0
    progress = board["progress"]
    assert progress["annotators"].to_numpy().sum() == done
    counts = server.db.one("SELECT COUNT(*) FROM tasks t JOIN judgments j ON j.task_id = t.id "
                           "WHERE t.kind = 'SYSTEM' AND t.type = 'pairwise'")[0]
    assert progress["systems"]["pairwise"].sum() == 2 * counts
    da_quality = board["da_quality"]
    assert set(da_quality.index) <= {"alice", "bob"} and len(da_quality)
