"""Accessible names (issue 32: "accessible labels"): every form control of every task page, as the
server renders it (without script), is named for a screen reader by a ``<label>``, ``aria-label``
or ``aria-labelledby``, or (a button) by its text."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from serve_helpers import api_login
from test_serve_documents import document_campaign
from test_serve_flow import prefer_lower

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from humeval.serve.app import create_app  # noqa: E402
from humeval.serve.campaign import load_campaign  # noqa: E402


class Controls(HTMLParser):
    """Each form control of a page (not hidden) with how it is named: ``<label for>``, an enclosing
    ``<label>``, ``aria-label`` or ``aria-labelledby`` (WAI-ARIA's accessible name), or button text."""

    def __init__(self):
        super().__init__()
        self.controls, self.labelled, self.ids, self.open_labels, self.button = [], set(), set(), 0, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "label":
            self.open_labels += 1
            if a.get("for"):
                self.labelled.add(a["for"])
        named = bool(self.open_labels or a.get("aria-label") or a.get("aria-labelledby") or a.get("title"))
        if tag in ("select", "textarea") or (tag == "input" and a.get("type") not in ("hidden", "submit")):
            self.controls.append([tag, a, named])
        elif tag == "button":
            self.button = [tag, a, named]
            self.controls.append(self.button)
        elif a.get("tabindex") == "0":  # a focusable text (span marking by keyboard) needs a name too
            self.controls.append([tag, a, named])

    def handle_data(self, data):
        if self.button is not None and data.strip():
            self.button[2] = True

    def handle_endtag(self, tag):
        if tag == "label":
            self.open_labels -= 1
        if tag == "button":
            self.button = None

    def unnamed(self):
        return [(tag, a) for tag, a, named in self.controls
                if not named and a.get("id") not in self.labelled
                and not (a.get("aria-labelledby") and set(a["aria-labelledby"].split()) <= self.ids)]


def unnamed(html: str) -> list:
    parser = Controls()
    parser.feed(html)
    return parser.unnamed()


def test_the_check_finds_an_unnamed_control():
    assert [t for t, _ in unnamed('<input type="number" name="typed"><select name="r"></select><button></button>')] == [
        "input", "select", "button"]
    assert unnamed('<label for="s">score</label><input id="s" name="typed"><label>rank <select name="r"></select>'
                   '</label><button>Submit</button><input aria-label="x"><input type="hidden" name="csrf">'
                   '<span id="q">Q</span><input aria-labelledby="q">') == []


def test_every_task_pages_controls_have_accessible_names(tmp_path):
    """Pairwise, 3-way ranking, DA, ESA, MQM-lite and a whole-document score page."""
    path = document_campaign(tmp_path, tasks=("pairwise", "ranking", "da", "esa", "mqm"))
    path.write_text(path.read_text().replace('strategy = "uniform"', 'strategy = "uniform"\n'
                                                                     'document_scores = true\nk = 3'))
    client = TestClient(create_app(load_campaign(path), leaderboard=False))
    headers = api_login(client, "alice")
    seen = {}
    for _ in range(60):
        page = client.get("/task").text
        task = client.get("/api/task").json()
        kind = "document" if task.get("document_score") else task["type"]
        parser = Controls()
        parser.feed(page)
        assert len(parser.controls) >= 2  # a score, ranks or choices, and the buttons
        seen[kind] = parser.unnamed()
        answer = {"score": 50} if task.get("document_score") else prefer_lower(task)
        if task["type"] == "mqm":
            answer = {"errors": []}
        elif task["type"] == "esa" and "score" in answer:
            answer = {**answer, "spans": []}
        assert client.post(f"/api/task/{task['task']}", json=answer, headers=headers).status_code == 200
    assert set(seen) == {"pairwise", "ranking", "da", "esa", "mqm", "document"}
    assert seen == {k: [] for k in seen}
