"""The web server's process starts without the statistics stack: importing ``humeval serve``'s
modules, building the demo campaign's app (TrueSkill strategy, no answers yet) and answering
``GET /login`` load neither pandas, scipy, numba, matplotlib, ``humeval.data``, ``humeval.ranking``
nor ``humeval.experiments``; a request that needs them (the organiser's page) loads them then.

A structural check, not a timing one: a fresh interpreter lists the modules it has loaded after
each step."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from serve_helpers import SRC

HEAVY = ("pandas", "scipy", "numba", "matplotlib", "humeval.data", "humeval.ranking", "humeval.experiments")

PROBE = f"""
import json, sys
HEAVY = {HEAVY!r}
steps = {{}}

def loaded(step):
    steps[step] = sorted(m for m in HEAVY if m in sys.modules)

import uvicorn
import humeval.cli, humeval.cli.serve, humeval.serve.app, humeval.serve.hardening
loaded("import")
from starlette.testclient import TestClient
from humeval.serve.app import create_app
from humeval.serve.campaign import load_campaign
from humeval.serve.demo import PASSWORD, write_demo
campaign = load_campaign(write_demo(sys.argv[1]))
app = create_app(campaign, leaderboard=False)
loaded("app")
with TestClient(app) as client:
    assert client.get("/login").status_code == 200
    loaded("login page")
    csrf = client.post("/api/login", json={{"name": "organiser", "password": PASSWORD}}).json()["csrf"]
    assert client.get("/organiser").status_code == 200
    loaded("organiser page")
print(json.dumps({{"strategy": campaign.strategy, "steps": steps}}))
"""


def test_the_server_starts_without_the_statistics_stack(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "demo")], env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    found = json.loads(result.stdout.splitlines()[-1])
    assert found["strategy"] == "trueskill"  # its reset needs no TrueSkill settings yet (the first answer does)
    steps = found["steps"]
    assert steps["import"] == [] and steps["app"] == [] and steps["login page"] == [], steps
    # the probe sees them once a request needs them: the organiser's page fits the leaderboard here
    assert {"pandas", "scipy", "humeval.ranking", "humeval.experiments"} <= set(steps["organiser page"]), steps
