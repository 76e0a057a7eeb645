"""The ratings simulator draws what its docstring says (checked against the truth it returns)."""

import numpy as np
import pytest
from scipy.special import expit

from humeval.data.tables import encode
from humeval.simulate.ratings import BAD_REF, KINDS, REPEAT, SYSTEM, simulate_ratings


def test_kind_labels_are_the_readers_codes():
    # the wmt-da reader encodes the type column with encode(): sorted labels
    assert encode(["SYSTEM", "BAD_REF", "REPEAT", "REF"])[1] == KINDS


def test_slider_scores_follow_the_linear_model():
    sim = simulate_ratings(n_ratings=20000, sigma=10.0, low=-np.inf, high=np.inf, random_state=1)
    r, t = sim.ratings, sim.truth
    system = r.kind == SYSTEM
    resid = (r.score - t.expected(r.system, r.item, r.judge))[system]
    scaled = resid / t.scale.to_numpy()[r.judge[system]]  # a_j ε_r / a_j
    n = system.sum()
    assert abs(scaled.mean()) < 4 * 10.0 / np.sqrt(n)
    assert scaled.std() == pytest.approx(10.0, rel=0.03)
    assert set(np.unique(r.kind)) == {SYSTEM}
    assert r.scale == ""  # unbounded: no declared range


def test_bad_references_are_scored_lower_by_honest_judges_only():
    sim = simulate_ratings(n_judges=40, n_ratings=40000, bad_ref=0.2, random_judges=0.25, random_state=2)
    r, t = sim.ratings, sim.truth
    random = np.isin(np.array(r.judges)[r.judge], t.random_judges)
    assert random.mean() == pytest.approx(0.25, abs=0.05)
    honest_gap = r.score[~random & (r.kind == SYSTEM)].mean() - r.score[~random & (r.kind == BAD_REF)].mean()
    random_gap = r.score[random & (r.kind == SYSTEM)].mean() - r.score[random & (r.kind == BAD_REF)].mean()
    # the drop is 3 σ = 36 points before clipping; clipping at 0 shrinks it a little
    assert 25 < honest_gap < 40
    assert abs(random_gap) < 2.0  # uniform 0–100 either way: s.e. of the gap ≈ 29/√1,800 ≈ 0.7
    assert (r.kind == BAD_REF).mean() == pytest.approx(0.2, abs=0.01)


def test_repeats_show_again_an_output_the_judge_already_scored():
    sim = simulate_ratings(n_ratings=3000, repeat=0.1, bad_ref=0.05, random_state=3)
    r = sim.ratings
    rows = np.nonzero(r.kind == REPEAT)[0]
    assert len(rows) > 200
    for row in rows:
        earlier = np.nonzero((np.arange(len(r)) < row) & (r.kind == SYSTEM) & (r.judge == r.judge[row])
                             & (r.item == r.item[row]) & (r.system == r.system[row]))[0]
        assert len(earlier) >= 1


def test_likert_levels_follow_the_cumulative_logit():
    # one cell, no system/segment/judge variation: P(y <= k) = logistic(θ_k)
    sim = simulate_ratings(n_systems=1, n_items=1, n_judges=1, n_ratings=40000, levels=5, sigma_system=0,
                           sigma_segment=0, sigma_bias=0, spread=2.0, random_state=4)
    y = sim.ratings.score
    assert set(np.unique(y)) == {1.0, 2.0, 3.0, 4.0, 5.0}
    theta = sim.truth.thresholds
    np.testing.assert_allclose(theta, [-2, -2 / 3, 2 / 3, 2])
    expected = np.diff(np.concatenate([[0.0], expit(theta), [1.0]]))
    observed = np.bincount(y.astype(int) - 1, minlength=5) / len(y)
    se = np.sqrt(expected * (1 - expected) / len(y))
    assert np.all(np.abs(observed - expected) < 4 * se)
    assert sim.ratings.scale == "1-5"


def test_likert_judge_shift_makes_a_harsher_judge():
    sim = simulate_ratings(n_judges=2, n_ratings=20000, levels=5, sigma_system=1, sigma_segment=0.5,
                           sigma_bias=1.0, random_state=5)
    r, shift = sim.ratings, sim.truth.bias.to_numpy()
    harsh, lenient = np.argmax(shift), np.argmin(shift)
    assert r.score[r.judge == harsh].mean() < r.score[r.judge == lenient].mean()


@pytest.mark.parametrize("kwargs, message", [
    (dict(bad_ref=1.5), "bad_ref is a share"),
    (dict(bad_ref=0.6, repeat=0.5), "leave some SYSTEM rows"),
    (dict(levels=1), "at least 2 levels"),
    (dict(n_judges=0), "at least one"),
    (dict(random_judges=0.5, low=-np.inf), "finite low and high"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        simulate_ratings(**kwargs)
