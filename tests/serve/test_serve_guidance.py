"""Guidance on the annotator's page: instructions per task type (the campaign may replace them),
progress ("Task 3 of 4", time spent) with a per-annotator quota after which no task is issued, and
error spans posted by the page's script as character offsets (code points), checked like the API's."""

from __future__ import annotations

import json
import re

import pytest
from markupsafe import escape
from serve_helpers import PASSWORD, api_login, form_csrf, write_campaign

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from humeval.errors import InputError  # noqa: E402
from humeval.serve.app import create_app  # noqa: E402
from humeval.serve.campaign import INSTRUCTIONS, load_campaign  # noqa: E402


def form_client(app):
    client = TestClient(app)
    page = client.get("/login")
    client.post("/login", data={"name": "alice", "password": PASSWORD, "csrf": form_csrf(page.text)})
    return client


def test_instructions_per_task_type_and_progress_up_to_the_quota(tmp_path):
    path = write_campaign(tmp_path, tasks=("pairwise", "da"))  # [instructions] is a table: before [data]
    path.write_text(path.read_text().replace("[data]\n", 'quota = 4\n[instructions]\nda = "Score meaning, not '
                                             'style."\n[data]\n', 1))
    app = create_app(load_campaign(path), leaderboard=False)
    client = form_client(app)
    seen = []
    for n in range(4):
        page = client.get("/task").text
        kind = re.search(r'data-type="(\w+)"', page).group(1)
        instructions = re.search(r'<details id="instructions"[^>]*><summary>Instructions</summary><p>(.*?)</p>',
                                 page, flags=re.S).group(1)
        seen.append((kind, instructions))
        assert f"Task {n + 1} of 4" in page and "min spent so far" in page
        token = re.search(r'data-task="([^"]+)"', page).group(1)
        data = {"csrf": form_csrf(page), "task": token}
        data |= {"outcome": "1"} if kind == "pairwise" else {"typed": "70"}
        after = client.post("/task", data=data).text
        assert ("You have answered 4 of 4 tasks" if n == 3 else "Saved") in after
    assert seen[0] == ("pairwise", str(escape(INSTRUCTIONS["pairwise"])))
    assert seen[1] == ("da", "Score meaning, not style.")
    finished = client.get("/task")
    assert "You have answered 4 of 4 tasks" in finished.text and 'id="task"' not in finished.text
    assert app.state.server.db.one("SELECT COUNT(*) FROM tasks WHERE annotator_id = 1 AND status = 'open'")[0] == 0
    api = TestClient(app)
    api_login(api, "alice")
    refused = api.get("/api/task")
    assert refused.status_code == 409 and "quota reached: 4 of 4" in refused.json()["error"]
    bob = TestClient(app)
    api_login(bob, "bob")
    assert bob.get("/api/task").status_code == 200  # a quota is per annotator


@pytest.mark.parametrize("extra, problem", [("quota = 0\n", "quota = 0"), ('quota = "ten"\n', "quota = 'ten'"),
                                            ('[instructions]\nrank = "x"\n', "instructions names rank")])
def test_a_wrong_quota_or_instructions_is_an_input_error(tmp_path, extra, problem):
    path = write_campaign(tmp_path)
    path.write_text(path.read_text().replace("[data]\n", extra + "[data]\n", 1))
    with pytest.raises(InputError, match=re.escape(problem)):
        load_campaign(path)


def test_spans_the_script_posts_are_character_offsets_checked_as_the_api_checks_them(tmp_path):
    sentence = "老猫😺坐在温暖的垫子上。"
    path = write_campaign(tmp_path, tasks=("mqm",), n_systems=2, n_items=3, outputs={
        "sys0": [sentence] * 3, "sys1": [sentence] * 3})
    app = create_app(load_campaign(path), leaderboard=False)
    client = form_client(app)
    page = client.get("/task").text
    assert 'data-spans="mqm"' in page and 'name="spans" id="spans" value="" disabled' in page
    token = re.search(r'data-task="([^"]+)"', page).group(1)
    at = sentence.index("垫子")  # 8 code points in (the emoji is one)
    assert at == 8
    base = {"csrf": form_csrf(page), "task": token}
    wrong = client.post("/task", data={**base, "spans": json.dumps([{"start_i": 8, "end_i": 99, "severity": "major",
                                                                     "category": "Accuracy"}])})
    assert "character offsets" in wrong.text and app.state.server.db.one("SELECT COUNT(*) FROM judgments")[0] == 0
    deep = client.post("/task", data={**base, "spans": "[" * 40 + "]" * 40})
    assert "nests deeper" in deep.text
    span = {"start_i": at, "end_i": at + 2, "severity": "minor", "category": "Terminology"}
    done = client.post("/task", data={**base, "spans": json.dumps([span]), "w0": "Accuracy|major"})
    assert "Saved" in done.text  # the script's spans win over word marks (which it disables)
    stored = json.loads(app.state.server.db.one("SELECT answer FROM judgments")[0])
    assert stored == {"errors": [span]} and sentence[stored["errors"][0]["start_i"]:][:2] == "垫子"
