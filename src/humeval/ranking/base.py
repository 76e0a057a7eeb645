"""The estimator protocol (scikit-learn style) shared by every ranking and preference model.

``__init__`` only stores parameters; ``fit(comparisons)`` returns self and sets fitted
attributes ending in ``_`` (``systems_``, ``scores_``, and for every model ``components_``,
``record_`` and ``n_judgments_``, see ``Ranker.fit``); ``ranking()`` is a sorted table; preference models add
``predict_proba(a, b)`` -> (n, 3) array of P(tie), P(a preferred), P(b preferred), so every one
of them can be judged by held-out perplexity.

Bootstrap protocol: a model whose refits are cheap says so with the class attribute
``fast_bootstrap = True`` (the campaign report bootstraps only such models); a model with a
faster way than refitting on resampled rows implements ``bootstrap_scores`` (see there).
``clone`` makes unfitted copies, ``spawn_seeds`` the seeds of independent tasks (one policy:
``numpy.random.SeedSequence.spawn``).

Weights protocol: a model that fits on weighted sufficient statistics (it sees the data only
through ``pair_cells``/``pair_counts``, which count each comparison by its ``weight``) says so
with the class attribute ``weighted = True``; it takes a streamed table (one row per distinct
comparison, ``weight`` = how many it stands for, ``humeval.data.stream``) as it is. Every other
model fits on single comparisons: ``Ranker.fit`` repeats each row ``weight`` times first
(``as_rows``), warning how many rows and MB that makes, and refuses non-integer weights.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from abc import ABC, abstractmethod

import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from humeval.data.tables import Comparisons

SWAP = np.array([0, 2, 1])  # the negation π̂ of a preference: 1 <-> 2, ties stay


@functools.cache
def _init_parameters(cls) -> tuple[str, ...]:
    """The names of ``cls.__init__``'s parameters (read once per class: ``inspect.signature`` is
    a tenth of a millisecond, and ``get_params`` runs at every clone and fit of a bootstrap)."""
    return tuple(p for p in inspect.signature(cls.__init__).parameters if p != "self")


class Estimator(ABC):
    """Parameters from ``__init__``, ``get_params``/``set_params``, a readable repr."""

    @classmethod
    def _param_names(cls) -> list[str]:
        return list(_init_parameters(cls))

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
    track = comparisons.track
    if track.min() != track.max():  # no sort of every row unless there are several tracks
        tracks = np.unique(track)
        names = [comparisons.tracks[t] if t >= 0 else "(no track)" for t in tracks]
        raise ValueError(f"comparisons from {len(tracks)} tracks ({', '.join(names)}): fit one track at a time, "
                         "e.g. for name, c in comparisons.by_track().items(): ...")
    return comparisons


def integral(weight: np.ndarray | None) -> bool:
    """Whether ``weight`` (None: no weights) holds whole numbers only: frequency weights, as a
    streamed dataset's counts are, where a weight k is k comparisons."""
    return weight is None or bool(np.all(weight == np.round(weight)))


def judgment_count(comparisons: Comparisons) -> float:
    """How many judgments ``comparisons`` hold: Σ weights when they are whole numbers, else rows."""
    return float(comparisons.weight.sum()) if comparisons.weighted and integral(comparisons.weight) else float(
        len(comparisons))


def distinct(keys: np.ndarray, size: int, inverse: bool = True):
    """``np.unique(keys, return_inverse=inverse, return_counts=True)`` for non-negative integer
    ``keys`` below ``size``: the sorted distinct values, each key's position among them (None
    without ``inverse``) and their counts. By a counting pass, O(n + size), when ``size`` is not
    much larger than the data (pair codes of up to ~1,000 systems, a GRM's judge × segment slots);
    by sorting, O(n log n), otherwise."""
    if size <= 4 * len(keys) + (1 << 20):
        counts = np.bincount(keys, minlength=size)
        values = np.flatnonzero(counts)
        position = (np.cumsum(counts > 0) - 1)[keys] if inverse else None
        return values, position, counts[values]
    if inverse:
        return np.unique(keys, return_inverse=True, return_counts=True)
    values, counts = np.unique(keys, return_counts=True)
    return values, None, counts


