"""The cumulative-logit model: a likelihood checked by hand, recovery of simulated Likert data,
and statsmodels' OrderedModel when annotator and segment terms are switched off."""

import math

import numpy as np
import pytest
from scipy import optimize

from humeval.ratings.ordinal import OrdinalFit, _Data, fit_ordinal, ordinal_levels
from humeval.simulate.ratings import simulate_ratings


def _sigmoid(x):
    return 1 / (1 + math.exp(-x))


def test_log_proba_by_hand():
    # K = 3, θ = (−1, 1); β = (0.5, −0.5); annotator 1 shifted by +0.25 (harsher), segment 0 ease 0.2
    fit = OrdinalFit(("A", "B"), ("j0", "j1"), ("s0",), np.array([1.0, 2.0, 3.0]), np.array([-1.0, 1.0]),
                     np.array([0.5, -0.5]), np.array([0.0, 0.25]), np.array([0.2]), 1.0, 1.0)
    lp = fit.log_proba([0, 1], [0, 0], [0, 1])
    # system A, judge j0: η = 0.5 + 0.2 = 0.7; P(y=1) = F(−1 − 0.7), P(y=2) = F(1 − 0.7) − F(−1.7)
    assert math.exp(lp[0, 0]) == pytest.approx(_sigmoid(-1.7))
    assert math.exp(lp[0, 1]) == pytest.approx(_sigmoid(0.3) - _sigmoid(-1.7))
    assert math.exp(lp[0, 2]) == pytest.approx(1 - _sigmoid(0.3))
    # system B, judge j1: offset t − η = 0.25 − (−0.5 + 0.2) = 0.55
    assert math.exp(lp[1, 0]) == pytest.approx(_sigmoid(-1 + 0.55))
    assert math.exp(lp[1, 2]) == pytest.approx(1 - _sigmoid(1 + 0.55))
    np.testing.assert_allclose(np.exp(lp).sum(axis=1), 1.0)


def test_unseen_annotator_integrates_over_the_prior():
    fit = OrdinalFit(("A",), (), ("s0",), np.array([1.0, 2.0]), np.array([0.0]), np.array([0.0]),
                     np.zeros(0), np.array([0.0]), 2.0, 1.0)
    p = math.exp(fit.log_proba([0], [0], [-1])[0, 0])
    # P(y = 1) = E[F(t)], t ~ N(0, 4): ½ by symmetry
    assert p == pytest.approx(0.5, abs=1e-9)
    fit.thresholds = np.array([1.0])
    expected = sum(w * _sigmoid(1 + 2 * x) for x, w in zip(*np.polynomial.hermite_e.hermegauss(80))) / math.sqrt(2 * math.pi)
    assert math.exp(fit.log_proba([0], [0], [-1])[0, 0]) == pytest.approx(expected, rel=1e-6)


def test_tails_stay_finite():
    fit = OrdinalFit(("A",), ("j",), ("s",), np.array([1.0, 2.0, 3.0]), np.array([-1.0, 1.0]), np.array([40.0]),
                     np.zeros(1), np.zeros(1), 1.0, 1.0)
    lp = fit.log_proba([0], [0], [0])[0]
    assert np.isfinite(lp).all()
    assert lp[0] == pytest.approx(-41.0, abs=1e-6)  # log F(−41) = −41 − log(1 + e^{−41})


def test_recovers_simulated_likert_ratings():
    sim = simulate_ratings(n_systems=6, n_items=150, n_judges=25, n_ratings=20000, levels=5, sigma_system=1.0,
                           sigma_segment=0.5, sigma_bias=0.7, random_state=0)
    r, truth = sim.ratings, sim.truth
    fit = fit_ordinal(r.score, r.system, r.item, r.judge, r.systems, r.items, r.judges, scale=r.scale)
    true = truth.effects.to_numpy() - truth.effects.mean()
    # shrinkage of the segment terms towards 0 is small: 130 ratings each
    assert np.max(np.abs(fit.system_effects - true)) < 4 * fit.se.max()
    assert np.max(np.abs(fit.system_effects - true)) < 0.1
    # the thresholds absorb the means of the shifts, of the segment ease and of the system effects (Σβ̂ = 0)
    offset = truth.bias.mean() - truth.ease.mean() - truth.effects.mean()
    np.testing.assert_allclose(fit.thresholds, truth.thresholds + offset, atol=0.1)
    shift = fit.judge_shift - fit.judge_shift.mean()
    assert np.corrcoef(shift, truth.bias)[0, 1] > 0.98
    assert fit.levels.tolist() == [1, 2, 3, 4, 5]


def test_gradient_is_exact():
    rng = np.random.default_rng(1)
    n = 300
    y, system, item, judge = rng.integers(0, 4, n), rng.integers(0, 3, n), rng.integers(0, 10, n), rng.integers(-1, 4, n)
    data = _Data(y, system, item, judge, (3, 4, 10, 3), 0.7, 1.3)
    point = rng.normal(0, 0.5, data.cuts[-1])
    numeric = optimize.approx_fprime(point, lambda v: data.objective(v)[0], 1e-7)
    grad = data.objective(point)[1]
    # β enters only through β − mean(β): the analytic gradient is the projected one
    numeric[:3] -= numeric[:3].mean()
    np.testing.assert_allclose(grad, numeric, atol=2e-4 * np.abs(numeric).max())


def test_equals_statsmodels_ordered_model_without_annotator_terms():
    om = pytest.importorskip("statsmodels.miscmodels.ordinal_model")
    sim = simulate_ratings(n_systems=3, n_items=5, n_judges=3, n_ratings=1500, levels=4, sigma_system=1.0,
                           sigma_segment=0.0, sigma_bias=0.0, random_state=2)
    r = sim.ratings
    # no annotator or segment terms: the plain cumulative logit on system dummies
    fit = fit_ordinal(r.score, r.system, r.item, r.judge, r.systems, r.items, r.judges, scale=r.scale,
                      judge_sd=None, segment_sd=None)
    X = np.eye(3)[r.system][:, 1:]  # system 0 as reference
    ref = om.OrderedModel(r.score.astype(int), X, distr="logit").fit(method="newton", disp=False, maxiter=100)
    diff = fit.system_effects[1:] - fit.system_effects[0]
    np.testing.assert_allclose(diff, ref.params[:2], atol=1e-6)  # both at the same optimum (Newton there)
    cuts = ref.model.transform_threshold_params(ref.params)[1:-1]
    np.testing.assert_allclose(fit.thresholds - fit.system_effects[0], cuts, atol=1e-6)
    cov = fit.covariance
    se_diff = np.sqrt([cov[k, k] + cov[0, 0] - 2 * cov[0, k] for k in (1, 2)])
    np.testing.assert_allclose(se_diff, ref.bse[:2], rtol=1e-3)
    assert fit.loglik == pytest.approx(ref.llf, abs=1e-4)


def test_levels():
    assert ordinal_levels([1, 3, 5], "1-5").tolist() == [1, 2, 3, 4, 5]
    assert ordinal_levels([0.5, 1.5], "").tolist() == [0.5, 1.5]
    with pytest.raises(ValueError, match="at most 11 levels"):
        ordinal_levels(np.arange(50.0), "0-100")
    with pytest.raises(ValueError, match="at least two levels"):
        ordinal_levels([3.0, 3.0])
    with pytest.raises(ValueError, match="prior standard deviations"):
        fit_ordinal([1, 2], [0, 0], [0, 0], [0, 0], judge_sd=0)
