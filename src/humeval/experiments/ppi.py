"""Prediction-powered inference: a few human judgments and many from an automatic judge.

An automatic judge (an LLM voting on battles, a metric scoring segments) labels every unit; humans
label a random subset. Prediction-powered inference (PPI; Angelopoulos, Bates, Fannjiang, Jordan &
Zrnic 2023, *Science* 382) estimates what the humans would conclude from the judge's labels on all
units, corrected by the human − judge difference on the units humans also judged. PPI++
(Angelopoulos, Duchi & Zrnic 2023, arXiv:2311.01453) weights the judge's part by a power-tuning
λ ∈ [0, 1] estimated from the data: λ = 0 is the human-only estimate, λ = 1 plain PPI; the
interval keeps its coverage whatever the judge's bias, and is narrower when the judge agrees.

Means (``ppi_mean``, ``system_means``) — for n labelled units (Y_i human, Ŷ_i judge) and N
judge-only units Ŷ_j::

    θ̂_λ = λ · mean_j Ŷ_j + mean_i (Y_i − λ Ŷ_i)
    se² = λ² var_j(Ŷ_j) / N + var_i(Y_i − λ Ŷ_i) / n          (variances with ddof 0)

Bradley–Terry abilities from battles (``ppi_bradley_terry``; Boyeau, Angelopoulos, Yosef, Malik &
Jordan 2024, "AutoEval done right", arXiv:2403.07008) minimise the PPI++ loss::

    L_λ(θ) = 1/n Σ_i ℓ(θ; y_i) + λ [ 1/N Σ_j ℓ(θ; ŷ_j) − 1/n Σ_i ℓ(θ; ŷ_i) ]

with ℓ the logistic (BT) log loss of a battle, y = 1 (a won), 0 (b won), ½ (tie, the arena's
convention). Its covariance is the PPI sandwich H⁻¹ [λ² (n/N) V̂_f + V̂_Δ] H⁻¹ / n, with H the
Hessian of L_λ, V̂_f the covariance of the judge-only gradients, V̂_Δ that of ∇ℓ(y) − λ∇ℓ(ŷ) on
the labelled battles. λ is PPI++'s plug-in optimum of the trace of that covariance::

    λ̂ = tr(H⁻¹ (Ĉov(g, ĝ) + Ĉov(ĝ, g)) H⁻¹) / (2 (1 + n/N) tr(H⁻¹ V̂ar(ĝ) H⁻¹)),  clipped to [0, 1]

(g, ĝ: gradients with human and judge labels at the λ = 1 estimate; V̂ar(ĝ) over all judge labels),
as ``ppi_py.ppi._calc_lam_glm`` computes it. The BT family's own ``fit`` cannot minimise L_λ: the
λ-weighted judge losses of the labelled battles enter with a negative sign (weights must be
non-negative there), and its Gaussian prior would bias a frequentist interval; hence the loss
is the family's own likelihood with signed counts, fitted by its one Newton solver (``_family_fit``).

Davidson's ties model (``ppi_davidson``) minimises the same loss with ℓ its negative log-likelihood
(ties an outcome of their own); being log-linear, its Hessian does not depend on the labels either.

The effective number of human judgments the judge is worth is n · tr(Σ_human) / tr(Σ_PPI): how many
human judgments a human-only estimate would need for the combined estimate's variance.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.stats import norm

from humeval.errors import InputError
from humeval.ranking.bradley_terry import pair_derivatives, pair_objective
from humeval.ranking.links import LINKS
from humeval.ranking.newton import newton_ascent, solve_or_least_squares


def power_tuning(grads, grads_hat, grads_hat_unlabeled, inv_hessian=None, clip: bool = True, w=None,
                 w_unlabeled=None) -> float:
    """PPI++'s λ̂ (Angelopoulos, Duchi & Zrnic 2023, §6; ``ppi_py``'s ``_calc_lam_glm``, mode
    "overall"), clipped to [0, 1].

    Parameters
    ----------
    grads, grads_hat : (n, d) gradients on the labelled units with human and judge labels.
    grads_hat_unlabeled : (N, d) gradients on the judge-only units.
    inv_hessian : (d, d), default identity (means).
    clip : clip to [0, 1] as ``ppi_py`` does; False clips only below 0 (a judge on another scale
        needs λ > 1 to be rescaled; any consistent λ̂ keeps the asymptotic coverage, PPI++ §6).
    w, w_unlabeled : frequency weights of the rows (default 1): a row of weight m counts as m
        units, n and N are the weight sums, so unit weights give ``ppi_py``'s formula exactly.
    """
    g = np.asarray(grads, float).reshape(len(grads), -1)
    gh = np.asarray(grads_hat, float).reshape(len(grads_hat), -1)
    gu = np.asarray(grads_hat_unlabeled, float).reshape(len(grads_hat_unlabeled), -1)
    w = np.ones(len(g)) if w is None else np.asarray(w, float)
    wu = np.ones(len(gu)) if w_unlabeled is None else np.asarray(w_unlabeled, float)
    n, N, d = w.sum(), wu.sum(), g.shape[1]
    vinv = np.eye(d) if inv_hessian is None else np.asarray(inv_hessian, float)
    gc, ghc = g - w @ g / n, gh - w @ gh / n
    cov = ((gc * w[:, None]).T @ ghc + (ghc * w[:, None]).T @ gc) / n
    both, wb = np.concatenate([gh, gu]), np.concatenate([w, wu])
    centred = both - wb @ both / wb.sum()
    var = (centred * wb[:, None]).T @ centred / (wb.sum() - 1)  # ddof 1, as np.cov
    denom = 2 * (1 + n / N) * np.trace(vinv @ var @ vinv)
    if not denom > 0:
        return 0.0
    return float(np.clip(np.trace(vinv @ cov @ vinv) / denom, 0.0, 1.0 if clip else np.inf))


@dataclass
class MeanEstimate:
    """A prediction-powered mean: estimate, standard error, λ, the human and judge-only counts."""

    estimate: float
    se: float
    lam: float
    n: int
    N: int

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        z = norm.ppf(0.5 + level / 2)
        return self.estimate - z * self.se, self.estimate + z * self.se


def ppi_mean(y, yhat, yhat_unlabeled, lam: float | None = None, clip: bool = True) -> MeanEstimate:
    """The PPI++ mean of human labels ``y`` (n,) given the judge's ``yhat`` (n,) on the same units
    and ``yhat_unlabeled`` (N,) on the judge-only units; ``lam=None`` tunes λ (module formula;
    ``clip`` as in ``power_tuning``). With ``clip=True`` it equals ``ppi_py.ppi_mean_ci``."""
    y, yhat, yu = (np.asarray(v, float).ravel() for v in (y, yhat, yhat_unlabeled))
    n, N = len(y), len(yu)
    if n < 2 or N < 1:
        raise ValueError(f"PPI needs at least 2 human-labelled and 1 judge-only unit (got {n} and {N})")
    if lam is None:
        theta1 = yu.mean() + (y - yhat).mean()
        lam = power_tuning(y - theta1, yhat - theta1, yu - theta1, clip=clip)
    est = lam * yu.mean() + (y - lam * yhat).mean()
    se = float(np.sqrt((lam * yu).var() / N + (y - lam * yhat).var() / n))
    return MeanEstimate(float(est), se, float(lam), n, N)


def classical_mean(y) -> MeanEstimate:
    """The human-only mean with its CLT standard error (ddof 0, as ``ppi_mean`` with λ = 0)."""
    y = np.asarray(y, float)
    return MeanEstimate(float(y.mean()), float(y.std() / np.sqrt(len(y))), 0.0, len(y), 0)


# -- ratings: system means ------------------------------------------------------------------

def units(human: pd.Series, judge: pd.Series, path=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split (item, system) units into labelled ones (human and judge score) and judge-only ones.

    ``human`` and ``judge`` are scores indexed by (item, system); several human scores of one unit
    are averaged (the unit is what is sampled). Human scores of units the judge did not score are
    left out of the combined estimate (counted in the frame's ``attrs['human_only_units']``). No
    shared unit is an ``InputError``: PPI learns the judge's bias from the shared units."""
    human = human.groupby(level=[0, 1]).mean()
    judge = judge.groupby(level=[0, 1]).mean()
    shared = human.index.intersection(judge.index)
    if len(shared) == 0:
        raise InputError(path, None, "the human and the automatic scores share no (item, system) unit",
                         "the automatic judge must also score the items humans scored: check that item ids "
                         "and system names are spelled alike in both parts")
    labelled = pd.DataFrame({"human": human.loc[shared], "judge": judge.loc[shared]})
    rest = judge.index.difference(human.index)
    unlabelled = pd.DataFrame({"judge": judge.loc[rest]})
    labelled.attrs["human_only_units"] = int(len(human.index.difference(judge.index)))
    return labelled, unlabelled