def pair_cells(comparisons: Comparisons, n_systems: int | None = None):
    """The pair-count table in sparse form, the one count every model and bootstrap builds on.

    Returns ``(a, b, counts, row_cell)``: the ordered pairs (a shown first, b second, a ≠ b)
    that occur, sorted by (a, b); their counts of (tie, a preferred, b preferred), shape
    (cells, 3), each comparison counted by its ``weight``; and each comparison's cell (−1 for a system compared with itself, which tells
    nothing and is left out). Memory is O(comparisons), not O(systems²).
    """
    n = len(comparisons.systems) if n_systems is None else n_systems
    keep = comparisons.a != comparisons.b
    code = comparisons.a[keep].astype(np.int64) * n + comparisons.b[keep]
    unique, inverse, _ = distinct(code, n * n)
    index = inverse * 3 + comparisons.outcome[keep]
    weight = None if not comparisons.weighted else comparisons.weight[keep]
    counts = np.bincount(index, weights=weight, minlength=3 * len(unique)).reshape(-1, 3).astype(np.float64)
    row_cell = np.full(len(comparisons), -1, dtype=np.int64)
    row_cell[keep] = inverse
    return unique // n, unique % n, counts, row_cell


def pair_counts(comparisons: Comparisons, n_systems: int | None = None) -> np.ndarray:
    """N[a, b, π]: how often ``a`` met ``b`` (in that order) with preference π (dense form of
    ``pair_cells``; self-comparisons left out)."""
    n = len(comparisons.systems) if n_systems is None else n_systems
    a, b, counts, _ = pair_cells(comparisons, n)
    out = np.zeros((n, n, 3))
    out[a, b] = counts
    return out


def components(comparisons: Comparisons, n_systems: int | None = None, cells=None) -> np.ndarray:
    """Component number (1 = the largest) of every system in the comparison graph, whose edges
    join two systems compared at least once (weakly connected components: who won does not
    matter). A system without comparisons is a component of its own. Equal sizes are numbered
    in the order of the systems' first member. ``cells``: ``pair_cells(comparisons, n)`` when
    the caller has it already."""
    n = len(comparisons.systems) if n_systems is None else n_systems
    a, b, _, _ = pair_cells(comparisons, n) if cells is None else cells
    return graph_components(a, b, n)


def graph_components(a, b, n: int) -> np.ndarray:
    """Component number (1 = the largest; equal sizes in the order of their first member) of each
    of ``n`` nodes in the undirected graph with edges (a[i], b[i])."""
    _, labels = connected_components(coo_matrix((np.ones(len(a)), (a, b)), shape=(n, n)), directed=False)
    sizes = np.bincount(labels)
    first = np.full(len(sizes), n)
    np.minimum.at(first, labels, np.arange(n))
    order = np.lexsort((first, -sizes))  # largest first, then by first member
    number = np.empty(len(sizes), dtype=np.int64)
    number[order] = np.arange(1, len(sizes) + 1)
    return number[labels]


KEEP = object()  # clone's default: keep the model's own random_state


def clone(model: "Estimator", random_state=KEEP) -> "Estimator":
    """An unfitted copy of ``model`` with the same parameters. A model with a ``random_state``
    parameter gets ``random_state`` when one is given (callers pass one of ``spawn_seeds``, so
    every refit of a sampled model draws its own randomness, reproducibly)."""
    params = model.get_params()
    if random_state is not KEEP and "random_state" in params:
        params["random_state"] = random_state
    return type(model)(**params)


def spawn_seeds(random_state, n: int) -> list[int]:
    """Seeds of ``n`` independent tasks from one seed (int or None) or a ``numpy`` Generator:
    the children of ``SeedSequence(random_state).spawn(n)``, each reduced to one 32-bit integer
    (a Generator first gives the entropy, so its own stream moves on deterministically)."""
    if isinstance(random_state, np.random.Generator):
        random_state = [int(x) for x in random_state.integers(0, 2 ** 63, 2)]
    return [int(child.generate_state(1)[0]) for child in np.random.SeedSequence(random_state).spawn(n)]


