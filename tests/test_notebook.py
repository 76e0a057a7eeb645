"""docs/tutorials/notebook.ipynb runs and still shows what it stores: its code cells are run in
order in one namespace (as docs/make_notebook.py ran them; no Jupyter needed) and each output is
compared with the stored one: the same kinds of output, the same text word for word except
numbers, which agree to the digits shown (pandas prints 6 significant digits), and the numeric
libraries' versions inside signatures, which may differ from the machine that made it."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "docs/tutorials/notebook.ipynb"
NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")
VERSIONS = re.compile(r"\|(numpy|scipy|numba|pandas):[^|'\s<]+")


def maker():
    spec = importlib.util.spec_from_file_location("make_notebook", ROOT / "docs/make_notebook.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


INTEGER = re.compile(r"(?<![\w.])\d+(?![\w.])")


def words(text: str, integers: bool = False) -> tuple[list[str], list[float]]:
    """The text's words with numbers and library versions taken out, and its numbers; with
    ``integers``, whole numbers (a cluster's number) are taken out of the words too."""
    text = VERSIONS.sub(r"|\1:VERSION", text)
    plain = NUMBER.sub("NUMBER", text)
    return (INTEGER.sub("INTEGER", plain) if integers else plain).split(), [float(n) for n in NUMBER.findall(text)]


def same_draws() -> bool:
    """Whether this numba draws the bootstrap's binomials as numpy does (numba >= 0.67, as on the
    machine that made the notebook); older numba draws other resamples from the same seed."""
    import numba
    return tuple(int(x) for x in numba.__version__.split(".")[:2]) >= (0, 67)


def same(stored: str, now: str, where: str):
    exact = same_draws()  # other draws may move a rank range or a cluster's number: words compared without them
    stored_words, stored_numbers = words(stored, integers=not exact)
    now_words, now_numbers = words(now, integers=not exact)
    assert now_words == stored_words, f"{where}: the text changed\n--- stored\n{stored}\n--- now\n{now}"
    # the same draws: the printed digits, a last-digit rounding apart at most; other draws (older numba):
    # 200 resamples' Monte-Carlo error, a few hundredths of these scores and bounds (sd ~0.1–0.3 / √200 ≈ 0.02),
    # and a rank range's end (printed 4.0) one rank
    for a, b in zip(stored_numbers, now_numbers):
        rel, abs_ = (1e-5, 1.5e-6) if exact else (0.0, 1.0 if a.is_integer() else 0.1)
        assert b == pytest.approx(a, rel=rel, abs=abs_), f"{where}: {a} is now {b}\n{now}"


def test_the_notebook_is_nbformat_4_and_executed():
    book = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    assert book["nbformat"] == 4 and book["metadata"]["kernelspec"]["language"] == "python"
    code = [c for c in book["cells"] if c["cell_type"] == "code"]
    assert len(code) >= 5 and [c["execution_count"] for c in code] == list(range(1, len(code) + 1))
    assert all(c["outputs"] for c in code)  # executed: every cell shows something
    sources = ["".join(c["source"]) for c in book["cells"]]
    assert sources == [source for _, source in maker().CELLS]  # the stored cells are the maker's


def test_the_cells_run_in_order_and_show_what_the_notebook_stores():
    import matplotlib
    matplotlib.use("Agg")
    run_cell = maker().run_cell
    book = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    namespace = {}
    for number, cell in enumerate(c for c in book["cells"] if c["cell_type"] == "code"):
        outputs = run_cell("".join(cell["source"]), namespace)
        stored = cell["outputs"]
        assert [o["output_type"] for o in outputs] == [o["output_type"] for o in stored], f"cell {number + 1}"
        for got, want in zip(outputs, stored):
            if got["output_type"] == "stream":
                same("".join(want["text"]), "".join(got["text"]), f"cell {number + 1} printed")
                continue
            assert set(got["data"]) == set(want["data"]), f"cell {number + 1}"
            same("".join(want["data"]["text/plain"]), "".join(got["data"]["text/plain"]), f"cell {number + 1}")
            if "text/html" in got["data"]:
                same("".join(want["data"]["text/html"]), "".join(got["data"]["text/html"]), f"cell {number + 1} html")
    result = namespace["result"]  # what the notebook shows is the API's: a ranking signed as the CLI signs
    assert result.signature.startswith("humeval:") and "|cmd:rank|" in result.signature
    assert list(result.table.index[:1]) == ["sys03"]  # the simulated best system (truth: sys03 at 0.64) ranks first
