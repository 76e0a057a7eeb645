"""Counting agreeing pairs of labels within units, without enumerating the pairs.

A *unit* is what two judgments must share to be compared (a segment and a system pair; an item,
system and criterion). With c[u, l] labels l in unit u overall and c_j[u, l] by judge j:

- inter-annotator pairs (different judges): Σ_u C(n_u, 2) − Σ_{u,j} C(n_uj, 2), of which
  Σ_{u,l} C(c[u,l], 2) − Σ_{u,j,l} C(c_j[u,l], 2) agree;
- intra-annotator pairs (the same judge twice): Σ_{u,j} C(n_uj, 2), of which Σ C(c_j[u,l], 2) agree.

Judgments without a judge count as judges of their own (inter pairs only).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from humeval.agreement.kappa import Agreement, chance_corrected


def pairs2(n):
    n = np.asarray(n, dtype=float)
    return n * (n - 1) / 2


def _first_seen_codes(keys: np.ndarray) -> np.ndarray:
    """Codes 0, 1, … of the distinct ``keys`` in the order each first occurs (``pd.factorize``'s
    codes, without building a MultiIndex of the (unit, judge) pairs: a tenth of the time)."""
    unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    rank = np.empty(len(unique), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(unique))
    return rank[inverse.ravel()]


@dataclass
class LabelCounts:
    """Labels (0..L−1) with their unit and judge, and the counts the formulas above need."""

    unit: np.ndarray
    judge: np.ndarray
    label: np.ndarray
    n_labels: int

    def __post_init__(self):
        unknown = self.judge < 0
        if unknown.any():  # a judgment without a judge is its own judge
            self.judge = self.judge.astype(np.int64).copy()
            self.judge[unknown] = self.judge.max(initial=0) + 1 + np.arange(unknown.sum())
        self.unit_id, self.unit_index = np.unique(self.unit, return_inverse=True)
        uj = _first_seen_codes(self.unit_index.astype(np.int64) * (int(self.judge.max(initial=0)) + 1) + self.judge)
        self.uj_index = uj
        L = self.n_labels
        n_u, n_uj = len(self.unit_id), (uj.max() + 1 if len(uj) else 0)
        self.c = np.bincount(self.unit_index * L + self.label, minlength=n_u * L).reshape(n_u, L)
        self.cj = np.bincount(uj * L + self.label, minlength=n_uj * L).reshape(n_uj, L)

    def inter(self) -> tuple[float, float]:
        """(agreeing pairs, pairs) over pairs of different judges."""
        total = pairs2(self.c.sum(1)).sum() - pairs2(self.cj.sum(1)).sum()
        agree = pairs2(self.c).sum() - pairs2(self.cj).sum()
        return float(agree), float(total)

    def intra(self) -> tuple[float, float]:
        return float(pairs2(self.cj).sum()), float(pairs2(self.cj.sum(1)).sum())

    def per_judge_inter(self) -> pd.DataFrame:
        """For every judge: pairs with other judges' labels of the same unit, and how many agree."""
        own = self.cj[self.uj_index]  # per row: the judge's own counts in this unit
        others = self.c[self.unit_index] - own
        label_others = others[np.arange(len(self.label)), self.label]
        df = pd.DataFrame({"judge": self.judge, "agree": label_others, "pairs": others.sum(1)})
        return df.groupby("judge")[["agree", "pairs"]].sum()

    def per_judge_intra(self) -> pd.DataFrame:
        own = self.cj[self.uj_index]
        same = own[np.arange(len(self.label)), self.label] - 1  # the judge's other labels of the unit that agree
        df = pd.DataFrame({"judge": self.judge, "agree": same, "pairs": own.sum(1) - 1})
        return (df.groupby("judge")[["agree", "pairs"]].sum() / 2)

    def leave_one_out_majority(self) -> np.ndarray:
        """Per judgment: 1 if it matches the unique most common label among other judges' labels
        of its unit, 0 if not, NaN when there is no other judge or the majority is tied."""
        others = self.c[self.unit_index] - self.cj[self.uj_index]
        top = others.max(axis=1)
        unique_top = (others == top[:, None]).sum(axis=1) == 1
        majority = others.argmax(axis=1)
        hit = (majority == self.label).astype(float)
        return np.where((top > 0) & unique_top, hit, np.nan)


def agreement_from(agree: float, total: float, p_expected: float, method: str) -> Agreement:
    p_agree = agree / total if total else float("nan")
    return Agreement(chance_corrected(p_agree, p_expected), float(p_agree), float(p_expected), int(total), method)