def tolerant_ranks(scores: np.ndarray, rtol: float = 1e-9) -> np.ndarray:
    """Rank 1 = best; scores within ``rtol`` × (1 + |score|) of the next better one share its
    rank (so rounding noise of a solver does not invent an order); NaN scores get NaN."""
    scores = np.asarray(scores, dtype=float)
    ranks = np.full(len(scores), np.nan)
    valid = np.nonzero(~np.isnan(scores))[0]
    order = valid[np.argsort(-scores[valid], kind="stable")]
    for position, i in enumerate(order):
        previous = order[position - 1] if position else None
        if previous is not None and scores[previous] - scores[i] <= rtol * (1 + abs(scores[i])):
            ranks[i] = ranks[previous]
        else:
            ranks[i] = position + 1
    return ranks


def symmetric_counts(counts: np.ndarray) -> np.ndarray:
    """S[s1, s2, π] = |C_π(s1, s2)| + |C_π̂(s2, s1)|: both orders of a pair, from s1's side."""
    return counts + counts.transpose(1, 0, 2)[:, :, SWAP]


class FitWarning(UserWarning):
    """Something about a fit the user must read beside its numbers; the CLI prints these as
    warnings (``cli.common.fit_shown``)."""


class MaterialisedWarning(FitWarning):
    """A model that fits on single comparisons was given weighted rows and repeated them."""


def as_rows(comparisons: Comparisons, model: str = "this model") -> Comparisons:
    """``comparisons`` with each row repeated ``weight`` times and every weight 1 (an integer
    weight k is the same as k copies of the row), for models that fit on single comparisons.
    Unweighted tables come back as they are. Warns (``MaterialisedWarning``) how many rows and
    MB the copies take; a weight that is not a whole number ≥ 0 is a ``ValueError``."""
    if not comparisons.weighted:
        return comparisons
    weight = comparisons.weight
    bad = ~((weight >= 0) & (weight == np.round(weight)) & np.isfinite(weight))
    if bad.any():
        first = int(np.argmax(bad))
        raise ValueError(f"{model} fits on single comparisons and can only repeat rows of whole-number weight; "
                         f"comparison {first} has weight {weight[first]:g} ({int(bad.sum()):,} such rows): use a "
                         "model that fits weighted counts (weighted = True: bt, davidson, rao-kupper, the "
                         "heuristics, independent-pairs/-students, plackett-luce) or round the weights")
    repeats = weight.astype(np.int64)
    rows = comparisons.take(np.repeat(np.arange(len(comparisons)), repeats))
    rows._cols["weight"] = np.ones(len(rows))
    warnings.warn(f"{model} fits on single comparisons: the {len(comparisons):,} weighted rows became "
                  f"{len(rows):,} rows ({rows.nbytes / 2 ** 20:,.1f} MB) in memory", MaterialisedWarning,
                  stacklevel=3)
    return rows


