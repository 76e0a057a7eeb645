"""More of ``humeval serve`` in headless Chromium (the helpers are test_serve_browser.py's):
right-to-left outputs (Hebrew, Arabic) marked by mouse, an ESA task and a ranking task completed
with the keyboard alone, the ranking and MQM-lite tasks by mouse with their exports read back,
every task page at phone width (390 × 844), and a document scored as a whole by keyboard. Skipped where Chromium or its driver is missing,
unless HUMEVAL_REQUIRE_BROWSER is set (CI)."""

from __future__ import annotations

from serve_helpers import Server, loopback_ssl, write_campaign
from test_serve_browser import browser, click_and_wait, drag_select, log_in, stored_answers

from humeval.data import read

HEBREW = "החתול הזקן ישב על השטיח החם."
ARABIC = "جلس القط العجوز على السجادة الدافئة."


def keys(driver, *sequence):
    from selenium.webdriver.common.action_chains import ActionChains
    ActionChains(driver).send_keys(*sequence).perform()


def active_id(driver) -> str:
    return driver.execute_script("return document.activeElement.id")


def tab_to(driver, element_id, limit=40):
    """Press Tab until ``element_id`` has the focus (the keyboard's way there)."""
    from selenium.webdriver.common.keys import Keys
    for _ in range(limit):
        if active_id(driver) == element_id:
            return
        keys(driver, Keys.TAB)
    raise AssertionError(f"{limit} presses of Tab never reached #{element_id} (at #{active_id(driver)})")


def shift_right(driver, n):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.ARROW_RIGHT * n).key_up(Keys.SHIFT).perform()


def press_and_wait(driver, key, timeout=20.0):
    """Press ``key`` and wait for the next page (a form submitted by the keyboard)."""
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait
    old = driver.find_element("tag name", "html")
    keys(driver, key)
    WebDriverWait(driver, timeout).until(expected_conditions.staleness_of(old))
    WebDriverWait(driver, timeout).until(lambda d: d.execute_script("return document.readyState") == "complete")


