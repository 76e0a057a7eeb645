"""``humeval serve`` on PostgreSQL: a throwaway cluster (Debian's postgresql binaries, initdb in a
temporary folder, a Unix socket only; ``serve_helpers.postgres_cluster``) serves the same flow as SQLite: answers written once, a
restart replays them, exports read back with identical counts. Skipped without the binaries or
psycopg, except in CI (HUMEVAL_REQUIRE_POSTGRES)."""

from __future__ import annotations

import pytest
from serve_helpers import api_login, postgres_cluster, write_campaign
from test_serve_flow import answer_all, prefer_lower
from test_serve_load import campaign as load_campaign_file
from test_serve_load import kill_mid_load, load

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from humeval.data import read  # noqa: E402
from humeval.errors import InputError  # noqa: E402
from humeval.serve.app import create_app  # noqa: E402
from humeval.serve.campaign import load_campaign  # noqa: E402
from humeval.serve.leaderboard import compute_at  # noqa: E402


@pytest.fixture(scope="module")
def postgres():
    yield from postgres_cluster()


def new_database(url: str, name: str) -> str:
    """A fresh database ``name`` in the cluster at ``url``; returns its URL."""
    import psycopg
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return url.replace("postgresql:///postgres?", f"postgresql:///{name}?")


def test_postgres_serves_the_same_flow(postgres, tmp_path):
    path = write_campaign(tmp_path, tasks=("pairwise", "ranking", "da"), extra="k = 3\n", bad_reference=0.1, repeat=0.1)
    campaign = load_campaign(path, postgres)
    assert campaign.database == postgres
    app = create_app(campaign, leaderboard=False)
    alice = TestClient(app)
    headers = api_login(alice, "alice")
    task = alice.get("/api/task").json()
    first = alice.post(f"/api/task/{task['task']}", json=prefer_lower(task), headers=headers).json()
    again = alice.post(f"/api/task/{task['task']}", json=prefer_lower(task), headers=headers).json()
    assert again == {"receipt": first["receipt"], "repeated": True}
    other = {"outcome": 0} if task["type"] == "pairwise" else {"score": 1} if task["type"] == "da" else {"ranks": [1, 1, 1]}
    assert alice.post(f"/api/task/{task['task']}", json=other, headers=headers).status_code == 409
    answer_all(alice, headers, 29)
    bob = TestClient(app)
    answer_all(bob, api_login(bob, "bob"), 30)
    server = app.state.server
    counts = dict((f"{t} {k}", n) for t, k, n in server.db.query(
        "SELECT t.type, t.kind, COUNT(*) FROM judgments j JOIN tasks t ON t.id = j.task_id GROUP BY t.type, t.kind"))
    assert sum(counts.values()) == 60
    organiser = TestClient(app)
    api_login(organiser, "olga")
    for what in ("comparisons", "ratings"):
        (tmp_path / f"{what}.csv").write_bytes(organiser.get(f"/organiser/export/{what}.csv").content)
    pairs = counts["pairwise SYSTEM"] + 3 * counts["ranking SYSTEM"]  # k-way rankings as their C(3, 2) pairs
    assert len(read(tmp_path / "comparisons.csv").comparisons) == pairs
    assert len(read(tmp_path / "ratings.csv").ratings) == counts["da SYSTEM"]
    assert organiser.get("/organiser/backup").status_code == 501
    board = compute_at(postgres, campaign)  # what the leaderboard's child process runs
    assert list(board["pairwise"].index) == list(campaign.systems)
    restarted = create_app(load_campaign(path, postgres), leaderboard=False)  # the answers replay into the strategy
    assert restarted.state.server.issuer.state.size == counts["pairwise SYSTEM"] + 3 * counts["ranking SYSTEM"]
    other_texts = write_campaign(tmp_path / "other", n_items=5)
    with pytest.raises(InputError, match="another campaign's texts"):
        create_app(load_campaign(other_texts, postgres), leaderboard=False)


def test_postgres_load_no_judgment_lost_or_doubled(postgres, tmp_path):
    """20 annotators × 20 submissions on ``humeval serve --db postgresql://…`` (uvicorn, loopback)."""
    database = new_database(postgres, "load")
    acknowledged, p50, p99 = load(load_campaign_file(tmp_path, 20), database, 20, 20)
    print(f"\nPostgreSQL load: 20 x 20 = {len(acknowledged)} judgments; submit latency p50 {p50:.1f} ms, p99 {p99:.1f} ms")


def test_postgres_kill_mid_load_keeps_every_acknowledged_judgment(postgres, tmp_path):
    database = new_database(postgres, "killed")
    acknowledged, in_db = kill_mid_load(load_campaign_file(tmp_path, 10), database)
    print(f"\nPostgreSQL kill -9 after {len(acknowledged)} acknowledged: all present after restart")
