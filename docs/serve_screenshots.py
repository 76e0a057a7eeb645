"""Screenshots of `humeval serve`'s pages for the docs (``python docs/serve_screenshots.py [FOLDER]``,
default docs/img/serve): the demo campaign (``humeval serve --demo``) served on a free port, the
login page, an annotator in headless Chromium (Debian's chromium and chromedriver, through Selenium) going through
the tutorial, one task of each type (pairwise, ranking, DA, contrastive ESA with pre-filled ESA^AI
spans, MQM-lite), a whole-document score, a loud attention check's verdict and the completion
code, then the organiser's page (rankings, agreement, progress over time). Answers are posted
through the JSON API with the browser's session (a judge who knows the demo systems' order), so
every page is what a real annotator sees next. tests/serve/test_serve_docs.py reruns it."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "img" / "serve"
SHOTS = ("login", "tutorial", "tutorial-feedback", "pairwise", "ranking", "da", "esa", "mqm", "document",
         "check-feedback", "completion", "organiser")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _browser(width: int = 1100, height: int = 1000):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", f"--window-size={width},{height}", "--hide-scrollbars"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def _shot(driver, path: Path):
    """The whole page, beyond the window's height (Chromium's DevTools screenshot)."""
    import base64
    width, height = driver.execute_script("return [document.documentElement.scrollWidth, "
                                          "document.documentElement.scrollHeight]")
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "captureBeyondViewport": True, "clip": {"x": 0, "y": 0, "width": width, "height": min(height, 5000),
                                                "scale": 1}})
    path.write_bytes(base64.b64decode(shot["data"]))


def _answer(task: dict, order: dict) -> dict:
    """What a judge who knows the systems' order answers (a text of no system: middling)."""
    q = [order.get(text, 1.5) for text in task["outputs"]]
    if task["type"] == "pairwise":
        return {"outcome": 1 if q[0] < q[1] else 2 if q[1] < q[0] else 0}
    if task["type"] == "ranking":
        return {"ranks": [sorted(q).index(x) + 1 for x in q]}
    if task["type"] == "mqm":
        return {"errors": []}
    if task["type"] == "esa" and len(q) > 1:
        return {"outputs": [{"score": 90 - 25 * x, "spans": task.get("prefill", [[]] * len(q))[n]}
                            for n, x in enumerate(q)]}
    return {"score": 90 - 25 * q[0], **({"spans": (task.get("prefill") or [[]])[0]} if task["type"] == "esa" else {})}


def take(out: Path = OUT) -> list[Path]:
    """Write the screenshots into ``out``; returns their paths."""
    import ssl

    import httpx

    loopback = ssl.create_default_context()  # one for every client: each new one would load the CA store
    sys.path.insert(0, str(ROOT / "src"))
    from humeval.serve.demo import PASSWORD, SYSTEMS, write_demo
    order = {text: rank for rank, texts in enumerate(SYSTEMS.values()) for text in texts}
    out.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="humeval-shots-"))
    campaign = write_demo(folder, leaderboard_interval=3.0, bootstrap=100)
    port = _port()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    server = subprocess.Popen([sys.executable, "-m", "humeval", "serve", str(campaign), "--port", str(port)],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    driver = None
    written = []
    try:
        for _ in range(600):
            try:
                if httpx.get(url + "/login", timeout=1, verify=loopback).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        driver = _browser()

        def log_in(name):
            driver.get(url + "/login")
            driver.find_element("id", "name").send_keys(name)
            driver.find_element("id", "password").send_keys(PASSWORD)
            driver.find_element("id", "login").click()
            time.sleep(0.5)

        def api():
            cookie = driver.get_cookie("humeval_session")["value"]
            csrf = re.search(r'name="csrf" value="([^"]+)"', driver.page_source).group(1)
            return httpx.Client(base_url=url, cookies={"humeval_session": cookie}, headers={"X-CSRF-Token": csrf},
                                verify=loopback)

        def save(name):
            _shot(driver, out / f"serve-{name}.png")
            written.append(out / f"serve-{name}.png")

        driver.get(url + "/login")
        save("login")
        log_in("ann1")
        save("tutorial")
        with api() as client:
            task = client.get("/api/task").json()
            client.post(f"/api/task/{task['task']}", json={"outcome": 2})  # wrong on purpose: the feedback
        with api() as client:
            receipt = client.get("/api/judgments").json()[-1]["receipt"]
        driver.get(f"{url}/task?receipt={receipt}")
        save("tutorial-feedback")
        seen = set()
        while True:
            with api() as client:
                response = client.get("/api/task")
                if response.status_code != 200:
                    break
                task = response.json()
                # the first of each type (ESA: one with pre-filled spans), a segment's task, not a control's;
                # the first whole-document score (its item is "document <id>")
                shot = "document" if task.get("document_score") else task["type"]
                if "tutorial" not in task and shot not in seen and (shot == "document" or int(task["item"]) <= 16) \
                        and (task["type"] != "esa" or any(task.get("prefill") or [])):
                    seen.add(shot)
                    driver.get(url + "/task")
                    save(shot)
                told = client.post(f"/api/task/{task['task']}", json=_answer(task, order)).json()
                if "check" in told and "check-feedback" not in seen:  # a loud attention check, told after
                    seen.add("check-feedback")
                    driver.get(f"{url}/task?receipt={told['receipt']}")
                    save("check-feedback")
        driver.get(url + "/task")
        save("completion")
        for name in ("ann2", "ann3"):  # more judgments for the organiser's page
            driver.delete_all_cookies()
            log_in(name)
            with api() as client:
                while (response := client.get("/api/task")).status_code == 200:
                    task = response.json()
                    client.post(f"/api/task/{task['task']}", json=_answer(task, order))
        driver.delete_all_cookies()
        log_in("organiser")
        with api() as client:  # until the leaderboard (recomputed in a child process) holds every answer
            for _ in range(300):
                status = client.get("/admin/status.json").json()
                if status["leaderboard_judgments"] == status["judgments"]:
                    break
                time.sleep(0.5)
        driver.get(url + "/organiser")
        save("organiser")
    finally:
        if driver is not None:
            driver.quit()
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)
    return written


if __name__ == "__main__":
    for path in take(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT):
        print(path)
