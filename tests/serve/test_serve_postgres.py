"""``humeval serve`` on PostgreSQL: a throwaway cluster (Debian's postgresql binaries, initdb in a
temporary folder, a Unix socket only) serves the same flow as SQLite: answers written once, a
restart replays them, exports read back with identical counts. Skipped without the binaries or
psycopg."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from serve_helpers import api_login, write_campaign
from test_serve_flow import answer_all, prefer_lower

pytest.importorskip("psycopg")
pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from humeval.data import read  # noqa: E402
from humeval.errors import InputError  # noqa: E402
from humeval.serve.app import create_app  # noqa: E402
from humeval.serve.campaign import load_campaign  # noqa: E402
from humeval.serve.leaderboard import compute_at  # noqa: E402
from serve_helpers import free_port  # noqa: E402


@pytest.fixture(scope="module")
def postgres():
    binaries = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    if not binaries:
        pytest.skip("PostgreSQL server binaries not installed (apt-get install postgresql)")
    folder = Path(tempfile.mkdtemp(prefix="humeval-pg-"))  # pytest's own temp folders are private to root
    run_as = []
    if os.geteuid() == 0:  # initdb refuses root: run the cluster as the postgres user
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root without a postgres user")
        shutil.chown(folder, "postgres")
        run_as = ["runuser", "-u", "postgres", "--"]
    port = free_port()
    subprocess.run([*run_as, f"{binaries[-1]}/initdb", "-D", str(folder / "data"), "-A", "trust", "-U", "postgres"],
                   check=True, capture_output=True)
    subprocess.run([*run_as, f"{binaries[-1]}/pg_ctl", "-D", str(folder / "data"), "-l", str(folder / "log"), "-w",
                    "-o", f"-p {port} -k {folder} -c listen_addresses=''", "start"], check=True, capture_output=True)
    yield f"postgresql:///postgres?host={folder}&port={port}&user=postgres"
    subprocess.run([*run_as, f"{binaries[-1]}/pg_ctl", "-D", str(folder / "data"), "-m", "fast", "stop"],
                   capture_output=True)
    shutil.rmtree(folder, ignore_errors=True)


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
    assert len(read(tmp_path / "comparisons.csv").comparisons) == counts["pairwise SYSTEM"]
    assert len(read(tmp_path / "ratings.csv").ratings) == counts["da SYSTEM"]
    assert organiser.get("/organiser/backup").status_code == 501
    board = compute_at(postgres, campaign)  # what the leaderboard's child process runs
    assert list(board["pairwise"].index) == list(campaign.systems)
    restarted = create_app(load_campaign(path, postgres), leaderboard=False)  # the answers replay into the strategy
    assert restarted.state.server.issuer.state.size == counts["pairwise SYSTEM"] + 3 * counts["ranking SYSTEM"]
    other_texts = write_campaign(tmp_path / "other", n_items=5)
    with pytest.raises(InputError, match="another campaign's texts"):
        create_app(load_campaign(other_texts, postgres), leaderboard=False)
