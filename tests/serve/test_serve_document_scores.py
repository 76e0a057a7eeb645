"""Document-level scores (``document_scores = true``, WMT's document-level DA as Appraise runs
it): DA/ESA segments come one system's document at a time, in order, then a score of the whole
document; the scores are stored as ``DOCUMENT`` tasks, kept out of the segment ratings, and
exported as ``documents`` in the long-form ratings layout that the ratings reader reads back."""

from __future__ import annotations

import re

import pytest
from serve_helpers import api_login, form_csrf, form_login
from test_serve_documents import DOCUMENTS, document_campaign
from test_serve_flow import system_of

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from humeval.data import read  # noqa: E402
from humeval.errors import InputError  # noqa: E402
from humeval.serve import export  # noqa: E402
from humeval.serve.app import create_app  # noqa: E402
from humeval.serve.campaign import load_campaign  # noqa: E402

SPANS = {"news1": range(0, 5), "news2": range(5, 9), "talk": range(9, 12)}  # 0-based segments of DOCUMENTS


def scored_campaign(tmp_path, tasks=("da",)):
    path = document_campaign(tmp_path, tasks=tasks)
    path.write_text(path.read_text().replace('strategy = "uniform"', 'strategy = "uniform"\ndocument_scores = true'))
    return create_app(load_campaign(path), leaderboard=False)


def test_segments_in_document_order_then_the_document_score_exported_and_read_back(tmp_path):
    """Three documents (5, 4 and 3 segments): 15 tasks, each document's segments in order with one
    system, then its document task showing those 5/4/3 outputs; the document scores (90 − 20 ·
    system) come back from documents.csv through ``humeval.read`` with their documents and systems,
    the 12 segment scores stay in ratings.csv alone."""
    app = scored_campaign(tmp_path)
    client = TestClient(app)
    headers = api_login(client, "alice")
    runs, expected = [], {}
    for _ in range(3):
        run = []
        while True:
            task = client.get("/api/task").json()
            if task.get("document_score"):
                break
            run.append((int(task["item"]) - 1, system_of(task["outputs"][0])))
            assert client.post(f"/api/task/{task['task']}", json={"score": 50}, headers=headers).status_code == 200
        items, systems = zip(*run)
        document = DOCUMENTS[items[0]]
        assert list(items) == list(SPANS[document]) and len(set(systems)) == 1  # in order, one system
        assert task["document"] == document and task["item"] == f"document {document}"
        assert [int(s["item"]) - 1 for s in task["segments"]] == list(SPANS[document])
        assert [system_of(t) for t in task["outputs"]] == [systems[0]] * len(items)
        assert [s["source"] for s in task["segments"]] == [f"source {j}" for j in SPANS[document]]
        refused = client.post(f"/api/task/{task['task']}", json={"ranks": [1]}, headers=headers)
        assert refused.status_code == 400 and "score" in refused.json()["error"]
        score = 90 - 20 * systems[0]
        assert client.post(f"/api/task/{task['task']}", json={"score": score}, headers=headers).status_code == 200
        runs.append(document)
        expected[(document, f"sys{systems[0]}")] = float(score)
    assert sorted(runs) == sorted(SPANS)  # every document once before any comes back
    db, campaign = app.state.server.db, app.state.server.campaign
    export.export(db, campaign, "documents", tmp_path / "documents.csv")
    export.export(db, campaign, "ratings", tmp_path / "ratings.csv")
    documents = read(tmp_path / "documents.csv").ratings.to_pandas()
    assert {(i, s): v for i, s, v in zip(documents["item"], documents["system"], documents["score"])} == expected
    assert set(documents["criterion"]) == {"DA"} and set(documents["judge"]) == {"alice"}
    segments = read(tmp_path / "ratings.csv").ratings.to_pandas()
    assert len(segments) == 12 and set(segments["score"]) == {50.0}
    judgments = export.judgments_frame(db, campaign)
    rows = judgments[judgments["kind"] == "DOCUMENT"]
    assert sorted(rows["item"]) == sorted(f"document {d}" for d in SPANS)
    assert sorted(rows["answer"]) == sorted(f'{{"score": {v}}}' for v in expected.values())
    # the organiser page links the export and does not count document scores as quality controls
    from humeval.serve.dashboard import available_exports, summary
    assert "/organiser/export/documents.csv" in [url for _, _, url in available_exports(db)]
    text = summary({"counts": {"da SYSTEM": 12, "da DOCUMENT": 3}, "judgments": 15, "comparisons": 0,
                    "computed_at": 0.0}, 10.0)
    assert "quality controls" not in text and text.endswith("; 3 of them whole-document scores.")
    # a new round starts from a document's first segment again
    again = client.get("/api/task").json()
    assert int(again["item"]) - 1 in {r.start for r in SPANS.values()}


