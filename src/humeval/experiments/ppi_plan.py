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

import numpy as np
import pandas as pd

from humeval.experiments.ppi import _centred, _check_connected, _design, _fit, _sandwich, _wcov, pair_battles


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
    vf = _wcov(np.concatenate([gh, gu]), np.concatenate([w, wu]))  # λ's denominator: every judge label
    gc, ghc = g - (w[:, None] * g).sum(0) / w.sum(), gh - (w[:, None] * gh).sum(0) / w.sum()
    cross = ((gc * w[:, None]).T @ ghc + (ghc * w[:, None]).T @ gc) / w.sum()
    tr_human = np.trace(_centred(theta_h, cov_h, systems)[1])
    pilot = float(wu.sum() / w.sum())
    ratios = sorted({round(pilot, 2), 1.0, 3.0, 10.0, 30.0, 100.0} if ratios is None else set(ratios))
    rows = []
    for r in ratios:
        denom = 2 * (1 + 1 / r) * np.trace(inv @ vf @ inv)
        lam = float(np.clip(np.trace(inv @ cross @ inv) / denom, 0, 1)) if denom > 0 else 0.0
        theta_r = _fit(lx, y, yh, w, ux, yu, wu, lam, start=theta)
        _, inv_r, g_r, gh_r, gu_r = _sandwich(lx, y, yh, w, ux, yu, wu, lam, theta_r)  # at the λ_R fit
        middle = lam ** 2 * _wcov(gu_r, wu) / r + _wcov(g_r - lam * gh_r, w)
        cov = inv_r @ middle @ inv_r / w.sum()
        rows.append((r, lam, tr_human / np.trace(_centred(theta_r, cov, systems)[1])))
    out = pd.DataFrame(rows, columns=["judge per human", "lambda", "worth"]).set_index("judge per human")
    out.attrs["pilot_ratio"] = pilot
    out.attrs["n"] = float(w.sum())
    return out
