"""Bootstrap confidence for rankings: score intervals, rank ranges, and WMT's rank clusters.

``bootstrap(model, comparisons, n=1000, by=...)`` refits the model on ``n`` resamples and keeps
every system's score. Resampling units (``by``): single ``comparison``\\s, whole ``ranking``\\s
(all pairs of one k-way ranking), ``segment``\\s or ``judge``\\s; resampling whole units is what
clustered judgments call for. Comparisons without a unit id (e.g. no judge) are units of their own.

A model fitted on coarser units than comparisons keeps them whole even for ``by="comparison"``
(Plackett–Luce resamples whole rankings: its ``bootstrap_unit``); ``BootstrapResult.resampled``
says what was resampled.

Fast paths are the models' own ``bootstrap_scores`` method (``Ranker.bootstrap_scores``):
Bradley–Terry models resample the pair-count table (a multinomial draw over its cells for
``by="comparison"``; for clustered units, per-unit cell counts weighted by how often each unit
was drawn) and refit warm-started, never copying rows; TrueSkill replays all runs in compiled
parallel code (``jobs`` threads; the numbers do not depend on how many). Other models are refitted on resampled rows (``jobs`` processes), each refit a
``clone`` with a seed of its own (``spawn_seeds``), so sampled models (IRT) draw fresh
randomness per resample and the result is reproducible for a fixed ``random_state``.

A system that a resample leaves without comparisons, or outside the resample's largest strongly
connected part (Bradley–Terry), gets NaN there; ``BootstrapResult.failed`` counts them.

Too few judgments: with n resampled units no two systems can be told apart at level 1 − c,
whatever the outcomes, while n < ``fewest_separating(c)`` = ⌈log₂(2/(1 − c))⌉ (6 at 95%): even n
unanimous judgments of one pair have the two-sided sign-test p-value 2 · 2⁻ⁿ > 1 − c. The
bootstrap of so few units is degenerate (three identical judgments resample to themselves: zero-
width intervals, separate clusters), so ``table()`` then puts every system in one cluster with
the full rank range and widens each interval to cover all the estimates and the model's own
± z·std (its posterior or Fisher standard error, when it has one): finite, and honest about
knowing nothing; ``too_few_note`` says so ("too few judgments to separate anything").
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.special import ndtri

from humeval.data.tables import Comparisons
from humeval.experiments.parallel import run_tasks
from humeval.ranking.base import Ranker, check_comparisons, clone, integral, judgment_count, spawn_seeds

UNITS = ("comparison", "ranking", "segment", "judge")


@dataclass
class BootstrapResult:
    """Scores of ``n`` bootstrap refits (``samples``: resamples × systems, NaN where undefined)."""

    systems: tuple[str, ...]
    estimate: pd.Series  # the model fitted on all the data
    samples: np.ndarray
    by: str
    confidence: float
    scale: str = ""
    failed: dict[str, int] = field(default_factory=dict)
    resampled: str = ""  # the unit resampled: ``by``, or the model's coarser ``bootstrap_unit``
    units: float = math.inf  # how many units were resampled (Σ weights for whole-number weights)
    std: pd.Series | None = None  # the model's own standard errors of the estimate, when it has them
    score_is_mean: bool = False  # the table's score is the bootstrap mean (the model's ``bootstrap_score``)

    def __post_init__(self):
        self.resampled = self.resampled or self.by

    @property
    def n(self) -> int:
        return len(self.samples)

    @property
    def too_few(self) -> bool:
        """Whether the units are too few for any two systems to be separated (module doc)."""
        return self.units < fewest_separating(self.confidence)

    def too_few_note(self) -> str:
        """The sentence printed under a table whose intervals ``table()`` widened, or ""."""
        return too_few_note(self.units, self.confidence, self.resampled) + (
            "; one cluster, intervals widened to cover every score" if self.too_few else "")

    def rank_samples(self) -> np.ndarray:
        """Rank of every system in every resample (1 = best; ties share the best rank; NaN stays NaN)."""
        s = self.samples
        valid = ~np.isnan(s)
        filled = np.where(valid, s, -np.inf)
        ranks = 1 + (filled[:, None, :] > filled[:, :, None]).sum(axis=2).astype(float)
        return np.where(valid, ranks, np.nan)

    def score_note(self) -> str:
        """What the table's ``score`` is when it is not the full-data fit, else ""."""
        if not self.score_is_mean:
            return ""
        return (f"score = mean over the {self.n:,} resamples, what the rows are sorted by (as WMT's TrueSkill tables; "
                "one fit replays the comparisons in a single order, so it is not the estimate)")

    def table(self) -> pd.DataFrame:
        """Per system, best first: the estimate (``score``; the bootstrap mean when
        ``score_is_mean``), the bootstrap mean, the score interval
        (percentiles), the marginal rank range (WMT: trimmed to the central ``confidence``
        share), the simultaneous rank range, and the WMT cluster."""
        lo_q, hi_q = (1 - self.confidence) / 2, 1 - (1 - self.confidence) / 2
        s = self.samples
        with np.errstate(all="ignore"), warnings.catch_warnings():
            # a system no resample defined (an all-NaN column) gets NaN, which is the answer: no warning
            warnings.filterwarnings("ignore", "Mean of empty slice|All-NaN slice", RuntimeWarning)
            mean = np.nanmean(s, axis=0) if len(s) else np.full(len(self.systems), np.nan)
            lower, upper = (np.nanquantile(s, q, axis=0) for q in (lo_q, hi_q))
        ranks = self.rank_samples()
        rank_lo, rank_hi = zip(*(trimmed_range(ranks[:, i], self.confidence) for i in range(len(self.systems))))
        sim_lo, sim_hi = simultaneous_rank_intervals(self.estimate.to_numpy(), s, self.confidence)
        df = pd.DataFrame({"score": self.estimate.to_numpy(), "mean": mean, "lower": lower, "upper": upper,
                           "rank_lo": rank_lo, "rank_hi": rank_hi, "sim_rank_lo": sim_lo, "sim_rank_hi": sim_hi,
                           "missing": np.isnan(s).sum(axis=0)},
                          index=pd.Index(self.systems, name="system"))
        if self.too_few:
            self._widen(df)
        if self.score_is_mean:  # the number shown is the one the rows are sorted by
            df["score"] = df["mean"]
        df = df.sort_values(["mean", "score"], ascending=False, kind="stable")
        df["cluster"] = rank_clusters(df["rank_lo"].to_numpy(), df["rank_hi"].to_numpy())
        return df

    def _widen(self, df: pd.DataFrame) -> None:
        """Too few units (module doc): the full rank range for everyone, intervals covering every
        estimate and the model's own ± z·std."""
        defined = df["score"].notna()
        lo, hi = df.loc[defined, "score"].min(), df.loc[defined, "score"].max()
        if self.std is not None:
            z = float(ndtri(1 - (1 - self.confidence) / 2))
            std = self.std.reindex(df.index).to_numpy(dtype=float)
            lo = np.nanmin([lo, np.nanmin(df["score"] - z * std)])
            hi = np.nanmax([hi, np.nanmax(df["score"] + z * std)])
        df.loc[defined, "lower"] = np.fmin(df.loc[defined, "lower"], lo)
        df.loc[defined, "upper"] = np.fmax(df.loc[defined, "upper"], hi)
        for column in ("rank_lo", "sim_rank_lo"):
            df.loc[defined, column] = 1.0
        for column in ("rank_hi", "sim_rank_hi"):
            df.loc[defined, column] = float(defined.sum())


