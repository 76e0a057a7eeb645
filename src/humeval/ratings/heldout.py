"""Which aggregation predicts ratings it did not see? Held-out log-likelihood and error.

Each model is fitted on training ratings and turned into a predictive distribution for a new
rating of system s on segment i by annotator j:

- **raw**: N(m_s, v), m_s the WMT system mean (segment means, then their mean), v the pooled
  variance of the training ratings around their system's m_s.
- **z-mean**: N(μ_j + σ_j z̄_s, σ_j² v_z): the system's mean z-score put back on annotator j's
  scale (μ_j, σ_j from training; the pooled μ, σ for an annotator with fewer than 2 ratings or
  none), v_z the pooled variance of the z-scores around z̄_s.
- **mixed** / **mixed-scale**: the linear mixed model (``humeval.ratings.mixed``), without / with
  the per-annotator noise; N(β_s + b_j + u_i, σ² ω_j + Var β̂_s), unseen terms from their priors.
- **ordinal** (Likert only): the cumulative-logit model's P(y = k) (``humeval.ratings.ordinal``).

Score of a model: the mean log predictive density of the held-out ratings (higher is better),
and the root mean squared error of its predictive mean. On a Likert scale (at most 11 levels)
every Gaussian is turned into level probabilities, P(k) = Φ((c_k⁺ − m)/s) − Φ((c_k⁻ − m)/s) with
cut points halfway between levels (±∞ at the ends), so all models are scored as probabilities
of the level given and the ordinal model competes on equal terms. Ratings of a system with
no training rating cannot be predicted: they are left out and counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from humeval.data.tables import Ratings
from humeval.ratings.aggregate import aggregate
from humeval.ratings.mixed import fit_mixed
from humeval.ratings.ordinal import MAX_LEVELS, fit_ordinal, ordinal_levels

PREDICTORS = ("raw", "z-mean", "mixed", "mixed-scale", "ordinal")


@dataclass
class Coded:
    """Ratings as coded arrays (all subsets share the label sets)."""

    score: np.ndarray
    system: np.ndarray
    item: np.ndarray
    judge: np.ndarray
    systems: tuple[str, ...]
    items: tuple[str, ...]
    judges: tuple[str, ...]
    scale: str = ""
    skipped: dict[str, int] = field(default_factory=dict)

    def take(self, rows) -> "Coded":
        return Coded(self.score[rows], self.system[rows], self.item[rows], self.judge[rows], self.systems,
                     self.items, self.judges, self.scale)

    def __len__(self) -> int:
        return len(self.score)


def coded(ratings: Ratings, source: str = "ratings") -> Coded:
    """One track's ratings checked and coded as ``aggregate`` does (raw scores, higher is better)."""
    agg = aggregate(ratings, "raw", source=source)
    return Coded(agg.raw, agg.system, agg.item, agg.judge, agg.systems, agg.items, agg.judges, ratings.scale,
                 dict(agg.skipped))


def discrete_levels(data: Coded) -> np.ndarray | None:
    """The Likert levels when the scores take at most ``MAX_LEVELS`` values, else None."""
    try:
        return ordinal_levels(data.score, data.scale)
    except ValueError:
        return None


def predictive(model: str, train: Coded, test: Coded, levels: np.ndarray | None):
    """(log score per test rating, predictive mean per test rating) of ``model`` fitted on ``train``."""
    from scipy import stats
    if model == "ordinal":
        if levels is None:
            raise ValueError(f"the ordinal model is for Likert scales (at most {MAX_LEVELS} levels)")
        # the levels of all ratings: a level no training rating has still gets its threshold
        fit = fit_ordinal(train.score, train.system, train.item, train.judge, train.systems, train.items,
                          train.judges, scale=train.scale, standard_errors=False, levels=levels)
        lp = fit.log_proba(test.system, test.item, test.judge)
        return lp[np.arange(len(test)), fit.level_index(test.score)], np.exp(lp) @ levels
    if model == "raw":
        m = _system_means(train, train.score)
        resid = train.score - m[train.system]
        mean, var = m[test.system], np.full(len(test), resid @ resid / max(len(train) - len(train.systems), 1))
    elif model == "z-mean":
        mu, sd = _annotator_scales(train)
        z = (train.score - mu[train.judge]) / sd[train.judge]
        zbar = _system_means(train, z)
        resid = z - zbar[train.system]
        vz = resid @ resid / max(len(train) - len(train.systems), 1)
        mean = mu[test.judge] + sd[test.judge] * zbar[test.system]
        var = sd[test.judge] ** 2 * vz
    elif model in ("mixed", "mixed-scale"):
        fit = fit_mixed(train.score, train.system, train.item, train.judge, train.systems, train.items,
                        train.judges, judge_scale=model == "mixed-scale")
        mean, var = fit.predict(test.system, test.item, test.judge)
    else:
        raise ValueError(f"unknown model {model!r}; choose from {', '.join(PREDICTORS)}")
    sd = np.sqrt(np.maximum(var, 1e-12 * max(float(np.var(train.score)), 1e-12)))  # a fit without spread
    if levels is None:
        return stats.norm.logpdf(test.score, mean, sd), mean
    cuts = np.concatenate([[-np.inf], (levels[1:] + levels[:-1]) / 2, [np.inf]])
    k = np.searchsorted(levels, test.score)
    p = stats.norm.cdf((cuts[k + 1] - mean) / sd) - stats.norm.cdf((cuts[k] - mean) / sd)
    return np.log(np.maximum(p, 1e-300)), mean


