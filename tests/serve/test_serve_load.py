"""Load on the real server: uvicorn on loopback in a subprocess (the ``humeval serve`` command),
simulated annotators in threads with httpx. No judgment is lost or counted twice; p50/p99 submit
latency is printed. Then the server is killed (SIGKILL) mid-load and restarted on the same
database: every acknowledged judgment is there, with its answer and receipt.

Size: ``HUMEVAL_LOAD=ANNOTATORSxSUBMISSIONS`` (default 50x20 here; the issue's 50x200 with
``HUMEVAL_LOAD=50x200``)."""

from __future__ import annotations

import os
import signal
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from serve_helpers import Server, cheap_hash, loopback_ssl, write_campaign

httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")


ANNOTATORS, SUBMISSIONS = (int(x) for x in os.environ.get("HUMEVAL_LOAD", "50x20").split("x"))
PASSWORD = "load test password"


def campaign(folder, n_annotators) -> Path:
    path = write_campaign(folder, n_systems=8, n_items=300, annotators=(), organisers=())
    hashed = cheap_hash(PASSWORD)  # 50 logins in a test, not a deployment
    text = path.read_text().replace("bootstrap = 20", "bootstrap = 50").replace("leaderboard_interval = 0.2",
                                                                                 "leaderboard_interval = 1.0")
    text += "".join(f'[[accounts]]\nname = "ann{i}"\nrole = "annotator"\npassword_hash = "{hashed}"\n'
                    for i in range(n_annotators))
    path.write_text(text)
    return path


def annotator(url, name, n, acknowledged, latencies, stop=None):
    """Log in, then get and answer ``n`` tasks; record every acknowledged (task, answer, receipt)."""
    with httpx.Client(base_url=url, timeout=30, verify=loopback_ssl()) as client:
        csrf = client.post("/api/login", json={"name": name, "password": PASSWORD}).json()["csrf"]
        rng = np.random.default_rng(abs(hash(name)) % 2 ** 32)
        for _ in range(n):
            if stop is not None and stop.is_set():
                return
            try:
                task = client.get("/api/task").json()
                answer = {"outcome": int(rng.integers(0, 3))}
                start = time.perf_counter()
                response = client.post(f"/api/task/{task['task']}", json=answer, headers={"X-CSRF-Token": csrf})
                elapsed = time.perf_counter() - start
            except httpx.HTTPError:
                return  # the server is gone (the kill test)
            assert response.status_code == 200, response.text
            body = response.json()
            assert body["repeated"] is False
            acknowledged.append((task["task"], answer["outcome"], body["receipt"], name))
            latencies.append(elapsed)


def stored(database) -> dict:
    """token → (outcome, receipt, annotator) of every judgment in the SQLite file or PostgreSQL URL."""
    sql = ("SELECT t.token, j.answer, j.receipt, a.name FROM judgments j JOIN tasks t ON t.id = j.task_id "
           "JOIN accounts a ON a.id = j.annotator_id")
    if str(database).startswith("postgresql://"):
        import psycopg
        with psycopg.connect(str(database)) as conn:
            rows = conn.execute(sql).fetchall()
    else:
        conn = sqlite3.connect(database)
        rows = conn.execute(sql).fetchall()
        conn.close()
    out = {}
    for token, answer, receipt, name in rows:
        assert token not in out
        out[token] = (int(answer.split(":")[1].strip(" }")), receipt, name)
    return out


def load(path, database, n_annotators, submissions) -> tuple[list, float, float]:
    """``n_annotators`` × ``submissions`` on ``humeval serve`` (SQLite ``database`` file or URL), then a
    graceful stop: every acknowledged judgment stored once. Returns (acknowledged, p50 ms, p99 ms)."""
    server = Server(path, None if isinstance(database, Path) else database)
    acknowledged, latencies = [], []
    try:
        with ThreadPoolExecutor(n_annotators) as pool:
            for future in [pool.submit(annotator, server.url, f"ann{i}", submissions, acknowledged, latencies)
                           for i in range(n_annotators)]:
                future.result()
    finally:
        server.stop()
    # uvicorn finishes the requests under way, then exits by the signal it caught
    assert server.process.returncode in (0, -signal.SIGTERM), server.process.stderr.read().decode()[-2000:]
    assert len(acknowledged) == n_annotators * submissions
    in_db = stored(database)
    assert len(in_db) == len(acknowledged)  # none lost, none doubled
    assert {t: (o, r, n) for t, o, r, n in acknowledged} == in_db
    p50, p99 = np.percentile(latencies, [50, 99]) * 1000
    return acknowledged, p50, p99


def kill_mid_load(path, database, n_annotators=10, before=100) -> tuple[list, dict]:
    """SIGKILL ``humeval serve`` once ``before`` judgments were acknowledged, restart it on the same
    database and answer one more task; every acknowledged judgment must be stored as acknowledged.
    Returns (acknowledged, stored)."""
    url = None if isinstance(database, Path) else database
    server = Server(path, url)
    acknowledged, latencies, stop = [], [], threading.Event()
    with ThreadPoolExecutor(n_annotators) as pool:
        futures = [pool.submit(annotator, server.url, f"ann{i}", 10 ** 6, acknowledged, latencies, stop)
                   for i in range(n_annotators)]
        while len(acknowledged) < before:
            time.sleep(0.01)
            assert not any(f.done() for f in futures), [f.exception() for f in futures if f.done()]
        server.stop(signal.SIGKILL)
        stop.set()
        for future in futures:
            future.result()
    assert server.process.returncode == -signal.SIGKILL
    restarted = Server(path, url)  # the same database: WAL recovery on open
    try:
        in_db = stored(database)
        with httpx.Client(base_url=restarted.url, verify=loopback_ssl()) as client:
            csrf = client.post("/api/login", json={"name": "ann0", "password": PASSWORD}).json()["csrf"]
            task = client.get("/api/task").json()
            assert client.post(f"/api/task/{task['task']}", json={"outcome": 1},
                               headers={"X-CSRF-Token": csrf}).status_code == 200  # serving again
    finally:
        restarted.stop()
    missing = [a for a in acknowledged if a[0] not in in_db]
    assert not missing, f"{len(missing)} acknowledged judgments lost"
    assert all(in_db[t] == (o, r, n) for t, o, r, n in acknowledged)
    return acknowledged, in_db


def test_load_no_judgment_lost_or_doubled(tmp_path):
    path = campaign(tmp_path, ANNOTATORS)
    started = time.perf_counter()
    acknowledged, p50, p99 = load(path, tmp_path / "campaign.sqlite", ANNOTATORS, SUBMISSIONS)
    seconds = time.perf_counter() - started
    print(f"\nload: {ANNOTATORS} annotators x {SUBMISSIONS} submissions = {len(acknowledged):,} judgments in "
          f"{seconds:.1f} s ({len(acknowledged) / seconds:.0f}/s incl. task requests); submit latency p50 {p50:.1f} ms, "
          f"p99 {p99:.1f} ms")


def test_kill_mid_load_keeps_every_acknowledged_judgment(tmp_path):
    acknowledged, in_db = kill_mid_load(campaign(tmp_path, 10), tmp_path / "campaign.sqlite")
    print(f"\nkill -9 after {len(acknowledged)} acknowledged judgments: all {len(acknowledged)} present after restart "
          f"({len(in_db) - len(acknowledged)} more were written but not acknowledged before the kill)")
