"""The campaign's ``[stop]`` rule: a simulated crowd (Bradley–Terry at known, well separated
abilities) judges; the verdict on the organiser page and in ``/admin/status.json`` says "continue"
with a count still needed early on, and flips to "budget suffices — you can stop" once the targets
(interval width and the plan's P(top identified)) are met."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from serve_helpers import api_login, write_campaign
from test_serve_flow import system_of

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from humeval.errors import InputError  # noqa: E402
from humeval.experiments.planning import pair_outcomes  # noqa: E402
from humeval.serve.app import create_app  # noqa: E402
from humeval.serve.campaign import load_campaign  # noqa: E402
from humeval.serve.stopping import check_width  # noqa: E402

TRUTH = np.array([1.5, 0.5, -0.5, -1.5])
STOP = "[stop]\nwidth = 1.2\np_top = 0.9\nmin_comparisons = 40\nsimulations = 20\n"


def judge(server, name, n, rng):
    """``n`` answers of annotator ``name`` to the tasks the server issues, Bradley–Terry at TRUTH."""
    uid = server.db.one("SELECT id FROM accounts WHERE name = ?", (name,))[0]
    for _ in range(n):
        task = server.issuer.current(uid)
        a, b = (np.array([system_of(text)]) for text in json.loads(task["shown"]))
        server.issuer.submit(uid, task["token"], {"outcome": int(pair_outcomes(TRUTH, a, b, 0.1, rng)[0])})


def test_verdict_flips_from_continue_to_stop(tmp_path):
    path = write_campaign(tmp_path, n_systems=4, n_items=40, extra=STOP)
    app = create_app(load_campaign(path), leaderboard=False)
    server, rng = app.state.server, np.random.default_rng(1)
    organiser = TestClient(app)
    api_login(organiser, "olga")
    judge(server, "alice", 30, rng)
    early = organiser.get("/admin/status.json").json()
    assert early["judgments"] == 30 and early["comparisons"] == 30
    assert early["verdict"] == "continue" and early["stop"] is False
    assert early["more"] > 0 and early["needed"] == 30 + early["more"]  # below min_comparisons = 40 at least
    assert [c["met"] for c in early["checks"]].count(False) >= 1
    page = organiser.get("/organiser").text
    assert "continue: about" in page and "budget suffices" not in page
    judge(server, "bob", 170, rng)
    late = organiser.get("/admin/status.json").json()
    assert late["verdict"] == "stop" and late["stop"] is True and late["more"] == 0
    assert all(c["met"] for c in late["checks"]) and len(late["checks"]) == 2
    width = next(c for c in late["checks"] if c["target"].startswith("widest"))
    assert width["current"] <= 1.2 < next(c for c in early["checks"] if c["target"].startswith("widest"))["current"]
    assert "budget suffices — you can stop" in organiser.get("/organiser").text
    alice = TestClient(app)
    api_login(alice, "alice")
    assert alice.get("/admin/status.json").status_code == 403  # organisers only


def test_width_target_projects_by_one_over_root_n():
    table = pd.DataFrame({"lower": [-1.0, -0.2], "upper": [1.0, 0.4]})  # widest interval 2.0
    check = check_width(table, 100, 1.0)
    assert check["needed"] == 400 and not check["met"]  # 100 · (2 / 1)²
    assert check_width(table, 100, 2.0)["met"] and check_width(table, 100, 2.0)["needed"] == 100


def test_no_stop_table_and_bad_stop_tables(tmp_path):
    app = create_app(load_campaign(write_campaign(tmp_path / "plain")), leaderboard=False)
    client = TestClient(app)
    api_login(client, "olga")
    assert client.get("/admin/status.json").json()["verdict"] == "no stopping rule"
    for extra, match in (("[stop]\nmin_comparisons = 5\n", "names no target"),
                         ("[stop]\nwidth = -1\n", "stop.width"),
                         ("[stop]\np_top = 1.5\n", "stop.p_top"),
                         ("[stop]\nwidth = 1\nwhen = 3\n", "unknown key stop.when")):
        with pytest.raises(InputError, match=match):
            load_campaign(write_campaign(tmp_path / "bad", extra=extra))
