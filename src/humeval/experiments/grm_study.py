"""The experiments of the graded-response paper (EMNLP 2016, §6–7), reusable on any campaign.

- ``gold_scores``: the mean TrueSkill score over bootstrap resamples of all comparisons (WMT14–15's
  official procedure, the paper's gold standard).
- ``budget_study``: for budgets of comparisons, Pearson correlation and nDCG of each model's scores
  with the gold: the GRM against each baseline (trained on comparisons with that baseline), Expected
  Wins and Hopkins & May's IRT-Gaussian (on random comparisons), TrueSkill (choosing its comparisons
  actively from all of them, as the paper did).
- ``baseline_balance`` and ``propose_baseline``: how a baseline's win/loss balance goes with the
  result, and the baseline whose automatic-metric score (or win rate) is closest to the mean.
- ``baseline_by_metric``: the paper's Fig. 4 — each baseline's automatic-metric score, centred on
  the mean over systems and scaled so the best system is at 1, beside the GRM's agreement with it.
- ``budget_study`` also fits Baba & Kashima's two-stage model (``TwoStage``, the paper's "TSt") to
  the same comparisons with each baseline as the GRM.
- ``noise_study``: replace a share of the judges by judges answering uniformly at random and
  measure how far each model's correlation with the gold falls (the paper's Table 1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.data.tables import Comparisons
from humeval.experiments.bootstrap import bootstrap
from humeval.metaeval import ndcg
from humeval.ranking import GRM, ExpectedWins, IRTGaussian, TrueSkill, TwoStage

BUDGETS = (800, 1600, 3200, 6400)
TWO_STAGE = "Two-stage (Baba & Kashima)"


def gold_scores(comparisons: Comparisons, n: int = 1000, random_state=0, progress=None) -> pd.Series:
    """Mean TrueSkill μ over ``n`` bootstrap resamples of all the comparisons (``progress(done,
    total)`` as ``bootstrap`` calls it)."""
    result = bootstrap(TrueSkill(), comparisons, n=n, random_state=random_state, progress=progress)
    return pd.Series(np.nanmean(result.samples, axis=0), index=pd.Index(result.systems, name="system"), name="gold")


def _scores_vs_gold(scores: pd.Series, gold: pd.Series) -> tuple[float, float]:
    from scipy.stats import pearsonr
    common = scores.dropna().index.intersection(gold.index)
    r = pearsonr(scores[common], gold[common]).statistic if len(common) > 2 else np.nan
    return float(r), ndcg(scores, gold)


def _sample(rng, rows: np.ndarray, budget: int) -> np.ndarray:
    return np.sort(rng.choice(rows, size=min(budget, len(rows)), replace=False))


def budget_study(comparisons: Comparisons, gold: pd.Series | None = None, baselines=None, budgets=BUDGETS,
                 trials: int = 5, random_state=0, progress=None, two_stage: bool = True) -> pd.DataFrame:
    """One row per (model, baseline, budget, trial) with Pearson r and nDCG against the gold; with
    ``two_stage``, the two-stage model on the GRM's sample for every baseline too."""
    gold = gold_scores(comparisons, random_state=random_state) if gold is None else gold
    baselines = list(comparisons.systems) if baselines is None else list(baselines)
    rng = np.random.default_rng(random_state)
    everything = np.arange(len(comparisons))
    rows, total, done = [], len(budgets) * trials * ((1 + two_stage) * len(baselines) + 3), 0

    def record(model, baseline, budget, trial, scores):
        nonlocal done
        r, n = _scores_vs_gold(scores, gold)
        rows.append({"model": model, "baseline": baseline, "budget": budget, "trial": trial, "pearson": r, "ndcg": n})
        done += 1
        if progress:
            progress(done, total)

    for budget in budgets:
        for trial in range(trials):
            sample = comparisons.take(_sample(rng, everything, budget))
            record("Expected Wins", "", budget, trial, ExpectedWins().fit(sample).scores_)
            record("IRT-Gaussian (H&M)", "", budget, trial,
                   IRTGaussian(random_state=int(rng.integers(2 ** 31))).fit(sample).scores_)
            record("TrueSkill (active)", "", budget, trial,
                   TrueSkill(order="active", n_matches=budget, random_state=int(rng.integers(2 ** 31)))
                   .fit(comparisons).scores_)
            for baseline in baselines:
                code = comparisons.systems.index(baseline)
                with_base = np.nonzero((comparisons.a == code) ^ (comparisons.b == code))[0]
                sample = comparisons.take(_sample(rng, with_base, budget))
                record("GRM", baseline, budget, trial, GRM(baseline=baseline).fit(sample).scores_)
                if two_stage:
                    record(TWO_STAGE, baseline, budget, trial, TwoStage(baseline=baseline).fit(sample).scores_)
    return pd.DataFrame(rows)


