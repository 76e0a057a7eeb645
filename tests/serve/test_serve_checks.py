"""Attention checks: loud ``[[checks]]`` (the annotator is told after answering), silent ones (only
recorded, as WMT's degraded outputs are), failed checks counted per annotator on the organiser's
page and in the annotators export, and a completion code at the end of the quota that differs once
an annotator failed more checks than allowed."""

from __future__ import annotations

import re
import time

import pytest
from serve_helpers import api_login, form_csrf, form_login, write_campaign

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from humeval.errors import InputError  # noqa: E402
from humeval.serve import export  # noqa: E402
from humeval.serve.app import create_app  # noqa: E402
from humeval.serve.campaign import load_campaign  # noqa: E402

CHECKS = '''
[[checks]]
type = "da"
source = "Bitte geben Sie 0 Punkte."
outputs = ["Please give a score of 0."]
answer = [0, 10]
feedback = "The text asked for a score of 0."

[[checks]]
type = "pairwise"
source = "Die Katze schläft."
outputs = ["The cat sleeps.", "The dog flies."]
answer = 1
loud = false

[completion]
code = "GOOD-123"
failed_code = "FAIL-999"
max_failed = 0
'''


def checks_campaign(tmp_path, share=0.9, quota=6, more=CHECKS):
    path = write_campaign(tmp_path, tasks=("pairwise", "da"), extra=f"quota = {quota}\n")
    text = path.read_text().replace("repeat = 0.0", f"repeat = 0.0\nchecks = {share}")
    path.write_text(text + more)
    return path


def answer_all(client, headers, careful: bool):
    """Answer until the quota; a careless annotator scores 90 and prefers the second output."""
    seen = []
    while True:
        response = client.get("/api/task")
        if response.status_code == 409:
            return seen, response.json()
        task = response.json()
        answer = ({"outcome": 1 if careful else 2} if task["type"] == "pairwise"
                  else {"score": 5 if careful else 90})
        result = client.post(f"/api/task/{task['task']}", json=answer, headers=headers).json()
        seen.append((task["item"], task["source"], result.get("check")))


def test_loud_and_silent_checks_counted_and_the_completion_code(tmp_path):
    app = create_app(load_campaign(checks_campaign(tmp_path)), leaderboard=False)
    codes = {}
    for name, careful in (("alice", True), ("bob", False)):
        client = TestClient(app)
        headers = api_login(client, name)
        seen, end = answer_all(client, headers, careful)
        codes[name] = end["completion_code"]
        checks = {source: told for item, source, told in seen if int(item) > 12}  # 12 segments: checks after
        assert set(checks) == {"Bitte geben Sie 0 Punkte.", "Die Katze schläft."}
        assert checks["Die Katze schläft."] is None  # silent: nothing told
        assert checks["Bitte geben Sie 0 Punkte."] == {"passed": careful, "feedback": "The text asked for a score of 0."}
        assert len(seen) == 6 and end["error"] == "quota reached: 6 of 6 tasks answered"
    assert codes == {"alice": "GOOD-123", "bob": "FAIL-999"}
    db, campaign = app.state.server.db, app.state.server.campaign
    table = export.attention(db, campaign)
    assert table.loc["alice", ["loud_checks", "loud_failed", "silent_checks", "silent_failed", "failed"]].tolist() == \
        [1, 0, 1, 0, 0]
    assert table.loc["bob", ["loud_checks", "loud_failed", "silent_checks", "silent_failed", "failed"]].tolist() == \
        [1, 1, 1, 1, 2]
    assert table.loc["bob", "completion_code"] == "FAIL-999" and table.loc["alice", "tasks"] == 6
    # checks never reach the exports that rank systems: 4 system tasks each (6 minus 2 checks)
    assert len(export.export_frame(db, campaign, "comparisons")) + len(export.export_frame(db, campaign, "ratings")) == 8
    every = export.export_frame(db, campaign, "judgments")
    assert sorted(every.loc[every["kind"] == "CHECK", "attention"]) == ["loud", "loud", "silent", "silent"]


