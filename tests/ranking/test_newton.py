"""The one Newton solver (``ranking.newton``): its line search and its use on a loss with signed weights."""

import numpy as np

from humeval.ranking.newton import line_search, newton_ascent, solve_or_least_squares


def test_line_search_halves_a_step_that_overshoots():
    # f(x) = −(x − 1)², f(0) = −1: the step 4 lands at f(4) = −9 (lower), the half step 2 at
    # f(2) = −1 (not lower): accepted; a step of 1 is taken whole
    f = lambda x: -float((x[0] - 1.0) ** 2)  # noqa: E731
    assert line_search(f, f(np.zeros(1)), np.zeros(1), np.array([4.0]))[0] == 2.0
    assert line_search(f, f(np.zeros(1)), np.zeros(1), np.array([1.0]))[0] == 1.0
    clipped = line_search(f, f(np.zeros(1)), np.zeros(1), np.array([1.0]), project=lambda x: np.minimum(x, 0.5))
    assert clipped[0] == 0.5


def test_newton_ascent_on_a_logistic_loss_with_a_negatively_weighted_term():
    # PPI++'s shape: (1 − λ) softplus(x) − c x with λ = 0.6, c = 0.3 has its minimum where
    # 0.4 σ(x) = 0.3, x = log 3; the ascent on its negative finds it
    lam, c = 0.6, 0.3

    def derivatives(x):
        s = 1 / (1 + np.exp(-x[0]))
        return (-((1 - lam) * np.logaddexp(0, x[0]) - c * x[0]), np.array([-((1 - lam) * s - c)]),
                np.array([[(1 - lam) * s * (1 - s)]]))
    x = newton_ascent(derivatives, lambda x: derivatives(x)[0], np.array([5.0]), None, 100, 1e-12,
                      solve_or_least_squares)
    assert abs(x[0] - np.log(3.0)) < 1e-10


def test_line_search_stays_put_when_no_step_is_an_ascent():
    # a descent direction: f = −x², x = 1, step +1; every trial x + t (t down to 2⁻²⁷) is lower than
    # f(1) = −1, so x itself comes back (never a worse point), and newton_ascent stops there
    f = lambda x: -float(x[0] ** 2)  # noqa: E731
    calls = []

    def counted(x):
        calls.append(x[0])
        return f(x)
    x = np.array([1.0])
    assert line_search(counted, f(x), x, np.array([1.0])) is x
    assert len(calls) == 28 and calls[-1] == 1.0 + 2.0 ** -27
    wrong = lambda x: (f(x), np.array([1.0]), np.array([[1.0]]))  # noqa: E731  a gradient of the wrong sign
    assert newton_ascent(wrong, f, x, None, 100, 1e-10, solve_or_least_squares)[0] == 1.0


def test_abilities_that_ran_off_are_not_bounded():
    # ppi.bounded: finite and within 20 logits of each other (system 0 pinned at 0 is part of the spread)
    from humeval.experiments.ppi import bounded
    assert bounded(np.array([1.0, -2.0])) and bounded(np.array([19.5, 0.0]))
    assert not bounded(np.array([21.0, 0.0])) and not bounded(np.array([11.0, -10.0]))
    assert not bounded(np.array([np.nan, 0.0])) and not bounded(np.array([1e10, 3.0]))


def test_renaming_one_results_index_leaves_the_others():
    # a fitted model builds its systems' Index once; each result gets its own view of it
    from humeval.data import Comparisons
    from humeval.ranking import BradleyTerry
    model = BradleyTerry().fit(Comparisons(a=[0, 1, 2, 0], b=[1, 2, 0, 2], outcome=[1, 1, 2, 0],
                                           systems=("A", "B", "C")))
    model.scores_.index.name = "renamed"
    assert model.record_.index.name == model.scores_std_.index.name == model.notes().index.name == "system"
    assert list(model.record_.index) == ["A", "B", "C"]
