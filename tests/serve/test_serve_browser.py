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
from serve_helpers import PASSWORD, Server, loopback_ssl, write_campaign
from test_serve_flow import system_of

from humeval.data import read

DRIVER = "/usr/bin/chromedriver"


def browser(script: bool = True):
    """Headless Chromium (skips without it); ``script=False`` turns JavaScript off."""
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
    if not script:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
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
        with httpx.Client(base_url=url, cookies={"humeval_session": cookie}, verify=loopback_ssl()) as client:
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


def stored_answers(database) -> list[dict]:
    import json
    import sqlite3
    conn = sqlite3.connect(database)
    try:
        return [json.loads(a) for (a,) in conn.execute("SELECT answer FROM judgments ORDER BY id")]
    finally:
        conn.close()


def test_esa_error_spans_marked_word_by_word_without_script(tmp_path):
    """ESA in a browser with JavaScript off (the forms' fallback): mark words of the output as a
    major error (two adjacent words: one span) and a minor one, type the score; the stored answer
    has those character spans and the score."""

    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    from humeval.serve.tasks import word_offsets
    driver = browser(script=False)
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
            slider = driver.find_element(By.ID, "score")
            slider.send_keys(Keys.HOME + Keys.ARROW_RIGHT * 35)  # without script the slider alone is refused
            click_and_wait(driver, "submit")
            assert "untouched score is not accepted" in driver.find_element(By.ID, "error").text
            for field, value in (("w1", "major"), ("w2", "major"), ("w4", "minor")):
                Select(driver.find_element(By.ID, field)).select_by_value(value)
            driver.find_element(By.ID, "score-number").send_keys("35")
            click_and_wait(driver, "submit")
            assert "Saved (receipt" in driver.find_element(By.ID, "receipt").text
            expected.append({"score": 35.0, "spans": [
                {"start_i": words[1][0], "end_i": words[2][1], "severity": "major"},
                {"start_i": words[4][0], "end_i": words[4][1], "severity": "minor"}]})
    finally:
        driver.quit()
        server.stop()
    stored = stored_answers(tmp_path / "campaign.sqlite")
    assert [{**a, "score": float(a["score"])} for a in stored] == expected


SENTENCES = ("The old cat sat on the warm mat.", "老猫😺坐在温暖的垫子上。")  # Latin, and CJK with an astral character


def drag_select(driver, element, start: int, end: int):
    """Select characters [start, end) of ``element``'s text (UTF-16 offsets) by a mouse drag from
    inside the first character's left edge to inside the last one's right edge."""
    from selenium.webdriver.common.action_chains import ActionChains
    x1, y1, x2, y2, width, height = driver.execute_script(
        "var el = arguments[0], box = el.getBoundingClientRect();"
        "function rect(i) { var w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);"
        "  while (w.nextNode()) { var n = w.currentNode; if (i < n.length) { var r = document.createRange();"
        "    r.setStart(n, i); r.setEnd(n, i + 1); return r.getBoundingClientRect(); } i -= n.length; } }"
        "var s = rect(arguments[1]), e = rect(arguments[2] - 1);"
        "return [s.left - box.left + 2, (s.top + s.bottom) / 2 - box.top, e.right - box.left - 2,"
        "        (e.top + e.bottom) / 2 - box.top, box.width, box.height];", element, start, end)
    ActionChains(driver).move_to_element_with_offset(element, int(x1 - width / 2), int(y1 - height / 2)) \
        .click_and_hold().move_to_element_with_offset(element, int(x2 - width / 2), int(y2 - height / 2)) \
        .release().perform()


def test_spans_marked_by_mouse_on_english_and_chinese_and_pairwise_by_keys(tmp_path):
    """With the script: drag across characters of an English and a Chinese sentence (with an emoji:
    offsets are code points, as Python counts them), press 2 (major) or click "Minor error", switch
    and remove spans in the list, type the score; a pairwise task answered by keyboard alone (T,
    Enter). The stored answers hold exactly those character spans."""

    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    driver = browser()
    seen = []
    outputs = {f"sys{s}": list(SENTENCES) for s in range(2)}
    path = write_campaign(tmp_path, tasks=("esa", "pairwise"), n_systems=2, n_items=2, outputs=outputs)
    server = Server(path)
    expected = []
    try:
        log_in(driver, server.url, "alice")
        for _ in range(2):
            output = driver.find_element(By.ID, "esa-output")
            text = output.text
            seen.append(text)
            assert driver.find_element(By.ID, "word-marks").is_displayed() is False
            if text == SENTENCES[0]:
                drag_select(driver, output, text.index("sat on"), text.index("sat on") + len("sat on"))
                ActionChains(driver).send_keys("2").perform()
                drag_select(driver, output, text.index("warm"), text.index("warm") + 4)
                driver.find_element(By.ID, "mark-minor").click()
                drag_select(driver, output, text.index("old"), text.index("old") + 3)  # marked, then removed
                ActionChains(driver).send_keys("1").perform()
                items = driver.find_elements(By.CSS_SELECTOR, "#span-list li")
                assert [i.text.split("\u201d")[0] for i in items] == ["\u201cold", "\u201csat on", "\u201cwarm"]
                items[0].find_element(By.XPATH, "button[text()='remove']").click()
                start = text.index("sat on")
                spans = [{"start_i": start, "end_i": start + 6, "severity": "major"},
                         {"start_i": text.index("warm"), "end_i": text.index("warm") + 4, "severity": "minor"}]
            else:
                at = text.index("垫子")
                utf16 = len(text[:at].encode("utf-16-le")) // 2  # the emoji is two UTF-16 units, one code point
                drag_select(driver, output, utf16, utf16 + 2)
                ActionChains(driver).send_keys("1").perform()
                driver.find_element(By.XPATH, "//ol[@id='span-list']/li[1]/button[text()='make major']").click()
                spans = [{"start_i": at, "end_i": at + 2, "severity": "major"}]
            assert len(driver.find_elements(By.CSS_SELECTOR, "#esa-output mark")) == len(spans)
            driver.find_element(By.ID, "score-number").send_keys("40")
            click_and_wait(driver, "submit")
            assert "Saved (receipt" in driver.find_element(By.ID, "receipt").text
            expected.append({"score": 40.0, "spans": spans})
            # the pairwise task in between, by keyboard alone: T (tie), then Enter on the focused choice
            assert driver.find_element(By.ID, "task").get_attribute("data-type") == "pairwise"
            ActionChains(driver).send_keys("t").perform()
            old = driver.find_element(By.TAG_NAME, "html").id
            ActionChains(driver).send_keys(Keys.ENTER).perform()
            deadline = time.monotonic() + 20
            while driver.find_element(By.TAG_NAME, "html").id == old and time.monotonic() < deadline:
                time.sleep(0.05)
            expected.append({"outcome": 0})
    finally:
        driver.quit()
        server.stop()
    stored = stored_answers(tmp_path / "campaign.sqlite")
    assert sorted(seen) == sorted(SENTENCES) and stored == expected
