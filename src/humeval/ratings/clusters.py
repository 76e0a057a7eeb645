"""WMT's clusters of systems from a significance matrix.

Systems are listed best first (by score). WMT17–WMT20's findings papers draw a line between
two neighbours when "systems significantly outperform all others in lower ranking clusters"
(Wilcoxon rank-sum, p < 0.05): a boundary falls after position k exactly when every system
at or above k is significantly better than every system below k (``rule="all-below"``, the
default). The shorter reading "a system starts a new cluster when it is significantly worse
than every system above it" (``rule="above"``) checks only the next system; it agrees with the
default whenever significance is monotone in the ordering (as on WMT20 de-en, where both give
{Huoshan … Online-Z} {WMTBiomedBaseline, zlabs-nlp} {yolo}) and can split more finely when it
is not (a system beaten by all above while a system further down is not).
"""

from __future__ import annotations

import numpy as np

RULES = ("all-below", "above")


def clusters(significant: np.ndarray, order: np.ndarray | None = None, rule: str = "all-below") -> np.ndarray:
    """Cluster number (1 = top) of each position in ``order`` (system indices, best first).

    ``significant[i, j]`` is True when system i is significantly better than system j.
    """
    if rule not in RULES:
        raise ValueError(f"unknown cluster rule {rule!r}; choose one of {', '.join(RULES)}")
    k = len(significant)
    order = np.arange(k) if order is None else np.asarray(order)
    s = np.asarray(significant, dtype=bool)[np.ix_(order, order)]
    out = np.ones(k, dtype=int)
    current = 1
    for pos in range(1, k):
        if rule == "all-below":
            boundary = bool(s[:pos, pos:].all())
        else:
            boundary = bool(s[:pos, pos].all())
        current += boundary
        out[pos] = current
    return out


def wins(significant: np.ndarray) -> np.ndarray:
    """How many systems each system significantly beats (WMT21's WINS column)."""
    s = np.asarray(significant, dtype=bool).copy()
    np.fill_diagonal(s, False)
    return s.sum(axis=1)
