import numpy as np
import pytest
from scipy.stats import pearsonr

from humeval.data import Comparisons
from humeval.ranking import GRM, TwoStage
from humeval.simulate import simulate_grm


@pytest.fixture(scope="module")
def simulated():
    return simulate_grm(n_comparisons=3000, random_state=5)


def test_gradient_matches_finite_differences(simulated):
    comparisons, _ = simulated
    model = TwoStage(baseline="base").fit(comparisons.take(np.arange(300)))
    view = GRM(baseline="base")
    system, segment, judge, u, _, _, _ = view._baseline_view(comparisons.take(np.arange(300)))
    _, judge = np.unique(judge, return_inverse=True)
    _, segment = np.unique(segment, return_inverse=True)
    n_seg = segment.max() + 1
    cells, artifact = np.unique(system * n_seg + segment, return_inverse=True)
    data = (system, segment, judge, u, artifact, cells // n_seg, cells % n_seg)
    sizes = (len(comparisons.systems), n_seg, judge.max() + 1, len(cells))
    rng = np.random.default_rng(1)
    x = rng.normal(0, 0.3, sum(sizes) + 2 * sizes[2])
    _, grad = model._negative_posterior(x, data, sizes)
    for i in rng.choice(len(x), 15, replace=False):
        e = np.zeros_like(x)
        e[i] = 1e-6
        numeric = (model._negative_posterior(x + e, data, sizes)[0] - model._negative_posterior(x - e, data, sizes)[0]) / 2e-6
        assert grad[i] == pytest.approx(numeric, rel=1e-5, abs=1e-6)


def test_recovers_the_abilities_and_keeps_its_parts(simulated):
    comparisons, truth = simulated
    model = TwoStage(baseline="base").fit(comparisons)
    assert model.optimizer_.success
    assert pearsonr(model.scores_[truth.theta.index], truth.theta).statistic >= 0.95
    assert model.judge_bias_.eval("b2 > b1").all() and len(model.judge_sensitivity_) == 30
    assert len(model.artifact_quality_) == len(np.unique(comparisons.a * 1000 + comparisons.item))


def test_baseline_and_dropped():
    c = Comparisons(a=[0, 1, 0, 2], b=[2, 2, 1, 0], outcome=[1, 2, 0, 1], item=[0, 1, 0, 1], judge=[0, 0, 1, 1],
                    systems=("A", "B", "base"), items=("s1", "s2"), judges=("j1", "j2"))
    model = TwoStage().fit(c, baseline="base")
    assert model.n_dropped_ == 1
    assert model.scores_["A"] > model.scores_["B"]  # A won once and lost once, B lost its one
    with pytest.raises(ValueError, match="needs a baseline"):
        TwoStage().fit(c)