def test_right_to_left_outputs_are_marked_by_mouse_at_their_code_point_offsets(tmp_path):
    """Hebrew and Arabic outputs: the source, output and per-word labels carry dir="auto" (so the
    browser lays the translation out right to left), a mouse drag across one word marks it, the
    keyboard (Home, ArrowLeft, Shift+ArrowLeft: forward in right-to-left text) another, and the
    stored spans hold Python's offsets of those words."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    driver = browser()
    outputs = {f"sys{s}": [HEBREW, ARABIC] for s in range(2)}
    path = write_campaign(tmp_path, tasks=("esa",), n_systems=2, n_items=2, outputs=outputs)
    server = Server(path)
    expected, seen = [], []
    try:
        log_in(driver, server.url, "alice")
        for _ in range(2):
            output = driver.find_element(By.ID, "esa-output")
            text = output.text
            seen.append(text)
            assert output.get_attribute("dir") == "auto" and driver.find_element(By.ID, "source").get_attribute(
                "dir") == "auto"
            assert driver.execute_script("return getComputedStyle(arguments[0]).direction", output) == "rtl"
            word = "הזקן" if text == HEBREW else "العجوز"
            start = text.index(word)
            # a drag from inside the space before the word to inside the space after it (the spaces are
            # trimmed from a selection); right to left, those spaces lie right and left of the word
            drag_select(driver, output, start - 1, start + len(word) + 1)
            keys(driver, "2")
            assert [m.text for m in driver.find_elements(By.CSS_SELECTOR, "#esa-output mark.major")] == [word]
            # then a later word by keyboard: in right-to-left text ArrowLeft moves the caret forward
            other = "השטיח" if text == HEBREW else "السجادة"
            at = text.index(other)
            assert active_id(driver) == "esa-output"  # the drag put the focus (and a caret) there
            keys(driver, Keys.HOME, Keys.ARROW_LEFT * at)
            ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.ARROW_LEFT * len(other)).key_up(
                Keys.SHIFT).perform()
            keys(driver, "1")
            assert [m.text for m in driver.find_elements(By.CSS_SELECTOR, "#esa-output mark.minor")] == [other]
            driver.find_element(By.ID, "score-number").send_keys("55")
            click_and_wait(driver, "submit")
            assert "Saved (receipt" in driver.find_element(By.ID, "receipt").text
            expected.append({"score": 55.0, "spans": [
                {"start_i": start, "end_i": start + len(word), "severity": "major"},
                {"start_i": at, "end_i": at + len(other), "severity": "minor"}]})
    finally:
        driver.quit()
        server.stop()
    assert sorted(seen) == sorted([HEBREW, ARABIC])
    assert [{**a, "score": float(a["score"])} for a in stored_answers(tmp_path / "campaign.sqlite")] == expected
    assert expected[seen.index(HEBREW)]["spans"][0]["start_i"] == 6  # "החתול " is 6 characters


SENTENCE = "The old cat sat on the warm mat."


def test_esa_and_ranking_completed_with_the_keyboard_alone(tmp_path):
    """No mouse action at all: Tab into the ESA translation, move the caret with the arrow keys,
    select with Shift+Right, 2 marks major and 1 minor, Backspace removes the error at the caret,
    Tab to the score box, type, Enter submits; then the ranking task: Tab to the first translation
    and type three digits (each sets the focused translation's rank and moves on), Enter on Submit.
    The stored answers are exactly those spans, score and ranks."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    driver = browser()
    outputs = {f"sys{s}": [SENTENCE] * 2 for s in range(3)}
    path = write_campaign(tmp_path, tasks=("esa", "ranking"), n_systems=3, n_items=2, outputs=outputs)
    server = Server(path)
    try:
        log_in(driver, server.url, "alice")
        assert driver.find_element(By.ID, "task").get_attribute("data-type") == "esa"
        tab_to(driver, "esa-output")
        keys(driver, Keys.HOME, Keys.ARROW_RIGHT * SENTENCE.index("sat on"))
        shift_right(driver, len("sat on"))
        keys(driver, "2")
        keys(driver, Keys.ARROW_RIGHT * (SENTENCE.index("warm") - SENTENCE.index(" the")))  # the caret: after "on"
        shift_right(driver, len("warm"))
        keys(driver, "1")
        keys(driver, Keys.HOME, Keys.ARROW_RIGHT * SENTENCE.index("old"))
        shift_right(driver, len("old"))
        keys(driver, "1")
        marked = [m.text for m in driver.find_elements(By.CSS_SELECTOR, "#esa-output mark")]
        assert marked == ["old", "sat on", "warm"]
        keys(driver, Keys.BACKSPACE)  # the caret sits at the end of "old": that error goes
        assert [m.text for m in driver.find_elements(By.CSS_SELECTOR, "#esa-output mark")] == ["sat on", "warm"]
        assert driver.find_element(By.ID, "esa-output").text == SENTENCE  # nothing typed into the text
        tab_to(driver, "score-number")
        keys(driver, "70")
        press_and_wait(driver, Keys.ENTER)
        assert "Saved (receipt" in driver.find_element(By.ID, "receipt").text
        assert driver.find_element(By.ID, "task").get_attribute("data-type") == "ranking"
        assert [driver.find_element(By.ID, f"rank{i}").get_attribute("value") for i in range(3)] == ["", "", ""]
        tab_to(driver, "ranked0")
        keys(driver, "2")
        assert active_id(driver) == "ranked1"
        keys(driver, "1", "3")
        assert active_id(driver) == "submit"
        assert [driver.find_element(By.ID, f"rank{i}").get_attribute("value") for i in range(3)] == ["2", "1", "3"]
        press_and_wait(driver, Keys.ENTER)
        assert "Saved (receipt" in driver.find_element(By.ID, "receipt").text
    finally:
        driver.quit()
        server.stop()
    sat, warm = SENTENCE.index("sat on"), SENTENCE.index("warm")
    assert stored_answers(tmp_path / "campaign.sqlite") == [
        {"score": 70.0, "spans": [{"start_i": sat, "end_i": sat + 6, "severity": "major"},
                                  {"start_i": warm, "end_i": warm + 4, "severity": "minor"}]},
        {"ranks": [2, 1, 3]}]


def export_file(driver, url, name, folder):
    """Download an organiser export with the logged-in organiser's cookie."""
    import httpx
    cookie = driver.get_cookie("humeval_session")["value"]
    with httpx.Client(base_url=url, cookies={"humeval_session": cookie}, verify=loopback_ssl()) as client:
        response = client.get(f"/organiser/export/{name}")
        assert response.status_code == 200, response.text
    (folder / name).write_bytes(response.content)
    return folder / name


def test_ranking_and_mqm_by_mouse_and_their_exports(tmp_path):
    """A 3-way ranking refused with a rank unchosen, then answered (ranks 3, 1, 1: a tie); an MQM-lite
    task with two errors marked by mouse, each with its category chosen in the select (one by its
    key letter); the comparisons export holds the ranking's C(3, 2) = 3 comparisons in one group
    and the MQM TSV the two errors, read back by ``humeval.read``."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    driver = browser()
    outputs = {f"sys{s}": [f"sys{s} " + SENTENCE] * 2 for s in range(3)}
    path = write_campaign(tmp_path, tasks=("ranking", "mqm"), n_systems=3, n_items=2, outputs=outputs)
    server = Server(path)
    try:
        log_in(driver, server.url, "alice")
        shown = [driver.find_element(By.ID, f"ranked{i}").text.split()[0] for i in range(3)]
        Select(driver.find_element(By.ID, "rank0")).select_by_value("3")
        Select(driver.find_element(By.ID, "rank1")).select_by_value("1")
        driver.execute_script("document.getElementById('task').noValidate = true")  # let the server refuse it
        click_and_wait(driver, "submit")
        assert "choose a rank for every translation" in driver.find_element(By.ID, "error").text
        for i, rank in enumerate("311"):
            Select(driver.find_element(By.ID, f"rank{i}")).select_by_value(rank)
        click_and_wait(driver, "submit")
        assert driver.find_element(By.ID, "task").get_attribute("data-type") == "mqm"
        output = driver.find_element(By.ID, "mqm-output")
        text = output.text
        Select(driver.find_element(By.ID, "span-category")).select_by_value("Accuracy")
        drag_select(driver, output, text.index("cat"), text.index("cat") + 3)
        driver.find_element(By.ID, "mark-major").click()
        drag_select(driver, output, text.index("warm"), text.index("warm") + 4)
        keys(driver, "f")  # Fluency, by its first letter, while the translation has the focus
        assert Select(driver.find_element(By.ID, "span-category")).first_selected_option.text == "Fluency"
        keys(driver, "1")
        items = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#span-list li")]
        assert items[0].startswith("\u201ccat\u201d major (Accuracy)") and items[1].startswith(
            "\u201cwarm\u201d minor (Fluency)")
        click_and_wait(driver, "submit")
        assert "Saved (receipt" in driver.find_element(By.ID, "receipt").text
        click_and_wait(driver, "logout")
        log_in(driver, server.url, "olga")
        comparisons = read(export_file(driver, server.url, "comparisons.csv", tmp_path)).comparisons
        mqm = read(export_file(driver, server.url, "mqm.tsv", tmp_path))
    finally:
        driver.quit()
        server.stop()
    at = text.index("cat")
    assert stored_answers(tmp_path / "campaign.sqlite") == [
        {"ranks": [3, 1, 1]},
        {"errors": [{"start_i": at, "end_i": at + 3, "severity": "major", "category": "Accuracy"},
                    {"start_i": text.index("warm"), "end_i": text.index("warm") + 4, "severity": "minor",
                     "category": "Fluency"}]}]
    df = comparisons.to_pandas()
    assert len(df) == 3 and df["group"].nunique() == 1
    got = {(a, b): o for a, b, o in zip(df["a"], df["b"], df["outcome"])}
    expect = {(shown[0], shown[1]): 2, (shown[0], shown[2]): 2, (shown[1], shown[2]): 0}
    assert got == expect
    ratings = mqm.ratings.to_pandas()
    assert len(ratings) == 1 and float(ratings["score"].iloc[0]) == -(5 + 1)  # Freitag et al.: major 5, minor 1


def test_every_task_page_fits_a_phone(tmp_path):
    """At 390 × 844 CSS pixels (a phone, emulated with the page's viewport): on the pairwise,
    ranking, DA, ESA and MQM-lite pages (with document context) nothing scrolls sideways, and every
    control lies inside the screen's width; the ESA page's span buttons and the score box work by
    tap (a touch on the translation's text is not needed: the buttons keep the selection)."""
    from selenium.webdriver.common.by import By
    driver = browser()
    long_word = "Donaudampfschifffahrtsgesellschaftskapitänswitwenrentenversicherung"
    outputs = {f"sys{s}": [f"sys{s} {long_word} " + SENTENCE * 3] * 4 for s in range(5)}
    path = write_campaign(tmp_path, tasks=("pairwise", "ranking", "da", "esa", "mqm"), n_systems=5, n_items=4,
                          outputs=outputs)
    (tmp_path / "documents.txt").write_text("d1\nd1\nd1\nd1\n")
    path.write_text(path.read_text().replace('reference = "reference.txt"', 'reference = "reference.txt"\n'
                                             'documents = "documents.txt"'))
    server = Server(path)
    pages = {}
    try:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True})
        log_in(driver, server.url, "alice")
        for _ in range(5):
            kind = driver.find_element(By.ID, "task").get_attribute("data-type")
            pages[kind] = driver.execute_script(
                "var d = document.documentElement, out = [];"
                "document.querySelectorAll('#task input:not([type=hidden]), #task select, #task button,"
                " #task .output, #logout').forEach(function (e) {"
                "  var r = e.getBoundingClientRect(); if (r.width && (r.left < 0 || r.right > innerWidth))"
                "    out.push(e.id || e.tagName); });"
                "return {width: innerWidth, scroll: d.scrollWidth - d.clientWidth, outside: out};")
            if kind == "esa":
                output = driver.find_element(By.ID, "esa-output")
                drag_select(driver, output, len("sys0 "), len("sys0 ") + 4)
                driver.find_element(By.ID, "mark-minor").click()
                assert len(driver.find_elements(By.CSS_SELECTOR, "#esa-output mark.minor")) == 1
            click_and_wait(driver, "skip")
    finally:
        driver.quit()
        server.stop()
    assert set(pages) == {"pairwise", "ranking", "da", "esa", "mqm"}
    # (a page wider than the phone also widens a mobile viewport: innerWidth > 390)
    assert all(p == {"width": 390, "scroll": 0, "outside": []} for p in pages.values()), pages


def test_a_document_scored_as_a_whole_with_the_keyboard(tmp_path):
    """``document_scores``: a two-segment document's segments scored by typing (80, 60; Tab to the
    score box, Enter), then the whole-document page shows both outputs in order, has no span
    marking, and takes a typed 35; the stored answers are those three scores."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    driver = browser()
    path = write_campaign(tmp_path, tasks=("da",), n_systems=2, n_items=2, extra="document_scores = true\n")
    (tmp_path / "documents.txt").write_text("story\nstory\n")
    path.write_text(path.read_text().replace('reference = "reference.txt"',
                                             'reference = "reference.txt"\ndocuments = "documents.txt"'))
    server = Server(path)
    try:
        log_in(driver, server.url, "alice")
        for n, score in enumerate(("80", "60")):
            assert f"segment {n + 1} of 2" in driver.find_element(By.ID, "document").text
            tab_to(driver, "score-number")
            keys(driver, score)
            press_and_wait(driver, Keys.ENTER)
        heading = driver.find_element(By.ID, "document-score").text
        assert heading.startswith("The whole document story") and "2 segments" in heading
        shown = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".document-segment")]
        assert len(shown) == 2 and [t.split()[1] for t in shown] == ["says0", "says1"]
        assert len({t.split()[0] for t in shown}) == 1  # one system's outputs
        assert not driver.find_elements(By.CSS_SELECTOR, "[data-marking]")
        tab_to(driver, "score-number")
        keys(driver, "35")
        press_and_wait(driver, Keys.ENTER)
        assert "Saved (receipt" in driver.find_element(By.ID, "receipt").text
    finally:
        driver.quit()
        server.stop()
    assert stored_answers(tmp_path / "campaign.sqlite") == [{"score": 80.0}, {"score": 60.0}, {"score": 35.0}]