def _system_means(data: Coded, values) -> np.ndarray:
    """WMT's system score of ``values``: mean over segments of the (system, segment) means."""
    n_items = max(len(data.items), 1)
    key = data.system.astype(np.int64) * n_items + data.item
    cells, cell = np.unique(key, return_inverse=True)
    cell_mean = np.bincount(cell, values) / np.bincount(cell)
    cell_sys = cells // n_items
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.bincount(cell_sys, cell_mean, len(data.systems)) / np.bincount(cell_sys, minlength=len(data.systems))


def _annotator_scales(data: Coded):
    """Each annotator's mean and sample s.d. (index −1 and annotators with < 2 ratings or s.d. 0:
    the pooled ones), as arrays of length J + 1 so code −1 reads the last entry."""
    k = len(data.judges)
    known = data.judge >= 0
    codes = data.judge[known]
    n = np.bincount(codes, minlength=k).astype(float)
    s1 = np.bincount(codes, data.score[known], k)
    s2 = np.bincount(codes, data.score[known] ** 2, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = s1 / n
        sd = np.sqrt(np.maximum(s2 - n * mu ** 2, 0.0) / (n - 1))
    pooled_mu, pooled_sd = data.score.mean(), data.score.std(ddof=1)
    bad = (n < 2) | ~(sd > 0)
    mu[bad], sd[bad] = pooled_mu, pooled_sd
    return np.append(mu, pooled_mu), np.append(sd, pooled_sd)


@dataclass
class HeldOut:
    """``table``: per model, mean held-out log score and RMSE (best first); ``curve``: mean log score by
    training size (models × sizes); ``best``: the model with the highest held-out log score."""

    table: pd.DataFrame
    curve: pd.DataFrame
    best: str
    measure: str  # "log density" or "log probability of the level"
    n_train: int
    n_test: int
    skipped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def compare_models(ratings: Ratings | Coded, models=None, test_share: float = 0.2, sizes=None, trials: int = 3,
                   random_state=0, source: str = "ratings", progress=None) -> HeldOut:
    """Fit each model on growing random subsets of the training ratings and score it on held-out ones.

    A share ``test_share`` of the ratings is held out (drawn once); ``sizes`` are training sizes
    (default: 1/8, 1/4, 1/2 and all of the rest), each drawn ``trials`` times (once at full size).
    ``models`` default to those that apply: z-mean needs annotator ids, ordinal a Likert scale.
    ``progress(done, total)`` is called after each model's fit.
    """
    data = ratings if isinstance(ratings, Coded) else coded(ratings, source)
    if not 0 < test_share < 1:
        raise ValueError(f"test_share is a share between 0 and 1, not {test_share}")
    levels = discrete_levels(data)
    has_judges = bool((data.judge >= 0).any())
    if models is None:
        models = [m for m in PREDICTORS if (m not in ("z-mean", "mixed-scale") or has_judges)
                  and (m != "ordinal" or levels is not None)]
    rng = np.random.default_rng(random_state)
    order = rng.permutation(len(data))
    n_test = int(round(test_share * len(data)))
    test_rows, pool = order[:n_test], order[n_test:]
    full = len(pool)
    sizes = sorted({int(s) for s in (sizes or (full // 8, full // 4, full // 2, full)) if 0 < int(s) <= full})
    if not sizes:
        raise ValueError(f"no training size between 1 and {full:,}")
    skipped = dict(data.skipped)
    rows: dict[str, dict[int, list[float]]] = {m: {} for m in models}
    final: dict[str, tuple[float, float]] = {}
    total, done = sum(1 if size == full else trials for size in sizes) * len(models), 0
    for size in sizes:
        for trial in range(1 if size == full else trials):
            train_rows = pool if size == full else rng.choice(pool, size, replace=False)
            train = data.take(train_rows)
            seen = np.bincount(train.system, minlength=len(data.systems)) > 0
            test = data.take(test_rows[seen[data.system[test_rows]]])
            if size == full and len(test) < n_test:
                skipped["held-out ratings of systems without training ratings"] = n_test - len(test)
            for model in models:
                logp, mean = predictive(model, train, test, levels)
                rows[model].setdefault(size, []).append(float(np.mean(logp)))
                if size == full:
                    final[model] = (float(np.mean(logp)), float(np.sqrt(np.mean((test.score - mean) ** 2))))
                done += 1
                if progress is not None:
                    progress(done, total)
    curve = pd.DataFrame({size: [np.mean(rows[m][size]) for m in models] for size in sizes},
                         index=pd.Index(models, name="model"))
    table = pd.DataFrame(final, index=["log_score", "rmse"]).T.rename_axis("model")
    table = table.sort_values("log_score", ascending=False)
    best = str(table.index[0])
    measure = "log probability of the level" if levels is not None else "log density"
    notes = [f"held out {n_test:,} of {len(data):,} ratings at random; mean {measure} per held-out rating "
             f"(higher is better) and RMSE of the predictive mean"]
    return HeldOut(table, curve, best, measure, full, n_test, {k: v for k, v in skipped.items() if v}, notes)
