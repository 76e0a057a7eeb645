"""The linear mixed model: recovers simulated truth and equals statsmodels' MixedLM."""

import numpy as np
import pandas as pd
import pytest

from humeval.ratings.mixed import fit_mixed
from humeval.simulate.ratings import simulate_ratings


def _fit(sim, **kw):
    r = sim.ratings
    return fit_mixed(r.score, r.system, r.item, r.judge, r.systems, r.items, r.judges, **kw)


def test_recovers_planted_system_effects_and_annotator_biases():
    sim = simulate_ratings(n_systems=10, n_items=300, n_judges=40, n_ratings=30000, sigma_logscale=0.0,
                           low=-np.inf, high=np.inf, random_state=0)
    fit, truth = _fit(sim), sim.truth
    # β_s = μ + mean(b) + mean(u) + β_s(true): compare differences from the first system
    est = fit.system_means - fit.system_means[0]
    true = truth.effects.to_numpy() - truth.effects.to_numpy()[0]
    se_diff = np.sqrt(fit.covariance.diagonal() + fit.covariance[0, 0] - 2 * fit.covariance[:, 0])
    assert np.all(np.abs(est - true)[1:] < 4 * se_diff[1:])
    assert np.max(np.abs(est - true)) < 1.0  # points on a 0–100 scale; systems differ by σ = 8
    # biases are identified up to a constant (absorbed by the system means)
    bias_err = (fit.judge_bias - fit.judge_bias.mean()) - (truth.bias - truth.bias.mean()).to_numpy()
    assert np.sqrt(np.mean(bias_err ** 2)) < 1.0  # each annotator has ~750 ratings: s.e. ≈ 12/√750 ≈ 0.45
    ease_err = (fit.segment_ease - fit.segment_ease.mean()) - (truth.ease - truth.ease.mean()).to_numpy()
    assert np.sqrt(np.mean(ease_err ** 2)) < 1.5  # ~100 ratings per segment: ≈ 1.2
    assert fit.sigma2 == pytest.approx(12.0 ** 2, rel=0.03)
    assert fit.var_judge == pytest.approx(truth.bias.var(), rel=0.1)
    assert fit.var_segment == pytest.approx(truth.ease.var(), rel=0.1)


def test_borrowing_strength_beats_the_raw_mean_under_imbalance():
    # system 0 is rated mostly by the harshest annotators: the raw mean is biased, the model is not
    sim = simulate_ratings(n_systems=4, n_items=100, n_judges=20, n_ratings=8000, sigma_logscale=0.0,
                           low=-np.inf, high=np.inf, random_state=1)
    r, truth = sim.ratings, sim.truth
    harsh = np.argsort(truth.bias.to_numpy())[:5]
    keep = (r.system != 0) | np.isin(r.judge, harsh)
    sub = r.take(keep)
    fit = fit_mixed(sub.score, sub.system, sub.item, sub.judge, sub.systems, sub.items, sub.judges)
    true_gap = truth.effects.iloc[1] - truth.effects.iloc[0]
    raw = np.array([sub.score[sub.system == s].mean() for s in range(4)])
    assert abs((raw[1] - raw[0]) - true_gap) > 5  # harsh annotators cost system 0 several points
    assert abs((fit.system_means[1] - fit.system_means[0]) - true_gap) < 1.5


def _statsmodels_case():
    sim = simulate_ratings(n_systems=4, n_items=25, n_judges=8, n_ratings=400, sigma_logscale=0.0,
                           low=-np.inf, high=np.inf, random_state=0)
    r = sim.ratings
    df = pd.DataFrame(dict(score=r.score, system=np.array(r.systems)[r.system], item=np.array(r.items)[r.item],
                           judge=np.array(r.judges)[r.judge], group=1))
    return sim, df


