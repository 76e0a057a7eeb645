"""The one Newton solver of the likelihood models (the Bradley–Terry family, Plackett–Luce, the
active strategies' warm-started Bradley–Terry, PPI++'s Bradley–Terry and Davidson losses in
``experiments.ppi``).

``newton_ascent`` maximises a concave function (a log posterior): from x, the step s solves
H s = g (g the gradient, H the negative Hessian); the trial point x + t s (kept in bounds by
``project``) is accepted at the first t in 1, 1/2, 1/4, … that does not lower the objective (by
more than 1e-12 of its size), or at t ≈ 7.5e-9 at the latest (a backtracking line search,
``line_search``; Nocedal & Wright 2006, §3.1); when no t does, x is kept and the iteration ends.
It stops when no coordinate moves by ``tol``. PPI++'s loss weights
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
    of its size; x itself when none is (the step is no ascent direction: a singular or
    indefinite Hessian, or an objective without a maximum, flat to rounding far out), which ends
    ``newton_ascent`` there. A worse point is never taken: before, the last trial was, and
    PPI++'s unbounded losses ran to abilities of 1e10 over 100 iterations of 27 halvings each.
    Where a fit stopped is then no measure of separation: the Bradley–Terry family tests the
    objective outwards instead (``BradleyTerryBase._outwards``)."""
    keep = (lambda y: y) if project is None else project
    size = 1.0
    trial = keep(x + step)
    while objective(trial) < value - 1e-12 * abs(value):
        if size < 1e-8:
            return x
        size /= 2
        trial = keep(x + size * step)
    return trial


def newton_ascent(derivatives, objective, x, project=None, max_iter=100, tol=1e-10, solve=least_squares,
                  stats: dict | None = None):
    """Maximise a concave function by Newton's method: ``derivatives(x)`` gives (value, gradient,
    negative Hessian); each step is halved until ``objective`` does not fall (``project``, if
    given, keeps the trial point in bounds; see ``line_search``); stops when no coordinate moves
    by ``tol``. ``stats``, a dict if given, receives ``iterations``, ``converged`` (the last
    step moved no coordinate by ``tol``) and ``moved`` (the last step's largest move)."""
    value, grad, hess = derivatives(x)
    moved, iterations = 0.0, 0
    for iterations in range(1, max_iter + 1):
        trial = line_search(objective, value, x, solve(hess, grad), project)
        moved = np.max(np.abs(trial - x), initial=0.0)
        x = trial
        value, grad, hess = derivatives(x)
        if moved < tol:
            break
    if stats is not None:
        stats.update(iterations=iterations, converged=bool(moved < tol), moved=float(moved))
    return x

