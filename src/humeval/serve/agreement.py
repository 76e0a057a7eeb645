"""Agreement between annotators who judged the same output, per protocol, for the organiser's page.

Only system outputs' answers count (controls and tutorial items have their own tables), and only
pairs of different annotators (an annotator's repeats are intra-annotator: the quality tables).

- Pairwise and k-way rankings (each k-way answer expanded to its C(k, 2) comparisons): a unit is
  a segment and a pair of systems; ``humeval.agreement.ranking_agreement``'s inter-annotator
  figures: the agreement rate P(A), the share of pairs of different annotators' labels (<, =, >)
  of a unit that are the same, and kappa = (P(A) − P(E)) / (1 − P(E)) with P(E) = Σ_l p_l², p_l
  the share of label l (Fleiss 1971's chance model; WMT's ranking kappa, Callison-Burch et al.
  2007–2012).
- DA, ESA and MQM-lite scores: a unit is a segment and a system; Krippendorff's alpha at the
  interval level (``humeval.agreement.krippendorff_alpha``: alpha = 1 − D_o / D_e) over the units
  two or more annotators scored, each annotator's first score of a unit.

``shared items`` counts the units judged by at least two annotators; with none the page says "not
enough overlap" instead of a number. ``rough`` is true when there are some but fewer than
``FEW_SHARED`` (30): the organiser's page and ``/api/leaderboard`` both flag such a figure, whose
standard error is too large to read its value (kappa's is about
sqrt(P(A)(1 − P(A)) / n) / (1 − P(E)): 0.125 at n = 30 items with P(A) = 0.7, P(E) = 1/3; 0.28 at 6).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.agreement import krippendorff_alpha, ranking_agreement, units_matrix
from humeval.data.tables import Comparisons, Ratings
from humeval.serve import export

COLUMNS = ["shared items", "annotators", "measure", "agreement rate", "value", "rough"]
FEW_SHARED = 30  # fewer shared items than this (and more than none): the figure is rough (see the module doc)


def rough(shared: int) -> bool:
    """Whether an agreement figure from ``shared`` shared items is too rough to read (0 < n < 30)."""
    return 0 < shared < FEW_SHARED


def _shared(unit: np.ndarray, judge: np.ndarray) -> np.ndarray:
    """Whether each row's unit was judged by at least two annotators."""
    df = pd.DataFrame({"unit": unit, "judge": judge})
    return (df.groupby("unit")["judge"].transform("nunique") >= 2).to_numpy()


def comparison_agreement(comparisons: Comparisons) -> dict:
    """One row (``COLUMNS``) for comparisons: units are (segment, system pair)."""
    lo, hi = np.minimum(comparisons.a, comparisons.b), np.maximum(comparisons.a, comparisons.b)
    n = len(comparisons.systems)
    unit = (comparisons.item.astype(np.int64) * n + lo) * n + hi
    shared = _shared(unit, comparisons.judge)
    inter = ranking_agreement(comparisons)["inter"]
    units = len(np.unique(unit[shared]))
    return {"shared items": units, "annotators": len(np.unique(comparisons.judge[shared])),
            "measure": "WMT ranking kappa (inter-annotator)", "agreement rate": inter.p_agree, "value": inter.kappa,
            "rough": rough(units)}


def score_agreement(ratings: Ratings) -> dict:
    """One row (``COLUMNS``) for scores: units are (segment, system), each annotator's first score."""
    unit = ratings.item.astype(np.int64) * len(ratings.systems) + ratings.system
    first = ~pd.DataFrame({"unit": unit, "judge": ratings.judge}).duplicated().to_numpy()
    unit, judge, score = unit[first], ratings.judge[first], ratings.score[first]
    shared = _shared(unit, judge)
    alpha = krippendorff_alpha(units_matrix(unit[shared], score[shared]), "interval")
    units = len(np.unique(unit[shared]))
    return {"shared items": units, "annotators": len(np.unique(judge[shared])),
            "measure": "Krippendorff's alpha (interval)", "agreement rate": float("nan"),
            "value": alpha.kappa if shared.any() else float("nan"), "rough": rough(units)}


def agreement(db, campaign) -> pd.DataFrame:
    """One row per protocol the campaign has system answers of (index ``protocol``)."""
    parts = {"pairwise": (comparison_agreement, export.comparisons(db, campaign))}
    ranked = export.rankings(db, campaign)
    parts["rankings (k-way)"] = (comparison_agreement, ranked.expand() if len(ranked) else None)
    ratings = export.ratings(db, campaign)
    for code, criterion in enumerate(ratings.criteria):
        parts[criterion] = (score_agreement, ratings.take(ratings.criterion == code).compact())
    parts["MQM-lite"] = (score_agreement, export.mqm_ratings(db, campaign))
    rows = {name: how(table) for name, (how, table) in parts.items() if table is not None and len(table)}
    return pd.DataFrame.from_dict(rows, orient="index", columns=COLUMNS).rename_axis("protocol")
