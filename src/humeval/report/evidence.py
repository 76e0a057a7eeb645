"""When the evidence behind a ranking is too thin to print it plainly.

``MIN_COMPARISONS`` is the one threshold ``rank`` and ``report`` warn at: a system judged in
fewer comparisons than that cannot be told even from a system several places away.

Why 200: a system's share of wins over n comparisons has a standard error of at most
0.5 / √n (a proportion near one half). Two systems whose win shares differ by Δ are told apart
at the 95 % level when Δ exceeds 1.96 · √2 · 0.5 / √n, i.e. when n ≥ (1.96 · √2 · 0.5 / Δ)².
Neighbours in WMT10's eight tracks differ by a median 0.015–0.03 in win share (mean
0.023–0.045; the reference left out), so Δ = 0.1 is a gap of several places; it needs
n ≥ 192, rounded to 200. With fewer comparisons per system even such a gap is within noise,
whatever model is fitted: the models pool evidence through shared opponents, but a system's own
judgments bound what can be said about it (neighbours need thousands: WMT10 has a median of
620–1,507 per system and its rank clusters hold several systems each). The threshold is per system, not per pair: every
model here ranks from all of a system's comparisons, so a pair judged rarely head to head is
still placed through the others (the intervals of ``rank --bootstrap`` say how well).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.report.render import number

MIN_COMPARISONS = 200


def comparisons_per_system(comparisons) -> pd.Series:
    """How many comparisons each system appears in (weighted rows count their weight)."""
    n = len(comparisons.systems)
    weights = comparisons.weight if getattr(comparisons, "weighted", False) else None
    a = np.bincount(comparisons.a[comparisons.a >= 0], minlength=n,
                    weights=None if weights is None else weights[comparisons.a >= 0])
    b = np.bincount(comparisons.b[comparisons.b >= 0], minlength=n,
                    weights=None if weights is None else weights[comparisons.b >= 0])
    return pd.Series(a + b, index=pd.Index(comparisons.systems, name="system"), name="comparisons")


def few_comparisons_warning(comparisons, threshold: int = MIN_COMPARISONS) -> str:
    """A warning naming the systems judged in fewer than ``threshold`` comparisons ("" when none
    is): their places in the ranking are within noise (see the module doc for the threshold)."""
    counts = comparisons_per_system(comparisons)
    counts = counts[counts > 0]
    few = counts[counts < threshold].sort_values(kind="stable")
    if few.empty:
        return ""
    shown = ", ".join(f"{s} ({number(int(v), 'count')})" for s, v in few.head(10).items())
    return (f"few judgments: {len(few)} of {len(counts)} systems appear{'s' if len(few) == 1 else ''} in fewer than {threshold} comparisons: "
            f"{shown}{' …' if len(few) > 10 else ''}; even a gap of 0.1 in win share (several places in a WMT "
            f"ranking) needs about {threshold} per system to stand out of the noise, so their places are not "
            "established")


def within_noise(table: pd.DataFrame, score: str = "score", std: str = "std", z: float = 1.96) -> list[tuple]:
    """Neighbouring systems (in ``table``'s order, best first) whose scores differ by less than
    ``z`` standard errors of the difference, √(σ_i² + σ_j²) from the ``std`` column (the
    posterior or sampling standard deviation a model reports): pairs (upper, lower) a ranking
    without intervals puts in a strict order the fit cannot support."""
    if std not in table or score not in table:
        return []
    s, sd = table[score].to_numpy(dtype=float), table[std].to_numpy(dtype=float)
    names = list(table.index)
    out = []
    for i in range(len(names) - 1):
        spread = np.hypot(sd[i], sd[i + 1])
        if np.isfinite(spread) and abs(s[i] - s[i + 1]) < z * spread:
            out.append((names[i], names[i + 1]))
    return out


def no_interval_note(table: pd.DataFrame, comparisons, model: str) -> str:
    """What a ranking printed without intervals must say: that there are none, how to get them,
    how many comparisons per system stand behind it, and which neighbours are within noise."""
    counts = comparisons_per_system(comparisons)
    counts = counts[counts > 0]
    median = int(counts.median())
    text = (f"no intervals: these ranks are point estimates ({number(median, 'count')} comparison"
            f"{'s' if median != 1 else ''} per system, median; fewest {number(int(counts.min()), 'count')}); --bootstrap 1000 gives intervals, rank "
            "ranges and clusters" + (", as does --intervals fisher" if model in ("bt", "davidson", "rao-kupper") else ""))
    close = within_noise(table)
    if close:
        text += (f". {len(close)} of {len(table) - 1} neighbouring pair{'s' if len(table) > 2 else ''} differ"
                 f"{'s' if len(table) == 2 else ''} by less than 1.96 standard deviations of their difference (within "
                 "noise): " + ", ".join(f"{a} ≈ {b}" for a, b in close[:8])
                 + (" …" if len(close) > 8 else ""))
    return text
