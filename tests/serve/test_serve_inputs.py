"""Inputs that invite default answers: a DA/ESA score left untouched and a ranking submitted
without choosing ranks are refused with a message (server-side, whatever the browser sends), never
recorded as 50 or as an all-tie; the slider's number is shown (a number box, kept in step by the
page's one script, served from 'self')."""

from __future__ import annotations

import json
import re

import pytest
from serve_helpers import PASSWORD, form_csrf, write_campaign

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from humeval.serve.app import NO_RANK, UNTOUCHED, create_app  # noqa: E402
from humeval.serve.campaign import load_campaign  # noqa: E402


def logged_in(tmp_path, tasks, extra=""):
    campaign = load_campaign(write_campaign(tmp_path, tasks=tasks, extra=extra))
    client = TestClient(create_app(campaign, leaderboard=False))
    page = client.get("/login")
    client.post("/login", data={"name": "alice", "password": PASSWORD, "csrf": form_csrf(page.text)})
    return client


def defaults(html: str) -> dict:
    """What a browser posts for the form untouched: each input's value, each select's selected option."""
    out = {}
    for tag in re.findall(r"<input [^>]*>", html):
        name, value = re.search(r'name="([^"]+)"', tag), re.search(r'value="([^"]*)"', tag)
        kind = re.search(r'type="([^"]+)"', tag)
        if name and kind and kind.group(1) in ("hidden", "range", "number", "text"):
            out[name.group(1)] = value.group(1) if value else ""
    for name, body in re.findall(r'<select name="([^"]+)"[^>]*>(.*?)</select>', html, flags=re.S):
        chosen = re.search(r'<option value="([^"]*)" selected>', body) or re.search(r'<option value="([^"]*)"', body)
        out[name] = chosen.group(1)
    return out


def judgments(client) -> list[dict]:
    return [json.loads(r[0]) for r in client.app.state.server.db.query("SELECT answer FROM judgments ORDER BY id")]


@pytest.mark.parametrize("task_type", ["da", "esa"])
def test_an_untouched_score_is_refused_and_a_moved_or_typed_one_kept(tmp_path, task_type):
    client = logged_in(tmp_path, (task_type,))
    page = client.get("/task")
    assert 'type="number" name="typed"' in page.text and 'name="touched" value="0"' in page.text
    assert '<script src="/static/humeval.js"></script>' in page.text
    token = re.search(r'data-task="([^"]+)"', page.text).group(1)
    untouched = defaults(page.text)
    assert untouched["score"] == "50" and untouched["touched"] == "0" and untouched["typed"] == ""
    refused = client.post("/task", data=untouched)
    assert refused.status_code == 200 and UNTOUCHED in refused.text and 'role="alert"' in refused.text
    assert re.search(r'data-task="([^"]+)"', refused.text).group(1) == token and judgments(client) == []
    moved = client.post("/task", data={**untouched, "score": "63", "touched": "1"})
    assert "Saved" in moved.text and judgments(client)[-1]["score"] == 63.0
    page = client.get("/task")
    typed = client.post("/task", data={**defaults(page.text), "typed": "0"})  # 0 typed is an answer, not "empty"
    assert "Saved" in typed.text and judgments(client)[-1]["score"] == 0.0
    page = client.get("/task")
    wrong = client.post("/task", data={**defaults(page.text), "typed": "140"})
    assert "from 0 to 100" in wrong.text and len(judgments(client)) == 2


def test_a_ranking_submitted_without_choosing_is_refused_not_an_all_tie(tmp_path):
    client = logged_in(tmp_path, ("ranking",), extra="k = 3\n")
    page = client.get("/task")
    assert page.text.count('<option value="" selected>choose</option>') == 3 and page.text.count(" required>") == 3
    immediate = defaults(page.text)
    assert [immediate[f"rank{i}"] for i in range(3)] == ["", "", ""]
    refused = client.post("/task", data=immediate)
    assert NO_RANK in refused.text and judgments(client) == []
    partly = client.post("/task", data={**immediate, "rank0": "1", "rank1": "2"})
    assert NO_RANK in partly.text and judgments(client) == []
    done = client.post("/task", data={**immediate, "rank0": "2", "rank1": "1", "rank2": "2"})
    assert "Saved" in done.text and judgments(client) == [{"ranks": [2, 1, 2]}]


def test_the_script_is_served_from_self_under_a_strict_policy(tmp_path):
    client = logged_in(tmp_path, ("da",))
    script = client.get("/static/humeval.js")
    assert script.status_code == 200 and script.headers["content-type"].startswith("text/javascript")
    assert 'touched.value = "1"' in script.text
    policy = client.get("/task").headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-eval" not in policy and "script-src 'self';" in policy
