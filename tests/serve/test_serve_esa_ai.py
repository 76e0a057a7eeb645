"""ESA^AI (ESA with error spans of an automatic judge pre-filled, which the annotator keeps,
changes, removes or adds to; the export counts each) and contrastive ESA (several systems' outputs
of one source side by side, each with its spans and score; one rating per output in the exports)."""

from __future__ import annotations

import json
import re

import pytest
from serve_helpers import Server, api_login, form_csrf, form_login, write_campaign

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from humeval.data import read  # noqa: E402
from humeval.errors import InputError  # noqa: E402
from humeval.serve import export  # noqa: E402
from humeval.serve.app import create_app  # noqa: E402
from humeval.serve.campaign import load_campaign  # noqa: E402

# outputs read "sysN saysX segmentX hereX nowX": characters 5–10 are "saysX", 0–4 "sysN"
AI = [{"system": f"sys{s}", "item": i + 1, "spans": [{"start_i": 5, "end_i": 10, "severity": "major"},
                                                      {"start_i": 0, "end_i": 4, "severity": "minor"}]}
      for s in range(3) for i in range(4)]


def esa_campaign(tmp_path, ai=AI, extra=""):
    path = write_campaign(tmp_path, tasks=("esa",), n_systems=3, n_items=4, extra=extra)
    if ai is not None:
        (tmp_path / "ai.jsonl").write_text("".join(json.dumps(row) + "\n" for row in ai))
        path.write_text(path.read_text().replace('reference = "reference.txt"',
                                                 'reference = "reference.txt"\nai_spans = "ai.jsonl"'))
    return path


def test_esa_ai_prefills_spans_and_the_export_counts_kept_removed_added(tmp_path):
    app = create_app(load_campaign(esa_campaign(tmp_path)), leaderboard=False)
    client = TestClient(app)
    headers = api_login(client, "alice")
    task = client.get("/api/task").json()
    assert task["prefill"] == [[{"start_i": 0, "end_i": 4, "severity": "minor"},
                                {"start_i": 5, "end_i": 10, "severity": "major"}]]
    # keep the major span, drop the minor one, add one on "nowX"
    text = task["outputs"][0]
    now = text.index("now")
    answer = {"score": 40, "spans": [{"start_i": 5, "end_i": 10, "severity": "major"},
                                     {"start_i": now, "end_i": now + 4, "severity": "minor"}]}
    assert client.post(f"/api/task/{task['task']}", json=answer, headers=headers).status_code == 200
    every = export.export_frame(app.state.server.db, app.state.server.campaign, "judgments")
    assert every.loc[0, ["ai_kept", "ai_removed", "ai_added"]].tolist() == [1, 1, 1]
    esa = export.export_frame(app.state.server.db, app.state.server.campaign, "esa")
    assert json.loads(esa.loc[0, "error_spans"])[1]["start_i"] == now


def test_without_script_prefilled_words_come_preselected(tmp_path):
    app = create_app(load_campaign(esa_campaign(tmp_path)), leaderboard=False)
    client = TestClient(app)
    form_login(client, "bob")
    page = client.get("/task").text
    assert "An automatic" not in page and "automatic\n      checker found" in page or "automatic checker" in page
    assert re.search(r'name="w0" id="w0">.*?<option value="minor" selected>', page)
    assert re.search(r'name="w1" id="w1">.*?<option value="major" selected>', page)
    assert not re.search(r'name="w2" id="w2">[^\n]*selected', page)
    token = re.search(r'data-task="([^"]+)"', page).group(1)
    client.post("/task", data={"csrf": form_csrf(page), "task": token, "typed": "55", "w0": "minor", "w1": "major"})
    every = export.export_frame(app.state.server.db, app.state.server.campaign, "judgments")
    assert every.loc[0, ["ai_kept", "ai_removed", "ai_added"]].tolist() == [2, 0, 0]


@pytest.mark.parametrize("row, line, problem", [
    ({"system": "sys9", "item": 1, "spans": []}, 2, "system 'sys9' is not one"),
    ({"system": "sys0", "item": 7, "spans": []}, 2, "item 7 is not a line number from 1 to 4"),
    ({"system": "sys0", "item": 1, "spans": [{"start_i": 3, "end_i": 99, "severity": "major"}]}, 2, "inside the output"),
    ({"system": "sys0", "item": 1, "spans": []}, 2, "a second line for system sys0, item 1"),
])
def test_bad_ai_span_files_name_the_line(tmp_path, row, line, problem):
    with pytest.raises(InputError) as error:
        load_campaign(esa_campaign(tmp_path, ai=[{"system": "sys0", "item": 1, "spans": []}, row]))
    assert error.value.line == line and problem in str(error.value) and error.value.fix


