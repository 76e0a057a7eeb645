"""The tutorial phase: ``[[tutorial]]`` items with known answers that every annotator answers first,
told right or wrong with the item's feedback; they cannot be skipped, do not count towards the
quota and never reach an export that ranks systems (only the every-answer export, kind TUTORIAL)."""

from __future__ import annotations

import re

import pytest
from serve_helpers import api_login, form_csrf, form_login, write_campaign

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from humeval.errors import InputError  # noqa: E402
from humeval.serve import export  # noqa: E402
from humeval.serve.app import create_app  # noqa: E402
from humeval.serve.campaign import load_campaign  # noqa: E402

PAIRWISE_ITEM = '''
[[tutorial]]
type = "pairwise"
source = "Der Hund bellt."
outputs = ["The dog barks.", "The cat barks."]
answer = 1
feedback = "The second translation has the wrong animal."
'''
TUTORIAL = PAIRWISE_ITEM + '''
[[tutorial]]
type = "da"
source = "Es regnet."
reference = "It is raining."
outputs = ["The sun is shining."]
answer = [0, 30]
feedback = "The translation says the opposite: a low score."
'''


def tutorial_campaign(tmp_path, items=TUTORIAL, extra="quota = 4\n"):
    path = write_campaign(tmp_path, tasks=("pairwise", "da"), extra=extra)
    path.write_text(path.read_text() + items)
    return path


def test_tutorial_first_with_feedback_then_real_items_and_exports_without_it(tmp_path):
    app = create_app(load_campaign(tutorial_campaign(tmp_path)), leaderboard=False)
    client = TestClient(app)
    headers = api_login(client, "alice")
    first = client.get("/api/task").json()
    assert first["tutorial"] == [1, 2] and first["outputs"] == ["The dog barks.", "The cat barks."]
    assert first["source"] == "Der Hund bellt." and first["item"] == "tutorial 1"
    assert client.post(f"/api/task/{first['task']}/skip", headers=headers).status_code == 409
    right = client.post(f"/api/task/{first['task']}", json={"outcome": 1}, headers=headers).json()
    assert right["tutorial"] == {"passed": True, "feedback": "The second translation has the wrong animal."}
    second = client.get("/api/task").json()
    assert second["tutorial"] == [2, 2] and second["type"] == "da" and second["reference"] == "It is raining."
    wrong = client.post(f"/api/task/{second['task']}", json={"score": 80}, headers=headers).json()
    assert wrong["tutorial"]["passed"] is False
    kinds = []
    for _ in range(4):  # the quota: 4 real tasks after the 2 tutorial items
        task = client.get("/api/task").json()
        assert "tutorial" not in task and task["item"].isdigit()
        kinds.append(task["type"])
        answer = {"outcome": 1} if task["type"] == "pairwise" else {"score": 60}
        assert "tutorial" not in client.post(f"/api/task/{task['task']}", json=answer, headers=headers).json()
    assert kinds == ["pairwise", "da", "pairwise", "da"]
    assert client.get("/api/task").status_code == 409  # quota reached: 4 of 4 (tutorial not counted)
    db, campaign = app.state.server.db, app.state.server.campaign
    assert len(export.export_frame(db, campaign, "comparisons")) == 2
    assert len(export.export_frame(db, campaign, "ratings")) == 2
    assert len(export.export_frame(db, campaign, "controls")) == 2
    every = export.export_frame(db, campaign, "judgments")
    tutorial = every[every["kind"] == "TUTORIAL"]
    assert list(tutorial["item"]) == ["tutorial 1", "tutorial 2"] and list(tutorial["passed"]) == ["yes", "no"]
    assert len(every) == 6


def test_the_page_marks_the_tutorial_and_tells_right_or_wrong(tmp_path):
    app = create_app(load_campaign(tutorial_campaign(tmp_path)), leaderboard=False)
    client = TestClient(app)
    form_login(client, "bob")
    page = client.get("/task").text
    assert "Tutorial, item 1 of 2" in page and 'id="skip"' not in page
    token = re.search(r'data-task="([^"]+)"', page).group(1)
    after = client.post("/task", data={"csrf": form_csrf(page), "task": token, "outcome": "2"}).text
    assert "Not quite." in after and "wrong animal" in after and "Tutorial, item 2 of 2" in after
    token = re.search(r'data-task="([^"]+)"', after).group(1)
    after = client.post("/task", data={"csrf": form_csrf(after), "task": token, "typed": "10"}).text
    assert "Right." in after and "Tutorial" not in after.split('id="feedback"')[1] and 'id="skip"' in after


@pytest.mark.parametrize("item, problem", [
    ('[[tutorial]]\ntype = "mqm"\nsource = "s"\noutputs = ["o"]\nanswer = [0, 1]\n', "not one of the campaign's tasks"),
    ('[[tutorial]]\ntype = "pairwise"\nsource = "s"\noutputs = ["o"]\nanswer = 1\n', "outputs has 1 text(s)"),
    ('[[tutorial]]\ntype = "da"\nsource = "s"\noutputs = ["o"]\nanswer = 50\n', "answer = 50 does not fit"),
    ('[[tutorial]]\ntype = "da"\nsource = "s"\noutputs = ["o"]\nanswer = [0, 30]\nhint = "x"\n', "unknown key"),
])
def test_bad_tutorial_items_are_refused_with_a_fix(tmp_path, item, problem):
    with pytest.raises(InputError) as error:
        load_campaign(tutorial_campaign(tmp_path, item))
    assert problem in str(error.value) and error.value.fix


def test_ranking_items_pass_when_every_strict_order_agrees():
    from humeval.serve.campaign import KnownItem
    item = KnownItem("ranking", "s", ("a", "b", "c"), [1, 2, 2])
    assert item.passed({"ranks": [1, 3, 2]})  # b and c tie in the key: their order is free
    assert not item.passed({"ranks": [2, 1, 3]})
    assert not item.passed({"ranks": [1, 1, 2]})  # a tied with b, which the key orders


def test_the_organisers_summary_counts_tutorial_answers_apart(tmp_path):
    from humeval.serve.dashboard import summary
    board = {"counts": {"pairwise SYSTEM": 5, "pairwise TUTORIAL": 2, "da CHECK": 1, "da BAD_REF": 2, "da SYSTEM": 4},
             "judgments": 14, "comparisons": 5, "computed_at": 0.0}
    text = summary(board, 10.0)
    assert text.startswith("14 judgments as of 1970-01-01 00:00:00 UTC (10 s ago): 7 pairwise, 7 DA")
    assert text.endswith("; 3 of them quality controls and attention checks; 2 tutorial answers.")
