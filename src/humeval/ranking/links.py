"""The links of the pair-likelihood family: one table (``LINKS``) keyed by a declared link id.

Every model of the family (``bradley_terry``, ``thurstone``) has a likelihood that depends on a
comparison only through x = θ_a − θ_b (+ h) (+ βᵀz) and at most one tie parameter τ (on the log
scale). A link gives, per cell of counts (tie, a preferred, b preferred), the log-likelihood and
its first and second derivatives in x (``cell``) and, for a tie model, the derivatives in τ
(``tie``: dℓ/dτ, −d²ℓ/dτ², −d²ℓ/dx dτ); ``code`` is the link's number in the compiled kernels
(``_pair_kernel``, ``_style_kernel``), and ``unit`` the scale its scores are on. Declaring the
link (``_PairModel.link``) is how a model chooses its kernel, its tie terms and its scale label.

- logit: Bradley & Terry (1952), P(a) = σ(x), ties half a win each; scores in log-odds.
- davidson: Davidson (1970), P(a) ∝ e^{x/2}, P(b) ∝ e^{−x/2}, P(tie) ∝ ν; log-odds.
- rao-kupper: Rao & Kupper (1967), P(a) = σ(x − η), P(b) = σ(−x − η); log-odds.
- probit: Thurstone (1927) Case V as Mosteller (1951) fitted it, P(a) = Φ(x), ties half a win
  each; scores in probit units (one = the standard deviation of a comparison's normal noise).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
from scipy.special import expit, log_expit, log_ndtr


# -- per-cell log-likelihoods as functions of x: value, first and second derivative ---------------

def _bt(x, counts, tie):
    t, w, l = counts.T
    w, l = w + t / 2, l + t / 2
    s = expit(x)
    return w * log_expit(x) + l * log_expit(-x), w - (w + l) * s, -(w + l) * s * (1 - s)


def _davidson(x, counts, log_nu):
    t, w, l = counts.T
    n, u, nu = counts.sum(axis=1), x / 2, np.exp(log_nu)
    au = np.abs(u)
    log_d = au + np.log1p(np.exp(-2 * au) + nu * np.exp(-au))  # log(2 cosh u + ν)
    sinh_d = np.tanh(u) / (2 + nu / np.cosh(u))  # sinh(u) / D
    cosh_d = 1 / (2 + nu / np.cosh(u))  # cosh(u) / D
    value = (w - l) * u + t * log_nu - n * log_d
    return value, (w - l) / 2 - n * sinh_d, -n * (cosh_d / 2 - sinh_d ** 2)


def _rao_kupper(x, counts, log_eta):
    t, w, l = counts.T
    eta = np.exp(log_eta)
    lo, hi = x - eta, x + eta
    s_lo, s_hi = expit(lo), expit(hi)
    value = w * log_expit(lo) + l * log_expit(-hi) + t * (log_expit(hi) + log_expit(-lo) + np.log(-np.expm1(-2 * eta)))
    d1 = w * (1 - s_lo) - l * s_hi + t * ((1 - s_hi) - s_lo)
    d2 = -(w * s_lo * (1 - s_lo) + l * s_hi * (1 - s_hi) + t * (s_hi * (1 - s_hi) + s_lo * (1 - s_lo)))
    return value, d1, d2


# -- per-cell derivatives in the log tie parameter τ: dℓ/dτ, −d²ℓ/dτ², −d²ℓ/dx dτ --------------

def _davidson_tie(x, counts, log_nu):
    """Davidson, τ = log ν: with q = ν/D, D = 2 cosh(x/2) + ν: dℓ/dτ = t − n q,
    −d²ℓ/dτ² = n q (1 − q), −d²ℓ/dx dτ = −n q sinh(x/2)/D."""
    t = counts[:, 0]
    n, u, nu = counts.sum(axis=1), x / 2, np.exp(log_nu)
    cosh_d = 1 / (2 + nu / np.cosh(u))  # cosh(u) / D
    q = nu / np.cosh(u) * cosh_d  # ν / D
    return t - n * q, n * q * (1 - q), -n * q * np.tanh(u) * cosh_d


def _rao_kupper_tie(x, counts, log_eta):
    """Rao–Kupper, τ = log η, by the chain rule from η (v = σ(1 − σ) at x ∓ η):
    dℓ/dη = −w(1 − σ(x − η)) − l σ(x + η) + t(1 − σ(x + η) + σ(x − η) + 2/(e^{2η} − 1)),
    d²ℓ/dη² = −w v_lo − l v_hi − t(v_lo + v_hi + 1/sinh²η), d²ℓ/dx dη = w v_lo − l v_hi + t(v_lo − v_hi)."""
    t, w, l = counts.T
    eta = np.exp(log_eta)
    s_lo, s_hi = expit(x - eta), expit(x + eta)
    v_lo, v_hi = s_lo * (1 - s_lo), s_hi * (1 - s_hi)
    with np.errstate(over="ignore"):  # η at its bound e^10: the terms are 0
        d_eta = -w * (1 - s_lo) - l * s_hi + t * ((1 - s_hi) + s_lo + 2 / np.expm1(2 * eta))
        dd_eta = -w * v_lo - l * v_hi - t * (v_lo + v_hi + 1 / np.sinh(eta) ** 2)
    cross = w * v_lo - l * v_hi + t * (v_lo - v_hi)
    return eta * d_eta, -(eta * d_eta + eta ** 2 * dd_eta), -eta * cross


TIE_TERMS = {_davidson: _davidson_tie, _rao_kupper: _rao_kupper_tie}


def _probit(x, counts, tie):
    """Thurstone–Mosteller: ℓ = w log Φ(x) + l log Φ(−x) (ties half a win each); with the
    inverse Mills ratio λ(x) = φ(x)/Φ(x): dℓ/dx = w λ(x) − l λ(−x),
    d²ℓ/dx² = −w λ(x)(x + λ(x)) − l λ(−x)(λ(−x) − x)."""
    t, w, l = counts.T
    w, l = w + t / 2, l + t / 2
    up, down = log_ndtr(x), log_ndtr(-x)
    log_phi = -x * x / 2 - 0.5 * np.log(2 * np.pi)
    lam_up, lam_down = np.exp(log_phi - up), np.exp(log_phi - down)
    return (w * up + l * down, w * lam_up - l * lam_down,
            -w * lam_up * (x + lam_up) - l * lam_down * (lam_down - x))


class Link(NamedTuple):
    """One link of the family: its id, compiled-kernel code, per-cell functions and score unit."""

    name: str
    code: int
    cell: Callable
    tie: Callable | None  # None: no tie parameter
    tie_name: str | None
    tie_start: float
    unit: str
    elo: bool  # whether scale="elo" (400/ln 10 points per unit) means anything: logits only
    per_logit: float = 1.0  # units per logit near x = 0 (probit: 1/1.702, Haley 1952: σ(1.702 x) ≈ Φ(x))


LINKS = {
    "logit": Link("logit", 0, _bt, None, None, 0.0, "log-odds", True),
    "davidson": Link("davidson", 1, _davidson, _davidson_tie, "nu", 0.0, "log-odds", True),  # ν = 1
    "rao-kupper": Link("rao-kupper", 2, _rao_kupper, _rao_kupper_tie, "eta", float(np.log(0.5)), "log-odds", True),
    "probit": Link("probit", 3, _probit, None, None, 0.0, "probit units", False, 1 / 1.702),
}
