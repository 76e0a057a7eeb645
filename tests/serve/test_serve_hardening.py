"""Hardening of ``humeval serve``, one test per attack the issue ran against a local server: login
guessing is throttled (429 with a growing Retry-After, per account and per address), sessions
are revoked server-side (logout, "sign out everyone", a password change), request bodies are
capped before they are read, deep or non-Unicode JSON is a 400 (never a 500), the signing secret
is in no database or backup, slow request heads and bodies time out, the leaderboard's child
process dies with the server, campaign names cannot reach outside the export folder, and an ESA
form on a 1,500-word output is taken."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
import signal
import socket
import sqlite3
import time
from pathlib import Path

import pytest
from serve_helpers import PASSWORD, Server, api_login, form_csrf, write_campaign

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from humeval.serve.app import create_app  # noqa: E402
from humeval.serve.campaign import load_campaign  # noqa: E402
from humeval.serve.hardening import BodyLimit, Throttle, parse_json, safe_filename  # noqa: E402
from humeval.serve.tasks import Refused  # noqa: E402


class Clock:
    """A clock the test moves by hand (the throttle's delays without waiting)."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def made(tmp_path):
    def make(**options):
        path = write_campaign(tmp_path, **options)
        return path, create_app(load_campaign(path), leaderboard=False)
    return make


def throttled(made):
    """A client of a new campaign's app whose login throttles run on a ``Clock``."""
    _, app = made()
    clock = Clock()
    app.state.server.by_account.clock = app.state.server.by_address.clock = clock
    return TestClient(app), clock


def login(client, name, password=PASSWORD):
    return client.post("/api/login", json={"name": name, "password": password})


def test_login_guessing_is_throttled_per_account_with_a_growing_delay(made):
    client, clock = throttled(made)
    answers = [login(client, "alice", f"guess {i}") for i in range(150)]
    assert [a.status_code for a in answers[:5]] == [401] * 5
    assert {a.status_code for a in answers[5:]} == {429}  # 145 refused without checking the password
    assert answers[5].headers["retry-after"] == "1" and "try again in 1 s" in answers[5].json()["error"]
    right = login(client, "alice")
    assert right.status_code == 429  # the right password does not get through a guessing run
    clock.now += 1.0
    assert login(client, "alice", "guess again").status_code == 401  # 6 failures: 2 s
    assert login(client, "alice").headers["retry-after"] == "2"
    clock.now += 2.0
    assert login(client, "alice", "and again").status_code == 401  # 7 failures: 4 s
    assert login(client, "alice").headers["retry-after"] == "4"
    assert login(client, "bob").status_code == 200  # another account is not held up
    clock.now += 4.0
    assert login(client, "alice").status_code == 200  # and a success resets the count
    assert login(client, "alice", "one slip").status_code == 401
    page = client.get("/login")  # the form says so too
    for _ in range(5):
        client.post("/login", data={"name": "olga", "password": "wrong", "csrf": form_csrf(page.text)})
    held = client.post("/login", data={"name": "olga", "password": PASSWORD, "csrf": form_csrf(page.text)})
    assert held.status_code == 429 and "Too many failed logins" in held.text and held.headers["retry-after"] == "1"


def test_login_guessing_is_throttled_per_address_across_names(made):
    client, clock = throttled(made)
    for i in range(20):  # one guess each at 20 names (4 per name: never the per-account limit)
        assert login(client, f"name{i % 5}", "guess").status_code == 401
    refused = login(client, "alice")
    assert refused.status_code == 429 and refused.headers["retry-after"] == "1"
    assert Throttle(20).delay(19) == 0 and Throttle(20).delay(20) == 1 and Throttle(5).delay(100) == 900


def cookie_of(client) -> str:
    return client.cookies["humeval_session"]


def with_cookie(app, cookie) -> TestClient:
    client = TestClient(app)
    client.cookies.set("humeval_session", cookie)
    return client


def test_sessions_are_revoked_by_logout_sign_out_everyone_and_a_password_change(made, tmp_path):
    path, app = made(plain_passwords=True)
    alice = TestClient(app)
    api_login(alice, "alice")
    saved = cookie_of(alice)
    assert with_cookie(app, saved).get("/api/task").status_code == 200
    page = alice.get("/task")
    assert alice.post("/logout", data={"csrf": form_csrf(page.text)}, follow_redirects=False).status_code == 303
    assert with_cookie(app, saved).get("/api/task").status_code == 401  # the copy saved before logout
    workers = {}
    for name in ("alice", "bob"):
        workers[name] = TestClient(app)
        api_login(workers[name], name)
        assert workers[name].get("/api/task").status_code == 200
    olga = TestClient(app)
    api_login(olga, "olga")
    assert TestClient(app).post("/organiser/sessions", data={}).status_code == 401
    refused = olga.post("/organiser/sessions", data={"csrf": "forged"})
    assert refused.status_code == 403 and workers["bob"].get("/api/task").status_code == 200
    page = olga.get("/organiser")
    done = olga.post("/organiser/sessions", data={"csrf": form_csrf(page.text)})
    assert done.status_code == 200 and "Signed out 2 other sessions" in done.text
    assert all(w.get("/api/task").status_code == 401 for w in workers.values())
    assert olga.get("/api/leaderboard").status_code == 200  # the organiser's own session stays
    for name in ("alice", "bob"):
        api_login(workers[name], name)
    cookies = {name: cookie_of(w) for name, w in workers.items()}
    # a restart with alice's password changed: her sessions end, bob's (unchanged) survive
    path.write_text(path.read_text().replace(f'name = "alice"\nrole = "annotator"\npassword = "{PASSWORD}"',
                                             'name = "alice"\nrole = "annotator"\npassword = "a new password"'))
    restarted = create_app(load_campaign(path), leaderboard=False)
    assert with_cookie(restarted, cookies["alice"]).get("/api/task").status_code == 401
    assert with_cookie(restarted, cookies["bob"]).get("/api/task").status_code == 200
    assert login(TestClient(restarted), "alice", "a new password").status_code == 200


def test_the_signing_secret_is_in_no_database_or_backup(made, tmp_path, monkeypatch):
    _, app = made()
    server = app.state.server
    secret_file = tmp_path / "campaign.session-secret"
    assert secret_file.read_text().strip() == server.secret and len(server.secret) >= 60
    assert secret_file.stat().st_mode & 0o077 == 0  # readable by its owner only
    olga = TestClient(app)
    api_login(olga, "olga")
    backup = olga.get("/organiser/backup").content
    assert backup[:15] == b"SQLite format 3" and server.secret.encode() not in backup
    payload = cookie_of(olga).split(".")[0]
    sid = json.loads(base64.b64decode(payload + "=" * (-len(payload) % 4)))["sid"]
    assert sid.encode() not in backup and hashlib.sha256(sid.encode()).hexdigest().encode() in backup
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(backup)
    with sqlite3.connect(copy) as db:
        assert db.execute("SELECT COUNT(*) FROM meta WHERE key = 'secret'").fetchone()[0] == 0
    # the same secret after a restart (sessions survive it), or the environment's
    assert create_app(load_campaign(tmp_path / "campaign.toml"), leaderboard=False).state.server.secret == server.secret
    monkeypatch.setenv("HUMEVAL_SESSION_SECRET", "s" * 64)
    assert create_app(load_campaign(tmp_path / "campaign.toml"), leaderboard=False).state.server.secret == "s" * 64


def run_asgi(app, scope, chunks):
    """Call an ASGI app with a body of ``chunks``; (status, chunks it read)."""
    read, sent = [], []

    async def receive():
        i = len(read)
        read.append(i)
        return {"type": "http.request", "body": chunks[i] if i < len(chunks) else b"",
                "more_body": i < len(chunks) - 1}

    async def send(message):
        sent.append(message)

    async def main():
        await app(scope, receive, send)
    try:
        asyncio.run(main())
    except Refused as refused:
        return refused.status, len(read)
    return next(m["status"] for m in sent if m["type"] == "http.response.start"), len(read)


def test_request_bodies_are_capped_before_they_are_read(made):
    async def endpoint(scope, receive, send):  # reads the whole body, as Starlette's request.body() does
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    limited = BodyLimit(endpoint)
    big = [b"x" * 2 ** 20] * 400  # 400 MB, never built: the middleware stops at the first chunk over the limit
    scope = {"type": "http", "path": "/api/login", "headers": [(b"content-length", b"419430400")]}
    assert run_asgi(limited, scope, big) == (413, 0)  # refused from Content-Length, nothing read
    chunked = {"type": "http", "path": "/api/login", "headers": []}
    assert run_asgi(limited, chunked, big) == (413, 1)  # no length: stopped at the first 1 MiB chunk
    answer = {"type": "http", "path": "/api/task/abc", "headers": []}
    assert run_asgi(limited, answer, [b"x" * 2 ** 19] * 400) == (413, 3)  # answers: 1 MiB
    assert run_asgi(limited, answer, [b"x" * 2 ** 19] * 2)[0] == 200
    _, app = made()
    client = TestClient(app)
    response = client.post("/api/login", content=json.dumps({"name": "alice", "password": "x" * 5000}),
                           headers={"content-type": "application/json"})
    assert response.status_code == 413 and "4,096 bytes" in response.json()["error"]
    assert client.post("/login", data={"name": "alice", "password": "x" * 5000}).status_code == 413


def test_deep_json_and_lone_surrogates_are_400_never_500(made):
    _, app = made()
    client = TestClient(app, raise_server_exceptions=False)
    json_headers = {"content-type": "application/json"}
    for body in ("[" * 2000 + "]" * 2000, '{"name": "\\ud800", "password": "x"}', '{"name": "\\udfff"}',
                 b'{"name": "\xff"}', "[" * 40 + "]" * 40):
        response = client.post("/api/login", content=body, headers=json_headers)
        assert response.status_code == 400, (body[:20], response.text)
    headers = api_login(client, "alice")
    task = client.get("/api/task").json()
    url = f"/api/task/{task['task']}"
    deep = client.post(url, content="[" * 100_000 + "]" * 100_000, headers={**headers, **json_headers})
    assert deep.status_code == 400 and "nests deeper" in deep.json()["error"]
    lone = client.post(url, content='{"outcome": "\\ud83d"}', headers={**headers, **json_headers})
    assert lone.status_code == 400 and "surrogate" in lone.json()["error"]
    assert client.post(url, json={"outcome": 1}, headers=headers).status_code == 200
    assert parse_json(b'{"a": ["\\ud83d\\ude00"]}') == {"a": ["\U0001F600"]}  # a surrogate pair is fine
    with pytest.raises(Refused, match="nests deeper"):
        parse_json(b'{"a": ' * 33 + b"1" + b"}" * 33)
    assert parse_json(b'{"a": ' * 31 + b"1" + b"}" * 31) is not None


def test_a_campaign_name_with_dots_and_slashes_exports_inside_the_temp_folder(tmp_path):
    assert safe_filename("../../etc/passwd") == "etc_passwd" and safe_filename("..") == "campaign"
    assert safe_filename("WMT24 en→de") == "WMT24_en_de" and safe_filename(".hidden") == "hidden"
    path = write_campaign(tmp_path)
    path.write_text(path.read_text().replace('name = "test"', 'name = "../../x/evil"'))
    app = create_app(load_campaign(path), leaderboard=False)
    olga = TestClient(app)
    api_login(olga, "olga")
    for url in ("/organiser/export/comparisons.csv", "/organiser/backup"):
        response = olga.get(url)
        assert response.status_code == 200
        name = re.search(r'filename="([^"]+)"', response.headers["content-disposition"]).group(1)
        assert name.startswith("x_evil-") and "/" not in name and ".." not in name


def test_an_esa_form_on_a_1500_word_output_is_taken(made):
    words = [f"w{i}" for i in range(1500)]
    outputs = {"sys0": [" ".join(words)] * 4, "sys1": [" ".join(words)] * 4}
    _, app = made(tasks=("esa",), n_systems=2, n_items=4, outputs=outputs)
    client = TestClient(app)
    page = client.get("/login")
    client.post("/login", data={"name": "alice", "password": PASSWORD, "csrf": form_csrf(page.text)})
    page = client.get("/task")
    assert 'name="w1499"' in page.text
    token = re.search(r'data-task="([^"]+)"', page.text).group(1)
    fields = {f"w{i}": "" for i in range(1500)} | {"w1200": "major", "csrf": form_csrf(page.text), "task": token,
                                                    "typed": "35"}
    done = client.post("/task", data=fields)
    assert done.status_code == 200 and "Saved" in done.text
    stored = json.loads(app.state.server.db.one("SELECT answer FROM judgments")[0])
    start = len(" ".join(words[:1200])) + 1
    assert stored == {"score": 35.0, "spans": [{"start_i": start, "end_i": start + 5, "severity": "major"}]}


def descendants(pid: int) -> set[int]:
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        try:
            children = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            continue
        out.update(int(c) for c in children)
        todo.extend(int(c) for c in children)
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_until(condition, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
def test_slow_heads_and_bodies_time_out_and_the_leaderboard_child_dies_with_the_server(tmp_path):
    pytest.importorskip("uvicorn")
    path = write_campaign(tmp_path, extra="header_timeout = 1\nbody_timeout = 1\n")
    server = Server(path)
    try:
        host, port = "127.0.0.1", server.port
        slow = []
        for _ in range(5):  # a request head that never ends
            s = socket.create_connection((host, port), timeout=15)
            s.sendall(b"GET /login HTTP/1.1\r\nHost: x\r\n")
            slow.append(s)
        assert all(s.recv(100) == b"" for s in slow)  # closed by the server, not by our 15 s timeout
        s = socket.create_connection((host, port), timeout=15)
        s.sendall(b"POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n"
                  b"\r\n{\"name\"")
        assert s.recv(200).startswith(b"HTTP/1.1 408")
        s.close()
        import httpx
        assert httpx.get(server.url + "/login", timeout=5).status_code == 200  # a whole request is served
        assert wait_until(lambda: len(descendants(server.process.pid)) >= 1), "no leaderboard child started"
        children = descendants(server.process.pid)
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(timeout=30)
        assert wait_until(lambda: not any(alive(c) for c in children)), \
            f"left running after kill -9: {[c for c in children if alive(c)]}"
    finally:
        for s in locals().get("slow", []):
            s.close()
        server.stop()