def test_contrastive_esa_one_rating_per_output_and_the_board_ranks_them(tmp_path):
    app = create_app(load_campaign(esa_campaign(tmp_path, ai=None, extra="contrastive = 3\n")), leaderboard=False)
    client = TestClient(app)
    headers = api_login(client, "alice")
    for _ in range(4):
        task = client.get("/api/task").json()
        assert len(task["outputs"]) == 3 and "prefill" not in task
        # a judge who scores sys0 90, sys1 60, sys2 30 and marks the first word of sys2 major
        systems = [re.match(r"sys(\d)", t).group(1) for t in task["outputs"]]
        parts = [{"score": 90 - 30 * int(s), "spans": [{"start_i": 0, "end_i": 4, "severity": "major"}]
                  if s == "2" else []} for s in systems]
        assert client.post(f"/api/task/{task['task']}", json={"score": 50}, headers=headers).status_code == 400
        assert client.post(f"/api/task/{task['task']}", json={"outputs": parts}, headers=headers).status_code == 200
    db, campaign = app.state.server.db, app.state.server.campaign
    ratings = export.export_frame(db, campaign, "ratings")
    assert len(ratings) == 12
    assert ratings.groupby("system")["score"].mean().to_dict() == {"sys0": 90.0, "sys1": 60.0, "sys2": 30.0}
    esa = export.export_frame(db, campaign, "esa")
    esa.to_csv(tmp_path / "esa.csv", index=False)
    back = read(tmp_path / "esa.csv").ratings
    assert len(back) == 12
    spans = esa.set_index("system")["error_spans"].map(lambda s: len(json.loads(s)))
    assert spans.groupby(level=0).sum().to_dict() == {"sys0": 0, "sys1": 0, "sys2": 4}
    board = app.state.server.board.refresh()
    assert list(board["esa"].index if board["esa"].index.name == "system" else board["esa"]["system"]) == \
        ["sys0", "sys1", "sys2"]


def test_contrastive_form_posts_each_outputs_score_and_spans(tmp_path):
    app = create_app(load_campaign(esa_campaign(tmp_path, extra="contrastive = 2\n")), leaderboard=False)
    client = TestClient(app)
    form_login(client, "alice")
    page = client.get("/task").text
    assert 'id="o0-esa-output"' in page and 'id="o1-esa-output"' in page and 'name="o1-typed"' in page
    token = re.search(r'data-task="([^"]+)"', page).group(1)
    refused = client.post("/task", data={"csrf": form_csrf(page), "task": token, "o0-typed": "70"}).text
    assert "untouched score is not accepted" in refused
    client.post("/task", data={"csrf": form_csrf(page), "task": token, "o0-typed": "70", "o1-typed": "20",
                               "o1-spans": json.dumps([{"start_i": 0, "end_i": 4, "severity": "major"}])})
    answer = json.loads(app.state.server.db.one("SELECT answer FROM judgments")[0])
    assert [p["score"] for p in answer["outputs"]] == [70.0, 20.0]
    assert answer["outputs"][0]["spans"] == [] and len(answer["outputs"][1]["spans"]) == 1
    every = export.export_frame(app.state.server.db, app.state.server.campaign, "judgments")
    # both outputs had 2 spans pre-filled: none kept (the first word's minor became major: removed and added)
    assert every.loc[0, ["ai_kept", "ai_removed", "ai_added"]].tolist() == [0, 4, 1]


def test_contrastive_needs_esa_and_enough_systems(tmp_path):
    with pytest.raises(InputError, match="contrastive = 4"):
        load_campaign(esa_campaign(tmp_path, ai=None, extra="contrastive = 4\n"))


def test_contrastive_esa_ai_in_chromium(tmp_path):
    """Two outputs side by side with pre-filled spans shown as marks; remove one in the first, mark
    a new one by mouse in the second, type both scores: the stored answer holds exactly that."""
    from test_serve_browser import browser, click_and_wait, drag_select, log_in, stored_answers

    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    driver = browser()
    path = esa_campaign(tmp_path, extra="contrastive = 2\n")
    server = Server(path)
    try:
        log_in(driver, server.url, "alice")
        first, second = (driver.find_element(By.ID, f"o{n}-esa-output") for n in range(2))
        assert len(first.find_elements(By.TAG_NAME, "mark")) == 2  # the automatic spans, shown as marks
        texts = [first.text, second.text]
        driver.find_element(By.CSS_SELECTOR, "#o0-span-list li:first-child button:last-child").click()  # remove
        at = texts[1].index("here")
        drag_select(driver, second, at, at + 5)
        ActionChains(driver).send_keys("1").perform()
        assert len(second.find_elements(By.TAG_NAME, "mark")) == 3
        driver.find_element(By.ID, "o0-score-number").send_keys("80")
        driver.find_element(By.ID, "o1-score-number").send_keys("45")
        click_and_wait(driver, "submit")
        assert "Saved (receipt" in driver.find_element(By.ID, "receipt").text
    finally:
        driver.quit()
        server.stop()
    [answer] = stored_answers(tmp_path / "campaign.sqlite")
    major, minor = {"start_i": 5, "end_i": 10, "severity": "major"}, {"start_i": 0, "end_i": 4, "severity": "minor"}
    assert answer["outputs"][0] == {"score": 80.0, "spans": [major]}
    assert answer["outputs"][1] == {"score": 45.0, "spans": [minor, major, {"start_i": at, "end_i": at + 5,
                                                                          "severity": "minor"}]}
