"""``humeval serve`` in a real browser: headless Debian Chromium through Selenium and
/usr/bin/chromedriver (no browser download). Two annotators log in and judge pairwise and DA
items by clicking (the slider moved with the keyboard), the organiser's leaderboard changes, and
the exports read back with ``humeval.read`` with identical counts. Skipped where Chromium or its
driver is missing, unless HUMEVAL_REQUIRE_BROWSER is set (CI)."""

from __future__ import annotations

import os
import re
import shutil
import time

import pytest
from serve_helpers import PASSWORD, Server, write_campaign
from test_serve_flow import system_of

from humeval.data import read

DRIVER = "/usr/bin/chromedriver"


def browser():
    missing = [what for what, ok in (("chromium", shutil.which("chromium")), ("chromium-driver", os.path.exists(DRIVER)))
               if not ok]
    try:
        from selenium import webdriver
    except ImportError:
        missing.append("selenium (pip)")
    if missing:
        if os.environ.get("HUMEVAL_REQUIRE_BROWSER"):
            pytest.fail(f"HUMEVAL_REQUIRE_BROWSER is set (CI) but {', '.join(missing)} is missing")
        pytest.skip(f"{', '.join(missing)} not installed (apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--window-size=1200,1000"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(DRIVER), options=options)


def click_and_wait(driver, element_id, timeout=20.0):
    """Click and wait until the next page replaced this one (a new document element)."""
    from selenium.common.exceptions import WebDriverException
    old = driver.find_element("tag name", "html").id
    driver.find_element("id", element_id).click()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if driver.find_element("tag name", "html").id != old and driver.execute_script(
                    "return document.readyState") == "complete":
                return
        except WebDriverException:  # the page is being replaced
            pass
        time.sleep(0.05)
    raise AssertionError(f"clicking {element_id} loaded no new page")


def log_in(driver, url, name):
    from selenium.webdriver.common.by import By
    driver.get(url + "/login")
    driver.find_element(By.ID, "name").send_keys(name)
    driver.find_element(By.ID, "password").send_keys(PASSWORD)
    click_and_wait(driver, "login")


def judge(driver, n) -> dict:
    """Answer ``n`` tasks as a judge who prefers lower-numbered systems; counts by task type."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    done = {"pairwise": 0, "da": 0}
    for _ in range(n):
        form = driver.find_element(By.ID, "task")
        kind, token = form.get_attribute("data-type"), form.get_attribute("data-task")
        texts = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".output")]
        if kind == "pairwise":
            a, b = (system_of(t) for t in texts)
            driver.find_element(By.ID, "outcome-0" if a == b else "outcome-1" if a < b else "outcome-2").click()
        else:
            slider = driver.find_element(By.ID, "score")
            slider.send_keys(Keys.HOME + Keys.ARROW_RIGHT * max(0, 90 - 20 * system_of(texts[0])))
        click_and_wait(driver, "submit")
        assert "Saved (receipt" in driver.find_element(By.ID, "receipt").text
        assert driver.find_element(By.ID, "task").get_attribute("data-task") != token
        done[kind] += 1
    click_and_wait(driver, "logout")
    return done


def summary(driver, url, judgments, timeout=30.0) -> str:
    from selenium.webdriver.common.by import By
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        driver.get(url + "/organiser")
        text = driver.find_element(By.ID, "summary").text
        if text.startswith(f"{judgments} judgments"):
            return driver.find_element(By.TAG_NAME, "body").text
        time.sleep(0.3)
    raise AssertionError(f"the leaderboard never showed {judgments} judgments: {text}")


def test_two_annotators_judge_in_chromium_and_the_organiser_sees_it(tmp_path):
    import httpx
    driver = browser()
    path = write_campaign(tmp_path, tasks=("pairwise", "da"), n_items=20)
    server = Server(path)
    try:
        url = server.url
        log_in(driver, url, "olga")
        assert "No leaderboard yet" in driver.page_source or "0 judgments" in driver.page_source
        click_and_wait(driver, "logout")
        log_in(driver, url, "alice")
        first = judge(driver, 6)
        log_in(driver, url, "olga")
        early = summary(driver, url, 6)
        click_and_wait(driver, "logout")
        log_in(driver, url, "bob")
        second = judge(driver, 8)
        log_in(driver, url, "olga")
        late = summary(driver, url, 14)
        assert early != late and "Ranking from pairwise" in late and "Ranking from DA scores" in late
        ranking = re.findall(r"^(sys\d)\b", late.split("Ranking from pairwise")[1], flags=re.M)[:4]
        assert ranking[0] == "sys0"  # every judgment preferred sys0 whenever it was shown
        cookie = driver.get_cookie("humeval_session")["value"]
        with httpx.Client(base_url=url, cookies={"humeval_session": cookie}) as client:
            for what in ("comparisons", "ratings"):
                response = client.get(f"/organiser/export/{what}.csv")
                assert response.status_code == 200, response.text
                (tmp_path / f"{what}.csv").write_bytes(response.content)
    finally:
        driver.quit()
        server.stop()
    assert first == {"pairwise": 3, "da": 3} and second == {"pairwise": 4, "da": 4}
    comparisons = read(tmp_path / "comparisons.csv").comparisons
    ratings = read(tmp_path / "ratings.csv").ratings
    assert len(comparisons) == 7 and set(comparisons.judges) == {"alice", "bob"}
    assert len(ratings) == 7 and set(ratings.score) <= {90.0, 70.0, 50.0, 30.0}


def test_esa_error_spans_marked_in_chromium(tmp_path):
    """ESA in the browser: mark words of the output as a major error (two adjacent words: one span)
    and a minor one, move the slider; the stored answer has those character spans and the score."""
    import json
    import sqlite3

    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    from humeval.serve.tasks import word_offsets
    driver = browser()
    path = write_campaign(tmp_path, tasks=("esa",), n_items=5)
    server = Server(path)
    expected = []
    try:
        log_in(driver, server.url, "alice")
        for _ in range(2):
            text = driver.find_element(By.ID, "esa-output").text
            words = word_offsets(text)  # sysN saysX segmentX hereX nowX
            Select(driver.find_element(By.ID, "w1")).select_by_value("major")
            Select(driver.find_element(By.ID, "w2")).select_by_value("major")
            Select(driver.find_element(By.ID, "w4")).select_by_value("minor")
            driver.find_element(By.ID, "score").send_keys(Keys.HOME + Keys.ARROW_RIGHT * 35)
            click_and_wait(driver, "submit")
            assert "Saved (receipt" in driver.find_element(By.ID, "receipt").text
            expected.append({"score": 35.0, "spans": [
                {"start_i": words[1][0], "end_i": words[2][1], "severity": "major"},
                {"start_i": words[4][0], "end_i": words[4][1], "severity": "minor"}]})
    finally:
        driver.quit()
        server.stop()
    conn = sqlite3.connect(tmp_path / "campaign.sqlite")
    stored = [json.loads(a) for (a,) in conn.execute("SELECT answer FROM judgments ORDER BY id")]
    conn.close()
    assert [{**a, "score": float(a["score"])} for a in stored] == expected
