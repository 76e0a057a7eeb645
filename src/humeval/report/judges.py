"""The report's section for humans and automatic judges together (a file whose ``judge_kind`` names
both): the prediction-powered (PPI++) estimate beside the human-only and the judge-only ones, and
the judge's audit against the humans; and the reliability diagram of a judge's probabilities."""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.report.figures import _save, plt


def plot_reliability(table: pd.DataFrame, path=None, title: str = "Reliability of the judge's probabilities"):
    """The reliability diagram (``judge_audit.reliability``'s table): per bin the judge's mean
    P(a preferred) against the humans' frequency of preferring a, with its interval, the diagonal
    a perfectly calibrated judge would follow, and the battles per bin as the marker's size."""
    fig, ax = plt.subplots(figsize=(4.6, 4.4))
    x, f = table["judge P(a)"].to_numpy(float), table["humans prefer a"].to_numpy(float)
    ax.plot([0, 1], [0, 1], color="0.6", lw=1, ls="--", label="calibrated")
    ax.errorbar(x, f, yerr=[f - table["lo"].to_numpy(float), table["hi"].to_numpy(float) - f], fmt="none",
                ecolor="C0", elinewidth=1, capsize=2)
    size = 20 + 180 * table["battles"].to_numpy(float) / max(float(table["battles"].max()), 1.0)
    ax.scatter(x, f, s=size, color="C0", zorder=3, label="bins (size: battles)")
    ax.set(xlim=(-0.02, 1.02), ylim=(-0.02, 1.02), xlabel="judge's P(a preferred)",
           ylabel="humans prefer a (ties ½)", title=title)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    fig.tight_layout()
    return _save(fig, path)
