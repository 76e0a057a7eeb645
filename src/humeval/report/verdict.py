"""Whether each model's held-out perplexity is distinguishable from the best model's.

A learning curve's perplexities are averages over one fixed test set, so two models' gap carries
the test set's sampling noise as well as the training subsets'. ``item_losses`` refits every
model on the very subsets of the largest training size the learning curve drew (the same seeds,
so its trials reproduce the curve's perplexities) and keeps each test comparison's loss
ℓ = −log₂ Q(outcome); ``paired_verdict`` compares each model with the best on those losses,
paired by test comparison (Hopkins & May 2013, §4, define perplexity as 2 to the mean loss).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.report.render import number

def item_losses(comparisons, models: dict, sizes, trials: int, random_state=None, min_test: int = 2000,
                unit: str = "comparison") -> pd.DataFrame:
    """Each test comparison's loss −log₂ Q(outcome) under each model (columns), averaged over the
    ``trials`` training subsets of the largest size in ``sizes``, with a ``track`` column; rows are
    the test comparisons of every track, and a ``unit`` column: the ranking each came from (a
    comparison outside any ranking is its own unit).

    The subsets are those of ``humeval.experiments.track_curves`` with the same arguments (one seed
    per (size, trial) from ``SeedSequence(random_state)``), so 2 ** (a trial's mean loss on a
    track) is that trial's perplexity in the curve."""
    from humeval.experiments.perplexity import _align, hopkins_may_split, training_subset
    from humeval.ranking.base import clone
    size, index = sizes[-1], len(sizes) - 1
    seeds = np.random.SeedSequence(random_state).generate_state(len(sizes) * trials)
    frames = []
    for track, split in hopkins_may_split(comparisons, min_test).items():
        test = split.test
        losses = {name: np.zeros(len(test)) for name in models}
        for trial in range(trials):
            seed = int(seeds[index * trials + trial])
            sample = _align(split.train.take(training_subset(split.train, size, unit, seed)), test)
            for name, model in models.items():
                fitted = clone(model, random_state=seed).fit(sample)
                code = fitted._codes(np.asarray(test.systems, dtype=object))
                chosen = fitted.predict_proba(code[test.a], code[test.b])[np.arange(len(test)), test.outcome]
                with np.errstate(divide="ignore"):
                    losses[name] += -np.log2(chosen) / trials
        # the unit of the paired comparison: a test comparison's ranking (its pairs share a judge and a
        # segment, so their losses are correlated); a comparison outside any ranking is its own unit
        group = np.where(test.group >= 0, test.group, -1 - np.arange(len(test)))
        # (track, ranking) tuples, not a joined string: pandas 2.2 hashes an object string only up to
        # its first NUL byte, so "track\0group" labels would all fall into one unit there
        frames.append(pd.DataFrame(losses).assign(track=track, unit=[(track, int(g)) for g in group]))
    return pd.concat(frames, ignore_index=True)


def paired_verdict(losses: pd.DataFrame, best: str, confidence: float = 0.95) -> pd.DataFrame:
    """Per model: the mean paired difference of held-out loss from ``best`` in bits per test
    comparison, d̄ = mean_i (ℓ_i(model) − ℓ_i(best)) over the n test comparisons, its standard
    error clustered by ``unit`` (the pairs of one ranking share a judge and a segment):
    SE² = G/(G − 1) · Σ_g (Σ_{i∈g} (d_i − d̄))² / n² over the G units (Liang & Zeger 1986; with
    one comparison per unit, s_d² / n up to (n − 1)/n), the ``confidence`` interval d̄ ± z SE
    (95 %: z = 1.96), and ``distinguishable`` when it lies above 0 (the model predicts worse
    beyond the test set's noise). A gap of d̄ bits multiplies perplexity by 2^d̄. Rows: ``best``
    first, then the others as in ``losses``' columns."""
    from scipy.stats import norm
    z = float(norm.ppf(0.5 + confidence / 2))
    names = [best] + [c for c in losses.columns if c not in (best, "track", "unit")]
    unit = pd.factorize(losses["unit"])[0] if "unit" in losses else np.arange(len(losses))
    rows = {}
    for name in names:
        d = (losses[name] - losses[best]).to_numpy()
        finite = np.isfinite(d)
        d, g = d[finite], unit[finite]
        n, units = len(d), len(np.unique(g))
        mean = float(d.mean()) if n else np.nan
        sums = np.bincount(g, weights=d - mean) if n else np.zeros(0)
        se = float(np.sqrt(units / (units - 1) * np.sum(sums ** 2)) / n) if units > 1 else np.nan
        rows[name] = {"bits": mean, "se": se, "low": mean - z * se, "high": mean + z * se, "test": n, "units": units,
                      "distinguishable": bool(mean - z * se > 0) if name != best else False}
    return pd.DataFrame.from_dict(rows, orient="index")


def verdict_lines(verdict: pd.DataFrame, perplexities: pd.Series | None = None) -> list[str]:
    """One line per model: the best, then each other model "distinguishable from" or
    "indistinguishable from" the best with the paired gap and its interval."""
    best = verdict.index[0]
    shown = (lambda m: f" ({number(perplexities[m], 'decimal')})") if perplexities is not None else (lambda m: "")
    lines = [f"{best}{shown(best)}: the best by held-out perplexity"]
    for name, row in verdict.iloc[1:].iterrows():
        gap = f"{number(row['bits'])} bits per test comparison, 95 % interval {number(row['low'])} to {number(row['high'])}"
        word = "distinguishable from" if row["distinguishable"] else "indistinguishable from"
        lines.append(f"{name}{shown(name)}: {word} {best} ({gap})")
    return lines


def tied_with_best(verdict: pd.DataFrame) -> list[str]:
    """The models whose paired gap from the best is within the test set's noise."""
    return [str(m) for m, d in verdict["distinguishable"].iloc[1:].items() if not d]
