"""Arena leaderboards: what a both-bad tie counts as, and one board per category.

Both-bad ties (an arena's ``tie (bothbad)``: the judge found both answers bad; ``Comparisons.bothbad``)
are counted by one of three policies (``both_bad``):

- ``tie`` (default): a tie like any other, as FastChat's leaderboard counts it;
- ``loss``: a loss for both systems against an implicit anchor system ``ANCHOR`` = "(both bad)":
  the battle (a, b) becomes two comparisons, the anchor preferred to a and the anchor preferred to
  b, each with the battle's weight (and no covariates: the anchor wrote no answer). The anchor is
  fitted like a system but, never losing, it tops every board: tables set it aside
  (``set_anchor_aside``) and count ranks among the systems; its score says how often the
  systems' battles end both bad. Scores are identified only up to a shift, and a model that
  centres them ("log-odds, mean 0") centres them over all its systems, the anchor included: the
  tables re-centre them on the real systems (θ'_s = θ_s − (mean of the systems' θ − the stated
  mean), the anchor's score shifted alike), intervals with them: a bootstrap re-centres every
  resample the same way (``drop_system``); the analytic covariance is transformed by the same
  linear map, Cov' = P Cov Pᵀ with P = I − 1 wᵀ, w = 1/R on the R real systems
  (``analytic_intervals``);
- ``drop``: the battle is left out.

Analytic intervals with an anchor (``analytic_intervals``): the simultaneous critical value
(max-|t|, ``humeval.ranking.analytic.critical_value``) is the ``confidence`` quantile of
max_s |Z_s| / σ_s over the real systems only, Z ~ N(0, Cov) restricted to them: the anchor is set
aside from the table, so its interval need not be covered, and counting it would widen every
system's simultaneous interval (the maximum over one more |t| is larger).

Boards (``leaderboards``): the model fitted on all comparisons (the overall board) and on the
comparisons of each value of a label column (category, judge, track, item or group), each with
every system's rank and its rank change against the overall board, Δ = overall rank − board rank
(positive: the system ranks higher on this board than overall; FastChat's arena shows the same
difference per category).
"""

from __future__ import annotations

import dataclasses
import re
import warnings

from typing import Callable

import numpy as np
import pandas as pd

from humeval.data.tables import Comparisons
from humeval.ranking.base import Ranker, clone, tolerant_ranks

POLICIES = ("tie", "loss", "drop")
ANCHOR = "(both bad)"
OVERALL = "(overall)"
BOARD_COLUMNS = {"category": "categories", "judge": "judges", "track": "tracks", "item": "items", "group": None}


