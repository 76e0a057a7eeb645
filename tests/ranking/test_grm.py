import numpy as np
import pandas as pd
import pytest
from scipy.stats import pearsonr, spearmanr

from humeval.data import Comparisons
from humeval.ranking import GRM
from humeval.ranking.grm import icc, item_information
from humeval.simulate import simulate_grm


def test_worked_example():
    # a = 1.7, b = (-0.5, 0.5): a system with θ = 0 beats the baseline with probability 1 / (1 + e^0.85)
    p = icc([0.0], -0.5, 0.5, a=1.7)[0]
    assert p[2] == pytest.approx(1 / (1 + np.exp(0.85))) and p[2] == pytest.approx(0.2994, abs=1e-4)
    assert p.sum() == pytest.approx(1.0) and p[0] == pytest.approx(p[2])


def test_information_is_the_expected_curvature():
    b1, b2, a, e = -0.3, 0.8, 1.4, 1e-4
    for theta in (-2.0, -0.2, 0.5, 1.7):
        p = icc([theta], b1, b2, a)[0]
        curvature = [(np.log(icc([theta + e], b1, b2, a)[0][c]) - 2 * np.log(p[c])
                      + np.log(icc([theta - e], b1, b2, a)[0][c])) / e ** 2 for c in range(3)]
        assert item_information(theta, b1, b2, a)[0] == pytest.approx(-np.dot(p, curvature), rel=1e-5)


@pytest.fixture(scope="module")
def fitted():
    comparisons, truth = simulate_grm(n_comparisons=6400, random_judges=0.2, random_state=1)
    return GRM(baseline="base").fit(comparisons), comparisons, truth


def test_marginal_gradient_matches_finite_differences(fitted):
    model, comparisons, _ = fitted
    system, segment, judge, u, judges, segments, _ = model._prepare(comparisons)
    x_nodes, w_nodes = np.polynomial.hermite.hermgauss(20)
    nodes, log_w = np.sqrt(2) * model.sigma * x_nodes, np.log(w_nodes / np.sqrt(np.pi))
    rng = np.random.default_rng(0)
    x = rng.normal(0, 0.3, len(judges) + 2 * len(segments))
    args = ((system, segment, judge, u), nodes, log_w, len(comparisons.systems))
    _, grad = model._negative_marginal(x, *args)
    for i in rng.choice(len(x), 12, replace=False):
        step = np.zeros_like(x)
        step[i] = 1e-6
        numeric = (model._negative_marginal(x + step, *args)[0] - model._negative_marginal(x - step, *args)[0]) / 2e-6
        assert grad[i] == pytest.approx(numeric, rel=1e-5, abs=1e-6)


def test_compiled_cells_equal_the_per_judgment_reference(fitted):
    from humeval.ranking.grm import marginal_cells
    model, comparisons, _ = fitted
    system, segment, judge, u, judges, segments, _ = model._prepare(comparisons)
    x_nodes, w_nodes = np.polynomial.hermite.hermgauss(20)
    nodes, log_w = np.sqrt(2) * model.sigma * x_nodes, np.log(w_nodes / np.sqrt(np.pi))
    n = len(comparisons.systems)
    cells = marginal_cells(system, segment, judge, u, len(judges), len(segments))
    assert cells.n.sum() == len(u) and len(cells.n) < len(u)  # every judgment counted once, duplicates merged
    rng = np.random.default_rng(3)
    for scale in (0.1, 0.5, 1.5):  # near the start, typical, and far out (near-degenerate categories)
        x = rng.normal(0, scale, len(judges) + 2 * len(segments))
        value, grad = model._negative_marginal(x, (system, segment, judge, u), nodes, log_w, n)
        fast_value, fast_grad = model._negative_marginal_cells(x, cells, nodes, log_w, n)
        # the same sums in another order: rounding only (a sum of ~6,400 terms of size ~1)
        assert fast_value == pytest.approx(value, rel=1e-10)
        np.testing.assert_allclose(fast_grad, grad, rtol=1e-8, atol=1e-9)


def test_recovers_the_simulated_truth(fitted):
    model, _, truth = fitted
    assert pearsonr(model.scores_.drop("base"), truth.theta).statistic >= 0.95
    honest = truth.sensitivity.dropna()
    assert spearmanr(model.judge_sensitivity_[honest.index], honest).statistic >= 0.8
    lowest = model.judge_sensitivity_.nsmallest(len(truth.random_judges)).index
    assert set(lowest) == set(truth.random_judges)
    assert (model.scores_std_.drop("base") > 0).all() and model.optimizer_.success


