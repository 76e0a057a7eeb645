"""The one Newton solver of the likelihood models (the Bradley–Terry family, Plackett–Luce, the
active strategies' warm-started Bradley–Terry, PPI++'s Bradley–Terry and Davidson losses in
``experiments.ppi``).

``newton_ascent`` maximises a concave function (a log posterior): from x, the step s solves
H s = g (g the gradient, H the negative Hessian); the trial point x + t s (kept in bounds by
``project``) is accepted at the first t in 1, 1/2, 1/4, … that does not lower the objective (by
more than 1e-12 of its size), down to t ≈ 7.5e-9 (a backtracking line search, ``line_search``;
Nocedal & Wright 2006, §3.1); it stops when no coordinate moves by ``tol``, so also when no
trial point is as good as x (x is kept: an iteration never moves to a worse point). PPI++'s loss weights
some battles' log-likelihoods negatively; for λ ∈ [0, 1] its negative is still concave, so the
same iteration maximises it.
"""

from __future__ import annotations

import numpy as np


def least_squares(hess, grad):
    """The step when the negative Hessian may be singular (a model without a gauge fix)."""
    return np.linalg.lstsq(hess, grad, rcond=None)[0]


def solve_or_least_squares(hess, grad):
    """The step by a linear solve, by least squares when the matrix is singular."""
    try:
        return np.linalg.solve(hess, grad)
    except np.linalg.LinAlgError:
        return least_squares(hess, grad)


def line_search(objective, value, x, step, project=None):
    """The first x + t·step, t = 1, 1/2, 1/4, … down to 2⁻²⁷ ≈ 7.5e-9 (kept in bounds by
    ``project``), whose objective is not below ``value`` (the objective at x) by more than 1e-12
    of its size; x itself when none is. Then the step is no ascent direction (a singular or
    indefinite Hessian, an objective without a maximum): staying put ends ``newton_ascent``
    where it is instead of moving to a worse point (it used to take the last trial, and an
    unbounded PPI++ loss then wandered to abilities of 1e10 over 100 iterations)."""
    keep = (lambda y: y) if project is None else project
    size = 1.0
    trial = keep(x + step)
    while objective(trial) < value - 1e-12 * abs(value):
        if size < 1e-8:
            return x
        size /= 2
        trial = keep(x + size * step)
    return trial


def newton_ascent(derivatives, objective, x, project=None, max_iter=100, tol=1e-10, solve=least_squares):
    """Maximise a concave function by Newton's method: ``derivatives(x)`` gives (value, gradient,
    negative Hessian); each step is halved until ``objective`` does not fall (``project``, if
    given, keeps the trial point in bounds); stops when no coordinate moves by ``tol``."""
    value, grad, hess = derivatives(x)
    for _ in range(max_iter):
        trial = line_search(objective, value, x, solve(hess, grad), project)
        moved = np.max(np.abs(trial - x), initial=0.0)
        x = trial
        value, grad, hess = derivatives(x)
        if moved < tol:
            break
    return x