def system_means(human: pd.Series, judge: pd.Series, level: float = 0.95, lam: float | None = None,
                 path=None) -> pd.DataFrame:
    """Per system: human-only, judge-only and PPI++ means of ratings, with intervals.

    ``human``: human scores (DA, ESA, MQM) indexed by (item, system), on a subset of the units;
    ``judge``: the automatic judge's scores on (ideally) all units. λ is tuned per system and
    clipped only at 0, so a judge on another scale (a metric in [0, 1] against DA in [0, 100]) is
    rescaled by λ (which may then exceed 1). The
    judge-only column is the judge's own mean: on its own scale and biased, shown for contrast.

    Columns: n (human units), N (judge-only units), human, human_lo, human_hi, judge, judge_lo,
    judge_hi, ppi, ppi_lo, ppi_hi, lam, width_human, width_ppi, effective_n (n · var_human / var_ppi).
    Systems with fewer than 2 shared units or no judge-only unit are left out and named in
    ``attrs["left_out"]``; systems the humans scored and the judge never did, in
    ``attrs["unjudged"]``. Human-scored units the judge did not score are not in n (PPI needs
    the judge's score beside the human's): ``attrs["human_only_units"]`` counts those of the
    systems in the table and, when
    there are some, the columns all_human_n, all_human and width_all_human give each system's
    classical mean on all its human-scored units, for comparison with the combined one.
    """
    lab, unl = units(human, judge, path)
    rows, left_out = {}, []
    z = norm.ppf(0.5 + level / 2)
    by_lab, by_unl = dict(list(lab.groupby(level=1))), dict(list(unl.groupby(level=1)))
    for system in sorted(set(by_lab) | set(by_unl)):
        hs, js = by_lab.get(system, lab.iloc[:0]), by_unl.get(system, unl.iloc[:0])
        if len(hs) < 2 or len(js) < 1:
            left_out.append(system)  # reported by the caller (attrs["left_out"])
            continue
        h = classical_mean(hs["human"])
        allj = classical_mean(np.concatenate([hs["judge"], js["judge"]]))
        p = ppi_mean(hs["human"], hs["judge"], js["judge"], lam=lam, clip=False)
        rows[system] = {"n": p.n, "N": p.N,
                        "human": h.estimate, "human_lo": h.estimate - z * h.se, "human_hi": h.estimate + z * h.se,
                        "judge": allj.estimate, "judge_lo": allj.estimate - z * allj.se,
                        "judge_hi": allj.estimate + z * allj.se,
                        "ppi": p.estimate, "ppi_lo": p.estimate - z * p.se, "ppi_hi": p.estimate + z * p.se,
                        "lam": p.lam, "width_human": 2 * z * h.se, "width_ppi": 2 * z * p.se,
                        "effective_n": p.n * (h.se / p.se) ** 2 if p.se > 0 else np.inf,
                        "se_human": h.se, "se_ppi": p.se}
    if not rows:
        raise InputError(path, None, "no system has at least 2 human-scored units shared with the judge and 1 "
                         "judge-only unit", "collect more human scores, or let the judge score more units")
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "system"
    out = out.sort_values("ppi", ascending=False)
    # the humans alone on all their units of these systems, those the judge did not score included
    # (a system the judge never scored is named by the caller, not counted here)
    alone = {s: classical_mean(v) for s, v in human.groupby(level=[0, 1]).mean().groupby(level=1) if s in rows}
    dropped = int(sum(alone[s].n for s in out.index) - out.n.sum())
    if dropped:
        out["all_human_n"] = [alone[s].n for s in out.index]
        out["all_human"] = [alone[s].estimate for s in out.index]
        out["width_all_human"] = [2 * z * alone[s].se for s in out.index]
    unjudged = sorted(set(human.index.get_level_values(1)) - set(by_lab) - set(by_unl), key=str)
    out.attrs.update(left_out=left_out, human_only_units=dropped, unjudged=unjudged)
    return out