@pytest.mark.parametrize("reml", [True, False])
def test_equals_statsmodels_mixedlm(reml):
    smf = pytest.importorskip("statsmodels.formula.api")
    sim, df = _statsmodels_case()
    model = smf.mixedlm("score ~ 0 + C(system)", df, groups="group",
                        vc_formula={"judge": "0 + C(judge)", "item": "0 + C(item)"})
    ref = model.fit(reml=reml)
    fit = _fit(sim, method="reml" if reml else "ml")
    # both optimise the same likelihood to their own stopping rules: the optimum agrees to ~1e-6
    np.testing.assert_allclose(fit.system_means, ref.fe_params.to_numpy(), rtol=1e-5)
    vc = dict(zip(model.exog_vc.names, ref.vcomp))
    assert fit.var_judge == pytest.approx(vc["judge"], rel=1e-3)
    assert fit.var_segment == pytest.approx(vc["item"], rel=1e-3)
    assert fit.sigma2 == pytest.approx(ref.scale, rel=1e-4)
    assert fit.loglik == pytest.approx(ref.llf, abs=1e-4)
    # statsmodels' s.e. come from the joint Hessian (variance parameters estimated), ours treat the
    # variance components as known: the two differ by the (small) β–variance correlation
    np.testing.assert_allclose(fit.se, ref.bse.to_numpy()[:4], rtol=5e-3)


def test_annotator_noise_weights_find_the_noisy_annotators():
    sim = simulate_ratings(n_systems=5, n_items=200, n_judges=30, n_ratings=15000, sigma_logscale=0.5,
                           sigma_system=4.0, sigma_segment=2.0, sigma_bias=4.0, low=-np.inf, high=np.inf, random_state=2)
    fit = _fit(sim, judge_scale=True)
    # residual s.d. of annotator j is a_j σ (plus a_j − 1 times the quality spread, kept small here)
    r = np.corrcoef(np.log(fit.judge_noise), 2 * np.log(sim.truth.scale.to_numpy()))[0, 1]
    assert r > 0.9
    assert np.exp(np.mean(np.log(fit.judge_noise))) == pytest.approx(1.0)
    plain = _fit(sim)
    assert fit.loglik > plain.loglik  # not nested exactly, but far better on heteroscedastic data


def test_without_annotator_ids_only_segments_are_random():
    sim = simulate_ratings(n_systems=3, n_items=50, n_judges=5, n_ratings=1500, random_state=3)
    r = sim.ratings
    fit = fit_mixed(r.score, r.system, r.item, np.full(len(r), -1), r.systems, r.items, ())
    assert fit.var_judge == 0.0 and len(fit.judge_bias) == 0
    mean, var = fit.predict([0, 1], [0, 0], [-1, -1])
    assert mean[0] == pytest.approx(fit.system_means[0] + fit.segment_ease[0])
    assert var[0] == pytest.approx(fit.sigma2 + fit.covariance[0, 0])


def test_prediction_of_an_unseen_annotator_and_segment_adds_their_variance():
    sim = simulate_ratings(n_systems=3, n_items=50, n_judges=10, n_ratings=2000, random_state=4)
    fit = _fit(sim)
    mean, var = fit.predict([1], [-1], [-1])
    assert mean[0] == pytest.approx(fit.system_means[1])
    assert var[0] == pytest.approx(fit.sigma2 + fit.var_judge + fit.var_segment + fit.covariance[1, 1])


def test_bad_input():
    with pytest.raises(ValueError, match="finite score"):
        fit_mixed([1.0, np.nan, 2.0, 3.0], [0, 0, 1, 1], [0, 1, 0, 1], [0, 0, 1, 1])
    with pytest.raises(ValueError, match="cannot fit"):
        fit_mixed([1.0, 2.0], [0, 1], [0, 0], [0, 0])
    with pytest.raises(ValueError, match="reml or ml"):
        fit_mixed([1.0, 2.0, 3.0, 4.0], [0, 0, 1, 1], [0, 1, 0, 1], [0, 0, 1, 1], method="bayes")


def test_too_many_levels_for_the_dense_part_is_refused(monkeypatch):
    import humeval.ratings.mixed as mixed
    monkeypatch.setattr(mixed, "MAX_DENSE", 10)
    sim = simulate_ratings(n_systems=3, n_items=40, n_judges=20, n_ratings=500, random_state=5)
    with pytest.raises(ValueError, match="dense matrix of 23 rows"):
        _fit(sim)
