"""The docs' screenshots of `humeval serve` (docs/img/serve/, made by docs/serve_screenshots.py):
every page the docs show is committed, and the script reruns in headless Chromium (skipped
without it, unless HUMEVAL_REQUIRE_BROWSER is set) and writes a PNG of each page."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docs" / "serve_screenshots.py"


def screenshots():
    spec = importlib.util.spec_from_file_location("serve_screenshots", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_screenshot_is_committed_and_shown_in_the_docs():
    module = screenshots()
    page = (ROOT / "docs" / "tutorials" / "serve.md").read_text(encoding="utf-8")
    for name in module.SHOTS:
        png = module.OUT / f"serve-{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png
        assert f"../img/serve/serve-{name}.png" in page, name


def test_the_script_reruns_in_chromium(tmp_path):
    from test_serve_browser import browser
    browser().quit()  # skips (or fails under HUMEVAL_REQUIRE_BROWSER) without Chromium
    written = screenshots().take(tmp_path)
    assert sorted(p.name for p in written) == sorted(f"serve-{name}.png" for name in screenshots().SHOTS)
    assert all(p.stat().st_size > 10_000 and p.read_bytes()[:4] == b"\x89PNG" for p in written)