def small_sample_coverage(table: pd.DataFrame, level: float = 0.95, slack: float = 0.02) -> pd.Series:
    """The systems of ``system_means``' table whose human-scored units are too few for its normal
    intervals, with the coverage such an interval has even for normally distributed scores:
    mean ± z·s/√n with s the standard deviation with ddof 0 covers with probability
    2·F_{t, n−1}(z·√((n − 1)/n)) − 1 (Student), 0.60 at n = 2, 0.90 at n = 10, 0.933 at n = 25
    for 95 %. Returned: coverage by system, for those below ``level − slack``."""
    from scipy.stats import t
    z = norm.ppf(0.5 + level / 2)
    n = table["n"].to_numpy(float)
    cover = 2 * t.cdf(z * np.sqrt((n - 1) / n), np.maximum(n - 1, 1)) - 1
    cover = pd.Series(cover, index=table.index, name="coverage")
    return cover[cover < level - slack]


def percent_span(shares: pd.Series) -> str:
    """The range of some shares as text: "60%" or "60%–75%"."""
    lo, hi = f"{shares.min():.0%}", f"{shares.max():.0%}"
    return lo if lo == hi else f"{lo}–{hi}"


def humans_alone(n: float, unit: str, alone: float, combined: float, remedy: str) -> list[str]:
    """What the command and the report say when PPI++ set aside human judgments the judge did not
    make: the humans alone on all their ``n`` battles or units (mean interval width ``alone``)
    beside the combined estimate (``combined``), and a warning when the humans alone are narrower
    (``remedy``: what the judge should do instead, e.g. "judge the battles humans judged")."""
    lines = [f"The humans alone on all their {n:,.0f} {unit}: mean interval width {alone:.3f}; combined {combined:.3f}."]
    if alone < combined:
        lines.append(f"warning: the humans alone are the better estimate here — the judge judged too few of the human "
                     f"{unit} for PPI++ to gain from it; rank the human {unit} alone (humeval rank), or have the judge "
                     f"{remedy}.")
    return lines


