"""Security of ``humeval serve``: annotators see only their own tasks and answers, can answer only
what was issued to them, never reach organiser pages; outputs are escaped; every form and API post
needs the CSRF token; only the campaign's accounts can log in."""

from __future__ import annotations

import re

import pytest
from serve_helpers import PASSWORD, api_login, form_csrf, write_campaign

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from humeval.serve.app import create_app  # noqa: E402
from humeval.serve.campaign import load_campaign  # noqa: E402

EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)> & "quotes"'


@pytest.fixture
def app(tmp_path):
    outputs = {"sys0": [EVIL] * 6, "sys1": [f"</div><b>bold {i}</b>" for i in range(6)]}
    campaign = load_campaign(write_campaign(tmp_path, n_systems=2, n_items=6, outputs=outputs))
    return create_app(campaign, leaderboard=False)


def logged_in(app, name):
    client = TestClient(app)
    return client, api_login(client, name)


def test_annotators_see_only_their_own_tasks_and_answers(app):
    alice, alice_h = logged_in(app, "alice")
    bob, bob_h = logged_in(app, "bob")
    task = alice.get("/api/task").json()
    assert alice.get(f"/api/task/{task['task']}").status_code == 200
    peek = bob.get(f"/api/task/{task['task']}")
    assert peek.status_code == 403 and "not issued to you" in peek.json()["error"]
    assert bob.post(f"/api/task/{task['task']}", json={"outcome": 1}, headers=bob_h).status_code == 403
    assert bob.post(f"/api/task/{task['task']}/skip", headers=bob_h).status_code == 403
    assert alice.post(f"/api/task/{task['task']}", json={"outcome": 1}, headers=alice_h).status_code == 200
    assert len(alice.get("/api/judgments").json()) == 1 and bob.get("/api/judgments").json() == []
    # a task id that was never issued (guessed) is refused; nothing is written
    assert alice.post("/api/task/AAAAAAAAAAAAAAAA", json={"outcome": 1}, headers=alice_h).status_code == 404
    assert app.state.server.db.one("SELECT COUNT(*) FROM judgments")[0] == 1


def test_annotators_cannot_reach_organiser_pages_and_organisers_get_no_tasks(app):
    alice, _ = logged_in(app, "alice")
    for url in ("/organiser", "/api/leaderboard", "/organiser/export/comparisons.csv", "/organiser/backup"):
        assert alice.get(url, follow_redirects=False).status_code == 403, url
    anonymous = TestClient(app)
    assert anonymous.get("/organiser", follow_redirects=False).headers["location"] == "/login"
    for url in ("/api/leaderboard", "/organiser/export/comparisons.csv", "/api/task", "/api/judgments"):
        assert anonymous.get(url).status_code == 401, url
    olga, _ = logged_in(app, "olga")
    assert olga.get("/organiser").status_code == 200
    assert olga.get("/api/task").status_code == 403
    assert olga.get("/organiser/backup").content[:15] == b"SQLite format 3"


def test_outputs_with_markup_render_as_text(app):
    alice, _ = logged_in(app, "alice")
    page = alice.get("/task")
    assert "<script>alert" not in page.text and "<b>bold" not in page.text and "<img src=x" not in page.text
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &#34;quotes&#34;" \
        in page.text
    assert "&lt;/div&gt;&lt;b&gt;bold" in page.text
    assert "script-src 'self';" in page.headers["content-security-policy"]
    assert alice.get("/api/task").json()["outputs"][0] in (EVIL, *(f"</div><b>bold {i}</b>" for i in range(6)))


def test_every_post_needs_the_csrf_token(app):
    alice, headers = logged_in(app, "alice")
    page = alice.get("/task")
    token = re.search(r'data-task="([^"]+)"', page.text).group(1)
    for data in ({"task": token, "outcome": "1"}, {"task": token, "outcome": "1", "csrf": "forged"}):
        refused = alice.post("/task", data=data)
        assert refused.status_code == 403 and "CSRF" in refused.text
    assert alice.post(f"/api/task/{token}", json={"outcome": 1}).status_code == 403
    assert alice.post(f"/api/task/{token}", json={"outcome": 1}, headers={"X-CSRF-Token": "forged"}).status_code == 403
    # a cross-site form can only send form encodings: the API takes JSON only
    assert alice.post(f"/api/task/{token}", data={"outcome": "1"}, headers=headers).status_code == 415
    assert alice.post("/logout", data={}).status_code == 403
    assert app.state.server.db.one("SELECT COUNT(*) FROM judgments")[0] == 0
    ok = alice.post("/task", data={"task": token, "outcome": "1", "csrf": form_csrf(page.text)})
    assert ok.status_code == 200 and "Saved" in ok.text
    fresh = TestClient(app)
    fresh.get("/login")
    no_token = fresh.post("/login", data={"name": "alice", "password": PASSWORD})
    assert no_token.status_code == 403 and fresh.get("/api/task").status_code == 401


def test_no_open_registration_and_no_forged_sessions(app, tmp_path):
    client = TestClient(app)
    assert client.post("/api/login", json={"name": "mallory", "password": PASSWORD}).status_code == 401
    assert client.post("/register", data={"name": "mallory"}).status_code in (404, 405)
    assert client.post("/api/login", json={"name": "alice", "password": "not the password"}).status_code == 401
    alice, _ = logged_in(app, "alice")
    cookie = alice.cookies["humeval_session"]
    assert "httponly" in alice.post("/api/login", json={"name": "alice", "password": PASSWORD}) \
        .headers["set-cookie"].lower()
    forged = TestClient(app)
    forged.cookies.set("humeval_session", cookie[:-4] + ("AAAA" if not cookie.endswith("AAAA") else "BBBB"))
    assert forged.get("/api/task").status_code == 401
    # an account taken out of the campaign file can no longer log in
    path = tmp_path / "campaign.toml"
    text = path.read_text()
    path.write_text(text.replace('name = "bob"', 'name = "bobby"'))
    restarted = create_app(load_campaign(path), leaderboard=False)
    assert TestClient(restarted).post("/api/login", json={"name": "bob", "password": PASSWORD}).status_code == 401
    assert TestClient(restarted).post("/api/login", json={"name": "bobby", "password": PASSWORD}).status_code == 200
