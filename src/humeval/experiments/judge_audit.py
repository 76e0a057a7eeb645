"""Auditing an automatic judge against humans on the battles both judged.

Each line is an estimate with a 95 % interval (normal approximation unless said):

- agreement: the share of matched battles where the judge's verdict equals the human's (ties
  count as a verdict of their own), and Cohen's κ over the three verdicts (interval: percentile
  bootstrap over battles);
- position: the share of decisive verdicts that prefer the first-shown output, for the judge and
  for the humans, and their difference (with outputs shown in random order an unbiased judge is
  at ½; the humans' share is the reference);
- per covariate (e.g. a length difference a − b): the share of decisive verdicts that prefer the
  output with the larger value, judge and humans (verbosity when the covariate is a length; the
  humans' share, not ½, is the reference, since better systems may also write longer);
- calibration: the expected calibration error of the judge's P(a preferred) (its vote share when
  it voted several times) as a forecast of the human label, ten equal-width bins (Naeini et al. 2015);
- per system: the judge's mean verdict for the system minus the humans' on the same battles
  (ties ½; positive: the judge favours it), which systems the judge lifts or sinks.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import norm

Z = norm.ppf(0.975)


def _share(x) -> tuple[float, float, float, int]:
    x = np.asarray(x, float)
    m = float(x.mean()) if len(x) else np.nan
    se = float(x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else np.nan
    return m, m - Z * se, m + Z * se, len(x)


def _verdict(y):
    """P(a preferred) labels 1, ½, 0 → verdicts 1 (a), 0 (tie), 2 (b); a vote share → the majority."""
    return np.where(y > 0.5, 1, np.where(y < 0.5, 2, 0))


def cohen_kappa(u, v) -> float:
    """Cohen's κ of two label vectors: (p_o − p_e) / (1 − p_e)."""
    labels = np.union1d(u, v)
    po = float(np.mean(u == v))
    pe = float(sum(np.mean(u == k) * np.mean(v == k) for k in labels))
    return (po - pe) / (1 - pe) if pe < 1 else np.nan


def ece(prob, outcome, bins: int = 10) -> float:
    """Expected calibration error: Σ_b (n_b / n) |mean outcome_b − mean prob_b| over equal-width bins."""
    prob, outcome = np.asarray(prob, float), np.asarray(outcome, float)
    which = np.minimum((prob * bins).astype(int), bins - 1)
    total = 0.0
    for b in np.unique(which):
        mask = which == b
        total += mask.mean() * abs(outcome[mask].mean() - prob[mask].mean())
    return float(total)


def audit(human, judge, n_resamples: int = 200, random_state=None, path=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(summary, per-system) tables auditing ``judge`` against ``human`` (``Comparisons``); see the
    module docstring for what each line measures."""
    from humeval.experiments.ppi import pair_battles
    systems, lab, _, _ = pair_battles(human, judge, path)
    y, yh = lab["y"].to_numpy(), lab["yhat"].to_numpy()
    vh, vj = _verdict(y), _verdict(yh)
    rows = []
    m, lo, hi, n = _share(vh == vj)
    rows.append(("agreement (share of matched battles)", m, lo, hi, n))
    rng = np.random.default_rng(random_state)
    kappas = [cohen_kappa(vh[i], vj[i]) for i in (rng.integers(0, len(vh), len(vh)) for _ in range(n_resamples))]
    k = cohen_kappa(vh, vj)
    rows.append(("Cohen's kappa (bootstrap interval)", k, *np.nanquantile(kappas, [0.025, 0.975]), len(vh)))
    first = {}
    for name, c in (("judge", judge), ("humans", human)):
        decisive = c.outcome != 0
        first[name] = (c.outcome[decisive] == 1).astype(float)
        rows.append((f"position: {name} prefer the first shown", *_share(first[name])))
    d = first["judge"].mean() - first["humans"].mean()
    se = np.sqrt(first["judge"].var(ddof=1) / len(first["judge"]) + first["humans"].var(ddof=1) / len(first["humans"]))
    rows.append(("position bias: judge − humans", d, d - Z * se, d + Z * se, len(first["judge"])))
    for j, name in enumerate(getattr(judge, "covariate_names", ())):
        for who, c in (("judge", judge), ("humans", human)):
            if c.covariates.shape[1] <= j:
                continue
            x = c.covariates[:, j]
            keep = (c.outcome != 0) & (x != 0)
            larger = np.where(x[keep] > 0, c.outcome[keep] == 1, c.outcome[keep] == 2).astype(float)
            rows.append((f"{name}: {who} prefer the larger", *_share(larger)))
    e = ece(yh, y)
    boots = [ece(yh[i], y[i]) for i in (rng.integers(0, len(y), len(y)) for _ in range(n_resamples))]
    rows.append(("calibration error (ECE, bootstrap interval)", e, *np.quantile(boots, [0.025, 0.975]), len(y)))
    summary = pd.DataFrame(rows, columns=["measure", "estimate", "lo", "hi", "n"]).set_index("measure")
    per = []
    a, b = lab["a"].to_numpy(), lab["b"].to_numpy()
    for code, system in enumerate(systems):
        lift = np.concatenate([(yh - y)[a == code], (y - yh)[b == code]])
        if len(lift) > 1:
            per.append((system, *_share(lift)))
    per_system = pd.DataFrame(per, columns=["system", "judge − humans", "lo", "hi", "battles"]).set_index("system")
    return summary, per_system.sort_values("judge − humans", ascending=False)
