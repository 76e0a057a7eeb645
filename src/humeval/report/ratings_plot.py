"""WMT's head-to-head significance heatmap and a score plot with intervals and clusters."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # files, not windows
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402

from humeval.report.figures import inches, short, tick_font  # noqa: E402

LEVELS = (0.001, 0.01, 0.05)  # WMT's ***, **, *
GREENS = ["#1a7f37", "#4cb36b", "#a6dba0", "#f2f2f2"]  # p < .001, < .01, < .05, not significant


def plot_significance_heatmap(pvalues: pd.DataFrame, path=None, title: str = "Head to head", alpha: float = 0.05):
    """Cell (row, column) is green when the row system is significantly better than the column
    system (one-sided p < ``alpha``): darker for p < .01 and p < .001, as in WMT's findings
    papers; the p-value is written in the cell. Systems best first, as in ``pvalues``."""
    p = pvalues.to_numpy(dtype=float)
    names = [short(s) for s in pvalues.index]
    levels = np.where(p < LEVELS[0], 0, np.where(p < LEVELS[1], 1, 2))
    levels = np.where(p < alpha, levels, 3)
    np.fill_diagonal(levels, 3)
    k = len(names)
    fig, ax = plt.subplots(figsize=(inches(k, 0.55, 2.5), inches(k, 0.5, 2)))
    ax.imshow(levels, cmap=ListedColormap(GREENS), vmin=-0.5, vmax=3.5)
    if k <= 25:
        for i in range(k):
            for j in range(k):
                if i != j:
                    ax.text(j, i, _short(p[i, j]), ha="center", va="center", fontsize=6,
                            color="white" if levels[i, j] == 0 else "black")
    ax.set_xticks(np.arange(k), names, rotation=90, fontsize=tick_font(k, 0.55, 7))
    ax.set_yticks(np.arange(k), names, fontsize=tick_font(k, 0.5, 7))
    ax.set_xlabel("worse (column)")
    ax.set_ylabel("better (row)")
    ax.set_title(title, fontsize=9)
    return _save(fig, path)


def plot_scores(table: pd.DataFrame, score: str, path=None, title: str = "Scores"):
    """System scores, best on top, with their bootstrap intervals (``lo``, ``hi``) when present
    and a dashed line at every cluster boundary."""
    df = table.iloc[::-1]
    y = np.arange(len(df))
    centre = df[score].to_numpy(dtype=float)
    fig, ax = plt.subplots(figsize=(7, inches(len(df), 0.32, 1.4)))
    if "lo" in df:
        err = np.vstack([centre - df["lo"].to_numpy(), df["hi"].to_numpy() - centre])
        ax.errorbar(centre, y, xerr=np.clip(err, 0, None), fmt="o", capsize=3)
    else:
        ax.plot(centre, y, "o")
    ax.set_yticks(y, [short(s) for s in df.index], fontsize=tick_font(len(df), 0.32, 8))
    clusters = df["cluster"].to_numpy()
    for yi in range(len(df) - 1):
        if clusters[yi] != clusters[yi + 1]:
            ax.axhline(yi + 0.5, color="tab:red", linestyle="--", linewidth=1)
    ax.set_xlabel(score)
    ax.set_title(title, fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def _short(p: float) -> str:
    return "<.001" if p < 0.001 else f"{p:.3f}".lstrip("0") if p < 1 else "1"


def _save(fig, path):
    if path is not None:
        fig.savefig(path, dpi=120, bbox_inches="tight")
        plt.close(fig)
    return fig
