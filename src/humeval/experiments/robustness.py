"""Worst-case robustness of a ranking: how few judgments, dropped, change it.

The approximate maximum influence perturbation (AMIP; Broderick, Giordano & Meager 2020, "An
automatic finite-sample robustness metric: when can dropping a little data make a big
difference?") asks, for a conclusion such as "system i ranks above system j" (the gap
Δ = θ_i − θ_j > 0), for the smallest set of judgments whose removal reverses it. Refitting for
every subset is hopeless; one fit and its influence functions give a first-order answer.

For the Bradley–Terry family (``BradleyTerry``, ``Davidson``, ``RaoKupper``) the fit maximises
the penalised log-likelihood L(ψ) = Σ_r w_r ℓ_r(ψ) − λ/2 Σ_s (θ_s − θ̄)² over ψ = (θ, h, β, τ)
(abilities, first-position advantage, covariate coefficients, log tie parameter), with
ℓ_r = log P(outcome_r | x_r, τ) and x_r = θ_a − θ_b + h + βᵀz_r. Removing comparison r moves the
optimum by one Newton step, Δψ ≈ −J⁻¹ w_r ∇ℓ_r(ψ̂) with J = −∇²L(ψ̂) (the influence function,
Cook & Weisberg 1982), so the gap moves by δ_r = −w_r cᵀJ⁻¹∇ℓ_r for the contrast c = e_i − e_j,
and removing a set S by Σ_{r∈S} δ_r to first order. The greedy set, the judgments with the most
negative δ until Σ δ ≤ −Δ, is the AMIP answer; a whole-number weight k is k judgments, each
moving the gap by δ_r / k. The answer is then checked by refitting without those judgments; if
the order survives the refit, the set is enlarged along the same order (doubling, then
bisection) until a refit reverses it, and the result says so.

Everything is computed from the model's public fitted state: the scores (log-odds, or Elo points
converted back), ``coef_`` and ``covariate_scale_``, the tie parameter ``nu_`` / ``eta_`` and
``l2``; the per-comparison scores and Hessians are written out below from the links'
probabilities (the same probabilities ``predict_proba`` returns at z = 0).

``exact_robustness`` enumerates subsets on small data (the exact answer AMIP approximates);
``ratings_robustness`` answers the same question for rankings by mean rating, where the effect of
dropping any set of ratings on a mean is exact.
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import pandas as pd
from scipy.special import expit

from humeval.agreement.rankings import REFERENCE_NAMES
from humeval.data.tables import Comparisons, Ratings
from humeval.ranking.base import clone, integral
from humeval.ranking.reweight import with_weight

ELO_PER_LOGIT = 400.0 / np.log(10.0)  # the BT family's "elo" scale (ranking.bradley_terry)


# -- per-comparison derivatives of ℓ = log P(outcome | x, τ) ------------------------------------

def _probabilities(family: str, x: np.ndarray, tau: float) -> np.ndarray:
    """(n, 3) P(tie), P(a), P(b) at log-odds differences x (BT: the win probabilities without ties)."""
    if family == "davidson":  # P(a) ∝ e^{x/2}, P(b) ∝ e^{−x/2}, P(tie) ∝ ν = e^τ
        u, nu = x / 2, np.exp(tau)
        d = 2 * np.cosh(u) + nu
        return np.column_stack([nu / d, np.exp(u) / d, np.exp(-u) / d])
    if family == "rao-kupper":  # P(a) = σ(x − η), P(b) = σ(−x − η), η = e^τ
        eta = np.exp(tau)
        pa, pb = expit(x - eta), expit(-x - eta)
        return np.column_stack([1 - pa - pb, pa, pb])
    s = expit(x)
    return np.column_stack([np.zeros(len(x)), s, 1 - s])


def row_derivatives(family: str, x: np.ndarray, outcome: np.ndarray, tau: float):
    """Per comparison: dℓ/dx, dℓ/dτ and the negative Hessian entries −d²ℓ/dx², −d²ℓ/dx dτ, −d²ℓ/dτ².

    - BT (ties half a win each): ℓ = w log σ(x) + (1 − w) log σ(−x), w = 1, ½, 0 for a win, tie,
      loss: dℓ/dx = w − σ(x), −d²ℓ/dx² = σ(1 − σ); no tie parameter.
    - Davidson (1970), D = 2 cosh(x/2) + ν: dℓ/dx = [a]/2 − [b]/2 − (p_a − p_b)/2,
      dℓ/dτ = [tie] − p_t; −d²ℓ/dx² = (p_a + p_b)/4 − (p_a − p_b)²/4, −d²ℓ/dτ² = p_t(1 − p_t),
      −d²ℓ/dx dτ = −p_t (p_a − p_b)/2.
    - Rao & Kupper (1967), s_lo = σ(x − η), s_hi = σ(x + η), v = s(1 − s), τ = log η:
      dℓ/dx = [a](1 − s_lo) − [b] s_hi + [tie](1 − s_hi − s_lo); −d²ℓ/dx² = [a] v_lo + [b] v_hi +
      [tie](v_lo + v_hi); with dℓ/dη = −[a](1 − s_lo) − [b] s_hi + [tie](1 − s_hi + s_lo + 2/(e^{2η} − 1))
      and d²ℓ/dη² = −[a] v_lo − [b] v_hi − [tie](v_lo + v_hi + 1/sinh²η): dℓ/dτ = η dℓ/dη,
      −d²ℓ/dτ² = −(η dℓ/dη + η² d²ℓ/dη²), −d²ℓ/dx dτ = −η([a] v_lo − [b] v_hi + [tie](v_lo − v_hi)).
    """
    win, loss, tie = (outcome == 1).astype(float), (outcome == 2).astype(float), (outcome == 0).astype(float)
    zero = np.zeros(len(x))
    if family == "bt":
        s = expit(x)
        return win + tie / 2 - s, zero, s * (1 - s), zero, zero
    p = _probabilities(family, x, tau)
    if family == "davidson":
        diff = p[:, 1] - p[:, 2]
        return ((win - loss - diff) / 2, tie - p[:, 0], (p[:, 1] + p[:, 2]) / 4 - diff ** 2 / 4,
                -p[:, 0] * diff / 2, p[:, 0] * (1 - p[:, 0]))
    eta = np.exp(tau)
    s_lo, s_hi = p[:, 1], 1 - p[:, 2]
    v_lo, v_hi = s_lo * (1 - s_lo), s_hi * (1 - s_hi)
    with np.errstate(over="ignore", divide="ignore"):
        d_eta = -win * (1 - s_lo) - loss * s_hi + tie * (1 - s_hi + s_lo + 2 / np.expm1(2 * eta))
        dd_eta = -win * v_lo - loss * v_hi - tie * (v_lo + v_hi + 1 / np.sinh(eta) ** 2)
    d_x = win * (1 - s_lo) - loss * s_hi + tie * (1 - s_hi - s_lo)
    h_xx = win * v_lo + loss * v_hi + tie * (v_lo + v_hi)
    h_xt = -eta * (win * v_lo - loss * v_hi + tie * (v_lo - v_hi))
    return d_x, eta * d_eta, h_xx, h_xt, -(eta * d_eta + eta ** 2 * dd_eta)


FAMILIES = {"BradleyTerry": "bt", "Davidson": "davidson", "RaoKupper": "rao-kupper"}


class Influence:
    """Influence functions of a fitted Bradley–Terry family model on its training comparisons.

    ``effect(contrast)`` gives per comparison δ_r = −w_r cᵀJ⁻¹∇ℓ_r: the first-order change of
    cᵀθ when comparison r (all its weight) is removed. ``gradient`` is ∇L at the fit (≈ 0: a check
    that the formulas are the model's)."""

    def __init__(self, model, comparisons: Comparisons):
        family = FAMILIES.get(type(model).__name__)
        if family is None:
            raise ValueError(f"influence functions are written for the Bradley–Terry family (bt, davidson, "
                             f"rao-kupper), not {type(model).__name__}; use exact_robustness on small data")
        if not hasattr(model, "scores_"):
            raise ValueError("fit the model first")
        c = comparisons
        systems = tuple(model.systems_)
        if tuple(c.systems) != systems:
            raise ValueError("the comparisons are not the ones the model was fitted on (other systems)")
        m = len(systems)
        scores = np.nan_to_num(model.scores_.reindex(systems).to_numpy(dtype=float))
        theta = (scores - 1000.0) / ELO_PER_LOGIT if model.scale == "elo" else scores
        theta = theta - theta.mean()
        names = tuple(getattr(model, "covariate_names_", ()) or ())
        if names:
            beta = model.coef_.to_numpy(dtype=float)
            live = np.isfinite(beta)
            Z = c.covariates[:, [c.covariate_names.index(n) for n in names]] / model.covariate_scale_.to_numpy()
            Z, beta = Z[:, live], beta[live]
        else:
            Z, beta = np.zeros((len(c), 0)), np.zeros(0)
        h = float(getattr(model, "position_effect_", 0.0) or 0.0)
        tie_name = {"davidson": "nu_", "rao-kupper": "eta_"}.get(family)
        tau = float(np.log(getattr(model, tie_name))) if tie_name else 0.0
        self.family, self.m, self.systems, self.comparisons = family, m, systems, c
        self.theta = theta
        a, b = c.a.astype(np.int64), c.b.astype(np.int64)
        used = (a != b) & (a >= 0) & (b >= 0)
        self.used = used
        a, b = np.where(used, a, 0), np.where(used, b, 0)
        x = theta[a] - theta[b] + h + (Z @ beta if len(beta) else 0.0)
        w = np.where(used, c.weight, 0.0)
        d_x, d_t, h_xx, h_xt, h_tt = row_derivatives(family, x, c.outcome, tau)
        k = (1 if model.position_effect else 0) + Z.shape[1]
        F = np.hstack(([np.ones((len(c), 1))] if model.position_effect else []) + [Z])
        t = 1 if tie_name else 0
        size = m + k + t
        # J = Σ_r w_r V_r H_r V_rᵀ with V_r = (u_r, tie unit), u_r = (e_a − e_b, F_r), plus the prior
        J = np.zeros((size, size))
        lap = np.zeros((m, m))
        lap -= np.bincount(a * m + b, w * h_xx, m * m).reshape(m, m)
        lap += lap.T
        lap[np.arange(m), np.arange(m)] += np.bincount(a, w * h_xx, m) + np.bincount(b, w * h_xx, m)
        J[:m, :m] = lap + model.l2 * (np.eye(m) - 1.0 / m) + 1.0 / m  # the prior; 11ᵀ/m fixes the common shift
        grad = np.zeros(size)
        grad[:m] = np.bincount(a, w * d_x, m) - np.bincount(b, w * d_x, m) - model.l2 * theta
        if k:
            J[m:m + k, m:m + k] = F.T @ ((w * h_xx)[:, None] * F)
            for j in range(k):
                J[:m, m + j] = np.bincount(a, w * h_xx * F[:, j], m) - np.bincount(b, w * h_xx * F[:, j], m)
            J[m:m + k, :m] = J[:m, m:m + k].T
            grad[m:m + k] = F.T @ (w * d_x)
        if t:
            J[-1, -1] = np.sum(w * h_tt)
            J[:m, -1] = J[-1, :m] = np.bincount(a, w * h_xt, m) - np.bincount(b, w * h_xt, m)
            if k:
                J[m:m + k, -1] = J[-1, m:m + k] = F.T @ (w * h_xt)
            grad[-1] = np.sum(w * d_t)
        self.gradient = grad
        self._parts = (a, b, F, w, d_x, d_t, k, t)
        self._J = J

    def effect(self, contrast: np.ndarray) -> np.ndarray:
        """δ_r for the contrast c over the systems (the change of cᵀθ when row r is removed)."""
        a, b, F, w, d_x, d_t, k, t = self._parts
        c = np.zeros(len(self._J))
        c[:self.m] = contrast
        v = np.linalg.solve(self._J, c)
        along = v[a] - v[b] + (F @ v[self.m:self.m + k] if k else 0.0)
        return -w * (d_x * along + (d_t * v[-1] if t else 0.0))


# -- the greedy search and its verification --------------------------------------------------

def _gap(model, i: int, j: int) -> float:
    s = model.scores_.to_numpy(dtype=float)
    return float(s[i] - s[j])


class _Units:
    """What can be dropped: single judgments (rows, a whole-number weight k being k judgments) or
    whole judges, ordered by influence per judgment, most negative first. Only as much of the
    order as a question needs is sorted (``extend``: partial selection, then a sort of the
    selected), so a million rows cost a selection, not a sort. ``drop(n)`` is the weight removed
    per row when the first n judgments (or judges) go."""

    def __init__(self, comparisons: Comparisons, delta: np.ndarray, by: str):
        c = comparisons
        self.c, self.by, self.frequencies = c, by, integral(c.weight)
        if by == "judge":
            known = c.judge >= 0
            self.delta = np.bincount(c.judge[known], weights=delta[known], minlength=len(c.judges))
            self.sizes = (np.bincount(c.judge[known], minlength=len(c.judges)) > 0).astype(float)  # one judge
            self.key = self.delta
        elif self.frequencies:
            self.sizes = np.round(c.weight).astype(float)
            self.delta = delta
            self.key = np.where(self.sizes > 0, delta / np.maximum(self.sizes, 1), 0.0)  # per judgment
        else:  # fractional weights: a row is the unit (its weight is not a count of judgments)
            self.delta, self.sizes, self.key = delta, np.ones(len(c)), delta
        self.total = float(self.sizes.sum())
        self.n_units = len(self.key)
        self.order = np.zeros(0, dtype=np.int64)
        self.extend(min(self.n_units, 4096))

    def extend(self, length: int) -> None:
        """Sort the ``length`` most negative units (ties by position)."""
        length = min(length, self.n_units)
        if length <= len(self.order) and len(self.order):
            return
        pick = (np.argpartition(self.key, length - 1)[:length] if length < self.n_units
                else np.arange(self.n_units))
        self.order = pick[np.lexsort((pick, self.key[pick]))]
        self.size = self.sizes[self.order]
        self.step = self.delta[self.order]

    def needed(self, gap: float) -> int | None:
        """The fewest judgments (judges) whose summed influence reaches −gap, or None."""
        # a row of k copies contributes k steps of step/k each: the cumulative sum is piecewise linear
        while True:
            cum = np.cumsum(self.step)
            hit = np.nonzero(cum <= -gap)[0]
            if len(hit) or len(self.order) == self.n_units or self.key[self.order[-1]] >= 0:
                break
            # the next prefix: as long again as the steps so far suggest is needed (at least double)
            guess = len(self.order) * max(2.0, 1.5 * gap / max(-float(cum[-1]), 1e-300))
            self.extend(int(min(guess, self.n_units)))
        if not len(hit):
            return None
        r = int(hit[0])
        before = float(cum[r - 1]) if r else 0.0
        copies = self.size[r]
        per = self.step[r] / copies
        need = int(np.ceil((-gap - before) / per - 1e-9)) if per < 0 else int(copies)
        return int(self.size[:r].sum()) + max(1, min(need, int(copies)))

    def drop(self, n: int) -> np.ndarray:
        """Weight removed per comparison when the first ``n`` units in the order go."""
        c = self.c
        removed = np.zeros(len(c))
        while self.size.sum() < n and len(self.order) < self.n_units:
            self.extend(2 * len(self.order))
        if self.by == "judge":
            gone = self.order[:n]
            mask = np.isin(c.judge, gone) & (c.judge >= 0)
            removed[mask] = c.weight[mask]
            return removed
        cum = np.cumsum(self.size)
        r = int(np.searchsorted(cum, n, side="left"))
        full = self.order[:r]
        removed[full] = self.size[:r] if self.frequencies else c.weight[full]
        if r < len(self.order):
            left = n - (int(cum[r - 1]) if r else 0)
            if left > 0:
                removed[self.order[r]] = left if self.frequencies else c.weight[self.order[r]]
        return removed


def _refit(model, comparisons: Comparisons, removed: np.ndarray):
    """The model refitted without ``removed``; None when nothing is left (every system then level)."""
    weight = comparisons.weight - removed
    if not np.any(weight > 0):
        return None
    return clone(model).fit(with_weight(comparisons, weight).take(weight > 0))


def _verify(model, comparisons, units: _Units, i: int, j: int, start: int, max_refits: int):
    """Refit without the first n units of the influence order, for n from AMIP's count, to find
    the shortest prefix whose refit reverses the order (gap ≤ 0). The refitted gap is close to
    linear in n, so the search is regula falsi on it (midpoints when one side stalls, doubling
    while no refit has reversed the order) within ``max_refits`` refits; the answer is confirmed
    by the prefix one shorter not reversing it. Returns (units dropped or None, refits, how)."""
    limit = int(units.total) if units.by != "judge" else units.n_units
    refits = 0

    def gap(n):
        nonlocal refits
        refits += 1
        refitted = _refit(model, comparisons, units.drop(n))
        return 0.0 if refitted is None else _gap(refitted, i, j)  # no judgment left: no order either

    lo, f_lo = 0, _gap(model, i, j)
    hi, n, stalled = None, min(start, limit), 0
    while refits < max_refits:
        f = gap(n)
        if f <= 0:
            hi, f_hi, stalled = n, f, (stalled + 1 if hi is not None and stalled >= 0 else 1)
        else:
            lo, f_lo, stalled = n, f, (stalled - 1 if stalled <= 0 else -1)
        if hi is None:
            if lo >= limit:
                break
            n = min(limit, max(lo + 1, 2 * lo))
            continue
        if hi - lo <= 1:
            break
        if abs(stalled) >= 2:  # one end keeps moving: bisect
            n = (lo + hi) // 2
        else:
            n = lo + int(np.ceil((hi - lo) * f_lo / (f_lo - f_hi)))
        n = min(max(n, lo + 1), hi - 1)
    if hi is None:
        return None, refits, f"refit holds after dropping {lo:,}"
    if hi - lo > 1:
        return hi, refits, f"refit (AMIP: {start:,}; fewer not ruled out)"
    return hi, refits, "refit" if hi == start else f"refit (AMIP: {start:,})"


def _dropped(units: _Units, removed: np.ndarray) -> list[int]:
    """The dropped comparisons' rows (0-based), the most influential first (by judge: in row order)."""
    return [int(r) for r in units.order if removed[r] > 0] if units.by != "judge" else [int(r) for r in np.nonzero(removed)[0]]


def _labels(comparisons, units: _Units, removed: np.ndarray, limit: int = 5) -> tuple[str, str]:
    """Row numbers (1-based, in the table's order) and judges of the dropped judgments, the most
    influential first (at most ``limit`` shown)."""
    c = comparisons
    rows = _dropped(units, removed)
    shown = rows[:limit]
    more = f" … (+{len(rows) - limit:,})" if len(rows) > limit else ""
    text = ", ".join(f"{r + 1}" + (f"×{int(removed[r])}" if removed[r] > 1 and integral(c.weight) else "")
                     for r in shown) + more
    judge_codes = list(dict.fromkeys(int(c.judge[r]) for r in rows if c.judge[r] >= 0))
    judges = ", ".join(c.judges[g] for g in judge_codes[:limit]) + (
        f" … (+{len(judge_codes) - limit:,})" if len(judge_codes) > limit else "")
    return text, judges


def robustness(model, comparisons: Comparisons, by: str = "judgment", top: bool = True,
               max_refits: int = 24, leave_out=REFERENCE_NAMES, verify: bool = True,
               adjacent: bool = True) -> pd.DataFrame:
    """AMIP for every adjacent pair of the model's ranking (and "the top system is the top").

    Parameters
    ----------
    model : a fitted ``BradleyTerry``, ``Davidson`` or ``RaoKupper`` (covariates, position effect,
        weights and the prior included)
    comparisons : the comparisons it was fitted on
    by : "judgment" (single comparisons; a whole-number weight k counts as k) or "judge" (whole judges)
    top : add the row "top": the fewest judgments that make any other system overtake the first
    max_refits : refits allowed per conclusion to verify (and, if needed, enlarge) the set
    verify : False skips the refits (``dropped`` is then NaN): the first-order answer alone
    adjacent : False answers for rank 1 only (``top``)
    leave_out : systems that are no conclusion's subject (default the human reference, ``_ref``
        and its usual names: it is in the data, not in the competition)

    Returns
    -------
    DataFrame, one row per conclusion: ``conclusion`` ("A > B"), ``gap`` (score difference),
    ``amip`` (the first-order count), ``dropped`` (the count whose refit reversed the order; NaN
    when no refit within ``max_refits`` did), ``share`` (of all judgments or judges), ``rows``
    (1-based row numbers of the dropped comparisons, the five most influential), ``judges`` (theirs,
    five), ``verified`` (how), ``refits``, and every one: ``row_list`` (all the dropped rows, 1-based,
    most influential first; a row of whole-number weight k once per judgment dropped; refit without
    them to see the order reverse) and ``judge_list`` (their judges).
    """
    if by not in ("judgment", "judge"):
        raise ValueError(f"by must be 'judgment' or 'judge', not {by!r}")
    if by == "judge" and not (comparisons.judge >= 0).any():
        raise ValueError("the comparisons name no judges: drop judgments instead (by='judgment')")
    inf = Influence(model, comparisons)
    scores = model.scores_.to_numpy(dtype=float)
    rated = np.asarray(getattr(model, "rated_", np.ones(len(scores), bool)))
    order = [int(s) for s in np.argsort(-scores, kind="stable") if rated[s] and inf.systems[s] not in leave_out]
    pairs = [(order[p], order[p + 1], f"{inf.systems[order[p]]} > {inf.systems[order[p + 1]]}")
             for p in range(len(order) - 1)]
    rows = []
    for i, j, text in pairs if adjacent else []:
        rows.append(_conclusion(model, comparisons, inf, i, j, text, by, max_refits if verify else 0))
    if top and len(order) > 2 or not adjacent and len(order) > 1:
        candidates = []
        scale = ELO_PER_LOGIT if model.scale == "elo" else 1.0
        for j in order[1:]:
            delta = inf.effect(_contrast(len(scores), order[0], j)) * scale
            gap = scores[order[0]] - scores[j]
            best = min((n for n, _, _ in candidates), default=np.inf)
            # a lower bound on the count: the gap over the steepest single judgment (not for judges,
            # whose influence sums many rows)
            per = delta / np.maximum(comparisons.weight, 1e-300) if integral(comparisons.weight) else delta
            steepest = float(np.min(per))
            if by != "judge" and (steepest >= 0 or gap / -steepest > best):  # cannot beat the best so far
                continue
            need = _Units(comparisons, delta, by).needed(gap)
            candidates.append((np.inf if need is None else need, gap, j))
        if not candidates:
            candidates = [(np.inf, 0.0, order[1])]
        _, _, j = min(candidates)
        rows.append(_conclusion(model, comparisons, inf, order[0], j, f"top: {inf.systems[order[0]]} "
                                f"(overtaken by {inf.systems[j]})", by, max_refits if verify else 0))
    columns = ["conclusion", "gap", "amip", "dropped", "share", "rows", "judges", "verified", "refits", "row_list",
               "judge_list"]
    out = pd.DataFrame(rows, columns=columns)
    for column in ("row_list", "judge_list"):  # an unverified conclusion drops nothing
        out[column] = [v if isinstance(v, list) else [] for v in out[column]]
    return out


def _contrast(m: int, i: int, j: int) -> np.ndarray:
    c = np.zeros(m)
    c[i], c[j] = 1.0, -1.0
    return c


def _conclusion(model, comparisons, inf: Influence, i: int, j: int, text: str, by: str, max_refits: int):
    m = len(inf.systems)
    gap = _gap(model, i, j)
    scale = ELO_PER_LOGIT if model.scale == "elo" else 1.0
    delta = inf.effect(_contrast(m, i, j)) * scale
    units = _Units(comparisons, delta, by)
    amip = units.needed(gap)
    if amip is None:
        return dict(conclusion=text, gap=gap, amip=np.nan, dropped=np.nan, share=np.nan, rows="", judges="",
                    verified=f"no set of {by}s reverses it to first order")
    if not max_refits:
        return dict(conclusion=text, gap=gap, amip=amip, dropped=np.nan, share=np.nan, rows="", judges="",
                    verified="not refitted")
    dropped, refits, how = _verify(model, comparisons, units, i, j, amip, max_refits)
    if dropped is None:
        return dict(conclusion=text, gap=gap, amip=amip, dropped=np.nan, share=np.nan, rows="", judges="",
                    verified=how, refits=refits)
    removed = units.drop(dropped)
    row_text, judges = _labels(comparisons, units, removed)
    # every dropped judgment, not only the five shown: a row of whole-number weight k listed once per judgment dropped
    full = [r + 1 for r in _dropped(units, removed) for _ in range(int(removed[r]) if integral(comparisons.weight) else 1)]
    named = [comparisons.judges[g] for g in dict.fromkeys(int(comparisons.judge[r - 1]) for r in full) if g >= 0]
    return dict(conclusion=text, gap=gap, amip=amip, dropped=dropped, share=dropped / units.total,
                rows=row_text, judges=judges, verified=how, refits=refits, row_list=full, judge_list=named)


def exact_robustness(model, comparisons: Comparisons, i: str, j: str, max_drop: int = 3,
                     max_refits: int = 20_000) -> tuple[int, tuple[int, ...]] | None:
    """The smallest set of comparisons (rows, unweighted data) whose removal makes system ``j``
    rank at or above system ``i``, by refitting every subset of 1, 2, … ``max_drop`` rows:
    ``(size, row indices)`` or None when no subset that small does. Refuses when that would take
    more than ``max_refits`` refits."""
    if comparisons.weighted:
        raise ValueError("exact_robustness enumerates rows of unweighted comparisons")
    n = len(comparisons)
    if sum(comb(n, k) for k in range(1, max_drop + 1)) > max_refits:
        raise ValueError(f"{n} comparisons need more than {max_refits:,} refits up to {max_drop} dropped; "
                         "use robustness (AMIP) on data this large")
    si, sj = model.systems_.index(i), model.systems_.index(j)
    for k in range(1, max_drop + 1):
        for subset in combinations(range(n), k):
            keep = np.ones(n, bool)
            keep[list(subset)] = False
            refit = clone(model).fit(comparisons.take(keep))
            if _gap(refit, si, sj) <= 0:
                return k, subset
    return None


RATINGS_NOTE = ("robustness: the order of the systems' mean scores as read, one mean over all their ratings (not the model's ranking above, which may "
                "standardise or model them), and the fewest ratings whose removal reverses each adjacent pair, exact; "
                "rows = 1-based rows of the track's ratings table (the first ten; --json's row_list names every one)")


def ratings_robustness(ratings: Ratings) -> pd.DataFrame:
    """The fewest ratings whose removal reverses each adjacent pair of a ranking by mean score.

    Dropping ratings changes a mean exactly: system i's mean without its k highest ratings (lowest
    when lower is better) is (S_i − top_k)/(n_i − k). The fewest drops reversing mean_i > mean_j
    is the smallest k = k_i + k_j with (S_i − top_{k_i})/(n_i − k_i) ≤ (S_j − bottom_{k_j})/(n_j − k_j),
    found exactly by trying every split (prefix sums of the sorted scores). Rows whose system is
    unknown are left out. Returns conclusion, gap, dropped, share, the ratings (``rows``: 1-based,
    the first ten) and ``row_list`` (every one)."""
    known = ratings.system >= 0
    sign = 1.0 if ratings.higher_is_better else -1.0
    score = sign * ratings.score
    frame = pd.DataFrame({"system": ratings.system[known], "score": score[known], "row": np.nonzero(known)[0]})
    means = frame.groupby("system")["score"].mean().sort_values(ascending=False, kind="stable")
    out = []
    for (i, mean_i), (j, mean_j) in zip(list(means.items())[:-1], list(means.items())[1:]):
        hi = frame[frame.system == i].sort_values("score", ascending=False, kind="stable")
        lo = frame[frame.system == j].sort_values("score", ascending=True, kind="stable")
        si, sj = hi.score.to_numpy(), lo.score.to_numpy()
        ci, cj = np.concatenate([[0], np.cumsum(si)]), np.concatenate([[0], np.cumsum(sj)])
        ni, nj, best = len(si), len(sj), None
        for total in range(1, ni + nj - 1):  # at least one rating of each system stays
            ki = np.arange(max(0, total - nj + 1), min(total, ni - 1) + 1)
            kj = total - ki
            ok = (ci[-1] - ci[ki]) / (ni - ki) <= (cj[-1] - cj[kj]) / (nj - kj) + 1e-12
            if ok.any():
                best = (int(ki[ok][0]), int(kj[ok][0]))
                break
        names = ratings.systems
        text = f"{names[i]} > {names[j]}"
        if best is None:
            out.append(dict(conclusion=text, gap=sign * (mean_i - mean_j), dropped=np.nan, share=np.nan, rows="",
                            row_list=[]))
            continue
        rows = sorted(int(r) + 1 for r in np.concatenate([hi.row.to_numpy()[:best[0]], lo.row.to_numpy()[:best[1]]]))
        shown = ", ".join(map(str, rows[:10])) + (f" … (+{len(rows) - 10})" if len(rows) > 10 else "")
        out.append(dict(conclusion=text, gap=sign * (mean_i - mean_j), dropped=sum(best),
                        share=sum(best) / int(known.sum()), rows=shown, row_list=rows))
    return pd.DataFrame(out, columns=["conclusion", "gap", "dropped", "share", "rows", "row_list"])


def fragility(table: pd.DataFrame) -> pd.Series:
    """From ``robustness``: per system, the judgments (or judges) whose removal puts the next
    system level with or above it (the column printed beside the ranking's clusters)."""
    frame = table if table.index.name == "conclusion" else table.set_index("conclusion")
    pairs = frame[~frame.index.str.startswith("top: ")]
    return pd.Series(pairs["dropped"].to_numpy(), index=[c.split(" > ")[0] for c in pairs.index], name="to flip")


def robustness_table(model, comparisons: Comparisons, by: str = "judgment") -> tuple[pd.DataFrame, str]:
    """``robustness`` shaped for a report: indexed by the conclusion, counts as whole numbers, and
    the note that says what the numbers are."""
    from humeval.ranking.boards import ANCHOR  # the both-bad anchor is no contestant either
    table = robustness(model, comparisons, by=by, leave_out=(*REFERENCE_NAMES, ANCHOR)).set_index("conclusion")
    for column in ("amip", "dropped"):
        table[column] = table[column].astype("Int64")
    unit = "judges" if by == "judge" else "judgments"
    note = (f"robustness: the fewest {unit} whose removal reverses each order (AMIP, Broderick, Giordano & "
            f"Meager: first-order influence, then checked by refitting without them: dropped = the refit's count; "
            f"share of all {unit}; the reference, if any, left out); rows = comparison numbers within the track (1-based; the five most influential, --json's "
            "row_list and judge_list name every one), ×k = k of a weighted row's judgments; 'to flip' in the ranking: the count that puts the next system level with or above it")
    return table, note
