"""The documentation site: the generated CLI reference is current, the README is a landing page
whose first commands are the set-up commands, every page is in the navigation, and (where MkDocs
and Chromium are installed) the site builds with --strict and a tutorial page renders its figure."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _cli_reference():
    spec = importlib.util.spec_from_file_location("cli_reference", DOCS / "cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fresh_pages() -> dict[str, str]:
    """The generated pages (CLI reference, model capabilities, one page per model family) by path,
    as a fresh ``humeval`` process makes them (what a reader of the site gets), not as this test
    process would after other tests changed registries or imported modules."""
    code = ("import sys, json\nsys.path.insert(0, sys.argv[1])\nimport cli_reference as m\n"
            "sys.stdout.write(json.dumps({str(p): t + '\\n' for p, t in m.pages().items()}))")
    result = subprocess.run([sys.executable, "-c", code, str(DOCS)], capture_output=True, text=True, timeout=300,
                            encoding="utf-8")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_cli_reference_page_is_current():
    module = _cli_reference()
    pages = _fresh_pages()
    for path, text in pages.items():
        assert Path(path).read_text(encoding="utf-8") == text, \
            f"{Path(path).relative_to(ROOT)} is stale: run `python docs/cli_reference.py`"
    assert {str(p) for p in module.FAMILY_DIR.glob("*.md")} <= set(pages), \
        "a model family page no family writes: run `python docs/cli_reference.py`"
    cli_page, models_page = pages[str(module.PAGE)], pages[str(module.MODELS_PAGE)]
    assert "## humeval rank" in cli_page and "--signature SIG" in cli_page
    assert "| `rao-kupper` | `RaoKupper` | preference model | yes | yes |" in models_page
    bt = pages[str(module.FAMILY_DIR / "bradley-terry.md")]
    assert "| `davidson` | [`Davidson`](../api/ranking.md#humeval.ranking.bradley_terry.Davidson) | preference | yes |" in bt
    assert "Davidson's (1970) tie model" in bt


def test_every_registered_model_has_a_family_page_and_an_api_entry():
    from humeval.ranking import REGISTRY
    module = _cli_reference()
    api = (DOCS / "reference" / "api" / "ranking.md").read_text(encoding="utf-8")
    families = {}
    for name, (cls, declared) in REGISTRY.items():
        families.setdefault(module.family_of(name, declared), []).append(name)
        assert f"::: {cls.__module__}.{cls.__name__}\n" in api, f"{cls.__name__} is not on docs/reference/api/ranking.md"
    assert families["bradley-terry"] == ["bt", "davidson", "rao-kupper", "thurstone", "crowd-bt"]
    assert families["heuristics"] == ["orig-wmt", "bojar", "expected-wins", "feedback-arc", "most-probable-ranking",
                                      "mc-playoffs"]
    assert set(families) == {slug for slug, *_ in module.FAMILIES}  # no family page is empty


def test_the_readme_is_a_landing_page():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    first_block = re.search(r"^```bash\n(.*?)^```", text, flags=re.S | re.M).group(1).splitlines()
    assert first_block == ['python -m pip install . && humeval demo', 'python -m pip install ".[test]" && python -m pytest']
    for link in re.findall(r"\]\(((?:docs/)?[\w./-]+\.md)(?:#[\w-]+)?\)", text):
        assert (ROOT / link).exists(), link


def _nav_pages() -> set[str]:
    return set(re.findall(r":\s+([\w./-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), flags=re.M))


def test_every_page_is_in_the_navigation_and_every_entry_exists():
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    nav = _nav_pages()
    assert pages == nav, (pages - nav, nav - pages)


def _mkdocs() -> str:
    """This environment's mkdocs (``pip install ".[docs]"``), else the one on PATH."""
    for candidate in (Path(sys.executable).parent / "mkdocs", shutil.which("mkdocs")):
        if candidate and Path(candidate).exists():
            return str(candidate)
    pytest.skip("mkdocs not installed (pip install '.[docs]')")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    run = subprocess.run([_mkdocs(), "build", "--strict", "-q", "-d", str(out)], cwd=ROOT, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return out


def test_the_site_builds_strict_with_the_api_reference(site):
    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert "compare_models" in api and "signature" in api
    assert (site / "changelog" / "index.html").read_text(encoding="utf-8").count("0.2.0") >= 1


def test_a_tutorial_page_renders_with_its_figure_in_chromium(site, tmp_path):
    spec = importlib.util.spec_from_file_location("browser", ROOT / "tests" / "report" / "test_browser.py")
    browser_test = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(browser_test)  # its Chromium flags, page probe and finder
    FLAGS, PROBE = browser_test.FLAGS, browser_test.PROBE
    browser = browser_test.chromium()
    page = site / "tutorials" / "wmt-campaign" / "index.html"
    probed = page.with_name("probed.html")
    probed.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    run = subprocess.run([browser, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", probed.as_uri()],
                         capture_output=True, text=True, timeout=120)
    probe = [line for line in run.stderr.splitlines() if ":CONSOLE" in line and "PROBE" in line]
    assert probe, run.stderr[-2000:]
    images = int(re.search(r"images=(\d+)", probe[0]).group(1))
    assert images >= 1 and "broken=0" in probe[0], probe[0]
    assert "A WMT campaign from rankings" in run.stdout


def _python_blocks():
    """The code blocks that use the notebook API (the older pages' snippets are fragments)."""
    blocks = []
    for page in [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]:
        for block in re.findall(r"^```python\n(.*?)^```", page.read_text(encoding="utf-8"), flags=re.S | re.M):
            if re.search(r"humeval\.(rank|compare_models|agreement|report)\(", block):  # the notebook API
                blocks.append(pytest.param(block, id=f"{page.relative_to(ROOT).as_posix()}:{len(blocks)}"))
    return blocks


@pytest.mark.parametrize("block", _python_blocks())
def test_python_examples_run(block, tmp_path, monkeypatch):
    """The notebook examples run as a script, their data files mapped as test_examples maps the
    shell examples' (real shared data, or generated)."""
    import matplotlib
    matplotlib.use("Agg")
    from test_examples import resolve
    monkeypatch.chdir(tmp_path)
    for name in sorted(set(re.findall(r'"([\w.-]+\.(?:csv|parquet|tsv|json))"', block))):
        (path,) = resolve(f"humeval {name}", tmp_path)
        block = block.replace(f'"{name}"', repr(str(path)))
    namespace = {}
    exec(compile(block, "<docs example>", "exec"), namespace)
    result = namespace["result"]
    assert len(result.table) > 1 and result.signature.startswith("humeval:")
