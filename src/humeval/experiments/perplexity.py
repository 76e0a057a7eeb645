"""Judging preference models by held-out perplexity (Hopkins & May 2013, §4 and §8)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from humeval.data.tables import Comparisons
from humeval.experiments.bootstrap import units_of
from humeval.experiments.parallel import run_tasks
from humeval.ranking.base import PreferenceModel, Ranker, clone

SIZES = (100, 200, 400, 800, 1600, 3200)
MIN_TEST = 2000
UNITS = ("comparison", "ranking")  # what a training subset is drawn in (``training_subset``)


@dataclass
class Split:
    """Train and test comparisons of one track, and the k that made the test set."""

    train: Comparisons
    test: Comparisons
    k: int


def hopkins_may_split(comparisons: Comparisons, min_test: int = MIN_TEST) -> dict[str, Split]:
    """Per track: the test set is the comparisons whose source segment appears in at most k
    comparisons, k the smallest positive integer giving at least ``min_test`` of them; the rest
    is training (Hopkins & May 2013, §4).

    "Source segment" is the ``item`` (WMT's ``srcIndex``) within the track, and a segment's
    comparisons are counted after expansion, without the pairs skipped for a blank rank. With
    that reading the split reproduces the WMT10 column of the paper's Table 3 exactly.
    Comparisons without a segment (item −1) always go to training. A track with fewer than
    ``min_test`` comparisons with a segment puts all of them in the test set (k = the largest count).

    The split needs segments judged more than once. When a track has no segment column, or the
    split would leave nothing to train on (an arena log: every prompt judged once), every third
    comparison in file order is the test set instead and ``k`` is 0 (``FALLBACK``).
    """
    out = {}
    for track, c in comparisons.by_track().items():
        known = c.item >= 0
        counts = np.bincount(c.item[known], minlength=max(len(c.items), 1))
        per_comparison = np.where(known, counts[np.maximum(c.item, 0)], np.iinfo(np.int64).max)
        # sizes of the test set for every k: comparisons with a count <= k
        by_count = np.bincount(per_comparison[known], minlength=1)
        cumulative = np.cumsum(by_count)
        reach = np.nonzero(cumulative >= min_test)[0]
        k = int(max(reach[0], 1)) if len(reach) else int(len(by_count) - 1)
        test = per_comparison <= k
        if (not known.any() or test.all()) and len(c) >= 3:
            k, test = 0, np.arange(len(c)) % 3 == 2
        out[track] = Split(train=c.take(~test), test=c.take(test), k=k)
    return out


FALLBACK = "every third comparison (no segment judged twice)"  # how a k = 0 test set was drawn


def perplexity(model: PreferenceModel, test: Comparisons) -> float:
    """2 ** −(1/|D|) Σ log2 Q(π | s1, s2) over the test comparisons (Hopkins & May 2013, §4).

    Test systems are matched to the model's by name, so train and test tables may code them
    differently; a test system the model never saw is an error.
    """
    if not isinstance(model, PreferenceModel):
        raise TypeError(f"{type(model).__name__} is a ranking heuristic, not a preference model: it has no perplexity")
    code = model._codes(np.asarray(test.systems, dtype=object))  # each test system's code in the model, once
    proba = model.predict_proba(code[test.a], code[test.b])
    chosen = proba[np.arange(len(test)), test.outcome]
    with np.errstate(divide="ignore"):
        return float(2.0 ** (-np.mean(np.log2(chosen))))


def _align(train: Comparisons, test: Comparisons) -> Comparisons:
    """Training data whose system labels cover the test systems, so every model can answer
    questions about systems it has no training comparisons for (they keep their prior)."""
    missing = sorted(set(test.systems) - set(train.systems))
    if not missing:
        return train
    systems = tuple(sorted(set(train.systems) | set(missing)))
    position = {s: i for i, s in enumerate(systems)}
    lookup = np.array([position[s] for s in train.systems], dtype=np.int32)
    return Comparisons(a=lookup[train.a], b=lookup[train.b], outcome=train.outcome, item=train.item,
                       judge=train.judge, group=train.group, track=train.track, systems=systems,
                       items=train.items, judges=train.judges, tracks=train.tracks)


def training_subset(train: Comparisons, size: int, unit: str = "comparison", random_state=None) -> np.ndarray:
    """Sorted rows of ``train`` making a random training subset of ``size`` comparisons.

    ``unit="comparison"``: ``size`` comparisons drawn without replacement (Hopkins & May 2013, §8).
    A ranking's pairs then mostly come apart, and a model fitted on whole rankings (Plackett–Luce)
    sees pairs. ``unit="ranking"``: whole rankings (the comparisons sharing a ``group``; a
    comparison with group −1 is a unit of its own) in random order until they hold at least
    ``size`` comparisons, so the subset has up to one ranking's pairs minus one more than ``size``.
    A size at or above ``len(train)`` takes every row either way.
    """
    _check_unit(unit)
    rng = np.random.default_rng(random_state)
    if unit == "comparison":
        return np.sort(rng.choice(len(train), size=min(size, len(train)), replace=False))
    if size >= len(train):
        return np.arange(len(train))
    of_row, n_units, _ = units_of(train, "ranking")
    order = rng.permutation(n_units)
    reached = int(np.searchsorted(np.cumsum(np.bincount(of_row, minlength=n_units)[order]), size))
    return np.flatnonzero(np.isin(of_row, order[:reached + 1]))


def _check_unit(unit: str) -> None:
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {UNITS}, not {unit!r}")


def _trial(task):
    models, train, test, size, trial, seed, unit = task  # seed: this task's own (see _curve_tasks)
    sample = _align(train.take(training_subset(train, size, unit, seed)), test)
    rows = []
    for name, model in models.items():
        fitted = clone(model, random_state=seed).fit(sample)
        rows.append({"model": name, "size": size, "trial": trial, "train": len(sample),
                     "perplexity": perplexity(fitted, test)})
    return rows


def learning_curve(models: dict[str, PreferenceModel] | list[PreferenceModel], train: Comparisons,
                   test: Comparisons, sizes=SIZES, trials: int = 5, random_state=None, jobs: int = 1,
                   progress=None, unit: str = "comparison") -> pd.DataFrame:
    """Perplexity on ``test`` of each model trained on random subsets of ``train`` of each size
    (Hopkins & May 2013, §8; sizes above the training set take all of it), drawn as single
    comparisons or as whole rankings (``unit``, see ``training_subset``).

    Returns a tidy DataFrame (model, size, trial, train, perplexity); ``mean_curve`` averages
    it over trials. Trials run in ``jobs`` processes; ``progress(done, total)`` is called after
    each. Every model of a trial sees the same subset.
    """
    tasks = _curve_tasks(_named(models), train, test, sizes, trials, random_state, unit)
    rows = [row for result in run_tasks(_trial, tasks, jobs, progress) for row in result]
    return pd.DataFrame(rows)


def _curve_tasks(models, train, test, sizes, trials, random_state, unit="comparison") -> list:
    # one seed per (size, trial) task from SeedSequence(random_state), as the published tables used
    _check_unit(unit)
    seeds = np.random.SeedSequence(random_state).generate_state(len(sizes) * trials)
    return [(models, train, test, size, trial, int(seeds[i * trials + trial]), unit)
            for i, size in enumerate(sizes) for trial in range(trials)]


def mean_curve(curve: pd.DataFrame) -> pd.DataFrame:
    """Mean perplexity per model (rows) and training size (columns)."""
    return curve.pivot_table(index="model", columns="size", values="perplexity", aggfunc="mean")


def track_curves(comparisons: Comparisons, models, sizes=SIZES, trials: int = 5, random_state=None,
                 jobs: int = 1, progress=None, expert: Comparisons | None = None,
                 min_test: int = MIN_TEST, unit: str = "comparison") -> pd.DataFrame:
    """``learning_curve`` for every track, on Hopkins & May's split (§4, §8).

    Without ``expert``: train on each track's training part, test on its test part. With
    ``expert`` (the paper's Figure 5): the test sets come from ``expert``'s split, and every
    model is trained twice, on the expert training part and on all of ``comparisons`` (e.g. the
    crowd's); the ``training`` column says which and the model names get " (expert)" or
    " (crowd)". Tracks missing from either table are left out. ``progress(done, total)`` counts
    trials over all tracks. ``unit``: training subsets of single comparisons or whole rankings
    (``training_subset``); the test sets are Hopkins & May's either way (a ranking is of one
    segment, so its pairs fall on one side of the split).
    """
    splits = hopkins_may_split(expert if expert is not None else comparisons, min_test)
    own = comparisons.by_track()
    tracks = [t for t in splits if t in own]
    if not tracks:
        raise ValueError("no track is in both tables")
    if expert is None:
        empty = [t for t in tracks if len(splits[t].train) == 0]
        if empty:
            raise ValueError(f"{', '.join(empty)}: every comparison went to the test set (fewer than min_test = "
                             f"{min_test:,} with a segment), so there is nothing to train on; lower min_test "
                             "(--min-test), e.g. to a third of the track")
    conditions = [("expert", lambda t: splits[t].train), ("crowd", lambda t: own[t])] if expert is not None \
        else [("train split", lambda t: splits[t].train)]
    # one run_tasks for the trials of every track and condition: the workers stay busy across tracks
    models = _named(models)
    parts = [(label, track, _curve_tasks(models, train_of(track), splits[track].test, sizes, trials, random_state,
                                               unit))
             for label, train_of in conditions for track in tracks]
    results = run_tasks(_trial, [task for *_, tasks in parts for task in tasks], jobs, progress)
    frames, start = [], 0
    for label, track, tasks in parts:
        curve = pd.DataFrame([row for result in results[start:start + len(tasks)] for row in result])
        start += len(tasks)
        if expert is not None:
            curve["model"] = curve["model"] + f" ({label})"
        frames.append(curve.assign(track=track, training=label, test=len(splits[track].test),
                                   split=FALLBACK if splits[track].k == 0 else "segments"))
    return pd.concat(frames, ignore_index=True)


def crowd_vs_expert(crowd: Comparisons, expert: Comparisons, models, sizes=SIZES, trials: int = 5,
                    random_state=None, jobs: int = 1, progress=None) -> pd.DataFrame:
    """Hopkins & May's Figure 5: train on crowd comparisons or on expert ones, test on the
    expert test set. Same as ``track_curves(crowd, …, expert=expert)``."""
    return track_curves(crowd, models, sizes, trials, random_state, jobs, progress, expert=expert)


def ability_trials(model: Ranker, train: Comparisons, size: int = 1600, trials: int = 5,
                   random_state=None) -> pd.DataFrame:
    """Hopkins & May's Figure 6 (left): a model's scores fitted on ``trials`` random subsets of
    ``size`` comparisons; per system the mean and standard deviation over trials, best first."""
    rng = np.random.default_rng(random_state)
    scores = []
    for _ in range(trials):
        take = np.sort(rng.choice(len(train), size=min(size, len(train)), replace=False))
        scores.append(clone(model, random_state=int(rng.integers(2 ** 31))).fit(train.take(take)).scores_)
    table = pd.concat(scores, axis=1)
    return pd.DataFrame({"mean": table.mean(axis=1), "std": table.std(axis=1, ddof=1)}).sort_values(
        "mean", ascending=False)


def _named(models) -> dict[str, PreferenceModel]:
    if isinstance(models, dict):
        return dict(models)
    named = {}
    for model in models:
        name = type(model).__name__
        if getattr(model, "reconstruction", None):
            name += f" ({model.reconstruction})"
        named[name] = model
    return named
