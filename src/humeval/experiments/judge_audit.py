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
  (ties ½; positive: the judge favours it), which systems the judge lifts or sinks;
- Kendall τ, system level: τ_b (``scipy.stats.kendalltau``) between the systems' mean verdicts by
  the judge and by the humans on the matched battles (interval: percentile bootstrap over battles);
- Kendall τ, segment (battle) level, as WMT's DARR τ (Ma et al. 2019): over the matched battles
  the humans decided, τ = (C − D) / (C + D) with C the battles where the judge prefers the same
  output, D the others (a judge tie counts as discordant); τ = 2p − 1 with p = C / (C + D);
- tie-calibrated accuracy (Deutsch, Foster & Freitag 2023, "Ties matter", acc_eq with tie
  calibration): the judge's verdict is a tie when |P̂(a preferred) − ½| ≤ ε, else the side it
  leans to; accuracy = the share of matched battles where that verdict equals the humans' (ties
  included), at the ε that maximises it (searched over 0 and the distinct |P̂ − ½|; the
  bootstrap interval re-optimises ε in each resample, as the optimum is itself estimated);
- self-preference: when the judge's family (``family``: a name the systems of that family
  contain, e.g. ``gpt``) names some systems, over the matched battles of a family system against
  another, the family side's mean verdict by the judge minus the humans' (positive: the judge
  favours its own family beyond what humans see).