def test_fit_keeps_baseline_comparisons_and_predicts_them():
    c = Comparisons(a=[0, 1, 0, 2, 1, 0], b=[2, 2, 1, 0, 2, 2], outcome=[1, 2, 0, 1, 0, 2], item=[0, 1, 0, 1, 0, 1],
                    judge=[0, 0, 1, 1, 0, 1], systems=("A", "B", "base"), items=("s1", "s2"), judges=("j1", "j2"))
    model = GRM().fit(c, baseline="base")
    assert model.n_dropped_ == 1  # (A, B) does not involve the baseline
    p = model.predict_proba(["A", "base"], ["base", "B"])
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    # the category curves at the fitted ability, the mean thresholds and the median judge, from either side
    b1, b2 = model.segment_thresholds_.mean()
    for system, row in (("A", 0), ("B", 1)):
        lose, tie, win = icc([model.scores_[system]], b1, b2, model.judge_sensitivity_.median())[0]
        assert p[row] == pytest.approx([tie, win, lose] if system == "A" else [tie, lose, win])
    assert model.predict_proba(["base"], ["A"])[0] == pytest.approx(p[0][[0, 2, 1]])
    assert model.predict_proba(["base"], ["base"])[0].tolist() == [1.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="baseline 'base' only"):
        model.predict_proba(["A"], ["B"])
    with pytest.raises(ValueError, match="not among the systems"):
        GRM(baseline="nobody").fit(c)
    with pytest.raises(ValueError, match="needs a baseline"):
        GRM().fit(c)


def fisher_information(theta, b1, b2, e=1e-5):
    """Σ_c P_c'(θ)² / P_c(θ) (a = 1), with P' by central differences of the category curves."""
    p = icc(theta, b1, b2, 1.0)
    slope = (icc(theta + e, b1, b2, 1.0) - icc(theta - e, b1, b2, 1.0)) / (2 * e)
    return (slope ** 2 / p).sum(axis=1)


def test_most_informative_segments(fitted):
    model, _, _ = fitted
    thetas = np.linspace(-1, 1, 41)
    thresholds = model.segment_thresholds_
    mean_information = pd.Series([fisher_information(thetas, b1, b2).mean() for b1, b2 in thresholds.to_numpy()],
                                 index=thresholds.index)
    expected = mean_information.sort_values(ascending=False).head(5)
    top = model.most_informative_segments((-1, 1), n=5)
    assert list(top.index) == list(expected.index)
    np.testing.assert_allclose(top["information"], expected, rtol=1e-6)
    b1, b2 = thresholds.loc[top.index[0]]
    assert model.item_information(top.index[0], [0.0, 0.7]) == pytest.approx(fisher_information(np.array([0.0, 0.7]), b1, b2), rel=1e-6)


def test_the_cap_on_sensitivities_gives_the_bounded_solution():
    # a cap below most judges' sensitivities: the unbounded run passes it, the fit restarts bounded
    from scipy.optimize import minimize
    comparisons, _ = simulate_grm(n_comparisons=1600, random_state=4)
    model = GRM(baseline="base", a_max=1.2).fit(comparisons)
    a = model.judge_sensitivity_.to_numpy()
    assert a.max() <= 1.2 * (1 + 1e-12) and np.isclose(a, 1.2).sum() >= len(a) // 2
    system, segment, judge, u, judges, segments, _ = model._prepare(comparisons)
    x_nodes, w_nodes = np.polynomial.hermite.hermgauss(20)
    nodes, log_w = np.sqrt(2) * model.sigma * x_nodes, np.log(w_nodes / np.sqrt(np.pi))
    x0 = np.concatenate([np.full(len(judges), np.log(1.7)), np.full(len(segments), -0.5),
                         np.zeros(len(segments))])
    bounds = [(None, np.log(1.2))] * len(judges) + [(None, None)] * (2 * len(segments))
    reference = minimize(model._negative_marginal, x0, jac=True, method="L-BFGS-B", bounds=bounds,
                         args=((system, segment, judge, u), nodes, log_w, len(comparisons.systems)))
    # the same bounded optimum, up to L-BFGS-B's stopping rule (relative change of the objective
    # ~2e-9 per step; the two runs stop 1e-6 apart in relative terms on this flat posterior)
    assert model.optimizer_.fun == pytest.approx(reference.fun, rel=1e-5)
    np.testing.assert_allclose(np.log(a), reference.x[:len(judges)], atol=0.02)
    assert GRM(baseline="base", a_max=1.3).fit(comparisons).judge_sensitivity_.max() > 1.2  # the cap is what binds
