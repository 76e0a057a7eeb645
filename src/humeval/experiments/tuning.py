"""Tuning a preference model's hyperparameters on development tracks by held-out perplexity
(Hopkins & May 2013, §8: the IRT models' σ's were "tuned on development data"; here any
parameter of any preference model, e.g. the Bradley–Terry family's prior precision ``l2``)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from humeval.data.tables import Comparisons
from humeval.experiments.perplexity import MIN_TEST, track_curves
from humeval.ranking.base import PreferenceModel, clone

ALL = 2 ** 62  # a training size above any track's: learning_curve then trains on all of it


@dataclass
class Tuning:
    """``table``: one row per grid point, indexed by its label ("l2=0.1") (its parameters, the perplexity on each development
    track and their mean); ``best``: the parameters with the lowest mean; ``model``: an unfitted
    copy of the model with them."""

    table: pd.DataFrame
    best: dict
    model: PreferenceModel


def select_tracks(comparisons: Comparisons, names) -> Comparisons:
    """The comparisons of the named tracks (unknown names are an error)."""
    unknown = sorted(set(names) - set(comparisons.tracks))
    if unknown:
        raise ValueError(f"unknown tracks {unknown}; the data have {', '.join(comparisons.tracks)}")
    codes = [comparisons.tracks.index(name) for name in names]
    return comparisons.take(np.isin(comparisons.track, codes))


def tune(model: PreferenceModel, comparisons: Comparisons, grid: dict, tracks=None, size: int | None = None,
         trials: int = 1, random_state=None, jobs: int = 1, min_test: int = MIN_TEST) -> Tuning:
    """Grid search: for every combination of the values in ``grid`` (parameter name -> values),
    the model's held-out perplexity on Hopkins & May's split of each development track (``tracks``,
    default all of ``comparisons``), trained on the whole training part (or ``trials`` random
    subsets of ``size``; ``track_curves`` does the work, one seed for every grid point so all see
    the same subsets). The mean over tracks of the perplexity (the mean of the per-track means
    over trials) ranks the grid; ties go to the first grid point."""
    if not grid:
        raise ValueError("an empty grid: give at least one parameter and its values")
    names = list(grid)
    for name in names:
        if name not in model.get_params():
            raise ValueError(f"{type(model).__name__} has no parameter {name!r}; it has "
                             f"{', '.join(model.get_params())}")
        if len(grid[name]) == 0:
            raise ValueError(f"no values for {name}")
    points = [dict(zip(names, values)) for values in itertools.product(*(grid[n] for n in names))]
    models = {label(p): clone(model).set_params(**p) for p in points}
    dev = select_tracks(comparisons, tracks) if tracks is not None else comparisons
    curve = track_curves(dev, models, sizes=(size or ALL,), trials=trials, random_state=random_state,
                         jobs=jobs, min_test=min_test)
    per_track = curve.pivot_table(index="model", columns="track", values="perplexity", aggfunc="mean")
    per_track = per_track.reindex(list(models))
    table = pd.DataFrame(points, index=pd.Index(list(models), name="setting"))
    table = pd.concat([table, per_track.add_prefix("perplexity ").rename_axis(index="setting")], axis=1)
    table["mean perplexity"] = per_track.mean(axis=1)
    best = points[int(np.argmin(table["mean perplexity"].to_numpy()))]
    return Tuning(table=table, best=best, model=clone(model).set_params(**best))


def label(point: dict) -> str:
    return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in point.items())