class Ranker(Estimator):
    """A model that scores systems. Subclasses implement ``_fit(comparisons)``."""

    fast_bootstrap = False  # True when a bootstrap of 1,000 resamples takes seconds, not minutes
    # what ``bootstrap_scores`` resamples when asked for single comparisons (unit None), if the model
    # keeps coarser units whole (Plackett–Luce: "ranking"); None = single comparisons
    bootstrap_unit: str | None = None
    weighted = False  # True when _fit sees the data only through weighted counts (pair_cells): see the module doc

    def fit(self, comparisons: Comparisons) -> "Ranker":
        """Fit one track's comparisons. Besides the model's own attributes, every model sets
        ``components_`` (component number per system, ``components``; more than one means some
        systems were never compared, even indirectly, and their scores are not on one scale) and
        ``record_`` (wins, ties, losses per system) and ``n_judgments_`` (how many judgments it
        was fitted on, ``judgment_count``). A model that is not ``weighted`` fits on the rows of a
        weighted table repeated by their weights (``as_rows``)."""
        comparisons = check_comparisons(comparisons)
        self.systems_ = tuple(comparisons.systems)
        self._fit(comparisons if self.weighted else as_rows(comparisons, type(self).__name__))
        self.components_ = components(comparisons, cells=self._pair_cells_of(comparisons))
        wins, ties, losses = comparisons.record()  # the tally's columns, on the fit's own index
        self.record_ = pd.DataFrame({"wins": wins, "ties": ties, "losses": losses}, index=self._system_index())
        self.n_judgments_ = judgment_count(comparisons)
        return self

    @abstractmethod
    def _fit(self, comparisons: Comparisons) -> None:
        """Set the fitted attributes (at least ``scores_``) from one track's comparisons."""

    def _pair_cells_of(self, comparisons: Comparisons):
        """``pair_cells(comparisons)`` if ``_fit`` kept them for this very table (a model on pair
        counts keeps ``_fit_cells = (comparisons, cells)``), else None: the rows are coded once
        per fit and bootstrap, not once per use."""
        kept = getattr(self, "_fit_cells", None)
        return kept[1] if kept is not None and kept[0] is comparisons else None

    def bootstrap_scores(self, comparisons: Comparisons, unit: np.ndarray | None, n: int, rng,
                         progress=None) -> np.ndarray | None:
        """Scores of ``n`` bootstrap resamples without refitting row by row, or None when the
        model has no such fast path (then ``humeval.experiments.bootstrap`` refits on resampled
        rows). Called on the model fitted to ``comparisons``.

        ``unit`` numbers the resampling unit (0 … units − 1) of every comparison; None resamples
        single comparisons. ``rng`` is a numpy Generator. Returns (n, systems) on the scale of
        ``scores_``, NaN where a resample leaves a system undefined."""
        return None

    def _check_fitted(self):
        if not hasattr(self, "systems_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted yet: call fit(comparisons) first")

    def _system_index(self) -> pd.Index:
        """``pd.Index(self.systems_, name="system")``: built once per fit (building an Index of
        strings costs more than the Series around it), each caller given its own view of it (an
        Index's name can be set in place: renaming one result's index must not rename another's)."""
        kept = getattr(self, "_index_of_systems", None)
        if kept is None or kept[0] is not self.systems_:
            kept = self._index_of_systems = (self.systems_, pd.Index(self.systems_, name="system"))
        return kept[1].view()

    def _series(self, values, name="score") -> pd.Series:
        return pd.Series(np.asarray(values, dtype=float), index=self._system_index(), name=name)

    def notes(self) -> pd.Series:
        """Per system, what makes its score rest on assumptions rather than data: "no
        comparisons", "only ties", "never lost" (it won and never lost: its maximum-likelihood
        Bradley–Terry score is infinite, a prior makes it finite), "never won"; "" otherwise."""
        self._check_fitted()
        record = getattr(self, "record_", None)
        if record is None:
            return pd.Series("", index=self._system_index(), name="note")
        w, t, l = (record[c].to_numpy() for c in ("wins", "ties", "losses"))
        note = np.select([w + t + l == 0, w + l == 0, l == 0, w == 0],
                         ["no comparisons", "only ties", "never lost", "never won"], "")
        return pd.Series(note, index=record.index, name="note")

    def groups(self) -> list[list[str]]:
        """The systems of each component of the comparison graph (``components_``), largest
        first; one list when every system is linked to every other by comparisons."""
        self._check_fitted()
        parts = getattr(self, "components_", np.ones(len(self.systems_), dtype=int))
        return [[self.systems_[i] for i in np.nonzero(parts == k)[0]] for k in range(1, int(parts.max()) + 1)]

    def ranking(self) -> pd.DataFrame:
        """Systems from best to worst: score (and its standard deviation where the model has
        one) and rank (tied scores share the best rank; scores equal up to rounding noise count
        as tied, ``tolerant_ranks``). When no comparison has a winner (all ties) everyone
        shares rank 1 whatever the model's scores. A ``component`` column appears when the
        comparison graph falls into parts never compared with each other (ranks across parts
        compare nothing), and a ``note`` column when some system never lost, never won, only
        tied or was never compared (see ``notes``)."""
        self._check_fitted()
        df = self.scores_.to_frame("score")
        if getattr(self, "scores_std_", None) is not None:
            df["std"] = self.scores_std_
        record = getattr(self, "record_", None)
        ranks = tolerant_ranks(df["score"].to_numpy())
        if record is not None and record["wins"].sum() == 0:  # all ties: the data order nobody
            ranks = np.where(record["ties"].to_numpy() > 0, 1.0, ranks)
        df["rank"] = ranks if np.isnan(ranks).any() else ranks.astype(int)
        parts = getattr(self, "components_", None)
        if parts is not None and len(np.unique(parts)) > 1:
            df["component"] = parts
        notes = self.notes()
        if (notes != "").any():
            df["note"] = notes
        return df.sort_values(["rank", "score"], ascending=[True, False], kind="stable", na_position="last")

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
