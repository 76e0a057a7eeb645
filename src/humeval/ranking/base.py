"""The estimator protocol (scikit-learn style) shared by every ranking and preference model.

``__init__`` only stores parameters; ``fit(comparisons)`` returns self and sets fitted
attributes ending in ``_`` (``systems_``, ``scores_``); ``ranking()`` is a sorted table;
preference models add ``predict_proba(a, b)`` -> (n, 3) array of P(tie), P(a preferred),
P(b preferred), so every one of them can be judged by held-out perplexity.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod

import numpy as np
import pandas as pd

from humeval.data.tables import Comparisons

SWAP = np.array([0, 2, 1])  # the negation π̂ of a preference: 1 <-> 2, ties stay


class Estimator(ABC):
    """Parameters from ``__init__``, ``get_params``/``set_params``, a readable repr."""

    @classmethod
    def _param_names(cls) -> list[str]:
        return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]

    def get_params(self, deep: bool = True) -> dict:
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params) -> "Estimator":
        for name, value in params.items():
            if name not in self._param_names():
                raise ValueError(f"{type(self).__name__} has no parameter {name!r}; "
                                 f"it has {', '.join(self._param_names())}")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        defaults = {p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values()}
        changed = [f"{k}={v!r}" for k, v in self.get_params().items() if defaults.get(k) != v]
        return f"{type(self).__name__}({', '.join(changed)})"


def check_comparisons(comparisons: Comparisons) -> Comparisons:
    """One track, at least one comparison."""
    if not isinstance(comparisons, Comparisons):
        raise TypeError(f"fit takes a Comparisons table, not {type(comparisons).__name__}")
    if len(comparisons) == 0:
        raise ValueError("no comparisons to fit")
    tracks = np.unique(comparisons.track)
    if len(tracks) > 1:
        names = [comparisons.tracks[t] if t >= 0 else "(no track)" for t in tracks]
        raise ValueError(f"comparisons from {len(tracks)} tracks ({', '.join(names)}): fit one track at a time, "
                         "e.g. for name, c in comparisons.by_track().items(): ...")
    return comparisons


def pair_counts(comparisons: Comparisons, n_systems: int | None = None) -> np.ndarray:
    """N[a, b, π]: how often ``a`` met ``b`` (in that order) with preference π."""
    n = len(comparisons.systems) if n_systems is None else n_systems
    index = (comparisons.a.astype(np.int64) * n + comparisons.b) * 3 + comparisons.outcome
    return np.bincount(index, minlength=n * n * 3).reshape(n, n, 3).astype(np.float64)


def symmetric_counts(counts: np.ndarray) -> np.ndarray:
    """S[s1, s2, π] = |C_π(s1, s2)| + |C_π̂(s2, s1)|: both orders of a pair, from s1's side."""
    return counts + counts.transpose(1, 0, 2)[:, :, SWAP]


class Ranker(Estimator):
    """A model that scores systems. Subclasses implement ``_fit(comparisons)``."""

    def fit(self, comparisons: Comparisons) -> "Ranker":
        comparisons = check_comparisons(comparisons)
        self.systems_ = tuple(comparisons.systems)
        self._fit(comparisons)
        return self

    @abstractmethod
    def _fit(self, comparisons: Comparisons) -> None:
        """Set the fitted attributes (at least ``scores_``) from one track's comparisons."""

    def _check_fitted(self):
        if not hasattr(self, "systems_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted yet: call fit(comparisons) first")

    def _series(self, values, name="score") -> pd.Series:
        return pd.Series(np.asarray(values, dtype=float), index=pd.Index(self.systems_, name="system"), name=name)

    def ranking(self) -> pd.DataFrame:
        """Systems from best to worst: score (and its standard deviation where the model has
        one) and rank (tied scores share the best rank)."""
        self._check_fitted()
        df = self.scores_.to_frame("score")
        if getattr(self, "scores_std_", None) is not None:
            df["std"] = self.scores_std_
        df = df.sort_values("score", ascending=False, kind="stable")
        df["rank"] = df["score"].rank(ascending=False, method="min").astype(int)
        return df

    def _codes(self, systems) -> np.ndarray:
        """System codes from codes or names (names are checked against the fitted systems)."""
        values = np.atleast_1d(np.asarray(systems))
        if values.dtype.kind in "iu":
            if values.size and (values.min() < 0 or values.max() >= len(self.systems_)):
                raise ValueError(f"system codes must be in 0..{len(self.systems_) - 1}")
            return values.astype(np.int64)
        index = {name: i for i, name in enumerate(self.systems_)}
        unknown = sorted({str(v) for v in values if v not in index})
        if unknown:
            raise ValueError(f"unknown systems {unknown}; the model was fitted on {list(self.systems_)}")
        return np.array([index[v] for v in values], dtype=np.int64)


class PreferenceModel(Ranker):
    """A distribution Q(π | s1, s2). Subclasses implement ``_proba(a, b)`` on system codes."""

    def predict_proba(self, a, b) -> np.ndarray:
        """(n, 3): P(tie), P(a preferred), P(b preferred) for systems ``a``, ``b`` (codes or names)."""
        self._check_fitted()
        a, b = self._codes(a), self._codes(b)
        if a.shape != b.shape:
            raise ValueError(f"a and b differ in length ({len(a)} and {len(b)})")
        return self._proba(a, b)

    @abstractmethod
    def _proba(self, a, b) -> np.ndarray:
        """(n, 3) probabilities for system codes ``a``, ``b``."""

    def proba_matrix(self) -> np.ndarray:
        """P[s1, s2, π] for every ordered pair of fitted systems."""
        n = len(self.systems_)
        a, b = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
        return self._proba(a, b).reshape(n, n, 3)

    def _default_scores(self) -> None:
        """Expected net wins: the mean over opponents of P(s preferred) − P(opponent preferred)."""
        p = self.proba_matrix()
        net = p[:, :, 1] - p[:, :, 2]
        np.fill_diagonal(net, 0.0)
        n = len(self.systems_)
        self.scores_ = self._series(net.sum(axis=1) / max(n - 1, 1))
