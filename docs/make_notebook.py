"""Write docs/tutorials/notebook.ipynb, the notebook tutorial, executed: its cells (``CELLS``) are
run in order in one namespace here and their outputs stored as Jupyter stores them (nbformat 4:
``stream`` for what a cell prints, ``execute_result`` with ``text/plain`` and, for a humeval
``Result``, ``text/html`` for its last expression). No Jupyter is needed to make it or to check
it: tests/test_notebook.py runs the stored cells the same way (``run_cell``) and compares.

    PYTHONPATH=src python docs/make_notebook.py
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import sys
from pathlib import Path

NOTEBOOK = Path(__file__).resolve().parent / "tutorials" / "notebook.ipynb"

CELLS = [
    ("markdown", """# humeval in a notebook

The command-line verbs as Python functions: `humeval.rank`, `humeval.agreement`,
`humeval.compare_models` and `humeval.report` run the command of the same name in this process and
return a `Result` with the `.table` (a pandas DataFrame), the `.options` it was made with and its
reproducibility `.signature`. Here on a simulated competition, so that the notebook runs anywhere."""),
    ("code", """import humeval
from humeval.simulate import simulate_competition

sim = simulate_competition(n_systems=6, n_judgments=1500, random_state=0)
sim.truth.abilities.sort_values(ascending=False)  # the truth the ranking should find"""),
    ("markdown", """## A ranking with intervals and clusters

The data can be a path, a DataFrame or a humeval table (here the simulated comparisons). Options
are the command's long options as keywords: `bootstrap=200` is `--bootstrap 200`."""),
    ("code", """result = humeval.rank(sim.comparisons, model="bt", bootstrap=200, clusters=True, random_state=0)
result"""),
    ("markdown", """The signature says how the table was made: the command, the data's content hash, the model,
the bootstrap, the seed and the numeric libraries' versions. `humeval rank --signature SIG FILE`
re-runs exactly that from the shell."""),
    ("code", """result.signature"""),
    ("code", """result.table[["score", "lower", "upper", "cluster"]].round(3)"""),
    ("markdown", """## The judges and the models

Agreement between the (simulated) judges, and which model predicts held-out judgments best."""),
    ("code", """humeval.agreement(sim.comparisons).table.drop(columns=["track", "judgments", "method"])"""),
    ("code", """curves = humeval.compare_models(sim.comparisons, model="bt,uniform", sizes="200,800", trials=2)
curves.table.groupby(["model", "size"]).perplexity.mean().round(4)"""),
]


def run_cell(code: str, namespace: dict) -> list[dict]:
    """Run ``code`` in ``namespace`` as Jupyter would: its printed output and, when it ends with
    an expression that is not None, that value's ``repr`` (and ``_repr_html_``), as nbformat 4
    outputs (without ``execution_count``)."""
    tree = ast.parse(code)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    printed = io.StringIO()
    value = None
    with contextlib.redirect_stdout(printed):
        exec(compile(tree, "<cell>", "exec"), namespace)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)
    outputs = []
    if printed.getvalue():
        outputs.append({"output_type": "stream", "name": "stdout", "text": printed.getvalue().splitlines(True)})
    if value is not None:
        data = {"text/plain": repr(value).splitlines(True)}
        if hasattr(value, "_repr_html_"):
            data["text/html"] = value._repr_html_().splitlines(True)
        outputs.append({"output_type": "execute_result", "data": data, "metadata": {}})
    return outputs


def notebook() -> dict:
    """The notebook, every code cell executed in order."""
    import matplotlib
    matplotlib.use("Agg")
    namespace: dict = {}
    cells, count = [], 0
    for kind, source in CELLS:
        cell = {"cell_type": kind, "metadata": {}, "source": source.splitlines(True)}
        if kind == "code":
            count += 1
            outputs = run_cell(source, namespace)
            for output in outputs:
                if output["output_type"] == "execute_result":
                    output["execution_count"] = count
            cell.update(execution_count=count, outputs=outputs)
        cells.append(cell)
    return {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                        "name": "python3"},
                                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def main() -> None:
    book = notebook()
    for number, cell in enumerate(book["cells"]):
        cell["id"] = f"cell-{number}"
    NOTEBOOK.write_text(json.dumps(book, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {NOTEBOOK}", file=sys.stderr)


if __name__ == "__main__":
    main()
