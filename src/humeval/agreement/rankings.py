"""WMT-style agreement for rankings with ties (Callison-Burch et al. 2007–2012; Denkowski & Lavie
2010, Tables 1–2).

Every pair of outputs ranked in one elicitation gives a label: <, = or > (for the pair in a fixed
system order). Inter-annotator agreement is over pairs of different judges who labelled the same
system pair on the same segment; intra-annotator agreement over the same judge's repeated labels
of it. P(A) is the share of identical labels; P(E) = P(<)² + P(=)² + P(>)² from the observed label
distribution (``expected="observed"``), WMT's P(=)² + 2·((1 − P(=))/2)² (``expected="wmt"``), or
WMT07's uniform 1/3 (``expected="uniform"``; 1/2 with ties dropped: Callison-Burch et al. 2007,
§3.3, "three possible outcomes when ranking the output of a pair of systems").
"""

from __future__ import annotations

import numpy as np

from humeval.agreement.kappa import Agreement
from humeval.agreement.pairs import LabelCounts, agreement_from
from humeval.data.tables import Comparisons

REFERENCE_NAMES = ("_ref", "ref", "reference", "human")
EXPECTED = ("observed", "wmt", "uniform")


def ranking_labels(comparisons: Comparisons, exclude=(), drop_ties: bool = False) -> tuple[LabelCounts, np.ndarray, dict]:
    """The labels of the comparisons that can be paired (known segment, systems not excluded):
    0 '=', 1 '<' (the lower-coded system better), 2 '>'. Also the label shares and what was left out."""
    keep = (comparisons.item >= 0) & (comparisons.a != comparisons.b)
    left_out = {"comparisons without a segment": int((comparisons.item < 0).sum())}
    excluded = [i for i, s in enumerate(comparisons.systems) if s in set(exclude)]
    if excluded:
        hit = np.isin(comparisons.a, excluded) | np.isin(comparisons.b, excluded)
        left_out["comparisons with an excluded system"] = int((hit & keep).sum())
        keep &= ~hit
    a, b, outcome = comparisons.a[keep].astype(np.int64), comparisons.b[keep].astype(np.int64), comparisons.outcome[keep]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    label = np.where(a == lo, outcome, np.array([0, 2, 1])[outcome])
    rows = np.nonzero(keep)[0]
    if drop_ties:
        left_out["ties dropped"] = int((label == 0).sum())
        rows, lo, hi, label = rows[label != 0], lo[label != 0], hi[label != 0], label[label != 0]
    n = len(comparisons.systems)
    track = comparisons.track[rows].astype(np.int64)
    unit = ((track * (len(comparisons.items) + 1) + comparisons.item[rows]) * n + lo) * n + hi
    counts = LabelCounts(unit, comparisons.judge[rows].astype(np.int64), label.astype(np.int64), 3)
    counts.rows = rows
    share = np.bincount(label, minlength=3) / max(len(label), 1)
    return counts, share, {k: v for k, v in left_out.items() if v}


def expected_agreement(share: np.ndarray, expected: str = "observed", labels: int = 3) -> float:
    """P(E) of the pairwise labels (module doc); ``labels``: 3 (<, =, >), or 2 with ties dropped."""
    if expected not in EXPECTED:
        raise ValueError(f"expected must be one of {EXPECTED}, not {expected!r}")
    if expected == "uniform":  # WMT07: each of the possible labels equally likely
        return 1.0 / labels
    if expected == "wmt":
        return float(share[0] ** 2 + 2 * ((1 - share[0]) / 2) ** 2)
    return float((share ** 2).sum())


def ranking_agreement(comparisons: Comparisons, exclude=(), drop_ties: bool = False,
                      expected: str = "observed") -> dict[str, Agreement]:
    """Inter- and intra-annotator agreement of pairwise labels: {"inter": …, "intra": …}."""
    counts, share, _ = ranking_labels(comparisons, exclude, drop_ties)
    p_e = expected_agreement(share, expected, 2 if drop_ties else 3)
    name = "WMT ranking kappa" + (" (no ties)" if drop_ties else "")
    return {"inter": agreement_from(*counts.inter(), p_e, name), "intra": agreement_from(*counts.intra(), p_e, name)}