def test_the_document_page_form_refuses_an_untouched_score_and_takes_a_typed_one(tmp_path):
    """ESA with document scores, through the pages: the talk document's three segments (spans
    marked word by word), then its page titled "The whole document" with the three outputs and no
    span marking; an untouched score is refused, a typed one is stored as {"score"}."""
    app = scored_campaign(tmp_path, tasks=("esa",))
    client = TestClient(app)
    form_login(client, "alice")
    for _ in range(20):
        page = client.get("/task").text
        if "The whole document" in page:
            break
        token = re.search(r'data-task="([^"]+)"', page).group(1)
        done = client.post("/task", data={"csrf": form_csrf(page), "task": token, "typed": "60", "w0": "minor"})
        assert "Saved (receipt" in done.text
    else:
        raise AssertionError("no document page in 20 tasks")
    document = re.search(r'id="document-score">The whole document (\S+)', page).group(1)
    assert page.count('class="text output document-segment"') == len(SPANS[document])
    # each segment's reference under its source, as the segment pages show it
    assert re.findall(r'class="document-reference">([^<]+)<', page) == [f"reference {j}" for j in SPANS[document]]
    assert "data-marking" not in page and 'name="w0"' not in page
    token = re.search(r'data-task="([^"]+)"', page).group(1)
    refused = client.post("/task", data={"csrf": form_csrf(page), "task": token, "score": "50", "touched": "0"})
    assert "untouched score is not accepted" in refused.text
    done = client.post("/task", data={"csrf": form_csrf(page), "task": token, "typed": "35"})
    assert "Saved (receipt" in done.text
    db, campaign = app.state.server.db, app.state.server.campaign
    rows = export.answered(db, "esa", ("DOCUMENT",))
    assert [r["answer"] for r in rows] == [{"score": 35.0}]
    assert len(export.ratings(db, campaign)) == len(SPANS[document])  # the segments' ESA scores only
    assert set(export.esa_frame(db, campaign)["segment_type"]) == {"TGT"}


@pytest.mark.parametrize("change, problem", [
    (lambda t: t.replace('documents = "documents.txt"', ""), "needs data.documents"),
    (lambda t: t.replace('tasks = ["da"]', 'tasks = ["pairwise"]'), "needs data.documents"),
])
def test_document_scores_without_documents_or_scores_are_refused(tmp_path, change, problem):
    path = document_campaign(tmp_path)
    path.write_text(change(path.read_text()).replace('seed = 3', 'seed = 3\ndocument_scores = true'))
    with pytest.raises(InputError, match=problem):
        load_campaign(path)


def test_with_contrastive_esa_only_da_goes_by_document_and_each_annotator_gets_other_systems(tmp_path):
    """With ``contrastive = 2`` ESA stays side by side and MQM-lite segment by segment: only DA goes
    by document (the demo's set-up). Each annotator's next document comes with the system that
    annotator has scored least: bob first scores three documents, then alice's three documents
    (12 DA tasks and 3 document scores each) still have three different systems, and so do bob's."""
    path = document_campaign(tmp_path, tasks=("da", "esa", "mqm"))
    path.write_text(path.read_text().replace('strategy = "uniform"', 'strategy = "uniform"\ndocument_scores = true\n'
                                                                     'contrastive = 2'))
    app = create_app(load_campaign(path), leaderboard=False)
    runs = {}
    for name in ("bob", "alice"):
        client = TestClient(app)
        headers = api_login(client, name)
        for _ in range(45):
            task = client.get("/api/task").json()
            if task["type"] == "esa":
                assert len(task["outputs"]) == 2 and not task.get("document_score")
                answer = {"outputs": [{"score": 50, "spans": []}] * 2}
            elif task["type"] == "mqm":
                assert len(task["outputs"]) == 1 and not task.get("document_score")
                answer = {"errors": []}
            else:
                answer = {"score": 50}
                if task.get("document_score"):
                    runs.setdefault(name, []).append(system_of(task["outputs"][0]))
            assert client.post(f"/api/task/{task['task']}", json=answer, headers=headers).status_code == 200
    assert {name: len(set(systems)) for name, systems in runs.items()} == {"bob": 3, "alice": 3}
    documents = export.export_frame(app.state.server.db, app.state.server.campaign, "documents")
    assert len(documents) == 6 and set(documents["criterion"]) == {"DA"}


def test_a_new_document_takes_the_system_the_annotator_scored_least_before_the_fewest_overall(tmp_path):
    """bob has 10 DA segments of sys0 and 5 each of sys2 and sys3, alice one of sys1 (and her
    document scored): the fewest overall is sys1 (1 rating), but alice has scored it, so her next
    document takes sys2 or sys3 (the fewest overall among the systems she has not scored)."""
    app = scored_campaign(tmp_path)
    client = TestClient(app)
    api_login(client, "alice")
    api_login(TestClient(app), "bob")
    db = app.state.server.db
    ids = {name: db.one("SELECT id FROM accounts WHERE name = ?", (name,))[0] for name in ("alice", "bob")}
    rows = [("bob", 0, "SYSTEM")] * 10 + [("bob", 2, "SYSTEM")] * 5 + [("bob", 3, "SYSTEM")] * 5 + [
        ("alice", 1, "SYSTEM"), ("alice", 1, "DOCUMENT")]
    with db.write() as conn:
        for n, (name, system, kind) in enumerate(rows):
            conn.execute("INSERT INTO tasks (token, annotator_id, type, kind, item_id, systems, shown, issued_at, "
                         "status) VALUES (?, ?, 'da', ?, 11, ?, '[\"x\"]', 0, 'done')",
                         (f"t{n}", ids[name], kind, f"[{system}]"))
    task = client.get("/api/task").json()
    assert int(task["item"]) - 1 in {r.start for r in SPANS.values()}  # a new document's first segment
    assert system_of(task["outputs"][0]) in (2, 3)
