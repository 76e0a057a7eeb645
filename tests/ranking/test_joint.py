"""The joint model of comparisons and ratings (``ranking.joint``, ``experiments.joint``): a planted
truth recovered better than by either protocol alone, held-out log-likelihood per protocol, peer
agreement with Davidson, and WMT10's rankings with its acceptability judgments of the same systems."""

import numpy as np
import pytest
from conftest import shared_file

from humeval.data import Ratings, read
from humeval.experiments.joint import heldout_by_protocol
from humeval.ranking import Davidson, JointModel
from humeval.simulate.joint import simulate_two_protocols


def _scores(model, sim):
    return model.scores_.reindex(sim.theta.index).to_numpy()


def test_joint_recovers_the_truth_better_than_either_protocol_alone():
    """8 simulated campaigns, 10 systems, 200 comparisons and 200 DA ratings each (slope 8, noise 15:
    both protocols carry signal): the joint scores are closer to the planted abilities (RMSE, in the
    comparisons' log-odds) than the comparisons alone, and correlate better than the ratings alone."""
    rmse, corr = [], []
    for seed in range(8):
        sim = simulate_two_protocols(n_systems=10, n_comparisons=200, n_ratings=200, slope=8, noise=15,
                                     random_state=seed)
        truth = sim.theta.to_numpy()
        joint = JointModel().fit(sim.comparisons, sim.ratings)
        pairs = JointModel().fit(sim.comparisons)
        ratings = JointModel().fit(sim.comparisons.take(np.zeros(0, dtype=int)), sim.ratings)
        rmse.append([np.sqrt(np.mean((_scores(m, sim) - truth) ** 2)) for m in (joint, pairs)])
        corr.append([np.corrcoef(_scores(m, sim), truth)[0, 1] for m in (joint, pairs, ratings)])
    rmse, corr = np.mean(rmse, axis=0), np.mean(corr, axis=0)
    assert rmse[0] < rmse[1] - 0.02, rmse  # measured 0.316 vs 0.363
    assert corr[0] > corr[1] + 0.01 and corr[0] > corr[2] + 0.02, corr  # 0.966 vs 0.939 and 0.924


def test_heldout_likelihood_gains_for_both_protocols_when_both_carry_signal():
    gains = np.array([heldout_by_protocol(*_campaign(seed), test_size=0.3, random_state=seed)["gain"].to_numpy()
                      for seed in range(8)])
    assert gains.shape == (8, 2)
    assert np.all(gains.mean(axis=0) > 0.005), gains.mean(axis=0)  # measured 0.023 (comparisons), 0.025 (DA)


def _campaign(seed):
    sim = simulate_two_protocols(n_systems=10, n_comparisons=200, n_ratings=200, slope=8, noise=15, random_state=seed)
    return sim.comparisons, sim.ratings


def test_heldout_shows_no_gain_when_the_ratings_measure_something_else():
    """Ratings unrelated to the abilities (slope 0): joining cannot help the comparisons."""
    gains = []
    for seed in range(4):
        sim = simulate_two_protocols(n_systems=10, n_comparisons=200, n_ratings=400, slope=0.0, noise=15,
                                     random_state=seed)
        gains.append(heldout_by_protocol(sim.comparisons, sim.ratings, test_size=0.3, random_state=seed)
                     .loc["comparisons", "gain"])
    assert np.mean(gains) < 0.005, gains


def test_protocol_parameters_recovered_also_for_an_error_score():
    """An MQM-like score (lower is better: slope −8, offset −5, noise 15) on 4,000 ratings."""
    sim = simulate_two_protocols(n_systems=10, n_comparisons=2000, n_ratings=4000, offset=-5.0, slope=-8.0,
                                 noise=15.0, criterion="MQM", random_state=1)
    model = JointModel().fit(sim.comparisons, sim.ratings)
    row = model.protocol_.loc["MQM"]
    assert row["ratings"] == 4000
    assert row["slope"] == pytest.approx(-8.0, rel=0.15) and row["offset"] == pytest.approx(-5.0, abs=1.0)
    assert row["noise_sd"] == pytest.approx(15.0, rel=0.05)
    assert np.corrcoef(_scores(model, sim), sim.theta)[0, 1] > 0.98
    assert "log-odds" in model.scale_


def test_without_ratings_it_is_davidson():
    sim = simulate_two_protocols(n_systems=6, n_comparisons=400, random_state=3)
    joint, davidson = JointModel().fit(sim.comparisons), Davidson().fit(sim.comparisons)
    np.testing.assert_allclose(joint.scores_.to_numpy(), davidson.scores_.to_numpy(), atol=1e-6)
    assert joint.log_tie_ == pytest.approx(np.log(davidson.nu_), abs=1e-6)