def test_the_pages_tell_a_loud_check_and_show_the_code_and_the_counts(tmp_path):
    app = create_app(load_campaign(checks_campaign(tmp_path, quota=3)), leaderboard=False)
    client = TestClient(app)
    form_login(client, "alice")
    page = client.get("/task").text
    told = []
    for _ in range(3):
        kind = re.search(r'data-type="(\w+)"', page).group(1)
        token = re.search(r'data-task="([^"]+)"', page).group(1)
        data = {"csrf": form_csrf(page), "task": token} | ({"outcome": "2"} if kind == "pairwise" else {"typed": "70"})
        page = client.post("/task", data=data).text
        told.append("That was an attention check: failed." in page)
    assert "Your completion code" in page and "FAIL-999" in page  # the da check failed (70 is not in 0–10)
    assert told == [False, True, False]  # silent pairwise check, loud DA check, then the end page
    organiser = TestClient(app)
    form_login(organiser, "olga")
    board = organiser.get("/organiser").text
    row = re.search(r'<table id="attention">.*?<tr><td>alice</td>(.*?)</tr>', board, flags=re.S).group(1)
    assert "FAIL-999" in row
    assert 'href="/organiser/export/annotators.csv"' in board
    assert organiser.get("/organiser/export/annotators.csv").text.startswith("annotator,tasks,minutes,")


@pytest.mark.parametrize("more, problem", [
    ("[completion]\ncode = \"X\"\n", "without quota"),
    ('[completion]\ncode = "X"\nbonus = 1\n', "unknown key completion.bonus"),
])
def test_bad_completion_tables_are_refused(tmp_path, more, problem):
    path = write_campaign(tmp_path, tasks=("pairwise",), extra="" if "without" in problem else "quota = 3\n")
    path.write_text(path.read_text() + more)
    with pytest.raises(InputError, match=problem):
        load_campaign(path)


def test_checks_need_items_and_a_share(tmp_path):
    with pytest.raises(InputError, match="give both"):
        load_campaign(checks_campaign(tmp_path, share=0.0))
    path = write_campaign(tmp_path, tasks=("pairwise",))
    path.write_text(path.read_text().replace("repeat = 0.0", "repeat = 0.0\nchcks = 0.1"))
    with pytest.raises(InputError, match="unknown key quality.chcks"):
        load_campaign(path)


def test_tutorial_and_a_loud_check_in_chromium(tmp_path):
    """In a real browser: the tutorial item answered by keyboard (B, Enter) is told wrong with its
    feedback; a loud DA check answered by typing a score is told failed; the quota's end shows the
    failed code."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from serve_helpers import Server
    from test_serve_browser import browser, click_and_wait, log_in
    from test_serve_tutorial import PAIRWISE_ITEM

    driver = browser()
    path = checks_campaign(tmp_path, quota=3, more=CHECKS + PAIRWISE_ITEM)
    server = Server(path)
    told = []
    try:
        log_in(driver, server.url, "alice")
        assert "Tutorial, item 1 of 1" in driver.find_element(By.ID, "tutorial").text
        ActionChains(driver).send_keys("b").perform()
        old = driver.find_element(By.TAG_NAME, "html").id
        driver.find_element(By.ID, "outcome-2").send_keys("\n")  # Enter submits the form
        for _ in range(200):
            if driver.find_element(By.TAG_NAME, "html").id != old:
                break
            time.sleep(0.05)
        assert "Not quite." in driver.find_element(By.ID, "feedback").text
        for _ in range(3):
            kind = driver.find_element(By.ID, "task").get_attribute("data-type")
            if kind == "pairwise":
                driver.find_element(By.ID, "outcome-1").click()
            else:
                driver.find_element(By.ID, "score-number").send_keys("70")
            click_and_wait(driver, "submit")
            found = driver.find_elements(By.ID, "check-result")
            told.append(found[0].text if found else "")
        # the quota's end page: waited for, not assumed loaded when the last submit's page was (a
        # lowest-versions CI run once found no code there; the page's text says where it was)
        from selenium.common.exceptions import TimeoutException
        from selenium.webdriver.support.ui import WebDriverWait
        try:
            code = WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.ID, "completion-code"))[0]
        except TimeoutException:
            page = driver.find_element(By.TAG_NAME, "body").text[:600]
            raise AssertionError(f"no completion code after {told}: {page}") from None
        assert code.text == "FAIL-999"
    finally:
        driver.quit()
        server.stop()
    assert told[1].startswith("That was an attention check: failed.")  # the loud DA check (70 is not in 0–10)
