"""How feasible HMEANT is as a human metric: do two annotators of the same output agree?

- ``score_agreement``: Pearson and Kendall τ-b between the two annotators' HMEANT of the outputs
  both annotated (the first two annotators of each output, by name), and their mean |difference|.
- ``alignment_agreement``: Cohen's κ on alignment decisions. The annotators mark frames and roles
  themselves, so decisions are comparable only where both marked the same unit: an output frame
  with the same predicate tokens, or an output role with the same type and tokens. The label is
  how the unit was aligned (full, partial, or not aligned). Also reported: how often the units
  themselves match (predicates: F1 of the two annotators' predicate sets per output).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd

from humeval.agreement.kappa import cohen_kappa
from humeval.metaeval.correlation import kendall, pearson
from humeval.data.hmeant import Annotation


def _pairs_of_annotators(annotations: list[Annotation]):
    by_output = defaultdict(dict)
    for a in annotations:
        if a.output is not None:
            by_output[(a.item, a.system)].setdefault(a.annotator, a)
    for key, anns in by_output.items():
        if len(anns) >= 2:
            first, second = sorted(anns)[:2]
            yield key, anns[first], anns[second]


def score_agreement(scores: pd.DataFrame) -> dict:
    """``scores`` from ``hmeant``: one row per (item, system, annotator)."""
    rows = []
    for (item, system), group in scores.dropna(subset=["hmeant"]).groupby(["item", "system"]):
        if len(group) >= 2:
            g = group.sort_values("annotator")
            rows.append((g.hmeant.iloc[0], g.hmeant.iloc[1]))
    if not rows:
        return {"outputs": 0, "pearson": np.nan, "kendall": np.nan, "mean abs difference": np.nan}
    a, b = np.array(rows).T
    return {"outputs": len(rows), "pearson": pearson(a, b), "kendall": kendall(a, b),
            "mean abs difference": float(np.mean(np.abs(a - b)))}


def _decisions(a: Annotation):
    frame_kind = {out: kind for _, out, kind in a.frame_links}
    role_kind = {}
    for _, out, kind in a.role_links:
        role_kind[out] = "full" if kind == "full" or role_kind.get(out) == "full" else kind
    frames = {tuple(sorted(f.predicate)): frame_kind.get(f.id, "none") for f in a.output.frames}
    roles = {(r.type, tuple(sorted(r.tokens))): role_kind.get(r.id, "none") for f in a.output.frames for r in f.roles}
    return frames, roles


def alignment_agreement(annotations: list[Annotation]) -> pd.DataFrame:
    """κ on frame and role alignment decisions of units both annotators marked (see the module doc)."""
    labels = {"frame": ([], []), "role": ([], [])}
    f1, matched = [], {"frame": [0, 0], "role": [0, 0]}
    for _, a, b in _pairs_of_annotators(annotations):
        (fa, ra), (fb, rb) = _decisions(a), _decisions(b)
        for unit, (x, y) in (("frame", (fa, fb)), ("role", (ra, rb))):
            common = set(x) & set(y)
            matched[unit][0] += len(common)
            matched[unit][1] += len(set(x) | set(y))
            for key in common:
                labels[unit][0].append(x[key])
                labels[unit][1].append(y[key])
        if fa or fb:
            f1.append(2 * len(set(fa) & set(fb)) / (len(fa) + len(fb)))
    rows = []
    for unit, (x, y) in labels.items():
        k = cohen_kappa(x, y) if x else None
        rows.append({"decision": f"{unit} alignment", "units both marked": len(x),
                     "share of units both marked": matched[unit][0] / matched[unit][1] if matched[unit][1] else np.nan,
                     "P(A)": k.p_agree if k else np.nan, "kappa": k.kappa if k else np.nan})
    table = pd.DataFrame(rows).set_index("decision")
    table.attrs["predicate F1"] = float(np.mean(f1)) if f1 else float("nan")
    return table