def test_standard_errors_equal_davidsons_and_cover_the_truth():
    """Without ratings the joint model's standard errors are Davidson's Fisher ones; with both
    protocols (l2 = 0.01, nearly no prior) the planted abilities fall within ±1.96 standard errors
    at the nominal rate (25 campaigns × 6 systems; measured 97.5 % over 40)."""
    sim = simulate_two_protocols(n_systems=6, n_comparisons=400, random_state=3)
    np.testing.assert_allclose(JointModel().fit(sim.comparisons).scores_std_.to_numpy(),
                               Davidson().fit(sim.comparisons).scores_std_.to_numpy(), rtol=1e-4)
    z = []
    for seed in range(25):
        sim = simulate_two_protocols(n_systems=6, n_comparisons=300, n_ratings=300, slope=8, noise=15,
                                     random_state=100 + seed)
        model = JointModel(l2=0.01).fit(sim.comparisons, sim.ratings)
        z.append(((model.scores_ - sim.theta) / model.scores_std_).to_numpy())
    z = np.concatenate(z)
    assert 0.9 <= np.mean(np.abs(z) < 1.96) and 0.8 < np.std(z) < 1.2, (np.mean(np.abs(z) < 1.96), np.std(z))


def test_quality_controls_are_left_out_and_counted_and_rated_only_systems_added():
    sim = simulate_two_protocols(n_systems=4, n_comparisons=100, n_ratings=40, random_state=0)
    r = sim.ratings
    kinds = ("BAD_REF", "SYSTEM")
    extra = Ratings(system=np.r_[r.system, [0, 0]], score=np.r_[r.score, [-1e6, -1e6]], systems=r.systems,
                    criterion=np.zeros(len(r) + 2, dtype=int), criteria=r.criteria,
                    kind=np.r_[np.ones(len(r), dtype=int), [0, 0]], kinds=kinds)
    model = JointModel().fit(sim.comparisons, extra)
    assert model.controls_left_out_ == 2 and model.protocol_.loc["DA", "ratings"] == 40
    only = Ratings(system=np.array([0, 1, 2]), score=np.array([50.0, 60, 70]), systems=("sys0", "sys1", "new"),
                   criterion=np.zeros(3, dtype=int), criteria=("DA",))
    model = JointModel().fit(sim.comparisons, only)
    assert model.systems_[-1] == "new" and model.ratings_["new"] == 1 and model.record_.loc["new"].sum() == 0


def test_wmt10_rankings_with_acceptability_of_the_same_systems():
    """WMT10: 5-way rankings (data_RNK.csv) and acceptability of post-edits (data_ACC.csv, YES = 1)
    judge the same systems per track. Joining lifts the acceptability judgments' held-out
    log-likelihood (measured: Czech-English +0.012, French-English +0.044, German-English +0.008
    nats per judgment) and leaves the comparisons' (ten times more) within 0.001."""
    folder = "wmt10-rankings/wmt10/"
    rankings, accept = read(shared_file(folder + "data_RNK.csv")), read(shared_file(folder + "data_ACC.csv"))
    comparisons, ratings = rankings.comparisons.by_track(), accept.ratings.by_track()
    for track in ("Czech-English", "French-English", "German-English"):
        table = heldout_by_protocol(comparisons[track], ratings[track], random_state=0)
        assert table.loc["acceptability", "gain"] > 0.003, (track, table)
        assert abs(table.loc["comparisons", "gain"]) < 0.001, (track, table)
        model = JointModel().fit(comparisons[track], ratings[track])
        assert 0 < model.protocol_.loc["acceptability", "slope"] < 0.5  # share of acceptable edits per logit
        assert set(model.systems_) == set(comparisons[track].systems)


def test_two_rating_protocols_each_with_its_own_scale():
    """DA (slope +8) and an error score (slope −3, noise 4) of the same systems in one ratings
    table, criterion = protocol: each protocol's slope, offset and noise recovered, the error
    score's slope negative although the table says higher is better."""
    sim = simulate_two_protocols(n_systems=8, n_comparisons=1500, n_ratings=3000, slope=8.0, noise=15.0, random_state=5)
    mqm = simulate_two_protocols(n_systems=8, n_comparisons=10, n_ratings=3000, offset=-4.0, slope=-3.0, noise=4.0,
                                 random_state=5)  # the same seed: the same abilities
    np.testing.assert_allclose(mqm.theta, sim.theta)
    r, e = sim.ratings, mqm.ratings
    both = Ratings(system=np.r_[r.system, e.system], score=np.r_[r.score, e.score], systems=r.systems,
                   criterion=np.r_[np.zeros(len(r), dtype=int), np.ones(len(e), dtype=int)], criteria=("DA", "MQM"))
    model = JointModel().fit(sim.comparisons, both)
    table = model.protocol_
    assert table.loc["DA", "slope"] == pytest.approx(8.0, rel=0.15) and table.loc["MQM", "slope"] == pytest.approx(-3.0, rel=0.15)
    assert table.loc["MQM", "offset"] == pytest.approx(-4.0, abs=0.3) and table.loc["MQM", "noise_sd"] == pytest.approx(4.0, rel=0.05)
    assert np.corrcoef(_scores(model, sim), sim.theta)[0, 1] > 0.99
