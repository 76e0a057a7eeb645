"""Document context: with ``data.documents`` the task shows up to ``context`` segments of the same
document before and after the judged one (source; and the same system's outputs when one output
is judged), never crossing into the next document; the exports carry the document ids."""

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

DOCUMENTS = ["news1"] * 5 + ["news2"] * 4 + ["talk"] * 3  # 12 segments


def document_campaign(tmp_path, tasks=("da",), documents=DOCUMENTS, context=2):
    path = write_campaign(tmp_path, tasks=tasks, extra=f"context = {context}\n")
    (tmp_path / "documents.txt").write_text("\n".join(documents) + "\n")
    path.write_text(path.read_text().replace('reference = "reference.txt"', 'reference = "reference.txt"\n'
                                             'documents = "documents.txt"'))
    return path


def expected(item: int, n=2):
    """Line numbers (1-based) of the context segments around 0-based ``item``, by hand."""
    doc = DOCUMENTS[item]
    before = [j + 1 for j in range(item - n, item) if j >= 0 and DOCUMENTS[j] == doc]
    after = [j + 1 for j in range(item + 1, item + n + 1) if j < len(DOCUMENTS) and DOCUMENTS[j] == doc]
    return before, after


def test_context_stays_inside_the_document_with_the_same_systems_outputs(tmp_path):
    app = create_app(load_campaign(document_campaign(tmp_path)), leaderboard=False)
    client = TestClient(app)
    headers = api_login(client, "alice")
    seen = set()
    for _ in range(12):
        task = client.get("/api/task").json()
        item = int(task["item"]) - 1
        seen.add(item)
        before, after = expected(item)
        assert [int(s["item"]) for s in task["before"]] == before
        assert [int(s["item"]) for s in task["after"]] == after
        assert task["document"] == DOCUMENTS[item]
        assert task["position"] == [DOCUMENTS[:item + 1].count(DOCUMENTS[item]), DOCUMENTS.count(DOCUMENTS[item])]
        system = re.match(r"(sys\d)", task["outputs"][0]).group(1)  # outputs read "sysN saysX …"
        for s in task["before"] + task["after"]:
            assert s["source"] == f"source {int(s['item']) - 1}"
            assert s["output"].startswith(f"{system} says{int(s['item']) - 1} ")
        client.post(f"/api/task/{task['task']}", json={"score": 50}, headers=headers)
    assert {0, 4, 5, 8, 9, 11} & seen  # the documents' edges were among the segments shown
    db, campaign = app.state.server.db, app.state.server.campaign
    assert len(export.export_frame(db, campaign, "ratings")) == 12


def test_pairwise_context_has_sources_only_and_the_page_and_appraise_export(tmp_path):
    app = create_app(load_campaign(document_campaign(tmp_path, tasks=("pairwise",), context=1)), leaderboard=False)
    client = TestClient(app)
    form_login(client, "alice")
    page = client.get("/task").text
    item = int(re.search(r"<h2>Segment (\d+)", page).group(1)) - 1
    assert f"document {DOCUMENTS[item]}" in page
    assert ('id="context-before"' in page) == bool(expected(item, 1)[0])
    assert 'class="context-output"' not in page  # two outputs side by side: sources only
    token = re.search(r'data-task="([^"]+)"', page).group(1)
    client.post("/task", data={"csrf": form_csrf(page), "task": token, "outcome": "1"})
    rows = export.appraise_rows(app.state.server.db, app.state.server.campaign)
    assert rows[1][3] == DOCUMENTS[item]  # documentId


@pytest.mark.parametrize("documents, line, problem", [
    (["a", "a", "b", "a"] + ["b"] * 8, 4, "comes back after other documents"),
    (["a", "", "a"] + ["a"] * 9, 2, "an empty document id"),
])
def test_bad_document_files_name_the_line(tmp_path, documents, line, problem):
    with pytest.raises(InputError) as error:
        load_campaign(document_campaign(tmp_path, documents=documents))
    assert error.value.line == line and problem in str(error.value)


def test_a_document_file_of_another_length_is_refused(tmp_path):
    with pytest.raises(InputError, match="data documents has 3 lines but the source has 12"):
        load_campaign(document_campaign(tmp_path, documents=["a"] * 3))