def too_few_note(units: float, confidence: float, unit: str = "comparison") -> str:
    """"too few judgments to separate anything: …" when ``units`` < ``fewest_separating``, else ""."""
    if units >= fewest_separating(confidence):
        return ""
    return (f"too few judgments to separate anything: {units:g} {unit}{'' if units == 1 else 's'}, and at "
            f"{confidence:.0%} no two systems can differ with fewer than {fewest_separating(confidence)}")


def fewest_separating(confidence: float) -> int:
    """The fewest judgments that can separate two systems at ``confidence``: the smallest n with
    2 · 2⁻ⁿ < 1 − confidence (n unanimous judgments of one pair, the two-sided sign test)."""
    return int(math.floor(math.log2(2 / (1 - confidence)))) + 1


def wmt_view(table: pd.DataFrame) -> pd.DataFrame:
    """WMT's columns of a ``BootstrapResult.table()``: score, interval, rank range, simultaneous
    rank range (as "lo–hi" text) and cluster."""
    def span(lo, hi):
        return "-" if np.isnan(lo) else (f"{lo:.0f}" if lo == hi else f"{lo:.0f}–{hi:.0f}")
    view = pd.DataFrame({"score": table["score"], "lower": table["lower"], "upper": table["upper"]})
    view["rank"] = [span(lo, hi) for lo, hi in zip(table["rank_lo"], table["rank_hi"])]
    view["simultaneous"] = [span(lo, hi) for lo, hi in zip(table["sim_rank_lo"], table["sim_rank_hi"])]
    view["cluster"] = table["cluster"]
    return view