def baseline_balance(comparisons: Comparisons, study: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per system as a baseline: the shares of its comparisons it wins, ties and loses, and (given a
    ``budget_study``) the GRM's mean Pearson and nDCG with it as baseline at the largest budget."""
    t = comparisons.tally()
    df = pd.DataFrame({"wins": t.wins / t.comparisons, "ties": t.ties / t.comparisons,
                       "losses": t.losses / t.comparisons})
    if study is not None:
        grm = study[(study.model == "GRM") & (study.budget == study.budget.max())]
        df = df.join(grm.groupby("baseline")[["pearson", "ndcg"]].mean())
    return df.sort_values("wins")


def propose_baseline(comparisons: Comparisons | None = None, metric_scores: pd.Series | None = None) -> str:
    """The system whose automatic-metric score (if given) or else win share is closest to the mean
    over systems: a baseline that wins about as often as it loses discriminates best."""
    if metric_scores is not None:
        s = metric_scores.dropna()
    elif comparisons is not None:
        s = comparisons.tally().win_share.dropna()
    else:
        raise ValueError("give comparisons or metric scores")
    return str((s - s.mean()).abs().idxmin())


def baseline_by_metric(metric_scores: pd.Series, study: pd.DataFrame) -> pd.DataFrame:
    """The paper's Fig. 4: per baseline of a ``budget_study``, its metric score centred on the mean
    over the systems scored and scaled so the best is 1 ((m − mean) / (max − mean), the paper's
    normalisation per language pair), beside the GRM's mean Pearson r and nDCG at the largest
    budget; sorted by the distance from the mean. A baseline without a metric score is left out."""
    m = metric_scores.dropna().astype(float)
    spread = m.max() - m.mean()
    grm = study[(study.model == "GRM") & (study.budget == study.budget.max())]
    df = grm.groupby("baseline")[["pearson", "ndcg"]].mean()
    df.insert(0, "metric", m.reindex(df.index))
    df.insert(1, "metric (mean 0, best 1)", (df["metric"] - m.mean()) / (spread if spread > 0 else 1.0))
    df = df.dropna(subset=["metric"])
    return df.loc[df["metric (mean 0, best 1)"].abs().sort_values().index]


def randomize_judges(comparisons: Comparisons, share: float, rng) -> Comparisons:
    """A copy in which a ``share`` of the judges answer uniformly at random (tie, a, b)."""
    judges = np.unique(comparisons.judge[comparisons.judge >= 0])
    noisy = rng.choice(judges, size=int(round(share * len(judges))), replace=False)
    out = comparisons.take(np.arange(len(comparisons)))
    hit = np.isin(out.judge, noisy)
    out._cols["outcome"] = np.where(hit, rng.integers(0, 3, len(out)), out.outcome).astype(np.int8)
    return out


def noise_study(comparisons: Comparisons, gold: pd.Series | None = None, baselines=None, shares=(0.1, 0.2, 0.3, 0.4, 0.5),
                budget: int = 6400, trials: int = 5, random_state=0, progress=None) -> pd.DataFrame:
    """Pearson r and nDCG with the gold when a share of judges answer at random, for the GRM (mean
    over ``baselines``), Hopkins & May's IRT-Gaussian and Expected Wins; ``delta`` columns give each
    model's difference from the GRM (the paper's Table 1)."""
    gold = gold_scores(comparisons, random_state=random_state) if gold is None else gold
    baselines = [propose_baseline(comparisons)] if baselines is None else list(baselines)
    rng = np.random.default_rng(random_state)
    rows, total, done = [], len(shares) * trials, 0
    for share in shares:
        for trial in range(trials):
            noisy = randomize_judges(comparisons, share, rng)
            sample = noisy.take(_sample(rng, np.arange(len(noisy)), budget))
            results = {"Expected Wins": _scores_vs_gold(ExpectedWins().fit(sample).scores_, gold),
                       "IRT-Gaussian (H&M)": _scores_vs_gold(
                           IRTGaussian(random_state=int(rng.integers(2 ** 31))).fit(sample).scores_, gold)}
            grm = []
            for baseline in baselines:
                code = noisy.systems.index(baseline)
                with_base = np.nonzero((noisy.a == code) ^ (noisy.b == code))[0]
                grm.append(_scores_vs_gold(GRM(baseline=baseline).fit(noisy.take(_sample(rng, with_base, budget)))
                                           .scores_, gold))
            results["GRM"] = tuple(np.mean(grm, axis=0))
            for model, (r, n) in results.items():
                rows.append({"noisy judges": share, "trial": trial, "model": model, "pearson": r, "ndcg": n})
            done += 1
            if progress:
                progress(done, total)
    df = pd.DataFrame(rows).groupby(["noisy judges", "model"])[["pearson", "ndcg"]].mean().unstack("model")
    for metric in ("pearson", "ndcg"):
        for model in ("IRT-Gaussian (H&M)", "Expected Wins"):
            df[(metric, f"{model} − GRM")] = df[(metric, model)] - df[(metric, "GRM")]
    return df.sort_index(axis=1)
