"""Chance-corrected agreement: K = (P(A) − P(E)) / (1 − P(E)), always with its parts.

Denkowski & Lavie (2010, §3) report every kappa with P(A), the observed agreement, and P(E),
the agreement expected by chance; so does every function here, with the number of judgment
pairs it rests on. Krippendorff's alpha comes from the ``krippendorff`` package, except at the
interval level, computed from sums of squares (the package needs units × values² memory).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

WEIGHTS = (None, "linear", "quadratic")


@dataclass(frozen=True)
class Agreement:
    """A chance-corrected agreement coefficient and what it rests on."""

    kappa: float
    p_agree: float  # P(A)
    p_expected: float  # P(E)
    pairs: int  # judgment pairs compared (for alpha: pairable values)
    method: str

    def as_dict(self) -> dict:
        return {"method": self.method, "P(A)": self.p_agree, "P(E)": self.p_expected, "kappa": self.kappa,
                "pairs": self.pairs}


def chance_corrected(p_agree: float, p_expected: float) -> float:
    """K = (P(A) − P(E)) / (1 − P(E)); NaN when P(E) = 1 (one category: nothing to correct)."""
    if np.isnan(p_agree) or np.isnan(p_expected) or p_expected >= 1.0:
        return float("nan")
    return float((p_agree - p_expected) / (1.0 - p_expected))


def _disagreement(k: int, weights: str | None) -> np.ndarray:
    i, j = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    if weights is None:
        return (i != j).astype(float)
    if weights not in WEIGHTS:
        raise ValueError(f"weights must be one of {WEIGHTS}, not {weights!r}")
    scale = max(k - 1, 1)
    return np.abs(i - j) / scale if weights == "linear" else (i - j) ** 2 / scale ** 2


def cohen_kappa(x, y, weights: str | None = None, categories=None) -> Agreement:
    """Cohen's kappa for two raters' labels of the same items (Cohen 1960; weighted: Cohen 1968).

    With disagreement weights w (0 on the diagonal; ``linear`` |i − j| / (k − 1), ``quadratic``
    its square), P(A) = 1 − Σ w·observed and P(E) = 1 − Σ w·(row margin × column margin); without
    weights these are the share of identical labels and Σ_c p₁(c) p₂(c). Ordered categories are
    the sorted labels unless ``categories`` gives them. Pairs with a missing label are dropped.
    """
    x, y = np.asarray(x, dtype=object), np.asarray(y, dtype=object)
    if len(x) != len(y):
        raise ValueError(f"x and y differ in length ({len(x)} and {len(y)})")
    keep = pd.notna(x) & pd.notna(y)
    x, y = x[keep], y[keep]
    cats = list(categories) if categories is not None else sorted(set(x) | set(y))
    index = {c: i for i, c in enumerate(cats)}
    k, n = len(cats), len(x)
    if n == 0:
        return Agreement(float("nan"), float("nan"), float("nan"), 0, _name("Cohen", weights))
    table = np.zeros((k, k))
    np.add.at(table, ([index[v] for v in x], [index[v] for v in y]), 1)
    table /= n
    w = _disagreement(k, weights)
    expected = np.outer(table.sum(axis=1), table.sum(axis=0))
    p_agree, p_expected = 1 - (w * table).sum(), 1 - (w * expected).sum()
    return Agreement(chance_corrected(p_agree, p_expected), float(p_agree), float(p_expected), n,
                     _name("Cohen", weights))


def _name(base, weights):
    return f"{base} kappa" + (f" ({weights} weights)" if weights else "")


def fleiss_kappa(table) -> Agreement:
    """Fleiss' kappa (1971) from an items × categories table of how many raters chose each category.

    P(A) = mean over items of Σ_c n_ic (n_ic − 1) / (n_i (n_i − 1)); P(E) = Σ_c p_c², p_c the
    share of all ratings in category c. Items may have different numbers of raters (each item's
    agreement is over its own pairs); items with fewer than two ratings are left out.
    """
    table = np.asarray(table, dtype=float)
    raters = table.sum(axis=1)
    table = table[raters >= 2]
    raters = raters[raters >= 2]
    if not len(table):
        return Agreement(float("nan"), float("nan"), float("nan"), 0, "Fleiss kappa")
    per_item = (table * (table - 1)).sum(axis=1) / (raters * (raters - 1))
    p_agree = float(per_item.mean())
    share = table.sum(axis=0) / table.sum()
    p_expected = float((share ** 2).sum())
    pairs = int((raters * (raters - 1) / 2).sum())
    return Agreement(chance_corrected(p_agree, p_expected), p_agree, p_expected, pairs, "Fleiss kappa")


def units_matrix(units, values) -> np.ndarray:
    """Raters × units matrix (NaN = missing) from long (unit, value) pairs. Rater identity does
    not matter to alpha, which only pairs values within a unit, so each unit's values are stacked
    in the order given."""
    codes, uniques = pd.factorize(pd.Series(units), sort=False)
    values = np.asarray(values, dtype=float)
    keep = (codes >= 0) & ~np.isnan(values)
    codes, values = codes[keep], values[keep]
    order = np.argsort(codes, kind="stable")
    codes, values = codes[order], values[order]
    position = np.arange(len(codes)) - np.searchsorted(codes, codes)
    depth = int(position.max()) + 1 if len(codes) else 1
    matrix = np.full((max(depth, 2), len(uniques)), np.nan)
    matrix[position, codes] = values
    return matrix


def krippendorff_alpha(reliability_data, level: str = "nominal") -> Agreement:
    """Krippendorff's alpha (``krippendorff`` package) on a raters × units matrix with NaN for
    missing values; ``level`` is nominal, ordinal, interval or ratio. alpha = 1 − D_o / D_e. For
    the nominal level P(A) = 1 − D_o and P(E) = 1 − D_e = Σ_c n_c (n_c − 1) / (n (n − 1)) over the
    pairable values; other levels have no such reading and report NaN for both."""
    import krippendorff
    data = np.asarray(reliability_data, dtype=float)
    columns = [col[~np.isnan(col)] for col in data.T]
    pooled = [col for col in columns if len(col) >= 2]
    pairable = int(sum(len(col) for col in pooled))
    name = f"Krippendorff alpha ({level})"
    if pairable == 0 or len(np.unique(np.concatenate(pooled))) < 2:  # nothing to pair, or one value only
        one = pairable > 0
        return Agreement(float("nan"), 1.0 if one else float("nan"), 1.0 if one else float("nan"), pairable, name)
    if level == "interval":  # closed form, memory O(values) (the package builds units × V × V arrays)
        alpha = _interval_alpha(pooled)
    else:
        alpha = float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
    if level != "nominal":
        return Agreement(alpha, float("nan"), float("nan"), pairable, name)
    _, counts = np.unique(np.concatenate(pooled), return_counts=True)
    p_expected = float((counts * (counts - 1)).sum() / (pairable * (pairable - 1)))
    p_agree = 1 - (1 - alpha) * (1 - p_expected)
    return Agreement(alpha, float(p_agree), p_expected, pairable, name)


def _interval_alpha(units: list[np.ndarray]) -> float:
    """Interval alpha from sums of squares: with δ² = (c − k)², a unit's ordered pairs give
    Σ_ij (x_i − x_j)² = 2 m_u SS_u (SS_u = Σ (x_i − x̄_u)²), so D_o = Σ_u 2 SS_u m_u/(m_u − 1) / n and
    D_e = 2 SS / (n − 1) over all n pairable values (Krippendorff 2011, interval metric)."""
    within = sum(2 * len(u) * ((u - u.mean()) ** 2).sum() / (len(u) - 1) for u in units)
    values = np.concatenate(units)
    n = len(values)
    return float(1 - (within / n) / (2 * ((values - values.mean()) ** 2).sum() / (n - 1)))
