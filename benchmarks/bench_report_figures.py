"""The report's preference heatmap (20 systems, every cell's value written): cell values as one
collection of glyph outlines (``humeval.report.figures._cell_values``) against the former text
artist per cell, both cropped and written by the report's ``_png``. Prints CPU seconds per
figure and the ratio. Run: ``PYTHONPATH=src taskset -c 0 python benchmarks/bench_report_figures.py``."""

import time

import numpy as np

from humeval.ranking.bradley_terry import RaoKupper
from humeval.report import figures
from humeval.report.campaign import _png
from humeval.simulate.battles import simulate_battles


def _text_per_cell(ax, values, fontsize=6):
    """The former way: one ``ax.text`` per cell."""
    for i, j in zip(*np.nonzero(~np.ma.getmaskarray(values))):
        value = values[i, j]
        ax.text(j, i, f"{value:.2f}".lstrip("0"), ha="center", va="center", fontsize=fontsize,
                color="white" if abs(value - 0.5) > 0.3 else "black", in_layout=False)


def per_figure(model, repeats=8) -> float:
    _png(figures.plot_preference_heatmap(model))  # warm: fonts, caches
    start = time.process_time()
    for _ in range(repeats):
        _png(figures.plot_preference_heatmap(model, title="bench: rao-kupper"))
    return (time.process_time() - start) / repeats


def main():
    model = RaoKupper(covariates=False).fit(simulate_battles(n_systems=20, n_battles=5000, beta=0.0,
                                                             random_state=1).comparisons)
    collection = per_figure(model)
    kept = figures._cell_values
    figures._cell_values = _text_per_cell
    try:
        text = per_figure(model)
    finally:
        figures._cell_values = kept
    print(f"20-system heatmap with values: collection {collection:.3f} s, text per cell {text:.3f} s "
          f"(CPU per figure), ratio {text / collection:.2f}x")


if __name__ == "__main__":
    main()