def both_bad(comparisons: Comparisons, policy: str = "tie") -> tuple[Comparisons, str]:
    """The comparisons with both-bad ties counted by ``policy`` (see the module docstring), and
    a line saying what was done ("" when there are no both-bad ties)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown both-bad policy {policy!r}: use one of {', '.join(POLICIES)}")
    flagged = comparisons.bothbad
    w = comparisons.weight  # a streamed row counts as many battles as its weight
    n = float(w[flagged].sum())
    if not flagged.any():
        return comparisons, ""
    ties = float(w[comparisons.outcome == 0].sum())
    by_weight = " (by weight)" if comparisons.weighted else ""
    said = f"{n:,.6g} of {ties:,.6g} ties{by_weight} {'is' if n == 1 else 'are'} both-bad ('tie (bothbad)')"
    if policy == "tie":
        return comparisons, f"{said}: counted as ties (--both-bad tie)"
    if policy == "drop":
        return comparisons.take(~flagged), f"{said}: left out (--both-bad drop)"
    if ANCHOR in comparisons.systems:
        raise ValueError(f"a system is named {ANCHOR!r}, the name of the both-bad anchor: rename it")
    return with_anchor(comparisons, flagged), (f"{said}: a loss for both systems against the anchor '{ANCHOR}' "
                                               "(--both-bad loss)")


def with_anchor(comparisons: Comparisons, flagged: np.ndarray) -> Comparisons:
    """Each ``flagged`` comparison (a, b) replaced by (anchor, a) and (anchor, b), the anchor
    preferred; the anchor is the last system."""
    keep = comparisons.take(~flagged)
    bad = comparisons.take(flagged)
    anchor = len(comparisons.systems)
    twice = lambda v: np.concatenate([v, v])
    columns = {name: np.concatenate([getattr(keep, name), twice(getattr(bad, name))])
               for name in ("item", "judge", "group", "track", "weight", "category")}
    covariates = np.concatenate([keep.covariates, np.zeros((2 * len(bad), keep.covariates.shape[1]))])
    k = len(bad)
    return Comparisons(
        a=np.concatenate([keep.a, np.full(2 * k, anchor)]), b=np.concatenate([keep.b, bad.a, bad.b]),
        outcome=np.concatenate([keep.outcome, np.ones(2 * k, dtype=np.int8)]),
        bothbad=np.zeros(len(keep) + 2 * k, dtype=bool), covariates=covariates,
        covariate_names=comparisons.covariate_names, systems=(*comparisons.systems, ANCHOR),
        items=comparisons.items, judges=comparisons.judges, tracks=comparisons.tracks,
        categories=comparisons.categories, **columns)


SCORE_COLUMNS = ("score", "mean", "lower", "upper", "sim_lower", "sim_upper")  # what a shift of the scores moves


def centre(scale: str | None) -> float | None:
    """The mean a model's scale text promises for its scores ("log-odds, mean 0" → 0, "Elo points
    …, mean 1000" → 1000), or None when the scores are not centred (an anchor system at 0,
    TrueSkill's μ, a win rate)."""
    found = re.search(r"\bmean (-?\d+(?:\.\d+)?)\b", scale or "")
    return float(found.group(1)) if found else None


def set_anchor_aside(table: pd.DataFrame, rank_columns=("rank",), scale: str = "") -> tuple[pd.DataFrame, str]:
    """A ranking table without the both-bad anchor's row, its ranks recounted among the systems
    (a rank r below the anchor's r₀ becomes r − 1), and a note giving the anchor's score and
    rank. The anchor never loses, so it tops every board: a landmark, not a contender. When the
    model's ``scale`` text says its scores are centred (``centre``), the score columns are
    re-centred on the systems, so their mean is the stated one (see the module docstring)."""
    if ANCHOR not in table.index:
        return table, ""
    target = centre(scale)
    shift = 0.0
    if target is not None and "score" in table:
        with np.errstate(all="ignore"):
            shift = float(np.nanmean(table["score"].drop(index=ANCHOR).to_numpy(dtype=float))) - target
        shift = 0.0 if np.isnan(shift) else shift
    table = table.copy()
    for column in SCORE_COLUMNS:
        if column in table and shift:
            table[column] = table[column] - shift
    anchor = table.loc[ANCHOR]
    rest = table.drop(index=ANCHOR)
    for column in rank_columns:
        if column in rest:
            r0 = anchor[column]
            rest[column] = rest[column] - (rest[column] > r0)
    if "note" in rest and (rest["note"] == "").all():  # the anchor's "never lost" was the only note
        rest = rest.drop(columns="note")
    score = f"score {anchor['score']:.3g}, " if "score" in table else ""
    centred = (f"; scores centred on the systems (mean {target:g} over them)"
               if target is not None and "score" in table else "")
    return rest, (f"anchor '{ANCHOR}' ({score}rank {anchor[rank_columns[0]]:g} among all) set aside; ranks count "
                  f"the systems only{centred}")