- swapped orders (``swapped_orders``): over the battles the judge judged in both orders (same
  item and pair, a and b swapped; Arena-Hard-Auto's two games), the share whose verdicts agree
  (the same system preferred, or a tie in both) and the shares where the first-shown output wins
  in both orders or the second-shown in both (a verdict that follows the position, not the
  outputs), each with a Wilson interval (the position-consistency check of Zheng et al. 2023, "Judging
  LLM-as-a-judge with MT-Bench and Chatbot Arena", which swaps the two outputs).

``reliability`` bins the judge's P̂(a preferred) against the humans' frequency of preferring a
(the reliability diagram; ties ½), with Wilson intervals per bin.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from scipy.stats import kendalltau, norm

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


def system_scores(y, a, b, k: int) -> np.ndarray:
    """Each system's mean verdict (P(it is preferred), ties ½) over the battles it played (NaN if none)."""
    total = np.bincount(a, minlength=k) + np.bincount(b, minlength=k)
    won = np.bincount(a, weights=y, minlength=k) + np.bincount(b, weights=1 - y, minlength=k)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, won / np.maximum(total, 1), np.nan)


def system_tau(y, yhat, a, b, k: int) -> float:
    """Kendall τ_b between the systems' mean verdicts by humans (``y``) and by the judge (``yhat``)."""
    h, j = system_scores(y, a, b, k), system_scores(yhat, a, b, k)
    keep = ~(np.isnan(h) | np.isnan(j))
    if keep.sum() < 2:
        return np.nan
    return float(kendalltau(h[keep], j[keep]).statistic)


def segment_tau(y, yhat) -> tuple[float, int]:
    """WMT's DARR-like τ over battles: (C − D) / (C + D) on the battles humans decided (y ≠ ½),
    C = the judge leans the same way, D = the other way or a tie. Returns (τ, C + D)."""
    y, yhat = np.asarray(y, float), np.asarray(yhat, float)
    decided = y != 0.5
    concordant = np.sign(yhat[decided] - 0.5) == np.sign(y[decided] - 0.5)
    n = int(decided.sum())
    return (float(2 * concordant.mean() - 1) if n else np.nan), n


def tie_calibrated_accuracy(y, yhat) -> tuple[float, float]:
    """(accuracy, ε): pairwise accuracy with ties (Deutsch et al. 2023, acc_eq) where the judge
    says tie when |ŷ − ½| ≤ ε, at the ε maximising it (the smallest such ε)."""
    y, yhat = np.asarray(y, float), np.asarray(yhat, float)
    human = np.sign(y - 0.5)
    lean = np.sign(yhat - 0.5)
    gap = np.abs(yhat - 0.5)
    candidates = np.unique(np.concatenate([[0.0], gap]))
    best = (-1.0, 0.0)
    for eps in candidates:
        verdict = np.where(gap <= eps, 0.0, lean)
        accuracy = float(np.mean(verdict == human))
        if accuracy > best[0]:
            best = (accuracy, float(eps))
    return best


def family_of(judge_name: str) -> str:
    """A judge's family guessed from its name: its leading letters (``gpt-4.1`` → ``gpt``,
    ``claude-3-opus`` → ``claude``)."""
    match = re.match(r"[A-Za-z]+", str(judge_name))
    return match.group(0).lower() if match else ""


def self_preference(y, yhat, a, b, systems, family: str) -> tuple[float, float, float, int, list]:
    """(estimate, lo, hi, battles, family systems): over battles of a system whose name contains
    ``family`` (case-insensitive) against one whose name does not, the family side's mean verdict
    by the judge minus the humans' (normal interval)."""
    own = np.array([family.lower() in str(s).lower() for s in systems]) if family else np.zeros(len(systems), bool)
    mixed = own[a] != own[b]
    side = np.where(own[a], 1.0, -1.0)[mixed]  # the family side's verdict: y if it is a, 1 − y if it is b
    diff = side * (np.asarray(yhat)[mixed] - np.asarray(y)[mixed])
    return (*_share(diff)[:3], int(mixed.sum()), [s for s, o in zip(systems, own) if o])


def wilson(share: float, n: int) -> tuple[float, float]:
    """Wilson's 95 % score interval of a share observed over n units (Wilson 1927):
    (f + z²/2n ± z √(f(1 − f)/n + z²/4n²)) / (1 + z²/n)."""
    if not n:
        return np.nan, np.nan
    centre = (share + Z ** 2 / (2 * n)) / (1 + Z ** 2 / n)
    half = Z * np.sqrt(share * (1 - share) / n + Z ** 2 / (4 * n * n)) / (1 + Z ** 2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def swapped_orders(judge) -> pd.DataFrame:
    """Position consistency of a judge (``Comparisons``) on the battles it judged in both orders.

    Battles are the same when they share the item and the two systems; one judged with a and b
    swapped is its swapped twin. When a battle was judged several times in an order, the k-th
    verdict in one order is paired with the k-th in the other (file order); verdicts without a
    twin are not counted. Returns rows "consistent", "first shown wins in both orders", "second shown
    wins in both orders" with share, Wilson lo and hi and n (the twin pairs); n = 0 when the judge
    never judged a battle twice (the shares are then NaN)."""
    c = judge.take(np.flatnonzero(np.asarray(judge.item) >= 0))  # a battle without an item has no twin
    lo, hi = np.minimum(c.a, c.b), np.maximum(c.a, c.b)
    forward = c.a < c.b
    outcome = np.asarray(c.outcome)
    winner = np.where(outcome == 0, 0, np.where((outcome == 1) == forward, 1, 2))  # 1: lo system, 2: hi system
    frame = pd.DataFrame({"item": np.asarray(c.item), "lo": lo, "hi": hi, "forward": forward, "outcome": outcome,
                          "winner": winner})
    frame["nth"] = frame.groupby(["item", "lo", "hi", "forward"]).cumcount()
    keys = ["item", "lo", "hi", "nth"]
    twins = frame[frame.forward].merge(frame[~frame.forward], on=keys, suffixes=("", "_swapped"))
    n = len(twins)
    rows = []
    for name, hit in (("consistent", twins.winner == twins.winner_swapped),
                      ("first shown wins in both orders", (twins.outcome == 1) & (twins.outcome_swapped == 1)),
                      ("second shown wins in both orders", (twins.outcome == 2) & (twins.outcome_swapped == 2))):
        share = float(hit.mean()) if n else np.nan
        rows.append((name, share, *wilson(share, n), n))
    return pd.DataFrame(rows, columns=["measure", "estimate", "lo", "hi", "n"]).set_index("measure")


def reliability(yhat, y, bins: int = 10) -> pd.DataFrame:
    """The reliability diagram's table: per equal-width bin of the judge's P̂(a preferred), the
    battles, the mean P̂, the humans' frequency of preferring a (ties ½) and its Wilson 95 % interval."""
    yhat, y = np.asarray(yhat, float), np.asarray(y, float)
    which = np.minimum((yhat * bins).astype(int), bins - 1)
    rows = []
    for b in np.unique(which):
        mask = which == b
        n, f = int(mask.sum()), float(y[mask].mean())
        rows.append((f"{b / bins:.1f}–{(b + 1) / bins:.1f}", n, float(yhat[mask].mean()), f, *wilson(f, n)))
    return pd.DataFrame(rows, columns=["bin", "battles", "judge P(a)", "humans prefer a", "lo", "hi"]).set_index("bin")


def audit(human, judge, n_resamples: int = 200, random_state=None, path=None,
          family: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(summary, per-system) tables auditing ``judge`` against ``human`` (``Comparisons``); see the
    module docstring for what each line measures. ``family``: the name the judge's own systems
    contain (default: guessed from the judge's name by ``family_of``; "" for none)."""
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
    a, b = lab["a"].to_numpy(), lab["b"].to_numpy()
    k = len(systems)
    draws = [rng.integers(0, len(y), len(y)) for _ in range(n_resamples)]
    tau = system_tau(y, yh, a, b, k)
    boots = [system_tau(y[i], yh[i], a[i], b[i], k) for i in draws]
    rows.append(("Kendall tau, system level (bootstrap interval)", tau, *np.nanquantile(boots, [0.025, 0.975]), k))
    t, n = segment_tau(y, yh)
    p = (t + 1) / 2
    se = 2 * np.sqrt(p * (1 - p) / n) if n else np.nan
    rows.append(("Kendall tau, battle level (DARR-like)", t, t - Z * se, t + Z * se, n))
    acc, eps = tie_calibrated_accuracy(y, yh)
    boots = [tie_calibrated_accuracy(y[i], yh[i])[0] for i in draws]
    rows.append((f"tie-calibrated accuracy (epsilon {eps:.3g}; bootstrap interval)", acc,
                 *np.quantile(boots, [0.025, 0.975]), len(y)))
    if family is None:
        names = {str(judge.judge_kinds[c]) for c in np.unique(judge.judge_kind) if c >= 0}
        family = family_of(names.pop()) if len(names) == 1 else ""
    if family:
        m, lo, hi, n, own = self_preference(y, yh, a, b, systems, family)
        if n:
            rows.append((f"self-preference: family '{family}' ({', '.join(map(str, own[:3]))}"
                         f"{', …' if len(own) > 3 else ''}): judge − humans", m, lo, hi, n))
    summary = pd.DataFrame(rows, columns=["measure", "estimate", "lo", "hi", "n"]).set_index("measure")
    swapped = swapped_orders(judge)
    twins = int(swapped.n.iloc[0])
    if twins:
        summary = pd.concat([summary, swapped.rename(index=lambda m: f"swapped orders: {m} (Wilson)")])
    summary.attrs["judged_twice"] = twins
    per = []
    for code, system in enumerate(systems):
        lift = np.concatenate([(yh - y)[a == code], (y - yh)[b == code]])
        if len(lift) > 1:
            per.append((system, *_share(lift)))
    per_system = pd.DataFrame(per, columns=["system", "judge − humans", "lo", "hi", "battles"]).set_index("system")
    return summary, per_system.sort_values("judge − humans", ascending=False)


def reliability_of(human, judge, bins: int = 10, path=None) -> pd.DataFrame:
    """``reliability`` on the battles ``human`` and ``judge`` (``Comparisons``) share."""
    from humeval.experiments.ppi import pair_battles
    _, lab, _, _ = pair_battles(human, judge, path)
    return reliability(lab["yhat"].to_numpy(), lab["y"].to_numpy(), bins)