def mean_differences(table: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """PPI++ differences of system means (row system − column system for every ordered pair with
    the first better), from ``system_means``' table, with two-sided z-test p-values
    p = 2 Φ(−|d| / se). The systems' units are disjoint samples, so the variance of a difference
    is the sum of the two (se = √(se_s² + se_t²)); when both systems translated the same segments
    the scores are positively correlated and this interval (and p) is conservative."""
    z = norm.ppf(0.5 + level / 2)
    systems = list(table.index)
    rows = []
    for i, s in enumerate(systems):
        for t in systems[i + 1:]:
            d = table.at[s, "ppi"] - table.at[t, "ppi"]
            se = float(np.hypot(table.at[s, "se_ppi"], table.at[t, "se_ppi"]))
            dh = table.at[s, "human"] - table.at[t, "human"]
            seh = float(np.hypot(table.at[s, "se_human"], table.at[t, "se_human"]))
            rows.append({"better": s, "worse": t, "ppi": d, "ppi_lo": d - z * se, "ppi_hi": d + z * se,
                         "ppi_p": float(2 * norm.sf(abs(d) / se)) if se > 0 else float(d == 0),
                         "human": dh, "human_lo": dh - z * seh, "human_hi": dh + z * seh,
                         "human_p": float(2 * norm.sf(abs(dh) / seh)) if seh > 0 else float(dh == 0)})
    return pd.DataFrame(rows, columns=["better", "worse", "ppi", "ppi_lo", "ppi_hi", "ppi_p", "human", "human_lo",
                                       "human_hi", "human_p"])


def difference_clusters(table: pd.DataFrame, differences: pd.DataFrame, level: float = 0.95) -> pd.Series:
    """WMT-style clusters (``humeval.ratings.clusters``, rule "all-below": a boundary after a
    system when every system above is significantly better than every system below) of the
    systems of ``system_means``' table, best first, from ``mean_differences``: s significantly
    better than t when the PPI++ difference's interval at ``level`` lies above 0 (p < 1 − level)."""
    from humeval.ratings.clusters import clusters
    systems = list(table.index)
    code = {s: i for i, s in enumerate(systems)}
    significant = np.zeros((len(systems), len(systems)), bool)
    for row in differences.itertuples():
        if row.ppi_lo > 0:
            significant[code[row.better], code[row.worse]] = True
    return pd.Series(clusters(significant), index=table.index, name="cluster")


# -- Bradley–Terry from battles -------------------------------------------------------------

def _design(a, b, k):
    """Rows x = e_a − e_b over the k − 1 free abilities (system 0 pinned at 0)."""
    x = np.zeros((len(a), k))
    rows = np.arange(len(a))
    x[rows, a] += 1.0
    x[rows, b] -= 1.0
    return x[:, 1:]


def _sigmoid(t):
    return 0.5 * (1.0 + np.tanh(0.5 * t))


@dataclass
class _Battles:
    x: np.ndarray   # (m, k-1) design
    y: np.ndarray   # labels in [0, 1]: P(a preferred), ties ½
    w: np.ndarray   # frequency weights

    def take(self, idx):
        return _Battles(self.x[idx], self.y[idx], self.w[idx])


def _systems(rows):
    """The system code marked in each row of a (battles, k − 1) indicator (system 0 has no column)."""
    return np.where(rows.any(axis=1), rows.argmax(axis=1) + 1, 0)


def _family_fit(link, a, b, counts, k, start, tol, max_iter):
    """Maximise Σ_cells ℓ(θ_a − θ_b; counts) under ``link`` without a prior by the one Newton
    solver (``bradley_terry.pair_objective``/``pair_derivatives``, ``newton.newton_ascent``): the
    BT family's own likelihood and derivatives, linear in the counts, which here are PPI++'s
    signed weights. Returns (θ with system 0 pinned at 0 (k − 1,), log tie parameter)."""
    tie0 = link.tie_start if start is None or not link.tie_name else start[-1]
    theta0 = np.zeros(k) if start is None else np.concatenate([[0.0], start[:k - 1]])
    x0 = np.concatenate([theta0 - theta0.mean(), [tie0] if link.tie_name else []])
    none = np.zeros(0)

    def split(x):
        return x[:k], (x[k] if link.tie_name else 0.0)

    def objective(x):
        theta, tie = split(x)
        return pair_objective(link, a, b, counts, None, theta, none, tie, 0.0)

    def derivatives(x):
        theta, tie = split(x)
        g, H = pair_derivatives(link, a, b, counts, None, theta, none, tie, 0.0)
        return objective(x), g, H

    x = newton_ascent(derivatives, objective, x0, None, max_iter, tol, solve_or_least_squares)
    theta, tie = split(x)
    return theta[1:] - theta[0], tie


def _fit(lab_x, y, yhat, w, unl_x, yu, wu, lam, start=None, tol=1e-10, max_iter=100):
    """θ (k−1,) minimising the PPI++ BT loss L_λ (convex for λ ∈ [0, 1]). With ℓ the BT
    log-likelihood of a battle with a-wins w and b-wins l (``LINKS["logit"]``), linear in (w, l),
    −L_λ is Σ_cells ℓ over the labelled battles with (w, l) = ω/n (y − λŷ, (1 − y) − λ(1 − ŷ)) and
    the judge-only ones with λω/N (ŷ, 1 − ŷ), ω a battle's weight: the BT family's likelihood with
    signed counts, fitted by its one solver (``_family_fit``)."""
    n, N = w.sum(), (wu.sum() if len(wu) else 1.0)
    won = w * (y - lam * yhat) / n
    counts = np.column_stack([np.zeros(len(w)), won, w * (1 - lam) / n - won])
    a, b = _systems(lab_x > 0), _systems(lab_x < 0)
    if len(wu) and lam:
        counts = np.vstack([counts, np.column_stack([np.zeros(len(wu)), lam * wu * yu / N, lam * wu * (1 - yu) / N])])
        a, b = np.concatenate([a, _systems(unl_x > 0)]), np.concatenate([b, _systems(unl_x < 0)])
    return _family_fit(LINKS["logit"], a, b, counts, lab_x.shape[1] + 1, start, tol, max_iter)[0]


def _wcov(g, w):
    """Weighted (frequency) covariance of rows of g, ddof 0."""
    m = (w[:, None] * g).sum(0) / w.sum()
    c = g - m
    return (c * w[:, None]).T @ c / w.sum()


def _sandwich(lab_x, y, yhat, w, unl_x, yu, wu, lam, theta):
    """Covariance of θ̂ (k−1 free abilities): H⁻¹ [λ² (n/N) V_f + V_Δ] H⁻¹ / n; also H⁻¹ and the
    gradients PPI++'s λ needs."""
    n = w.sum()
    p = _sigmoid(lab_x @ theta)
    g = (p - y)[:, None] * lab_x
    gh = (p - yhat)[:, None] * lab_x
    hess = (lab_x * (w * (1 - lam) * p * (1 - p))[:, None]).T @ lab_x / n
    middle = _wcov(g - lam * gh, w)
    gu = np.zeros((0, lab_x.shape[1]))
    if len(wu):
        N = wu.sum()
        pu = _sigmoid(unl_x @ theta)
        gu = (pu - yu)[:, None] * unl_x
        hess += lam * (unl_x * (wu * pu * (1 - pu))[:, None]).T @ unl_x / N
        middle += lam ** 2 * (n / N) * _wcov(gu, wu)
    inv = np.linalg.pinv(hess)
    return inv @ middle @ inv / n, inv, g, gh, gu


def _centred(theta, cov, systems):
    """Abilities with system 0 pinned → centred on their mean, and the matching covariance."""
    k = len(systems)
    full = np.concatenate([[0.0], theta])
    embed = np.zeros((k, k - 1))
    embed[1:, :] = np.eye(k - 1)
    centre = np.eye(k) - 1.0 / k
    return pd.Series(centre @ full, index=list(systems)), centre @ embed @ cov @ embed.T @ centre.T


@dataclass
class BTEstimate:
    """Centred BT abilities with covariance; ``lam`` the judge's weight; n, N the battle counts."""

    scores: pd.Series
    cov: np.ndarray
    lam: float
    n: float
    N: float
    extra: dict = field(default_factory=dict)
    data: tuple | None = field(default=None, repr=False)  # the battles, for the bootstrap
    model: str = "bradley_terry"  # or "davidson": which fit ``bootstrap_battles`` repeats

    @property
    def se(self) -> pd.Series:
        return pd.Series(np.sqrt(np.clip(np.diag(self.cov), 0, None)), index=self.scores.index)

    def intervals(self, level: float = 0.95) -> pd.DataFrame:
        z = norm.ppf(0.5 + level / 2)
        se = self.se
        return pd.DataFrame({"score": self.scores, "lo": self.scores - z * se, "hi": self.scores + z * se})


def _labels(outcome):
    """Outcome codes (0 tie, 1 a, 2 b) → P(a preferred) labels 1, 0, ½."""
    outcome = np.asarray(outcome)
    return np.where(outcome == 1, 1.0, np.where(outcome == 2, 0.0, 0.5))


def pair_battles(human, judge, path=None):
    """Match human and judge battles (``Comparisons`` on the same systems) into labelled battles
    (the judge's verdict on the same item and pair: ŷ) and judge-only battles.

    A human battle is matched to the judge's battle on the same item and the same two systems
    (in either order; the judge's label is turned to the human's order). Human battles the judge
    did not judge are left out (counted in ``extra['unmatched_human']``); judge battles on items
    humans judged but not matched are judge-only battles. Several judge verdicts on one battle are
    averaged. No matched battle is an ``InputError``."""
    systems = tuple(sorted(set(human.systems) | set(judge.systems)))
    code = {s: i for i, s in enumerate(systems)}
    k = len(systems)
    parts = []
    for c in (human, judge):
        if (c.item < 0).any():
            raise InputError(path, None, "battles without an item id cannot be matched between human and "
                             "automatic judges", "give every battle an item (prompt or segment id) column")
        recode = np.array([code[s] for s in c.systems], dtype=np.int64)
        a, b = recode[c.a], recode[c.b]
        y = _labels(c.outcome)
        flip = a > b  # orient every battle lo < hi, turning the label
        parts.append((np.where(flip, b, a), np.where(flip, a, b), np.where(flip, 1.0 - y, y),
                      np.asarray(c.weight, float), np.asarray(c.items, dtype=object)[c.item],
                      (c.outcome == 0).astype(float)))
    items, _ = pd.factorize(np.concatenate([parts[0][4], parts[1][4]]))
    (ha, hb, hy, hw, _, ht), (ja, jb, jy, jw, _, jt) = parts
    hkey = (items[:len(ha)].astype(np.int64) * k + ha) * k + hb
    jkey = (items[len(ha):].astype(np.int64) * k + ja) * k + jb
    keys, inverse = np.unique(jkey, return_inverse=True)
    total = np.bincount(inverse, jw, len(keys))
    yhat = np.bincount(inverse, jw * jy, len(keys)) / total
    tiehat = np.bincount(inverse, jw * jt, len(keys)) / total  # the judge's share of tie verdicts
    where = np.minimum(np.searchsorted(keys, hkey), len(keys) - 1)
    matched = keys[where] == hkey
    if not matched.any():
        raise InputError(path, None, "the human and the automatic judgments share no battle (same item, same two "
                         "systems)", "the automatic judge must also judge (some of) the battles humans judged: check "
                         "that item ids and system names are spelled alike in both parts")
    lab = pd.DataFrame({"a": ha[matched], "b": hb[matched], "y": hy[matched], "yhat": yhat[where[matched]],
                        "w": hw[matched], "tie": ht[matched], "tiehat": tiehat[where[matched]]})
    rest = ~np.isin(jkey, hkey[matched])
    unl = pd.DataFrame({"a": ja[rest], "b": jb[rest], "y": jy[rest], "w": jw[rest], "tie": jt[rest]})
    return systems, lab, unl, int((~matched).sum())


def ppi_bradley_terry(human, judge, lam: float | None = None, path=None) -> dict[str, BTEstimate]:
    """Human-only, judge-only and PPI++ Bradley–Terry abilities from ``Comparisons`` of human and
    automatic judges (module formulas). Returns {"human", "judge", "ppi"}; "ppi" carries λ and
    ``extra['effective_n']`` (n · tr Σ_human / tr Σ_PPI) and ``extra['unmatched_human']``."""
    systems, lab, unl, unmatched = pair_battles(human, judge, path)
    k = len(systems)
    lx, ux = _design(lab["a"].to_numpy(), lab["b"].to_numpy(), k), _design(unl["a"].to_numpy(), unl["b"].to_numpy(), k)
    y, yh, w = lab["y"].to_numpy(float), lab["yhat"].to_numpy(float), lab["w"].to_numpy(float)
    yu, wu = unl["y"].to_numpy(float), unl["w"].to_numpy(float)
    _check_connected(lab, k, systems, path)
    out = {}
    th = _fit(lx, y, yh, w, ux, yu, wu, 0.0)
    cov = _sandwich(lx, y, yh, w, ux[:0], yu[:0], wu[:0], 0.0, th)[0]
    out["human"] = BTEstimate(*_centred(th, cov, systems), 0.0, float(w.sum()), 0.0)
    jx, jy, jw = np.vstack([lx, ux]), np.concatenate([yh, yu]), np.concatenate([w, wu])
    th = _fit(jx, jy, jy, jw, ux[:0], yu[:0], wu[:0], 0.0)
    cov = _sandwich(jx, jy, jy, jw, ux[:0], yu[:0], wu[:0], 0.0, th)[0]
    out["judge"] = BTEstimate(*_centred(th, cov, systems), 1.0, 0.0, float(jw.sum()))
    th, lam = _tuned(_fit, _sandwich, (lx, y, yh, w, ux, yu, wu), lam)
    cov = _sandwich(lx, y, yh, w, ux, yu, wu, lam, th)[0]
    ppi = BTEstimate(*_centred(th, cov, systems), float(lam), float(w.sum()), float(wu.sum()))
    tr_h, tr_p = np.trace(out["human"].cov), np.trace(ppi.cov)
    ppi.extra = {"effective_n": float(w.sum() * tr_h / tr_p) if tr_p > 0 else np.inf,
                 "unmatched_human": unmatched, **_humans_alone(ppi_bradley_terry, human, unmatched, path)}
    ppi.data = (lx, y, yh, w, ux, yu, wu)
    out["ppi"] = ppi
    return out


def _humans_alone(model, human, unmatched, path) -> dict:
    """{"all_human": the humans alone on all their battles} when PPI++ set ``unmatched`` of them
    aside (the judge did not judge them), else {}: ``model`` (``ppi_bradley_terry`` or
    ``ppi_davidson``) fitted with the humans as their own judge and λ = 0, whose "human" estimate
    uses every human battle. Beside the combined estimate it shows when the humans alone are the
    narrower (``humans_alone``)."""
    return {"all_human": model(human, human, lam=0.0, path=path)["human"]} if unmatched else {}


UNBOUNDED = 20.0  # logits between two abilities: a fit this spread has separated (no finite maximum)


def bounded(theta) -> bool:
    """Whether abilities θ (system 0 pinned at 0, as ``_fit`` gives them) stayed finite and less
    than ``UNBOUNDED`` logits apart (odds of e^20). Beyond, the loss has no finite maximum (a
    system that never lost; at λ = 1 a system the judge alone never saw, where the labelled terms
    are linear) and the solver has followed it along a ray."""
    theta = np.asarray(theta, dtype=float)
    return bool(np.all(np.isfinite(theta)) and np.ptp(np.concatenate([[0.0], theta])) <= UNBOUNDED)


def _tuned(fit, sandwich, data, lam=None, start=None):
    """(θ̂_λ, λ): the PPI++ fit of ``data`` = (labelled design, y, ŷ, ω, judge-only design, ŷ, ω),
    with λ tuned by ``power_tuning`` at the λ = 1 fit (PPI++ §6) unless given; λ = 0 (the humans
    alone) when the λ = 1 loss has no finite maximum to tune at (``bounded``). ``fit`` and
    ``sandwich`` are a model's pair (``_fit``/``_sandwich`` or the Davidson ones)."""
    if lam is None:
        th1 = fit(*data, 1.0, start=start)
        if len(data[6]) and bounded(th1[:data[0].shape[1]]):  # the abilities (Davidson's log ν follows)
            _, inv, g, gh, gu = sandwich(*data, 1.0, th1)
            lam = power_tuning(g, gh, gu, inv, w=data[3], w_unlabeled=data[6])
        else:
            lam = 0.0
    return fit(*data, lam, start=start), float(lam)


def _check_connected(lab, k, systems, path):
    """The human battles must connect every system (else their abilities are not identified)."""
    parent = list(range(k))
    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    for a, b in zip(lab["a"], lab["b"]):
        parent[find(a)] = find(b)
    roots = {find(i) for i in range(k)}
    if len(roots) > 1:
        lonely = [systems[i] for i in range(k) if find(i) != find(0)]
        raise InputError(path, None, f"the human battles shared with the judge do not connect all systems "
                         f"({', '.join(lonely[:5])} never meet {systems[0]}'s part)",
                         "collect human judgments that link every system, or leave the unlinked systems out")


def ppi_bootstrap(statistic, n: int, N: int, n_resamples: int = 1000, level: float = 0.95,
                  random_state=None) -> tuple[np.ndarray, np.ndarray]:
    """Percentile intervals by the prediction-powered bootstrap: each resample draws n labelled
    units (a human label with the judge's label on the same unit, kept together) and,
    independently, N judge-only units, both with replacement, as the two samples were drawn
    (Zrnic & Candès 2024, "Cross-prediction-powered inference"; PPI++'s bootstrap, Angelopoulos,
    Duchi & Zrnic 2023). ``statistic(i, j)`` re-estimates everything from the labelled rows ``i``
    and the judge-only rows ``j`` — λ included, so its sampling error is in the interval — and
    returns a 1-d array. Returns (lo, hi): its (1 − level)/2 and (1 + level)/2 quantiles over the
    resamples (``random_state``: a seed or a ``numpy.random.Generator``)."""
    rng = np.random.default_rng(random_state)
    def draw(m):
        return rng.integers(0, m, m) if m else np.zeros(0, int)

    draws = np.array([statistic(draw(n), draw(N)) for _ in range(n_resamples)])
    q = (1 - level) / 2
    lo, hi = np.nanquantile(draws, [q, 1 - q], axis=0)
    return lo, hi


def _distinct(arrays):
    """Distinct rows of aligned arrays (any shapes after the first axis): (the distinct rows as a
    list of arrays like ``arrays``, each input row's code)."""
    flat = np.column_stack([np.asarray(v, float).reshape(len(v), -1) for v in arrays])
    rows, code = np.unique(flat, axis=0, return_inverse=True)
    out, at = [], 0
    for v in arrays:
        width = int(np.prod(np.shape(v)[1:], dtype=int))
        out.append(rows[:, at:at + width].reshape((len(rows),) + np.shape(v)[1:]))
        at += width
    return out, code.ravel()


def bootstrap_battles(estimate: BTEstimate, n_resamples: int = 1000, level: float = 0.95,
                      random_state=None, path=None) -> pd.DataFrame:
    """Percentile intervals of the human-only and the PPI++ abilities of a ``ppi_bradley_terry``
    or ``ppi_davidson`` estimate (its "ppi" entry) by ``ppi_bootstrap``: matched human and judge
    verdicts resampled as pairs, judge-only battles separately, the human-only fit, λ and the
    PPI++ fit redone in each resample (a fixed λ would leave its sampling error out).

    Each resample is the multiset of distinct battles (systems, labels, weight) with their
    resampled counts as frequency weights: the same fit as on the expanded rows, faster.
    Returns per system: human_lo, human_hi, ppi, ppi_lo, ppi_hi (centred abilities). Davidson's
    model on battles without a tie is an ``InputError``: ν̂ = 0 lies on the boundary, where every
    refit would run to its iteration limit."""
    data = estimate.data
    if estimate.model == "davidson" and not (data[1][:, 1].any() or data[2][:, 1].any() or data[5][:, 1].any()):
        raise InputError(path, None, "no battle is a tie, so Davidson's tie parameter is 0 and its bootstrap "
                         "refits cannot converge", "use --model bt (the same abilities without ties), or "
                         "battles where a tie is a possible verdict")
    fit, sandwich = {"bradley_terry": (_fit, _sandwich), "davidson": (_fit_davidson, _sandwich_davidson)}[
        estimate.model]
    lab, lab_code = _distinct(data[:4])
    unl, unl_code = _distinct(data[4:])
    free = len(estimate.scores) - 1
    start = fit(*data, estimate.lam)  # warm start of every fit: the estimate itself

    def centred(phi):
        full = np.concatenate([[0.0], phi[:free]])
        return full - full.mean()

    def statistic(i, j):
        cl, cu = np.bincount(lab_code[i], minlength=len(lab[0])), np.bincount(unl_code[j], minlength=len(unl[0]))
        li, ui = cl > 0, cu > 0
        part = (lab[0][li], lab[1][li], lab[2][li], lab[3][li] * cl[li], unl[0][ui], unl[1][ui], unl[2][ui] * cu[ui])
        human = fit(*part[:4], *(v[:0] for v in part[4:]), 0.0, start=start)
        return np.concatenate([centred(human), centred(_tuned(fit, sandwich, part, None, start)[0])])

    lo, hi = ppi_bootstrap(statistic, len(lab_code), len(unl_code), n_resamples, level, random_state)
    k = free + 1
    systems = estimate.scores.index
    return pd.DataFrame({"human_lo": lo[:k], "human_hi": hi[:k], "ppi": estimate.scores.to_numpy(),
                         "ppi_lo": lo[k:], "ppi_hi": hi[k:]}, index=systems)


def bootstrap_system_means(human: pd.Series, judge: pd.Series, n_resamples: int = 1000, level: float = 0.95,
                           random_state=None, path=None) -> pd.DataFrame:
    """Percentile intervals of the human-only and PPI++ system means (``system_means``' systems)
    by ``ppi_bootstrap``, per system: its units with human and judge scores resampled as pairs,
    its judge-only units separately, λ re-tuned in each resample (``clip=False``, as
    ``system_means``). Returns per system: human_lo, human_hi, ppi, ppi_lo, ppi_hi."""
    table = system_means(human, judge, level, path=path)
    lab, unl = units(human, judge, path)
    rng = np.random.default_rng(random_state)
    rows = {}
    for system in table.index:
        y, yh = (lab.xs(system, level=1)[c].to_numpy(float) for c in ("human", "judge"))
        yu = unl.xs(system, level=1)["judge"].to_numpy(float)
        lo, hi = ppi_bootstrap(lambda i, j: (y[i].mean(), ppi_mean(y[i], yh[i], yu[j], clip=False).estimate),
                               len(y), len(yu), n_resamples, level, rng)
        rows[system] = {"human_lo": lo[0], "human_hi": hi[0], "ppi": table.at[system, "ppi"], "ppi_lo": lo[1],
                        "ppi_hi": hi[1]}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "system"
    return out


def hold_out(human: pd.Series, judge: pd.Series, fraction: float, random_state=None) -> pd.Series:
    """Keep the human scores of a random ``fraction`` of the (item, system) units both kinds of judge
    scored: a pre-annotation campaign replayed on data where humans rated everything (the rest of
    the human scores are what the combined estimate is checked against)."""
    human = human.groupby(level=[0, 1]).mean()
    shared = human.index.intersection(judge.index)
    rng = np.random.default_rng(random_state)
    keep = shared[rng.random(len(shared)) < fraction]
    return human.loc[keep]


# -- Davidson's ties model ------------------------------------------------------------------

def _statistics(a, b, k):
    """Davidson's model is log-linear: log P(outcome) = φ · T_outcome − log Σ exp(φ · T), with
    φ = (θ_1..θ_{k−1}, log ν) (θ_0 = 0) and T_a = (e_a, 0), T_tie = ((e_a + e_b)/2, 1), T_b = (e_b, 0).
    Returns T as (m, 3, k) over the outcomes (a, tie, b)."""
    m = len(a)
    t = np.zeros((m, 3, k + 1))
    rows = np.arange(m)
    t[rows, 0, a] = 1.0
    t[rows, 2, b] = 1.0
    t[rows, 1, a] += 0.5
    t[rows, 1, b] += 0.5
    t[:, 1, k] = 1.0
    return t[:, :, 1:]


def _shares(y, tie):
    """(a, tie, b) shares from P(a preferred) with ties ½ and the tie share."""
    return np.column_stack([y - tie / 2, tie, 1 - y - tie / 2])


def _moments(t, phi):
    eta = t @ phi
    p = np.exp(eta - eta.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    mean = np.einsum("mk,mkd->md", p, t)
    second = np.einsum("mk,mkd,mke->mde", p, t, t)
    return mean, second - np.einsum("md,me->mde", mean, mean)


def _fit_davidson(t, q, qh, w, tu, qu, wu, lam, start=None, tol=1e-10, max_iter=100):
    """φ = (θ_1 … θ_{k−1}, log ν) minimising the PPI++ loss of Davidson's model (convex for
    λ ∈ [0, 1]: its Hessian (1 − λ)/n Σ Cov(T) + λ/N Σ Cov(T) does not depend on the labels, an
    exponential family): as ``_fit``, the family's likelihood (``LINKS["davidson"]``, linear in the
    counts) with signed counts ω/n (q − λq̂) per labelled battle and λω/N q per judge-only one."""
    n, N = w.sum(), (wu.sum() if len(wu) else 1.0)
    order = [1, 0, 2]  # shares (a, tie, b) → the link's counts (tie, a, b)
    counts = (w[:, None] * (q - lam * qh) / n)[:, order]
    a, b = _systems(t[:, 0, :-1] > 0), _systems(t[:, 2, :-1] > 0)
    if len(wu) and lam:
        counts = np.vstack([counts, (lam * wu[:, None] * qu / N)[:, order]])
        a, b = np.concatenate([a, _systems(tu[:, 0, :-1] > 0)]), np.concatenate([b, _systems(tu[:, 2, :-1] > 0)])
    theta, log_nu = _family_fit(LINKS["davidson"], a, b, counts, t.shape[2], start, tol, max_iter)
    return np.concatenate([theta, [log_nu]])


def _sandwich_davidson(t, q, qh, w, tu, qu, wu, lam, phi):
    n = w.sum()
    mean, cov = _moments(t, phi)
    g = mean - np.einsum("mk,mkd->md", q, t)
    gh = mean - np.einsum("mk,mkd->md", qh, t)
    hess = np.einsum("m,mde->de", w * (1 - lam), cov) / n
    middle = _wcov(g - lam * gh, w)
    gu = np.zeros((0, len(phi)))
    if len(wu):
        N = wu.sum()
        mu, cu = _moments(tu, phi)
        gu = mu - np.einsum("mk,mkd->md", qu, tu)
        hess += lam * np.einsum("m,mde->de", wu, cu) / N
        middle += lam ** 2 * (n / N) * _wcov(gu, wu)
    inv = np.linalg.pinv(hess)
    return inv @ middle @ inv / n, inv, g, gh, gu


def ppi_davidson(human, judge, lam: float | None = None, path=None) -> dict[str, BTEstimate]:
    """As ``ppi_bradley_terry`` with Davidson's (1970) ties model: P(tie) = ν / (e^u + e^−u + ν),
    u = (θ_a − θ_b)/2 (``humeval.ranking.Davidson``'s parametrisation); ties are an outcome of
    their own, and the judge's tie share is its predicted tie. Each estimate's ``extra['nu']`` is ν."""
    systems, lab, unl, unmatched = pair_battles(human, judge, path)
    k = len(systems)
    _check_connected(lab, k, systems, path)
    t, tu = _statistics(lab["a"].to_numpy(), lab["b"].to_numpy(), k), _statistics(unl["a"].to_numpy(),
                                                                                    unl["b"].to_numpy(), k)
    q = _shares(lab["y"].to_numpy(float), lab["tie"].to_numpy(float))
    qh = _shares(lab["yhat"].to_numpy(float), lab["tiehat"].to_numpy(float))
    qu = _shares(unl["y"].to_numpy(float), unl["tie"].to_numpy(float))
    w, wu = lab["w"].to_numpy(float), unl["w"].to_numpy(float)

    def estimate(t, q, qh, w, tu, qu, wu, lam, n, N):
        phi = _fit_davidson(t, q, qh, w, tu, qu, wu, lam)
        cov = _sandwich_davidson(t, q, qh, w, tu, qu, wu, lam, phi)[0]
        scores, c = _centred(phi[:-1], cov[:-1, :-1], systems)
        return BTEstimate(scores, c, float(lam), n, N, {"nu": float(np.exp(phi[-1]))})

    out = {"human": estimate(t, q, qh, w, tu[:0], qu[:0], wu[:0], 0.0, float(w.sum()), 0.0)}
    tj, qj, wj = np.concatenate([t, tu]), np.concatenate([qh, qu]), np.concatenate([w, wu])
    out["judge"] = estimate(tj, qj, qj, wj, tu[:0], qu[:0], wu[:0], 0.0, 0.0, float(wj.sum()))
    data = (t, q, qh, w, tu, qu, wu)
    lam = _tuned(_fit_davidson, _sandwich_davidson, data, lam)[1]
    ppi = estimate(*data, lam, float(w.sum()), float(wu.sum()))
    ppi.data, ppi.model = data, "davidson"
    tr_h, tr_p = np.trace(out["human"].cov), np.trace(ppi.cov)
    ppi.extra.update(effective_n=float(w.sum() * tr_h / tr_p) if tr_p > 0 else np.inf, unmatched_human=unmatched,
                     **_humans_alone(ppi_davidson, human, unmatched, path))
    out["ppi"] = ppi
    return out