def analytic_intervals(model, kind: str = "fisher", confidence: float = 0.95, clusters=None,
                       random_state=0, cov: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per system: score, std, the pointwise interval (lower, upper = score ∓ z σ, z the normal
    quantile) and the simultaneous one (sim_lower, sim_upper = score ∓ c σ) from the model's
    analytic covariance (``model.covariance``), computed once; c is the max-|t| critical value
    over the systems other than the both-bad anchor (see the module docstring). Without an
    anchor the numbers equal ``model.intervals`` (pointwise and ``simultaneous=True``) with the
    same ``random_state``. ``attrs``: kind, confidence, critical_value (z), simultaneous_value (c)."""
    from humeval.ranking.analytic import critical_value
    cov = (model.covariance(kind, clusters) if cov is None else cov).to_numpy()  # ``cov``: the caller's, computed once
    systems = list(model.systems_)
    block = cov[:len(systems), :len(systems)]  # NaN for systems without comparisons
    real = np.array([s != ANCHOR for s in systems])
    score = model.scores_.to_numpy()
    target = centre(getattr(model, "scale_", ""))
    if not real.all() and target is not None:  # re-centred on the real systems, as set_anchor_aside does
        block = recentred_covariance(block, real)
        score = score - (np.nanmean(score[real]) - target)
    z = critical_value(block, confidence, False)
    c = critical_value(np.nan_to_num(block[np.ix_(real, real)]), confidence, True, random_state)
    std = np.sqrt(np.clip(np.diag(block), 0, None))
    out = pd.DataFrame({"score": score, "std": std, "lower": score - z * std, "upper": score + z * std,
                        "sim_lower": score - c * std, "sim_upper": score + c * std}, index=model.scores_.index)
    out.attrs.update(kind=kind, confidence=confidence, critical_value=z, simultaneous_value=c)
    return out


def recentred_covariance(block: np.ndarray, real: np.ndarray) -> np.ndarray:
    """The covariance of the scores re-centred on the ``real`` systems (θ' = P θ, P = I − 1 wᵀ,
    w = 1/R on the R real systems with a finite variance): P Cov Pᵀ; NaN rows stay NaN."""
    rated = np.isfinite(np.diag(block))
    w = np.where(real & rated, 1.0, 0.0)
    w /= max(w.sum(), 1.0)
    p = np.eye(len(block)) - w[None, :]
    moved = p @ np.where(rated[:, None] & rated[None, :], block, 0.0) @ p.T
    moved[~rated, :] = np.nan
    moved[:, ~rated] = np.nan
    return moved


def drop_system(result, name: str):
    """A ``BootstrapResult`` without one system (the anchor): its table's rank ranges and
    clusters are then among the others, resample by resample. When the result's scale says the
    scores are centred (``centre``), the estimate and every resample are re-centred on the
    remaining systems (the mean stated), as ``set_anchor_aside`` does for a table."""
    if name not in result.systems:
        return result
    keep = np.array([s != name for s in result.systems])
    estimate, samples = result.estimate.drop(index=name), result.samples[:, keep]
    target = centre(result.scale)
    if target is not None:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a resample that defined no system: NaN row
            estimate = estimate - (np.nanmean(estimate.to_numpy(dtype=float)) - target)
            samples = samples - (np.nanmean(samples, axis=1, keepdims=True) - target) if samples.size else samples
    return dataclasses.replace(result, systems=tuple(s for s in result.systems if s != name),
                               estimate=estimate, samples=samples)


def tally(comparisons: Comparisons) -> pd.DataFrame:
    """``Comparisons.tally`` with ties split: ``ties`` (all), of which ``bothbad`` were both-bad."""
    table = comparisons.tally()
    n = len(comparisons.systems)
    flagged = comparisons.bothbad
    both = np.bincount(comparisons.a[flagged], minlength=n) + np.bincount(comparisons.b[flagged], minlength=n)
    table.insert(table.columns.get_loc("ties") + 1, "bothbad", both)
    return table


def board_values(comparisons: Comparisons, by: str) -> tuple[np.ndarray, tuple[str, ...]]:
    """The board of every comparison (−1: none) and the board names, for a label column."""
    if by not in BOARD_COLUMNS:
        raise ValueError(f"boards split by one of {', '.join(BOARD_COLUMNS)}, not {by!r}")
    codes = getattr(comparisons, by)
    labels = BOARD_COLUMNS[by]
    if labels:
        return codes, tuple(getattr(comparisons, labels))
    values = np.unique(codes[codes >= 0])
    lookup = np.full(int(values.max()) + 2 if len(values) else 1, -1)
    lookup[values] = np.arange(len(values))
    return np.where(codes >= 0, lookup[codes], -1), tuple(str(v) for v in values)


def ranking_table(model: Ranker, comparisons: Comparisons) -> pd.DataFrame:
    """The default board of a fitted model: its ``ranking()``."""
    return model.ranking()


def leaderboards(model: Ranker, comparisons: Comparisons, by: str = "category",
                 table: Callable[[Ranker, Comparisons], pd.DataFrame] = ranking_table,
                 min_systems: int = 2) -> tuple[pd.DataFrame, list[str]]:
    """The overall board and one board per value of the label column ``by``, as one long table.

    ``model`` is cloned and fitted on each board's comparisons (one track's, or with ``by="track"``
    one board per track and all tracks pooled for the overall one); ``table(fitted,
    comparisons)`` gives a board indexed by system with a ``score`` column (and ``rank``, else
    ranks come from the scores; intervals where it computes them, e.g. a bootstrap's
    ``lower``/``upper``). Columns: board, system, rank, overall_rank, rank_change (overall rank
    − board rank), comparisons (the system's comparisons on the board, by weight), then the
    board's own columns. Boards with fewer than ``min_systems`` systems are left out and named
    in the returned notes."""
    codes, names = board_values(comparisons, by)
    frames, notes = [], []
    overall = _board(model, one_track(comparisons) if by == "track" else comparisons, table)
    frames.append(overall.assign(board=OVERALL))
    for code, name in enumerate(names):
        part = comparisons.take(codes == code).compact()
        if len(part.systems) < min_systems or not len(part):
            if (codes == code).any():
                notes.append(f"board {name!r} left out: {len(part.systems)} system(s) compared")
            continue
        frames.append(_board(model, part, table).assign(board=name))
    if (codes < 0).any():
        n = int((codes < 0).sum())
        notes.append(f"{n:,} comparison has no {by}: it counts on the overall board only" if n == 1 else
                     f"{n:,} comparisons have no {by}: they count on the overall board only")
    long = pd.concat(frames).reset_index()
    long["overall_rank"] = long["system"].map(overall["rank"])
    long["rank_change"] = long["overall_rank"] - long["rank"]
    played = long["comparisons"].to_numpy(dtype=float)
    if np.isfinite(played).all() and (played == np.round(played)).all():  # unweighted, or whole weights: counts
        long["comparisons"] = played.astype(np.int64)
    first = ["board", "system", "rank", "overall_rank", "rank_change", "comparisons"]
    return long[first + [c for c in long.columns if c not in first]], notes


def one_track(comparisons: Comparisons) -> Comparisons:
    """The comparisons with their track cleared: all tracks pooled into one (the overall board
    when the boards are the tracks)."""
    columns = {name: getattr(comparisons, name) for name in Comparisons.SCHEMA if name != "track"}
    labels = {name: getattr(comparisons, name) for name in ("systems", "items", "judges", "categories", "judge_kinds")}
    return Comparisons(**columns, **labels, covariate_names=comparisons.covariate_names)


def _board(model: Ranker, comparisons: Comparisons, table) -> pd.DataFrame:
    fitted = clone(model).fit(comparisons)
    board = table(fitted, comparisons).copy()
    if "rank" not in board:
        ranks = tolerant_ranks(board["score"].to_numpy())
        board["rank"] = ranks if np.isnan(ranks).any() else ranks.astype(int)
    board, _ = set_anchor_aside(board, scale=getattr(fitted, "scale_", "") or "")
    n = len(comparisons.systems)
    weight = comparisons.weight
    played = np.bincount(comparisons.a, weight, minlength=n) + np.bincount(comparisons.b, weight, minlength=n)
    board["comparisons"] = pd.Series(played, index=list(comparisons.systems)).reindex(board.index).to_numpy()
    return board.sort_values(["rank", "score"], ascending=[True, False], kind="stable")
