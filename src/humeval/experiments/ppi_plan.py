"""How many human judgments an automatic judge saves: the PPI++ precision of a campaign of n
human battles and R·n judge-only battles, predicted from a pilot that has both.

For Bradley–Terry abilities (``ppi.ppi_bradley_terry``) the covariance of the PPI++ estimate is
Σ_PPI = H⁻¹ [λ² V_f / R + V_Δ(λ)] H⁻¹ / n, with R = N / n, V_f the covariance of the judge's
gradients over its battles, V_Δ that of ∇ℓ(y) − λ ∇ℓ(ŷ) on the battles both judged, and λ
PPI++'s optimum for that R (Angelopoulos, Duchi & Zrnic 2023, §6)::

    λ_R = tr(H⁻¹ (Ĉov(g, ĝ) + Ĉov(ĝ, g)) H⁻¹) / (2 (1 + 1/R) tr(H⁻¹ V_f H⁻¹)),  clipped to [0, 1]

The humans alone have Σ_human = H⁻¹ V_g H⁻¹ / n. Both scale as 1/n, so the ratio
m(R) = tr Σ_human / tr Σ_PPI (traces of the centred abilities' covariances) does not depend on n:
n human battles with the judge are worth m(R) · n human battles alone (``ppi``'s "worth"), and a
precision a human-only plan reaches with B battles needs B / m(R) human battles with the judge.
Σ_human is the humans' own fit and sandwich, as ``ppi`` computes it; λ_R from the gradients at the
pilot's λ = 1 fit (as PPI++ tunes it), Σ_PPI at the pilot's λ_R fit: at the pilot's own ratio
m(R) is ``ppi``'s worth.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import norm

from humeval.experiments.ppi import _centred, _check_connected, _design, _fit, _sandwich, _wcov, bounded, pair_battles


def _lambda_moments(g, gh, gu, w, wu):
    """PPI++ λ's moments from weighted gradients: V_f over every judge label, and
    Ĉov(g, ĝ) + Ĉov(ĝ, g) on the battles both judged (frequency weights ``w``, ``wu``)."""
    vf = _wcov(np.concatenate([gh, gu]), np.concatenate([w, wu]))  # λ's denominator: every judge label
    gc, ghc = g - (w[:, None] * g).sum(0) / w.sum(), gh - (w[:, None] * gh).sum(0) / w.sum()
    return vf, ((gc * w[:, None]).T @ ghc + (ghc * w[:, None]).T @ gc) / w.sum()


def _lambda_at(vf, cross, inv, ratio):
    """λ_R (module formula), clipped to [0, 1]."""
    denom = 2 * (1 + 1 / ratio) * np.trace(inv @ vf @ inv)
    return float(np.clip(np.trace(inv @ cross @ inv) / denom, 0, 1)) if denom > 0 else 0.0


def judge_worth(human, judge, ratios=None, path=None) -> pd.DataFrame:
    """Per judge-to-human ratio R (default: the pilot's N / n and 1, 3, 10, 30, 100), PPI++'s λ and
    the multiplier m(R) (module formulas): what one human battle with the judge is worth in human
    battles alone. ``attrs['pilot_ratio']`` is the pilot's N / n."""
    systems, lab, unl, _ = pair_battles(human, judge, path)
    k = len(systems)
    _check_connected(lab, k, systems, path)
    lx, ux = _design(lab["a"].to_numpy(), lab["b"].to_numpy(), k), _design(unl["a"].to_numpy(), unl["b"].to_numpy(), k)
    y, yh, w = lab["y"].to_numpy(float), lab["yhat"].to_numpy(float), lab["w"].to_numpy(float)
    yu, wu = unl["y"].to_numpy(float), unl["w"].to_numpy(float)
    if not len(wu):
        raise ValueError("the pilot has no battle judged by the judge alone: nothing to plan from")
    theta_h = _fit(lx, y, yh, w, ux[:0], yu[:0], wu[:0], 0.0)
    cov_h = _sandwich(lx, y, yh, w, ux[:0], yu[:0], wu[:0], 0.0, theta_h)[0]  # the humans alone, as ppi has it
    theta = _fit(lx, y, yh, w, ux, yu, wu, 1.0)
    _, inv, g, gh, gu = _sandwich(lx, y, yh, w, ux, yu, wu, 1.0, theta)
    vf, cross = _lambda_moments(g, gh, gu, w, wu)
    tr_human = np.trace(_centred(theta_h, cov_h, systems)[1])
    pilot = float(wu.sum() / w.sum())
    ratios = sorted({round(pilot, 2), 1.0, 3.0, 10.0, 30.0, 100.0} if ratios is None else set(ratios))
    rows = []
    for r in ratios:
        lam = _lambda_at(vf, cross, inv, r)
        theta_r = _fit(lx, y, yh, w, ux, yu, wu, lam, start=theta)
        _, inv_r, g_r, gh_r, gu_r = _sandwich(lx, y, yh, w, ux, yu, wu, lam, theta_r)  # at the λ_R fit
        middle = lam ** 2 * _wcov(gu_r, wu) / r + _wcov(g_r - lam * gh_r, w)
        cov = inv_r @ middle @ inv_r / w.sum()
        rows.append((r, lam, tr_human / np.trace(_centred(theta_r, cov, systems)[1])))
    out = pd.DataFrame(rows, columns=["judge per human", "lambda", "worth"]).set_index("judge per human")
    out.attrs["pilot_ratio"] = pilot
    out.attrs["n"] = float(w.sum())
    return out


# -- how many human judgments reach a target, by simulated campaigns with the judge ----------------

@dataclass
class JudgedPilot:
    """What a simulated campaign with the judge is drawn from (``battles_pilot``, ``ratings_pilot``).

    ``estimate``, ``se``: the truth's centre and spread (the pilot's PPI++ estimates; the truth of
    each simulated campaign is drawn around them as ``planning.plan`` draws it); ``agreement``:
    battles, the share of battles both decided where the judge sides with the humans; ratings, the
    correlation of human and judge scores; ``ratio``: judge-only units per human one;
    ``tie_human``/``tie_judge``: battles' tie rates; ``sd``: ratings, the humans' score sd."""

    kind: str
    systems: tuple
    estimate: np.ndarray
    se: np.ndarray
    agreement: float
    ratio: float
    tie_human: float = 0.0
    tie_judge: float = 0.0
    sd: float = 1.0
    n: int = 0                  # the pilot's human judgments (battles, or rated units shared with the judge) …
    width: float | None = None  # … and its own 95 % width (PPI++ with the judge's labels, else human-only)
    has_judge: bool = True      # False: a human-only pilot, the judge given by its agreement and ratio
    pairs: np.ndarray | None = None        # battles: the pilot's (a, b) pairs of the human battles, (m, 2) …
    judge_pairs: np.ndarray | None = None  # … and of the judge-only ones: the simulated campaigns' design


def battles_pilot(human, judge, path=None, agreement: float | None = None, ratio: float | None = None) -> JudgedPilot:
    """The simulation's inputs from a pilot of human and judge battles; ``agreement`` and ``ratio``
    replace what the pilot measured when given; ``judge=None`` (no judge labels yet) needs both."""
    from humeval.experiments.ppi import ppi_bradley_terry
    if judge is None:  # a human-only pilot: the judge is described by the numbers given
        if agreement is None or ratio is None:
            raise ValueError("a pilot without the judge's labels needs the judge's agreement and ratio")
        fit = ppi_bradley_terry(human, human, path=path)["human"]
        tie = float(np.average(human.outcome == 0, weights=human.weight))
        order = {sys: i for i, sys in enumerate(fit.scores.index)}
        recode = np.array([order[sys] for sys in human.systems])
        pairs = np.column_stack([recode[human.a], recode[human.b]])
        return JudgedPilot("battles", tuple(fit.scores.index), fit.scores.to_numpy(float), fit.se.to_numpy(float),
                           float(agreement), float(ratio), tie, tie, n=int(human.weight.sum()),
                           width=float(2 * norm.ppf(0.975) * fit.se.mean()), has_judge=False, pairs=pairs,
                           judge_pairs=pairs)
    systems, lab, unl, _ = pair_battles(human, judge, path)
    fit = ppi_bradley_terry(human, judge, path=path)["ppi"]
    decided = (lab["tie"] == 0) & (lab["yhat"] != 0.5)
    measured = float((np.round(lab["yhat"][decided]) == lab["y"][decided]).mean()) if decided.any() else np.nan
    pilot_ratio = float(unl["w"].sum() / lab["w"].sum())
    return JudgedPilot("battles", systems, fit.scores.to_numpy(float), fit.se.to_numpy(float),
                       measured if agreement is None else float(agreement),
                       pilot_ratio if ratio is None else float(ratio),
                       float(np.average(lab["tie"], weights=lab["w"])),
                       float(np.average(np.concatenate([lab["tiehat"], unl["tie"]]),
                                        weights=np.concatenate([lab["w"], unl["w"]]))),
                       n=int(lab["w"].sum()), width=float(2 * norm.ppf(0.975) * fit.se.mean()),
                       pairs=lab[["a", "b"]].to_numpy(), judge_pairs=unl[["a", "b"]].to_numpy() if len(unl) else
                       lab[["a", "b"]].to_numpy())


def ratings_pilot(human: pd.Series, judge: pd.Series | None, path=None, agreement: float | None = None,
                  ratio: float | None = None) -> JudgedPilot:
    """The simulation's inputs from human and judge scores indexed by (item, system)
    (``ppi.system_means``): the systems' PPI++ means, the pooled within-system correlation of human
    and judge scores on the shared units, the humans' within-system sd; ``judge=None`` as in
    ``battles_pilot``."""
    from humeval.experiments.ppi import system_means, units
    if judge is None:  # a human-only pilot: the judge is described by the numbers given
        if agreement is None or ratio is None:
            raise ValueError("a pilot without the judge's labels needs the judge's agreement and ratio")
        unit = human.groupby(level=[0, 1]).mean()
        by = unit.groupby(level=1)
        se = (by.std(ddof=0) / np.sqrt(by.size())).to_numpy(float)
        return JudgedPilot("ratings", tuple(by.mean().index), by.mean().to_numpy(float), se, float(agreement),
                           float(ratio), sd=float((unit - by.transform("mean")).std()), n=len(unit),
                           width=float(2 * norm.ppf(0.975) * se.mean()), has_judge=False)
    table = system_means(human, judge, path=path).sort_index()
    lab, unl = units(human, judge, path)
    lab = lab[lab.index.get_level_values(1).isin(table.index)]
    centred = lab - lab.groupby(level=1).transform("mean")
    measured = float(np.corrcoef(centred["human"], centred["judge"])[0, 1])
    return JudgedPilot("ratings", tuple(table.index), table["ppi"].to_numpy(float), table["se_ppi"].to_numpy(float),
                       measured if agreement is None else float(agreement),
                       float(table["N"].sum() / table["n"].sum()) if ratio is None else float(ratio),
                       sd=float(centred["human"].std()), n=int(table["n"].sum()), width=float(table["width_ppi"].mean()))


def _judge_noise(agreement: float, spread: np.ndarray, rng) -> float:
    """σ of the judge's noise for which P(sign u = sign(u + σz)) is ``agreement``, u = θ_a − θ_b + ε
    (ε logistic, z normal) over random pairs: bisection on fixed draws (the share falls with σ)."""
    if not 0.5 < agreement <= 1:
        raise ValueError(f"a judge agreeing with the humans on {agreement:.1%} of the battles they both decide "
                         "carries no information (needs more than 50%)")
    m = 200_000
    a = rng.integers(0, len(spread), m)
    b = (a + rng.integers(1, len(spread), m)) % len(spread)
    u = spread[a] - spread[b] + rng.logistic(0, 1, m)
    z = rng.normal(0, 1, m)
    lo, hi = 0.0, 1e3
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if np.mean((u > 0) == (u + mid * z > 0)) > agreement else (lo, mid)
    return (lo + hi) / 2


def _cells(a, b, y, yhat, k):
    """Battles with the same pair and labels collapsed into one weighted row (frequency weights:
    the PPI++ loss and its sandwich are sums over battles, so this is exact)."""
    key = ((a * k + b) * 3 + np.round(2 * y).astype(int)) * 3 + np.round(2 * yhat).astype(int)
    keys, w = np.unique(key, return_counts=True)
    yh, rest = keys % 3 / 2, keys // 3
    yy, rest = rest % 3 / 2, rest // 3
    return rest // k, rest % k, yy, yh, w.astype(float)


def _battle_campaign(truth, noise, pilot: JudgedPilot, n: int, rng):
    """One simulated campaign: n battles judged by humans and the judge, ratio·n by the judge only;
    returns (2·z·se averaged over systems: human-only, PPI++; whether PPI++ puts the true top first).
    A width is NaN (unbounded) when its fit has no finite maximum (``ppi.bounded``: a system the
    humans never saw lose; PPI++ is fitted all the same, from zero, as ``humeval ppi`` would), and
    a PPI++ fit without one does not identify the top; before this was checked, 9 % of the small
    campaigns of WMT10 es-en's plan went on with abilities of 1e10 and widths of 0 to 7e13."""
    from scipy.stats import norm
    k = len(truth)
    m = n + int(round(pilot.ratio * n))
    if pilot.pairs is None:  # uniformly random pairs
        a = rng.integers(0, k, m)
        b = (a + rng.integers(1, k, m)) % k
    else:  # the pilot's design: its pairs drawn with replacement, as often as it judged them
        drawn = np.concatenate([pilot.pairs[rng.integers(0, len(pilot.pairs), n)],
                                pilot.judge_pairs[rng.integers(0, len(pilot.judge_pairs), m - n)]])
        a, b = drawn[:, 0], drawn[:, 1]
    u = truth[a] - truth[b] + rng.logistic(0, 1, m)
    y = np.where(rng.random(m) < pilot.tie_human, 0.5, (u > 0).astype(float))
    yhat = np.where(rng.random(m) < pilot.tie_judge, 0.5, (u + noise * rng.normal(0, 1, m) > 0).astype(float))
    la, lb, ly, lyh, lw = _cells(a[:n], b[:n], y[:n], yhat[:n], k)
    ua, ub, _, uy, uw = _cells(a[n:], b[n:], yhat[n:], yhat[n:], k)
    lx, ux = _design(la, lb, k), _design(ua, ub, k)
    z = 2 * norm.ppf(0.975)
    if len(np.unique(np.concatenate([la, lb]))) < k:
        return np.nan, np.nan, 0.0
    systems = tuple(range(k))

    def width_of(theta, cov):
        return z * np.sqrt(np.clip(np.diag(_centred(theta, cov, systems)[1]), 0, None)).mean()

    theta_h = _fit(lx, ly, lyh, lw, ux[:0], uy[:0], uw[:0], 0.0)
    if bounded(theta_h):
        width_h = width_of(theta_h, _sandwich(lx, ly, lyh, lw, ux[:0], uy[:0], uw[:0], 0.0, theta_h)[0])
        start = theta_h
    else:  # a system the humans never saw lose (or win): their width is unbounded; PPI++'s may not be
        width_h, start = np.nan, None
    theta1 = _fit(lx, ly, lyh, lw, ux, uy, uw, 1.0, start=start)
    if len(uw) and bounded(theta1):  # as ppi._tuned: λ = 0 when the λ = 1 loss has no maximum
        _, inv, g, gh, gu = _sandwich(lx, ly, lyh, lw, ux, uy, uw, 1.0, theta1)
        lam, start = _lambda_at(*_lambda_moments(g, gh, gu, lw, uw), inv, uw.sum() / lw.sum()), theta1
    else:
        lam = 0.0
    theta = _fit(lx, ly, lyh, lw, ux, uy, uw, lam, start=start)
    if not bounded(theta):
        return width_h, np.nan, 0.0
    cov = _sandwich(lx, ly, lyh, lw, ux, uy, uw, lam, theta)[0]
    scores, cov = _centred(theta, cov, systems)
    return width_h, z * np.sqrt(np.clip(np.diag(cov), 0, None)).mean(), \
        float(np.argmax(scores.to_numpy()) == np.argmax(truth))


def _ratings_campaign(truth, noise, pilot: JudgedPilot, n: int, rng):
    """As ``_battle_campaign`` for system means: per system n/k units scored by humans and the
    judge, ratio·n/k by the judge only; human and judge scores bivariate normal with correlation
    ``pilot.agreement`` (the judge on the humans' scale: PPI++ rescales it anyway)."""
    from scipy.stats import norm
    from humeval.experiments.ppi import classical_mean, ppi_mean
    k = len(truth)
    per, extra = max(2, n // k), max(1, int(round(pilot.ratio * max(2, n // k))))
    rho, z = pilot.agreement, 2 * norm.ppf(0.975)
    wh, wp, est = [], [], []
    for s in range(k):
        signal = rng.normal(0, 1, per + extra)
        y = truth[s] + pilot.sd * signal[:per]
        yhat = truth[s] + pilot.sd * (rho * signal + np.sqrt(1 - rho ** 2) * rng.normal(0, 1, per + extra))
        p = ppi_mean(y, yhat[:per], yhat[per:], clip=False)
        wh.append(z * classical_mean(y).se)
        wp.append(z * p.se)
        est.append(p.estimate)
    return float(np.mean(wh)), float(np.mean(wp)), float(np.argmax(est) == np.argmax(truth))


def simulate_budget(pilot: JudgedPilot, n: int, simulations: int = 100, random_state=None, scale: float = 1.0) -> dict:
    """``simulations`` campaigns of n human judgments (battles, or rated units over all systems) with
    the judge on ratio·n more, each with a truth drawn from the pilot (``planning._draw_truth``):
    the median over campaigns of the PPI++ interval width (mean over systems of the 95 % width; the
    median, as small campaigns whose battles leave a system unbeaten have unbounded widths) with its
    Monte-Carlo standard error (1.2533 σ̂/√S, σ̂ from the interquartile range), the human-only
    width at the same n, and P(top identified). Widths are multiplied by ``scale`` (``calibration``)."""
    from humeval.experiments.planning import _draw_truth
    mean, sd = _draw_truth(pilot.estimate, pilot.se)
    rng = np.random.default_rng(random_state)
    noise = _judge_noise(pilot.agreement, pilot.estimate - pilot.estimate.mean(), rng) \
        if pilot.kind == "battles" else None
    one = _battle_campaign if pilot.kind == "battles" else _ratings_campaign
    rows = []
    for s in range(simulations):
        sub = np.random.default_rng([0 if random_state is None else random_state, s])  # common numbers across n
        truth = mean + sd * sub.normal(size=len(mean))
        rows.append(one(truth, noise, pilot, int(n), sub))
    rows = np.array(rows, float)
    widths = np.where(np.isnan(rows[:, 1]), np.inf, rows[:, 1])  # a system no human battle reaches: unbounded
    q1, q3 = np.quantile(widths, [0.25, 0.75]) if np.isfinite(widths).all() else (np.nan, np.nan)
    return {"human": int(n), "judge": int(round(pilot.ratio * n)), "width": scale * float(np.median(widths)),
            "width_se": scale * float(1.2533 * (q3 - q1) / 1.349 / np.sqrt(simulations)),
            "human-only width": scale * float(np.median(np.where(np.isnan(rows[:, 0]), np.inf, rows[:, 0]))),
            "P(top identified)": float(rows[:, 2].mean()), "simulations": simulations}


def calibration(pilot: JudgedPilot, simulations: int = 100, random_state=None) -> float:
    """The pilot's own 95 % width over the simulated one at the pilot's size: what the simulator
    does not reproduce of the real campaign (how ties fall, judges' heterogeneity; WMT10 es-en:
    1.12), applied to every simulated width. 1 when the pilot has no width to compare."""
    if pilot.width is None or pilot.n < 2:
        return 1.0
    row = simulate_budget(pilot, pilot.n, simulations, random_state)
    key = "width" if pilot.has_judge else "human-only width"
    return float(pilot.width / row[key]) if np.isfinite(row[key]) and row[key] > 0 else 1.0


def human_budget(pilot: JudgedPilot, target_width: float | None = None, target_top: float | None = None,
                 simulations: int = 100, random_state=None, start: int | None = None,
                 max_budget: int = 10_000_000) -> pd.DataFrame:
    """The fewest human judgments (with the judge on ratio × as many more) whose simulated
    campaigns reach ``target_width`` (their median width, ``simulate_budget``, at most)
    and ``target_top`` (P(top identified), at least): budgets doubled until both are reached, then
    bisected on the log scale to 5 %; widths calibrated on the pilot (``calibration``). Every
    simulated budget is a row; ``attrs['answer']`` is the
    budget found (None when ``max_budget`` does not reach the targets)."""
    if target_width is None and target_top is None:
        raise ValueError("give a target width, a target P(top identified), or both")
    cache = {}
    scale = calibration(pilot, simulations, random_state)

    def at(n):
        if n not in cache:
            cache[n] = simulate_budget(pilot, n, simulations, random_state, scale)
        row = cache[n]
        return (target_width is None or row["width"] <= target_width) and \
            (target_top is None or row["P(top identified)"] >= target_top)

    k = len(pilot.systems)
    lo, hi = None, int(start or max(2 * k, 50))
    while not at(hi):
        lo, hi = hi, 2 * hi
        if hi > max_budget:
            hi = None
            break
    if hi is not None:
        lo = lo or 1
        while hi / lo > 1.05 and hi - lo > 1:
            mid = int(round(np.sqrt(lo * hi)))
            lo, hi = (lo, mid) if at(mid) else (mid, hi)
    table = pd.DataFrame(sorted(cache.values(), key=lambda r: r["human"])).set_index("human")
    table.attrs["answer"] = hi
    table.attrs["calibration"] = scale
    return table
