import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize_scalar
from scipy.special import expit

from humeval.data import Comparisons
from humeval.ranking import GRM
from humeval.simulate import simulate_grm


def icc_rows(theta, a, b):
    p1, p2 = expit(a * (theta - b[:, 0])), expit(a * (theta - b[:, 1]))
    return np.column_stack([1 - p1, p1 - p2, p2])


def _stream(model, comparisons, batch):
    for start in range(0, len(comparisons), batch):
        model.partial_fit(comparisons.take(np.arange(start, min(start + batch, len(comparisons)))))
    return model


def test_one_step_by_hand():
    # unfitted: θ = 0, a = 1.7, b = (−0.5, 0.5); the system wins: ∂ log P / ∂θ = a (1 − P*₂) with
    # P*₂ = σ(1.7 (0 − 0.5)); the first step is η = (1 + 1/1)^(−0.75) times it (the prior's share −θ/σ² is 0)
    c = Comparisons(a=[0], b=[1], outcome=[1], item=[0], judge=[0], systems=("A", "base"), items=("s",), judges=("j",))
    model = GRM(baseline="base").partial_fit(c)
    step = 2 ** -0.75 * 1.7 * (1 - expit(1.7 * -0.5))
    assert model.scores_["A"] == pytest.approx(step)
    # b₁ = β moves with b₂ = β + e^γ: ∂/∂β = −a (g1 + g2) = −a (1 − P*₂) on a win (priors at their means)
    assert model.segment_thresholds_.loc["s", "b1"] == pytest.approx(-0.5 - step)
    assert model.segment_thresholds_.loc["s", "b2"] < 0.5  # a win makes winning look easier
    assert model.judge_sensitivity_["j"] < 1.7  # θ − b₂ < 0 on a win: a flatter curve explains it better


def test_one_pass_converges_to_the_batch_fit():
    comparisons, truth = simulate_grm(n_comparisons=20_000, random_state=0)
    online = _stream(GRM(baseline="base"), comparisons, 500)
    batch = GRM(baseline="base", nodes=10).fit(comparisons)  # 10 quadrature nodes: θ within 1e-4 of 20's, twice as fast
    systems = truth.theta.index
    assert np.corrcoef(online.scores_[systems], batch.scores_[systems])[0, 1] >= 0.98
    assert np.corrcoef(online.scores_[systems], truth.theta)[0, 1] >= 0.98
    judges = batch.judge_sensitivity_.index
    assert np.corrcoef(online.judge_sensitivity_[judges], batch.judge_sensitivity_)[0, 1] >= 0.8
    assert (online.scores_std_[systems] < 0.1).all() and np.isnan(online.scores_std_["base"])


def test_continues_a_batch_fit_and_takes_new_names():
    comparisons, truth = simulate_grm(n_comparisons=4000, random_state=2)
    first = comparisons.take(np.nonzero(comparisons.a != 0)[0][:2000])  # sys01 is left for later
    model = GRM(baseline="base").fit(first)
    before = model.scores_.copy()
    later = comparisons.take(np.nonzero(comparisons.a == 0)[0])
    model.partial_fit(later)
    np.testing.assert_allclose(model.scores_.drop(["sys01", "base"]), before.drop(["sys01", "base"]))
    assert np.isnan(before["sys01"]) and not np.isnan(model.scores_["sys01"])
    assert abs(model.scores_["sys01"] - truth.theta["sys01"]) < 0.4
    with pytest.raises(ValueError, match="model's baseline is 'base', not 'sys02'"):
        model.partial_fit(later, baseline="sys02")


def test_score_new_system_against_frozen_parameters():
    comparisons, truth = simulate_grm(n_comparisons=5000, random_state=4)
    others = comparisons.take(np.nonzero(comparisons.a != 9)[0])
    late = comparisons.take(np.nonzero(comparisons.a == 9)[0])
    model = GRM(baseline="base").fit(others)
    thresholds = model.segment_thresholds_.copy()
    scored = model.score_new_system(late)
    assert list(scored.index) == ["sys10"] and scored.loc["sys10", "comparisons"] == len(late)
    # the MAP of Σ log P(u | θ, a_k, b_j) − θ² / 2σ² at the frozen parameters, by a scalar optimiser
    a = model.judge_sensitivity_[[late.judges[k] for k in late.judge]].to_numpy()
    b = model.segment_thresholds_.loc[[late.items[j] for j in late.item]].to_numpy()
    u = np.array([1, 2, 0])[late.outcome]  # a is the system: tie 1, win 2, lose 0

    def negative_posterior(theta):
        p = icc_rows(theta, a, b)
        return -np.log(p[np.arange(len(u)), u]).sum() + theta ** 2 / (2 * model.sigma ** 2)
    # two optimisers' stopping rules (scipy's versions differ by 3e-5 here), far inside the score's posterior sd (~0.1)
    assert scored.loc["sys10", "score"] == pytest.approx(minimize_scalar(negative_posterior).x, abs=1e-4)
    placed = pd.concat([model.scores_.drop("base").dropna(), scored["score"]])
    assert np.corrcoef(placed[truth.theta.index], truth.theta)[0, 1] >= 0.97
    assert model.segment_thresholds_.equals(thresholds)  # frozen
    with pytest.raises(ValueError, match=r"\['sys01'\] are already in the model"):
        model.score_new_system(comparisons.take(np.nonzero(comparisons.a == 0)[0]))
