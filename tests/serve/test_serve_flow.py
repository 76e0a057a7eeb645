"""``humeval serve`` end to end in Starlette's TestClient: log in, get a task, answer it once
(a retry returns the same receipt; another answer, a stale task or someone else's task is
refused), export, and read the export back with ``humeval.read``."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from serve_helpers import PASSWORD, api_login, form_csrf, write_campaign

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from humeval.data import read  # noqa: E402
from humeval.serve.app import create_app  # noqa: E402
from humeval.serve.campaign import load_campaign  # noqa: E402


def system_of(text: str) -> int:
    """The system that wrote ``text``; a degraded copy (a 2-word phrase replaced from another
    segment, so an item number differs) counts as the worst."""
    match = re.fullmatch(r"sys(\d+) says(\d+) segment\2 here\2 now\2", text)
    return int(match.group(1)) if match else 99


def prefer_lower(task) -> dict:
    """A judge who always prefers the lower-numbered system (so the true order is sys0 > sys1 > …)."""
    if task["type"] == "pairwise":
        a, b = (system_of(t) for t in task["outputs"])
        return {"outcome": 0 if a == b else 1 if a < b else 2}
    if task["type"] == "ranking":
        return {"ranks": [1 + sorted(system_of(t) for t in task["outputs"]).index(system_of(t))
                          for t in task["outputs"]]}
    return {"score": max(0, 90 - 20 * system_of(task["outputs"][0]))}


@pytest.fixture
def app_for(tmp_path):
    def make(**options):
        campaign = load_campaign(write_campaign(tmp_path, **options))
        return campaign, TestClient(create_app(campaign, leaderboard=False))
    return make


def test_login_form_then_one_task_at_a_time(app_for):
    campaign, client = app_for()
    assert client.get("/task", follow_redirects=False).headers["location"] == "/login"
    page = client.get("/login")
    bad = client.post("/login", data={"name": "alice", "password": "wrong password", "csrf": form_csrf(page.text)})
    assert bad.status_code == 401 and "wrong password" in bad.text
    page = client.get("/login")
    ok = client.post("/login", data={"name": "alice", "password": PASSWORD, "csrf": form_csrf(page.text)},
                     follow_redirects=False)
    assert ok.status_code == 303 and ok.headers["location"] == "/task"
    first = client.get("/task")
    assert first.status_code == 200 and 'data-type="pairwise"' in first.text
    token = re.search(r'data-task="([^"]+)"', first.text).group(1)
    assert re.search(r'data-task="([^"]+)"', client.get("/task").text).group(1) == token  # a reload: the same task
    texts = re.findall(r'<div class="text output" dir="auto">(.*?)</div>', first.text)
    answer = "1" if system_of(texts[0]) < system_of(texts[1]) else "2"
    done = client.post("/task", data={"csrf": form_csrf(first.text), "task": token, "outcome": answer})
    assert done.status_code == 200 and "Saved (receipt" in done.text
    assert re.search(r'data-task="([^"]+)"', done.text).group(1) != token  # the next task


def test_submit_once_retry_conflict_stale_and_foreign(app_for):
    campaign, client = app_for()
    headers = api_login(client, "alice")
    task = client.get("/api/task").json()
    assert set(task) == {"task", "type", "item", "source", "reference", "outputs"}  # no system names, no kind
    url = f"/api/task/{task['task']}"
    first = client.post(url, json=prefer_lower(task), headers=headers)
    assert first.status_code == 200 and first.json()["repeated"] is False
    again = client.post(url, json=prefer_lower(task), headers=headers)
    assert again.status_code == 200 and again.json() == {"receipt": first.json()["receipt"], "repeated": True}
    other = {"outcome": 0}
    clash = client.post(url, json=other, headers=headers)
    assert clash.status_code == 409 and "already answered" in clash.json()["error"]
    nonsense = client.post(f"/api/task/{client.get('/api/task').json()['task']}", json={"outcome": 7}, headers=headers)
    assert nonsense.status_code == 400 and "0 (tie)" in nonsense.json()["error"]
    skipped = client.get("/api/task").json()
    assert client.post(f"/api/task/{skipped['task']}/skip", headers=headers).status_code == 200
    stale = client.post(f"/api/task/{skipped['task']}", json=prefer_lower(skipped), headers=headers)
    assert stale.status_code == 409 and "stale" in stale.json()["error"]
    mine = client.get("/api/task").json()
    bob = TestClient(client.app)
    bob_headers = api_login(bob, "bob")
    foreign = bob.post(f"/api/task/{mine['task']}", json=prefer_lower(mine), headers=bob_headers)
    assert foreign.status_code == 403 and "not issued to you" in foreign.json()["error"]
    assert bob.post("/api/task/no-such-task", json={"outcome": 1}, headers=bob_headers).status_code == 404
    assert [j["receipt"] for j in client.get("/api/judgments").json()] == [first.json()["receipt"]]
    assert bob.get("/api/judgments").json() == []


def answer_all(client, headers, n):
    receipts = []
    for _ in range(n):
        task = client.get("/api/task").json()
        response = client.post(f"/api/task/{task['task']}", json=prefer_lower(task), headers=headers)
        assert response.status_code == 200, response.text
        receipts.append(response.json()["receipt"])
    return receipts


def test_export_reads_back_with_identical_counts(app_for, tmp_path):
    campaign, client = app_for(tasks=("pairwise", "ranking", "da"), extra="k = 3\n", bad_reference=0.1, repeat=0.1)
    for name in ("alice", "bob"):
        worker = TestClient(client.app)
        answer_all(worker, api_login(worker, name), 30)
    server = client.app.state.server
    kinds = pd.DataFrame([dict(r) for r in server.db.query(
        "SELECT t.type, t.kind FROM judgments j JOIN tasks t ON t.id = j.task_id")]).value_counts()
    assert kinds.sum() == 60 and kinds[("pairwise", "BAD_REF")] + kinds[("pairwise", "REPEAT")] > 0
    organiser = TestClient(client.app)
    api_login(organiser, "olga")
    counts = {}
    for what, ext in (("comparisons", "csv"), ("comparisons", "parquet"), ("ratings", "csv"), ("appraise", "csv")):
        response = organiser.get(f"/organiser/export/{what}.{ext}")
        assert response.status_code == 200, response.text
        path = tmp_path / f"{what}.{ext}"
        path.write_bytes(response.content)
        counts[what, ext] = read(path)
    pairwise = kinds[("pairwise", "SYSTEM")]
    for ext in ("csv", "parquet"):
        back = counts["comparisons", ext].comparisons
        assert len(back) == pairwise + 3 * kinds[("ranking", "SYSTEM")]  # k-way rankings as their C(3, 2) pairs
        assert set(back.systems) <= set(campaign.systems)
        # the judge prefers the lower-numbered system every time
        a, b = (pd.Series(back.systems)[x].str[3:].astype(int).to_numpy() for x in (back.a, back.b))
        assert ((back.outcome == 1) == (a < b)).all() and (back.outcome != 0).all()
    ratings = counts["ratings", "csv"].ratings
    assert len(ratings) == kinds[("da", "SYSTEM")]
    assert set(ratings.score) == {90.0, 70.0, 50.0, 30.0}  # sys0 … sys3, never a control
    appraise = counts["appraise", "csv"]
    assert len(appraise.rankings) == pairwise + kinds[("ranking", "SYSTEM")]
    assert len(appraise.comparisons) == pairwise + 3 * kinds[("ranking", "SYSTEM")]
    board = organiser.get("/api/leaderboard").json()
    assert board["comparisons"] == pairwise + 3 * kinds[("ranking", "SYSTEM")]
    assert [row["system"] for row in board["pairwise"]] == list(campaign.systems)  # sys0 best … sys3 worst
    assert [row["system"] for row in board["da"]] == list(campaign.systems)


def test_esa_spans_from_the_form_and_the_api_read_back(app_for, tmp_path):
    import json

    from humeval.serve.tasks import marked_spans
    campaign, client = app_for(tasks=("esa",), n_systems=2, n_items=30, bad_reference=0.3)
    page = client.get("/login")
    client.post("/login", data={"name": "alice", "password": PASSWORD, "csrf": form_csrf(page.text)})
    page = client.get("/task")
    token = re.search(r'data-task="([^"]+)"', page.text).group(1)
    text = client.get(f"/api/task/{token}").json()["outputs"][0]
    assert 'name="w4"' in page.text and 'name="w5"' not in page.text  # one mark per word of the output
    done = client.post("/task", data={"csrf": form_csrf(page.text), "task": token, "score": "40", "touched": "1",
                                      "w1": "major", "w2": "major", "w4": "minor"})
    assert done.status_code == 200 and "Saved" in done.text
    stored = json.loads(client.app.state.server.db.one("SELECT answer FROM judgments")[0])
    words = text.split()
    assert stored["score"] == 40.0 and [(text[s["start_i"]:s["end_i"]], s["severity"]) for s in stored["spans"]] == [
        (f"{words[1]} {words[2]}", "major"), (words[4], "minor")]
    assert marked_spans("a b c", ["minor", "", "minor"]) == [{"start_i": 0, "end_i": 1, "severity": "minor"},
                                                           {"start_i": 4, "end_i": 5, "severity": "minor"}]
    headers = api_login(client, "bob")
    for _ in range(26):  # fewer system tasks than segments: no output scored twice by one annotator
        task = client.get("/api/task").json()
        n = len(task["outputs"][0])
        url = f"/api/task/{task['task']}"
        wrong = client.post(url, json={"score": 50, "spans": [{"start_i": 0, "end_i": n + 1, "severity": "minor"}]},
                            headers=headers)
        assert wrong.status_code == 400 and "character offsets" in wrong.json()["error"]
        spans = [{"start_i": 0, "end_i": 4, "severity": "major"}] if system_of(task["outputs"][0]) else []
        assert client.post(url, json={"score": 80 - 30 * min(1, system_of(task["outputs"][0])), "spans": spans},
                           headers=headers).status_code == 200
    organiser = TestClient(client.app)
    api_login(organiser, "olga")
    (tmp_path / "esa.csv").write_bytes(organiser.get("/organiser/export/esa.csv").content)
    kinds = dict(client.app.state.server.db.query("SELECT t.kind, COUNT(*) FROM judgments j JOIN tasks t "
                                                  "ON t.id = j.task_id GROUP BY t.kind"))
    assert kinds.get("BAD_REF", 0) > 0
    plain = read(tmp_path / "esa.csv").ratings
    assert len(plain) == kinds["SYSTEM"]
    controls = read(tmp_path / "esa.csv", controls=True).ratings
    assert len(controls) == kinds["SYSTEM"] + kinds["BAD_REF"]
    board = organiser.get("/api/leaderboard").json()
    assert [row["system"] for row in board["esa"]] == ["sys0", "sys1"]


def test_mqm_lite_errors_scored_and_read_back(app_for, tmp_path):
    """MQM-lite: marked words become (category, severity) errors; the export is Google's MQM TSV,
    which ``read_mqm`` scores −(5 · major + 1 · minor) per output, as the leaderboard does."""
    import json
    campaign, client = app_for(tasks=("mqm",), n_systems=3, n_items=20, bad_reference=0.3, repeat=0.2)
    page = client.get("/login")
    client.post("/login", data={"name": "alice", "password": PASSWORD, "csrf": form_csrf(page.text)})
    page = client.get("/task")
    token = re.search(r'data-task="([^"]+)"', page.text).group(1)
    assert 'value="Accuracy|major"' in page.text
    client.post("/task", data={"csrf": form_csrf(page.text), "task": token, "w0": "Accuracy|major",
                               "w1": "Accuracy|major", "w3": "Fluency|minor"})
    stored = json.loads(client.app.state.server.db.one("SELECT answer FROM judgments")[0])
    assert [(e["category"], e["severity"]) for e in stored["errors"]] == [("Accuracy", "major"), ("Fluency", "minor")]
    headers = api_login(client, "bob")
    expected = {}
    for _ in range(15):
        task = client.get("/api/task").json()
        s = system_of(task["outputs"][0])
        errors = [{"start_i": 0, "end_i": 3, "severity": "major", "category": "Accuracy"}] * (s >= 1) + \
            [{"start_i": 4, "end_i": 6, "severity": "minor", "category": "Style"}] * (s >= 2)
        bad = client.post(f"/api/task/{task['task']}", json={"errors": [{**e, "category": "Grammar"} for e in errors]},
                          headers=headers)
        assert bad.status_code == (400 if errors else 200)
        if errors:
            assert "category" in bad.json()["error"]
            assert client.post(f"/api/task/{task['task']}", json={"errors": errors}, headers=headers).status_code == 200
        expected[("bob", task["item"], f"sys{s}")] = -(5.0 * (s >= 1) + 1.0 * (s >= 2))
    organiser = TestClient(client.app)
    api_login(organiser, "olga")
    response = organiser.get("/organiser/export/mqm.tsv")
    assert response.status_code == 200 and organiser.get("/organiser/export/mqm.csv").status_code == 404
    (tmp_path / "mqm.tsv").write_bytes(response.content)
    back = read(tmp_path / "mqm.tsv").ratings.to_pandas()
    assert len(back) == 16  # every answer one score: no controls in MQM-lite
    bob = {(r.judge, r.item, r.system): r.score for r in back.itertuples() if r.judge == "bob"}
    assert bob == expected
    board = organiser.get("/api/leaderboard").json()
    assert [row["system"] for row in board["mqm"]][0] == "sys0"
