"""Judgment tables: parallel, integer-coded numpy columns plus the label tuples the codes index.

Every table follows one schema (``SCHEMA``): a column is either *coded* (int codes into a
label tuple such as ``systems``; ``-1`` means unknown) or *plain* (values: outcomes, ranks,
scores, texts). Tables are cheap to subset (``take``), split per language pair or task
(``by_track``), concatenate (``concat``), and convert to and from pandas.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Iterable

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Col:
    """One column of a table schema."""

    dtype: Any
    labels: str | None = None  # the label set the codes index; None for plain values
    fill: Any = -1  # value of the column when a reader does not provide it
    ndim: int = 1
    required: bool = False


def encode(*columns: Iterable) -> tuple[list[np.ndarray], tuple[str, ...]]:
    """Integer-code one or more columns of labels against one shared, sorted label tuple.

    Missing values (None, NaN, "") get code -1. Returns one int32 code array per column.
    Numbers become labels without a trailing ".0" (``39.0`` -> ``"39"``).
    """
    parts = [c if isinstance(c, pd.Series) else pd.Series(np.asarray(c, dtype=object)
             if not isinstance(c, (np.ndarray, pd.Categorical)) else c) for c in columns]
    joined = parts[0].reset_index(drop=True) if len(parts) == 1 else \
        pd.concat(parts, ignore_index=True)
    if isinstance(joined.dtype, pd.CategoricalDtype):
        joined = joined.astype(object)
    if joined.dtype == object:
        kind = pd.api.types.infer_dtype(joined, skipna=True)
        if kind in ("integer", "floating", "mixed-integer-float", "decimal"):
            joined = pd.to_numeric(joined)
        elif kind != "string":
            joined = joined.map(_label_str, na_action="ignore")
    codes, uniques = pd.factorize(joined, sort=True)
    labels = [_label_str(u) for u in uniques]
    codes = codes.astype(np.int32)
    if "" in labels:  # an empty cell is a missing label, not a label
        empty = labels.index("")
        codes = np.where(codes == empty, -1, codes - (codes > empty)).astype(np.int32)
        del labels[empty]
    if labels and all(_integer_like(x) for x in labels):  # "7" before "39", as numbers sort
        order = np.argsort([int(x) for x in labels], kind="stable")
        rank = np.empty(len(labels) + 1, dtype=np.int32)
        rank[order], rank[-1] = np.arange(len(labels)), -1
        codes, labels = rank[codes], [labels[i] for i in order]
    out, start = [], 0
    for part in parts:
        out.append(codes[start:start + len(part)])
        start += len(part)
    return out, tuple(labels)


def _as_dtype(values, dtype, name: str) -> np.ndarray:
    """``values`` as a column of ``dtype``; integers that do not fit are an error, not wrapped."""
    values = np.asarray(values)
    if np.issubdtype(dtype, np.integer) and values.size and values.dtype != dtype and \
            (np.issubdtype(values.dtype, np.integer) or np.issubdtype(values.dtype, np.floating)):
        limits = np.iinfo(dtype)
        low, high = np.nanmin(values), np.nanmax(values)
        if low < limits.min or high > limits.max:
            raise ValueError(f"column {name!r} holds {high if high > limits.max else low}, outside the range "
                             f"{limits.min}..{limits.max} of {np.dtype(dtype).name}")
    return np.asarray(values, dtype=dtype)


def _integer_like(label: str) -> bool:
    return label.isdigit() or (label[:1] == "-" and label[1:].isdigit())


def _label_str(value) -> str:
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


class Table:
    """Base of the judgment tables. Subclasses set ``SCHEMA``, ``ATTRS`` and ``NOUN``."""

    SCHEMA: ClassVar[dict[str, Col]] = {}
    ATTRS: ClassVar[dict[str, Any]] = {}  # table-wide attributes and their defaults
    NOUN: ClassVar[str] = "rows"

    def __init__(self, **kwargs):
        label_sets = {c.labels for c in self.SCHEMA.values() if c.labels}
        self._labels = {name: tuple(map(str, kwargs.pop(name, ()))) for name in label_sets}
        self._attrs = {name: kwargs.pop(name, default) for name, default in self.ATTRS.items()}
        given = {name: kwargs.pop(name) for name in list(kwargs) if name in self.SCHEMA}
        if kwargs:
            raise TypeError(f"{type(self).__name__} got unknown arguments: {sorted(kwargs)}")
        missing = [n for n, c in self.SCHEMA.items() if c.required and n not in given]
        if missing:
            raise TypeError(f"{type(self).__name__} needs the columns {missing}")
        n = len(next(iter(given.values())))
        width = next((np.shape(v)[1] for k, v in given.items() if self.SCHEMA[k].ndim == 2
                      and np.ndim(v) == 2), 0)
        self._cols: dict[str, np.ndarray] = {}
        for name, col in self.SCHEMA.items():
            if name in given:
                value = _as_dtype(given[name], col.dtype, name)
            else:
                shape = (n, width) if col.ndim == 2 else (n,)
                value = np.full(shape, col.fill, dtype=col.dtype)
            if len(value) != n or value.ndim != col.ndim:
                raise ValueError(f"column {name!r} has shape {value.shape}, expected {n} rows "
                                 f"and {col.ndim} dimension(s)")
            if col.labels and value.size:
                hi, lo = int(value.max()), int(value.min())
                if lo < -1 or hi >= len(self._labels[col.labels]):
                    raise ValueError(f"column {name!r} has codes outside 0..{len(self._labels[col.labels]) - 1}"
                                     f" of {col.labels!r} (or -1 for unknown)")
            self._cols[name] = value

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        for name in cls.SCHEMA:
            setattr(cls, name, property(lambda self, _n=name: self._cols[_n]))
        for name in {c.labels for c in cls.SCHEMA.values() if c.labels}:
            setattr(cls, name, property(lambda self, _n=name: self._labels[_n]))
        for name in cls.ATTRS:
            setattr(cls, name, property(lambda self, _n=name: self._attrs[_n]))

    # -- basics --------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(next(iter(self._cols.values())))

    @property
    def nbytes(self) -> int:
        """Memory held by the numpy columns (object columns count their pointers only)."""
        return sum(v.nbytes for v in self._cols.values())

    def _rebuild(self, cols: dict[str, np.ndarray], labels: dict[str, tuple] | None = None):
        new = object.__new__(type(self))
        new._cols = cols
        new._labels = dict(self._labels if labels is None else labels)
        new._attrs = dict(self._attrs)
        return new

    def with_columns(self, **columns) -> "Table":
        """The same rows with ``columns`` replaced (each as long as the table, cast to its
        column's dtype); every other column, the label tuples and the attributes are kept."""
        cols = dict(self._cols)
        for name, value in columns.items():
            if name not in self.SCHEMA:
                raise TypeError(f"{type(self).__name__} has no column {name!r}")
            value = _as_dtype(value, self.SCHEMA[name].dtype, name)
            if value.shape != cols[name].shape:
                raise ValueError(f"column {name!r} has shape {value.shape}, expected {cols[name].shape}")
            cols[name] = value
        return self._rebuild(cols)

    def take(self, idx) -> "Table":
        """Rows ``idx`` (integer indices or a boolean mask); the label tuples are kept whole."""
        idx = np.asarray(idx)
        return self._rebuild({k: v[idx] for k, v in self._cols.items()})

    def compact(self) -> "Table":
        """Drop labels no row uses and recode the columns (order of labels is kept)."""
        cols, labels = dict(self._cols), {}
        for label_set, names in self._label_columns().items():
            used = np.unique(np.concatenate([self._cols[n].ravel() for n in names]))
            used = used[used >= 0]
            lookup = np.full(len(self._labels[label_set]) + 1, -1, dtype=np.int64)
            lookup[used] = np.arange(len(used))
            for n in names:  # index -1 reads lookup[-1], which stays -1
                cols[n] = lookup[self._cols[n]].astype(self.SCHEMA[n].dtype)
            labels[label_set] = tuple(self._labels[label_set][i] for i in used)
        return self._rebuild(cols, labels)

    def _label_columns(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for name, col in self.SCHEMA.items():
            if col.labels:
                out.setdefault(col.labels, []).append(name)
        return out

    def by_track(self) -> dict[str, "Table"]:
        """One compacted sub-table per track (language pair or task), in label order."""
        track = self._cols["track"]
        out = {}
        for code, name in enumerate(self._labels["tracks"]):
            mask = track == code
            if mask.any():
                out[name] = self.take(mask).compact()
        if (track < 0).any():
            out["(no track)"] = self.take(track < 0).compact()
        return out

    @classmethod
    def concat(cls, tables: list["Table"]) -> "Table":
        """Stack tables of this type, merging their label tuples."""
        if not tables:
            raise ValueError("concat needs at least one table")
        first = tables[0]
        labels, cols = {}, {}
        for label_set, names in first._label_columns().items():
            merged = tuple(sorted(set().union(*(t._labels[label_set] for t in tables))))
            position = {lab: i for i, lab in enumerate(merged)}
            labels[label_set] = merged
            for n in names:
                parts = []
                for t in tables:
                    lookup = np.array([position[x] for x in t._labels[label_set]] + [-1], dtype=np.int64)
                    parts.append(lookup[t._cols[n]].astype(cls.SCHEMA[n].dtype))
                cols[n] = _stack(parts)
        for n, col in cls.SCHEMA.items():
            if not col.labels:
                cols[n] = _stack([t._cols[n] for t in tables], col.fill)
        return first._rebuild(cols, labels)

    # -- pandas --------------------------------------------------------------------------
    def to_pandas(self) -> pd.DataFrame:
        """A DataFrame with one column per schema column; coded columns become categoricals."""
        data = {}
        for name, col in self.SCHEMA.items():
            values = self._cols[name]
            if col.labels:
                data[name] = _categorical(values, self._labels[col.labels])
            else:
                data[name] = values
        df = pd.DataFrame(data)
        df.attrs.update(self._attrs)
        return df

    @classmethod
    def from_pandas(cls, df: pd.DataFrame, **attrs) -> "Table":
        """Build from a DataFrame whose coded columns hold labels (strings or categoricals)."""
        missing = [n for n, c in cls.SCHEMA.items() if c.required and n not in df]
        if missing:
            raise ValueError(f"{cls.__name__}.from_pandas needs columns {missing}")
        kwargs: dict[str, Any] = {}
        by_set: dict[str, list[str]] = {}
        for name, col in cls.SCHEMA.items():
            if name not in df:
                continue
            if col.labels:
                by_set.setdefault(col.labels, []).append(name)
            elif col.dtype is object:  # text: missing is None, whatever pandas made of it
                kwargs[name] = df[name].astype(object).where(df[name].notna(), None).to_numpy()
            else:
                kwargs[name] = df[name].to_numpy()
        for label_set, names in by_set.items():
            codes, labels = encode(*(df[n] for n in names))
            kwargs.update(zip(names, codes))
            kwargs[label_set] = labels
        for name, default in cls.ATTRS.items():
            kwargs[name] = attrs.get(name, df.attrs.get(name, default))
        return cls(**kwargs)

    # -- display -------------------------------------------------------------------------
    def _count(self, label_set: str, names: list[str] | None = None) -> int:
        names = names or self._label_columns()[label_set]
        codes = np.concatenate([self._cols[n].ravel() for n in names])
        return int(np.unique(codes[codes >= 0]).size)

    def summary(self) -> dict[str, Any]:
        """What is inside, as numbers: rows and distinct labels per label set."""
        out: dict[str, Any] = {self.NOUN: len(self)}
        for label_set in self._label_columns():
            count = self._count(label_set)
            if count:  # a label set nobody filled (no judges in the file) is not news
                out[label_set] = count
        return out

    def __repr__(self) -> str:
        parts = [f"{v:,} {_singular(k) if v == 1 else k}" if isinstance(v, int) else f"{k} {v}"
                 for k, v in self.summary().items()]
        return f"{type(self).__name__}({', '.join(parts)})"


def _singular(noun: str) -> str:
    return {"criteria": "criterion"}.get(noun, noun[:-1] if noun.endswith("s") else noun)


def _categorical(codes: np.ndarray, labels: tuple[str, ...]) -> pd.Categorical:
    return pd.Categorical.from_codes(codes, categories=pd.Index(labels, dtype=object))


def _stack(parts: list[np.ndarray], fill=-1) -> np.ndarray:
    if parts[0].ndim == 1:
        return np.concatenate(parts)
    width = max(p.shape[1] for p in parts)
    padded = [np.pad(p, ((0, 0), (0, width - p.shape[1])), constant_values=fill) for p in parts]
    return np.concatenate(padded)


class Comparisons(Table):
    """Pairwise comparisons: ``outcome`` 0 = tie, 1 = ``a`` preferred, 2 = ``b`` preferred
    (Hopkins & May 2013's preference Π). ``group`` is the elicitation a comparison came from
    (e.g. the id of the 5-way ranking it was expanded from; -1 when it stood alone).

    Arena columns: ``weight`` (how much a comparison counts, 1 by default; an integer weight k
    is the same as k copies of the row), ``bothbad`` (a tie the judge marked "both bad", the
    arenas' ``tie (bothbad)``; ``outcome`` is 0 for it), ``category`` (any label a board can be
    split by: language, prompt category, judge group) and ``covariates`` (n, p): per comparison
    the difference a − b of p numeric features (style control: log length ratio, markdown
    counts), named by the table attribute ``covariate_names``."""

    SCHEMA = {
        "a": Col(np.int32, "systems", required=True),
        "b": Col(np.int32, "systems", required=True),
        "outcome": Col(np.int8, required=True),
        "item": Col(np.int32, "items"),
        "judge": Col(np.int32, "judges"),
        "judge_kind": Col(np.int8, "judge_kinds"),  # who judged: "human" or an automatic judge's name
        "group": Col(np.int32),
        "track": Col(np.int32, "tracks"),
        "weight": Col(np.float64, fill=1.0),
        "bothbad": Col(np.bool_, fill=False),
        "category": Col(np.int32, "categories"),
        "covariates": Col(np.float64, fill=0.0, ndim=2),
    }
    ATTRS = {"covariate_names": ()}
    NOUN = "comparisons"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        names = tuple(str(x) for x in self._attrs["covariate_names"])
        width = self._cols["covariates"].shape[1]
        if len(names) != width:
            raise ValueError(f"covariate_names has {len(names)} names for {width} covariate columns")
        self._attrs["covariate_names"] = names

    @property
    def weighted(self) -> bool:
        """Whether any comparison counts other than once."""
        return bool(len(self)) and not bool(np.all(self.weight == 1.0))

    def to_pandas(self, covariates: bool = True) -> pd.DataFrame:
        """As ``Table.to_pandas``, with one column per covariate (by its name) instead of the
        (n, p) block, or none with ``covariates=False``; a covariate named like a column of the
        table is a ``ValueError`` (it would overwrite that column)."""
        cols = {k: v for k, v in self._cols.items() if k != "covariates"}
        df = pd.DataFrame({name: _categorical(cols[name], self._labels[col.labels]) if col.labels else cols[name]
                           for name, col in self.SCHEMA.items() if name != "covariates"})
        names = self.covariate_names if covariates else ()
        clash = [name for name in names if name in df]
        if clash:
            raise ValueError(f"covariate(s) {clash} are named like columns of the table: rename them, or use "
                             "to_pandas(covariates=False)")
        for j, name in enumerate(names):
            df[name] = self._cols["covariates"][:, j]
        df.attrs.update(self._attrs)
        return df

    @classmethod
    def from_pandas(cls, df: pd.DataFrame, **attrs) -> "Comparisons":
        """As ``Table.from_pandas``; the covariates are the columns named by ``covariate_names``
        (an argument, or the frame's attribute)."""
        names = tuple(attrs.pop("covariate_names", df.attrs.get("covariate_names", ())))
        missing = [n for n in names if n not in df]
        if missing:
            raise ValueError(f"Comparisons.from_pandas: no covariate columns {missing}")
        plain = super().from_pandas(df.drop(columns=list(names)), covariate_names=(), **attrs)
        if not names:
            return plain
        cols = dict(plain._cols)
        cols["covariates"] = df[list(names)].to_numpy(dtype=np.float64)
        new = plain._rebuild(cols)
        new._attrs["covariate_names"] = names
        return new

    def summary(self) -> dict[str, Any]:
        out = super().summary()
        out["ties"] = f"{self.tie_rate:.1%}" if len(self) else "n/a"
        return out

    @property
    def tie_rate(self) -> float:
        return float(np.mean(self.outcome == 0)) if len(self) else float("nan")

    def record(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per system code: (wins, ties, losses), rows counted once each (weights ignored)."""
        n = len(self.systems)
        count = lambda codes: np.bincount(codes, minlength=n)
        wins = count(self.a[self.outcome == 1]) + count(self.b[self.outcome == 2])
        losses = count(self.a[self.outcome == 2]) + count(self.b[self.outcome == 1])
        ties = count(self.a[self.outcome == 0]) + count(self.b[self.outcome == 0])
        return wins, ties, losses

    def tally(self) -> pd.DataFrame:
        """Per system: comparisons, wins, ties, losses, and win share = wins / (wins + losses)."""
        wins, ties, losses = self.record()
        with np.errstate(invalid="ignore", divide="ignore"):
            share = wins / (wins + losses)
        return pd.DataFrame({"comparisons": wins + ties + losses, "wins": wins, "ties": ties,
                             "losses": losses, "win_share": share},
                            index=pd.Index(self.systems, name="system"))

    @property
    def winner(self) -> np.ndarray:
        """System code of the preferred system, -1 for a tie."""
        return np.where(self.outcome == 1, self.a, np.where(self.outcome == 2, self.b, -1))


class Rankings(Table):
    """k-way rankings with ties, one row per elicitation.

    ``system`` and ``rank`` are (n, k): the system shown in each position (-1 for an empty
    slot) and the rank it got (1 best; ties allowed; -1 = left unset). ``output`` (n, k)
    says which displayed output a position belongs to: since WMT15 identical outputs were
    shown once for several systems; systems that shared an output are not compared, or tie
    with ``expand(keep_shared_outputs=True)``.
    ``id`` identifies the ranking and becomes ``group`` of the comparisons it expands to.
    """

    SCHEMA = {
        "system": Col(np.int32, "systems", fill=-1, ndim=2, required=True),
        "rank": Col(np.int32, fill=-1, ndim=2),
        "output": Col(np.int32, fill=-1, ndim=2),
        "item": Col(np.int32, "items"),
        "judge": Col(np.int32, "judges"),
        "track": Col(np.int32, "tracks"),
        "id": Col(np.int32),
    }
    NOUN = "rankings"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        n, k = self._cols["system"].shape
        if (self._cols["output"] < 0).all() and k:
            self._cols["output"] = np.broadcast_to(np.arange(k, dtype=np.int32), (n, k)).copy()
        if (self._cols["id"] < 0).all():
            self._cols["id"] = np.arange(n, dtype=np.int32)

    def expand(self, return_skipped: bool = False, keep_shared_outputs: bool = False):
        """The C(k,2) pairwise comparisons each ranking encodes (Hopkins & May 2013, Table 2).

        For positions i < j holding systems s_i, s_j with ranks r_i, r_j: outcome 1 (s_i
        preferred) if r_i < r_j, 2 if r_i > r_j, 0 if equal. Pairs with an unset rank are
        skipped and counted; so are pairs of a system with itself (the same name in two slots),
        pairs with a ranked slot whose system name is missing (an empty slot, without a rank,
        is not a judgment and not counted), and pairs of systems that shared one output —
        unless ``keep_shared_outputs``, which makes the latter ties, as WMT15–16 expanded them
        (Bojar et al. 2016, §3). With ``return_skipped`` the counts come back as a dict beside
        the comparisons.
        """
        system, rank, output = self._cols["system"], self._cols["rank"], self._cols["output"]
        k = system.shape[1]
        i, j = np.triu_indices(k, 1)
        sa, sb, ra, rb = system[:, i], system[:, j], rank[:, i], rank[:, j]
        both = (sa >= 0) & (sb >= 0)
        shared = both & (output[:, i] == output[:, j])
        if keep_shared_outputs:  # one displayed output has one rank: r_i = r_j, a tie
            rb = np.where(shared, ra, rb)
            shared = np.zeros_like(shared)
        unset = both & ~shared & ((ra < 0) | (rb < 0))
        itself = both & ~shared & ~unset & (sa == sb)
        keep = both & ~shared & ~unset & ~itself
        # a ranked slot without a system name (an empty slot has no rank either)
        nameless_a, nameless_b = (sa < 0) & (ra >= 0), (sb < 0) & (rb >= 0)
        nameless = (nameless_a | nameless_b) & ((sa >= 0) | nameless_a) & ((sb >= 0) | nameless_b)
        row = np.nonzero(keep)[0]
        outcome = np.where(ra < rb, 1, np.where(ra > rb, 2, 0)).astype(np.int8)
        comparisons = Comparisons(
            a=sa[keep], b=sb[keep], outcome=outcome[keep],
            item=self._cols["item"][row], judge=self._cols["judge"][row],
            group=self._cols["id"][row], track=self._cols["track"][row],
            systems=self.systems, items=self.items, judges=self.judges, tracks=self.tracks)
        if not return_skipped:
            return comparisons
        skipped = {"pairs with an unset rank": int(unset.sum()),
                   "pairs of systems that shared one output": int(shared.sum()),
                   "pairs comparing a system with itself": int(itself.sum()),
                   "pairs with a ranked output of no system name": int(nameless.sum())}
        return comparisons, {k: v for k, v in skipped.items() if v}

    def to_pandas(self) -> pd.DataFrame:
        """Long form: one row per (ranking, position) with a system in it."""
        system = self._cols["system"]
        row, pos = np.nonzero(system >= 0)
        cat = _categorical
        return pd.DataFrame({
            "id": self._cols["id"][row], "track": cat(self._cols["track"][row], self.tracks),
            "item": cat(self._cols["item"][row], self.items),
            "judge": cat(self._cols["judge"][row], self.judges), "position": pos,
            "system": cat(system[row, pos], self.systems), "rank": self._cols["rank"][row, pos],
            "output": self._cols["output"][row, pos]})

    @classmethod
    def from_pandas(cls, df: pd.DataFrame, **attrs) -> "Rankings":
        """Inverse of ``to_pandas``: long form with id, system, rank (+ item, judge, track,
        position, output)."""
        for need in ("id", "system", "rank"):
            if need not in df:
                raise ValueError(f"Rankings.from_pandas needs column {need!r}")
        ids, row = np.unique(df["id"].to_numpy(), return_inverse=True)
        pos = df["position"].to_numpy() if "position" in df else \
            df.groupby(row).cumcount().to_numpy()
        n, k = len(ids), int(pos.max()) + 1 if len(df) else 0
        kwargs: dict[str, Any] = {"id": ids.astype(np.int32)}
        [codes], kwargs["systems"] = encode(df["system"])
        grid = lambda values, fill, dtype: _scatter(n, k, row, pos, values, fill, dtype)
        kwargs["system"] = grid(codes, -1, np.int32)
        kwargs["rank"] = grid(df["rank"].to_numpy(), -1, np.int32)
        if "output" in df:
            kwargs["output"] = grid(df["output"].to_numpy(), -1, np.int32)
        first = np.unique(row, return_index=True)[1]
        for name, label_set in (("item", "items"), ("judge", "judges"), ("track", "tracks")):
            if name in df:
                [codes], kwargs[label_set] = encode(df[name].to_numpy()[first])
                kwargs[name] = codes
        return cls(**kwargs)


def _scatter(n, k, row, pos, values, fill, dtype):
    out = np.full((n, k), fill, dtype=dtype)
    out[row, pos] = values
    return out


class Ratings(Table):
    """Absolute scores: one row per (item, system, judge, criterion) score.

    ``criterion`` names what was scored (adequacy, fluency, DA, MQM, or the source column
    when the file does not say). ``kind`` says what was shown when a file mixes system outputs
    with quality controls: ``SYSTEM``, or WMT DA's ``REPEAT``, ``BAD_REF`` (a degraded output),
    ``REF`` (the reference); -1 when the file does not say. ``scale`` describes the range;
    ``higher_is_better`` is False for error scores such as MQM.
    """

    SCHEMA = {
        "item": Col(np.int32, "items"),
        "system": Col(np.int32, "systems"),
        "judge": Col(np.int32, "judges"),
        "judge_kind": Col(np.int8, "judge_kinds"),  # who judged: "human" or an automatic judge's name
        "track": Col(np.int32, "tracks"),
        "criterion": Col(np.int32, "criteria"),
        "kind": Col(np.int8, "kinds"),
        "score": Col(np.float64, required=True),
    }
    ATTRS = {"scale": "", "higher_is_better": True}
    NOUN = "scores"

    def summary(self) -> dict[str, Any]:
        out = super().summary()
        if self.scale:
            out["scale"] = self.scale
        if len(self):
            out["mean"] = f"{np.mean(self.score):.3g}"
        return out


class PostEdits(Table):
    """Post-edits: the MT output (``hypothesis``), its human correction (``post_edit``),
    the source and a reference where given, and the HTER a file reports (NaN if none).

    ``action`` says what the editor did (EDIT, OK = no edit needed, BAD = too bad to edit);
    for OK rows the post-edit is the unchanged output, for BAD rows there is none.
    """

    SCHEMA = {
        "item": Col(np.int32, "items"),
        "system": Col(np.int32, "systems"),
        "editor": Col(np.int32, "editors"),
        "track": Col(np.int32, "tracks"),
        "action": Col(np.int8, "actions"),
        "source": Col(object, fill=None),
        "hypothesis": Col(object, fill=None),
        "post_edit": Col(object, fill=None),
        "reference": Col(object, fill=None),
        "hter": Col(np.float64, fill=np.nan),
    }
    NOUN = "post-edits"