def trimmed_range(ranks: np.ndarray, confidence: float) -> tuple[float, float]:
    """WMT's rank range: sort the resamples' ranks, drop ⌈(n − n·confidence)/2⌉ from each end,
    report the smallest and largest left (NaN ranks are left out first)."""
    r = np.sort(ranks[~np.isnan(ranks)])
    if not len(r):
        return (np.nan, np.nan)
    alpha = int(math.ceil((len(r) - len(r) * confidence) / 2 - 1e-9))
    kept = r[alpha:len(r) - alpha] if len(r) > 2 * alpha else r[len(r) // 2:len(r) // 2 + 1]
    return float(kept[0]), float(kept[-1])


def rank_clusters(rank_lo: np.ndarray, rank_hi: np.ndarray) -> np.ndarray:
    """WMT's clusters for systems listed best first: a boundary falls after system i when its
    worst rank is better (smaller) than the best rank of every system below it. Returns the
    cluster number (1 = top) of each system."""
    cluster = np.ones(len(rank_lo), dtype=int)
    current = 1
    for i in range(len(rank_lo)):
        cluster[i] = current
        below = rank_lo[i + 1:]
        if len(below) and np.all(rank_hi[i] < below):
            current += 1
    return cluster


def simultaneous_rank_intervals(estimate: np.ndarray, samples: np.ndarray, confidence: float):
    """Rank intervals that hold for all systems at once (a max-t correction over all pairwise
    differences). With d_st = θ_s − θ_t and its bootstrap standard error se_st, the critical value
    c is the ``confidence`` quantile of max_{s,t} |d*_st − d̂_st| / se_st over resamples; s is
    surely better than t when d̂_st > c·se_st. Then rank(s) ∈ [1 + #{t surely better than s},
    n − #{t surely worse than s}]."""
    n = len(estimate)
    valid = ~np.isnan(estimate)
    if len(samples) < 2 or valid.sum() < 2:
        return np.full(n, np.nan), np.full(n, np.nan)
    diff_hat = estimate[:, None] - estimate[None, :]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN pairs in a resample are expected
        diff = samples[:, :, None] - samples[:, None, :]  # resamples × s × t
        se = np.nanstd(diff, axis=0, ddof=1)
        t = np.abs(diff - diff_hat) / se
        t[:, np.eye(n, dtype=bool)] = np.nan
        worst = np.nanmax(t.reshape(len(samples), -1), axis=1)
    worst = worst[np.isfinite(worst)]
    c = np.quantile(worst, confidence) if len(worst) else np.inf
    with np.errstate(invalid="ignore"):
        better = np.nan_to_num(diff_hat > c * se)  # [s, t]: s surely better than t
    np.fill_diagonal(better, False)
    better &= valid[:, None] & valid[None, :]
    m = valid.sum()
    lo = 1 + better.sum(axis=0)
    hi = m - better.sum(axis=1)
    return np.where(valid, lo, np.nan).astype(float), np.where(valid, hi, np.nan).astype(float)


def units_of(comparisons: Comparisons, by: str) -> tuple[np.ndarray, int, int]:
    """Unit id of every comparison, the number of units, and how many rows lacked a unit id."""
    if by not in UNITS:
        raise ValueError(f"by must be one of {UNITS}, not {by!r}")
    if by == "comparison":
        return np.arange(len(comparisons)), len(comparisons), 0
    column = {"ranking": comparisons.group, "segment": comparisons.item, "judge": comparisons.judge}[by]
    column = column.astype(np.int64)
    missing = column < 0
    ids, unit = np.unique(column[~missing], return_inverse=True)
    out = np.empty(len(comparisons), dtype=np.int64)
    out[~missing] = unit
    out[missing] = len(ids) + np.arange(missing.sum())
    return out, len(ids) + int(missing.sum()), int(missing.sum())


def _refit(task):
    model, comparisons, rows, seed, weight = task
    sample = comparisons.take(rows)
    if weight is not None:  # frequency weights: each drawn row counts as often as it was drawn
        sample._cols["weight"] = weight
    fitted = clone(model, random_state=seed).fit(sample)
    scores = fitted.scores_.reindex(list(comparisons.systems)).to_numpy(dtype=float)
    played = np.bincount(np.concatenate([comparisons.a[rows], comparisons.b[rows]]), minlength=len(comparisons.systems))
    return np.where(played > 0, scores, np.nan)


def bootstrap(model: Ranker, comparisons: Comparisons, n: int = 1000, by: str = "comparison",
              confidence: float = 0.95, random_state=None, jobs: int = 1, progress=None) -> BootstrapResult:
    """Refit ``model`` on ``n`` bootstrap resamples of ``comparisons`` (one track); the result's
    ``resampled`` is ``by`` or, for ``by="comparison"``, the model's ``bootstrap_unit`` if it has one.
    Whole-number weights are frequencies (a streamed dataset's rows count battles): resampling
    single comparisons then draws Σ weights of them, as the duplicated rows would be drawn."""
    comparisons = check_comparisons(comparisons)
    if n < 1:
        raise ValueError("n must be at least 1")
    if not 0 < confidence < 1:
        raise ValueError("confidence is a share between 0 and 1")
    rng = np.random.default_rng(random_state)
    fitted = clone(model).fit(comparisons)
    unit, n_units, _ = units_of(comparisons, by)
    systems = tuple(comparisons.systems)
    failed: dict[str, int] = {}
    if getattr(fitted, "threaded_bootstrap", False):  # compiled runs in threads (TrueSkill): ``jobs`` of them
        from humeval.ranking.trueskill import compiled_threads
        with compiled_threads(jobs):
            samples = fitted.bootstrap_scores(comparisons, None if by == "comparison" else unit, n, rng, progress)
    else:
        samples = fitted.bootstrap_scores(comparisons, None if by == "comparison" else unit, n, rng, progress)
    resampled = (fitted.bootstrap_unit or by) if by == "comparison" and samples is not None else by
    if samples is None:
        seeds = spawn_seeds(rng, n)
        tasks = []
        frequencies = by == "comparison" and comparisons.weighted and integral(comparisons.weight)
        if frequencies:  # whole-number weights count comparisons (streamed counts): draw Σw of them
            total = int(round(comparisons.weight.sum()))
            share = comparisons.weight / comparisons.weight.sum()
        for seed in seeds:
            if frequencies:
                drawn = rng.multinomial(total, share)
                rows = np.nonzero(drawn)[0]
                tasks.append((model, comparisons, rows, seed, drawn[rows].astype(float)))
                continue
            drawn = np.bincount(rng.integers(0, n_units, n_units), minlength=n_units)
            rows = np.repeat(np.arange(len(comparisons)), drawn[unit])
            tasks.append((model, comparisons, rows, seed, None))
        samples = np.array(run_tasks(_refit, tasks, jobs, progress))
    missing = int(np.isnan(samples).sum() - np.isnan(fitted.scores_.to_numpy()).sum() * n)
    if missing > 0:
        failed["system scores left undefined by a resample (NaN)"] = missing
    units = judgment_count(comparisons) if by == "comparison" else float(n_units)
    if resampled == "ranking" and by == "comparison":  # the model's coarser unit
        units = float(units_of(comparisons, "ranking")[1])
    return BootstrapResult(systems, fitted.scores_, samples, by, confidence, getattr(fitted, "scale_", ""), failed,
                           resampled, units, getattr(fitted, "scores_std_", None),
                           getattr(fitted, "bootstrap_score", "fit") == "mean")
