"""How well completion predicts hidden ratings, and what it does to decisions between systems."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from humeval.completion.completers import RatingMatrix
from humeval.data.tables import Ratings
from humeval.ranking.base import clone


def _named(completers) -> dict:
    return dict(completers) if isinstance(completers, dict) else {type(c).__name__: c for c in completers}


def observed_share(ratings: Ratings) -> float:
    """Filled cells / (judges who rated × (item, system) pairs rated): a judge's repeated ratings
    of one cell fill it once (``RatingMatrix`` averages them), so the share never exceeds 1."""
    m = RatingMatrix(ratings)
    return len(m.value) / (len(np.unique(m.row)) * m.shape[1])


def completion_error(completers, ratings: Ratings, holdout: float = 0.1, trials: int = 3,
                     random_state=0, progress=None) -> pd.DataFrame:
    """Hide a share ``holdout`` of the known ratings, complete the rest, and report per method the
    MAE and RMSE on the hidden ones (mean over ``trials``) and the share of the matrix observed.
    ``progress(done, total)`` is called after each method's fit in each trial."""
    rng = np.random.default_rng(random_state)
    rows = []
    for trial in range(trials):
        hidden = rng.random(len(ratings)) < holdout
        train, test = ratings.take(~hidden), ratings.take(hidden)
        observed = observed_share(train)
        named = _named(completers)
        for position, (name, completer) in enumerate(named.items()):
            predicted = clone(completer).fit(train).predict_ratings(test)
            if progress is not None:
                progress(trial * len(named) + position + 1, trials * len(named))
            ok = ~np.isnan(predicted)
            error = predicted[ok] - test.score[ok]
            rows.append({"method": name, "trial": trial, "MAE": np.mean(np.abs(error)),
                         "RMSE": np.sqrt(np.mean(error ** 2)), "predicted": int(ok.sum()), "observed share": observed})
    df = pd.DataFrame(rows)
    return df.groupby("method")[["MAE", "RMSE", "predicted", "observed share"]].mean().sort_values("RMSE")


def per_judge_curve(completers, ratings: Ratings, counts=(1, 2, 5, 10, 20), holdout: float = 0.2,
                    random_state=0) -> pd.DataFrame:
    """Error against the number of ratings each judge contributes: hide ``holdout`` of the ratings
    for testing, keep at most ``count`` of each judge's remaining ratings, complete, measure RMSE."""
    rng = np.random.default_rng(random_state)
    hidden = rng.random(len(ratings)) < holdout
    train_all, test = ratings.take(~hidden), ratings.take(hidden)
    order = rng.permutation(len(train_all))
    rank_in_judge = pd.Series(train_all.judge[order]).groupby(train_all.judge[order]).cumcount().to_numpy()
    rows = []
    for count in counts:
        keep = np.zeros(len(train_all), dtype=bool)
        keep[order[rank_in_judge < count]] = True
        train = train_all.take(keep)
        for name, completer in _named(completers).items():
            predicted = clone(completer).fit(train).predict_ratings(test)
            ok = ~np.isnan(predicted)
            rows.append({"method": name, "ratings per judge": count, "training ratings": len(train),
                         "RMSE": float(np.sqrt(np.mean((predicted[ok] - test.score[ok]) ** 2)))})
    return pd.DataFrame(rows)


def _decisions(scores: pd.DataFrame, alpha: float) -> dict:
    """Per pair of systems: +1 / −1 when one is significantly better (paired t-test over items at
    ``alpha``), 0 when not; from a table items × systems of mean scores."""
    from scipy import stats
    out = {}
    for s1, s2 in combinations(scores.columns, 2):
        both = scores[[s1, s2]].dropna()
        if len(both) < 3:
            out[(s1, s2)] = 0
            continue
        diff = both[s1] - both[s2]
        p = stats.ttest_1samp(diff, 0.0).pvalue if diff.std() > 0 else (0.0 if diff.mean() != 0 else 1.0)
        out[(s1, s2)] = int(np.sign(diff.mean())) if p < alpha else 0
    return out


def _item_system_means(item, system, score, systems) -> pd.DataFrame:
    df = pd.DataFrame({"item": item, "system": [systems[s] for s in system], "score": score})
    return df.pivot_table(index="item", columns="system", values="score", aggfunc="mean")


def decision_study(ratings: Ratings, completer, reference_share: float = 0.5, common: int = 5, alpha: float = 0.05,
                   trials: int = 5, random_state=0, progress=None) -> pd.DataFrame:
    """Wisniewski's (2013) question: can a few ratings plus completion decide like many ratings?

    Judges are split at random into reference judges (a share ``reference_share``) and working
    judges. The reference decision for every pair of systems comes from all the reference judges'
    ratings (paired t-test over items at ``alpha``: better, worse, or no significant difference).
    From the working judges the same decision is taken (a) from one rating per (item, system),
    (b) from that one rating plus ``common`` ratings per judge on shared columns, completed by
    ``completer`` into every working judge's score for every (item, system), and (c) from all
    their ratings. Reported per condition: the share of system pairs whose decision equals the
    reference one, and the ratings it used (mean over ``trials``). ``progress(done, total)`` is
    called after each trial.
    """
    rng = np.random.default_rng(random_state)
    judges = np.unique(ratings.judge[ratings.judge >= 0])
    if len(judges) < 4:
        raise ValueError("the decision study needs at least 4 judges")
    rows = []
    for trial in range(trials):
        reference = rng.choice(judges, size=max(1, int(round(reference_share * len(judges)))), replace=False)
        is_ref = np.isin(ratings.judge, reference)
        ref, work = ratings.take(is_ref), ratings.take(~is_ref)
        truth = _decisions(_item_system_means(ref.item, ref.system, ref.score, ratings.systems), alpha)
        column = work.item.astype(np.int64) * (len(work.systems) + 1) + work.system
        order = rng.permutation(len(work))
        first = np.zeros(len(work), dtype=bool)
        first[order[~pd.Series(column[order]).duplicated().to_numpy()]] = True  # one rating per column
        shared = np.unique(column)[rng.permutation(len(np.unique(column)))[:common]]
        with_common = first | np.isin(column, shared)
        conditions = {"one rating": work.take(first), "all ratings": work}
        for name, table in conditions.items():
            decided = _decisions(_item_system_means(table.item, table.system, table.score, ratings.systems), alpha)
            rows.append(_agreement_row(trial, name, len(table), decided, truth))
        sparse = work.take(with_common)
        model = clone(completer).fit(sparse)
        full = model.complete(max_cells=50_000_000)
        m = model.matrix_
        item = np.tile(m.column_item, len(m.judges))
        system = np.tile(m.column_system, len(m.judges))
        decided = _decisions(_item_system_means(item, system, full.to_numpy().ravel(), ratings.systems), alpha)
        rows.append(_agreement_row(trial, f"one rating + {common} shared + completion", len(sparse), decided, truth))
        if progress is not None:
            progress(trial + 1, trials)
    df = pd.DataFrame(rows)
    return df.groupby("condition", sort=False)[["ratings", "agreement", "same direction"]].mean()


def _agreement_row(trial, condition, n, decided, truth) -> dict:
    pairs = list(truth)
    same = np.mean([decided.get(p, 0) == truth[p] for p in pairs]) if pairs else np.nan
    direction = [decided.get(p, 0) == truth[p] for p in pairs if truth[p] != 0]
    return {"trial": trial, "condition": condition, "ratings": n, "agreement": same,
            "same direction": np.mean(direction) if direction else np.nan}
