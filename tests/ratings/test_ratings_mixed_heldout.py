"""Held-out comparison of raw, z-mean, mixed and ordinal predictions."""

import numpy as np
import pytest
from scipy import stats

from humeval.ratings.heldout import Coded, compare_models, predictive
from humeval.simulate.ratings import simulate_ratings


def _coded(score, system, item, judge, scale=""):
    arr = lambda a: np.asarray(a, dtype=np.int64)
    k = lambda a: tuple(map(str, range(max(a) + 1))) if max(a) >= 0 else ()
    return Coded(np.asarray(score, float), arr(system), arr(item), arr(judge), k(system), k(item), k(judge), scale)


def test_raw_and_z_predictions_by_hand():
    # system 0 rated 10, 20 (segments 0, 1), system 1 rated 30, 50 (segment 0 twice) by annotators 0, 1
    train = _coded([10, 20, 30, 50], [0, 0, 1, 1], [0, 1, 0, 0], [0, 1, 0, 1])
    test = _coded([25, 40], [0, 1], [0, 0], [0, 1])
    logp, mean = predictive("raw", train, test, None)
    # WMT means: system 0 = (10 + 20)/2 = 15, system 1 = mean(30, 50) on one segment = 40
    # residuals −5, 5, −10, 10: pooled variance 250 / (4 − 2) = 125
    np.testing.assert_allclose(mean, [15, 40])
    np.testing.assert_allclose(logp, stats.norm.logpdf([25, 40], [15, 40], np.sqrt(125)))
    logp, mean = predictive("z-mean", train, test, None)
    # annotator 0: 10, 30 → μ 20, s.d. √200; annotator 1: 20, 50 → μ 35, s.d. √450
    z = np.array([-10 / np.sqrt(200), -15 / np.sqrt(450), 10 / np.sqrt(200), 15 / np.sqrt(450)])
    zbar = np.array([(z[0] + z[1]) / 2, (z[2] + z[3]) / 2])
    np.testing.assert_allclose(mean, [20 + np.sqrt(200) * zbar[0], 35 + np.sqrt(450) * zbar[1]])


def test_level_probabilities_sum_to_one():
    train = _coded([1, 2, 3, 3, 4, 5], [0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2], [0, 0, 0, 0, 0, 0], "1-5")
    levels = np.arange(1.0, 6.0)
    total = sum(np.exp(predictive("raw", train, _coded([k] * 2, [0, 1], [0, 0], [0, 0]), levels)[0])
                for k in levels)
    np.testing.assert_allclose(total, 1.0)


def test_mixed_predicts_unseen_slider_ratings_best():
    sim = simulate_ratings(n_systems=6, n_items=100, n_judges=20, n_ratings=4000, random_state=0)
    calls = []
    result = compare_models(sim.ratings, sizes=(1000, 3200), trials=1, progress=lambda d, t: calls.append((d, t)))
    models = len(result.table)
    assert calls == [(i, 2 * models) for i in range(1, 2 * models + 1)]  # rank --heldout's progress bar
    assert result.best.startswith("mixed")
    table = result.table["log_score"]
    assert table["mixed"] > table["z-mean"] > table["raw"]
    assert result.curve.loc["mixed", 3200] > result.curve.loc["mixed", 1000]  # more data, better
    assert result.measure == "log density" and result.n_test == 800
    assert table.index[0] == result.best


def test_ordinal_competes_on_likert_ratings():
    sim = simulate_ratings(n_systems=5, n_items=60, n_judges=15, n_ratings=3000, levels=5, sigma_system=1.0,
                           sigma_segment=0.5, sigma_bias=1.0, random_state=1)
    result = compare_models(sim.ratings, sizes=(2400,), trials=1)
    assert set(result.table.index) == {"raw", "z-mean", "mixed", "mixed-scale", "ordinal"}
    assert result.measure == "log probability of the level"
    table = result.table["log_score"]
    assert table["ordinal"] > table["raw"] + 0.05  # annotator shifts of 1 logit: modelling them pays
    assert table.max() < 0  # log probabilities


def test_models_that_need_annotators_are_left_out_without_them():
    sim = simulate_ratings(n_systems=3, n_items=40, n_judges=5, n_ratings=800, random_state=2)
    r = sim.ratings
    data = Coded(r.score, r.system.astype(np.int64), r.item.astype(np.int64), np.full(len(r), -1), r.systems,
                 r.items, ())
    result = compare_models(data, trials=1)
    assert list(result.curve.index) == ["raw", "mixed"]
    with pytest.raises(ValueError, match="test_share is a share"):
        compare_models(data, test_share=1.5)
    with pytest.raises(ValueError, match="ordinal model is for Likert"):
        compare_models(data, models=["ordinal"], trials=1)
