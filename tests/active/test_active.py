import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humeval.active import (BTUncertainty, PairState, RealJudgments, SimulatedPairs, TrueSkillActive, UniformPairs,
                            active_study, baseline_study, informative_pairs, make_strategy, savings)
from humeval.cli import cli
from humeval.data import Comparisons
from humeval.data.export import pairwise_frame, write
from humeval.experiments.planning import simulate_design
from humeval.ranking import TrueSkill
from humeval.ranking.bradley_terry import BradleyTerry
from humeval.simulate import simulate_grm


def collected(n=6, size=3000, seed=0):
    rng = np.random.default_rng(seed)
    comps = simulate_design(np.linspace(-1, 1, n), 0.1, size, "pairs", rng)
    state = PairState(n)
    state.add(comps.a.astype(np.int64), comps.b.astype(np.int64), comps.outcome.astype(np.int64))
    return comps, state


def test_bt_warm_start_converges_to_the_ridge_mle():
    comps, state = collected()
    strategy = BTUncertainty("order", ridge=0.1)
    strategy.reset(6)
    for _ in range(20):
        strategy.update(state, None, None, None)
    expected = BradleyTerry(l2=0.1).fit(comps).scores_.reindex(comps.systems).to_numpy()
    np.testing.assert_allclose(strategy.theta, expected, atol=1e-6)


def test_trueskill_strategy_updates_like_the_model():
    comps, state = collected(size=400)
    strategy = TrueSkillActive(expected_matches=len(comps))
    strategy.reset(6)
    strategy.update(state, comps.a, comps.b, comps.outcome)
    model = TrueSkill(order="data").fit(comps)
    np.testing.assert_allclose(strategy.mu, model.scores_.reindex(comps.systems).to_numpy(), atol=1e-9)
    pairs = strategy.next_batch(state, 12, np.random.default_rng(0))
    assert pairs.shape == (12, 2) and (pairs[:, 0] != pairs[:, 1]).all()


def test_real_judgments_are_drawn_without_replacement():
    comps, _ = collected(n=4, size=300)
    env = RealJudgments(comps)
    env.reset(np.random.default_rng(0))
    a, b, outcome = env.judge_pairs(np.array([[0, 1]] * 500))
    assert len(a) == 300 and env.used.all()  # pair (0, 1) runs out, then others fill in
    assert env.exhausted == 300 - int(((comps.a == 0) & (comps.b == 1) | (comps.a == 1) & (comps.b == 0)).sum())
    assert sorted(zip(a, b, outcome)) == sorted(zip(comps.a.astype(int), comps.b.astype(int), comps.outcome.astype(int)))


def test_strategies_respect_availability():
    state = PairState(4, available=lambda: np.array([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], bool))
    for strategy in (UniformPairs(), BTUncertainty("outcome"), TrueSkillActive()):
        strategy.reset(4)
        pairs = strategy.next_batch(state, 5, np.random.default_rng(0))
        assert {tuple(sorted(p)) for p in pairs} == {(0, 1)}
    with pytest.raises(ValueError, match="strategy"):
        make_strategy("psychic")


def test_study_and_savings_on_a_simulated_benchmark():
    rng = np.random.default_rng(0)
    env = SimulatedPairs(rng.normal(0, 1.0, 20), 0.15)
    strategies = {s.name: s for s in (make_strategy("uniform"), make_strategy("bt-order"), make_strategy("rankings"))}
    curves = active_study(env, strategies, budget=2000, batch=100, checkpoint=250, trials=8, random_state=0)
    assert set(curves.judgments) == set(range(250, 2001, 250))
    table = savings(curves, "uniform pairs")
    assert table.loc["uniform pairs", "saving"] == 0
    assert table.loc["BT uncertainty (order)", "saving"] > 0  # the uncertain pairs pay off here
    assert table.loc["random 5-way rankings", "final spearman"] < table.loc["uniform pairs", "final spearman"]


def test_informative_pairs_pick_the_segments_around_each_ability():
    """Information peaks where θ lies between a segment's thresholds: segment 0 spans −1, segment
    1 spans +1, segment 2 is far above both systems."""
    b1, b2 = np.array([-1.5, 0.5, 3.0]), np.array([-0.5, 1.5, 4.0])
    system, segment = informative_pairs(np.array([-1.0, 1.0]), b1, b2, 1.7, 4, np.random.default_rng(0))
    assert system.tolist() == [0, 1, 0, 1]
    assert segment.tolist() == [0, 1, 1, 0]  # each system's best, then its second best


def test_baseline_study_runs():
    _, truth = simulate_grm(n_systems=5, n_segments=60, random_state=0)
    curves = baseline_study(truth, budget=400, batch=200, trials=1, random_state=0)
    assert list(curves.strategy.unique()) == ["random", "information"] and set(curves.judgments) == {200, 400}
    # both designs start from the same stream with a random first batch: identical after 200 judgments
    first = curves[curves.judgments == 200].set_index("strategy").spearman
    assert first["random"] == first["information"]
    # the GRM fitted on 400 judgments of 5 systems against the baseline recovers the simulated order
    assert (curves[curves.judgments == 400].spearman >= 0.8).all()


def test_active_study_command(tmp_path):
    result = CliRunner().invoke(cli, ["active-study", "--systems", "8", "--budget", "600", "--batch", "100",
                                      "--trials", "2", "--strategies", "uniform,bt-order", "--clusters",
                                      "--plot", str(tmp_path / "a.png"), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert {r["strategy"] for r in data["savings"]} == {"uniform pairs", "BT uncertainty (order)"} and "clusters" in data
    # the savings follow from the mean curves: the first checkpoint reaching uniform's final Spearman
    curves = pd.DataFrame(data["curves"]).set_index("judgments")
    assert list(curves.index) == list(range(100, 601, 100))
    target = curves["uniform pairs"].iloc[-1]
    for row in data["savings"]:
        curve = curves[row["strategy"]]
        need = curve.index[curve >= target - 1e-9][0]
        assert row["final spearman"] == pytest.approx(curve.iloc[-1])
        if row["strategy"] == "uniform pairs":  # the baseline: its whole budget by definition, no saving
            need = 600
        assert row[f"judgments to reach {target:.3f}"] == need and row["saving"] == pytest.approx(1 - need / 600)
    comps, _ = collected(n=5, size=800)
    write(pairwise_frame(comps), tmp_path / "real.csv")
    real = CliRunner().invoke(cli, ["active-study", str(tmp_path / "real.csv"), "--budget", "400", "--trials", "2",
                                    "--strategies", "uniform,trueskill"])
    assert real.exit_code == 0, real.output
    assert "real judgments resampled" in real.output
    too_many = CliRunner().invoke(cli, ["active-study", str(tmp_path / "real.csv"), "--budget", "5000"])
    assert too_many.exit_code == 2 and "ask for fewer" in too_many.output


def test_real_rankings_are_whole_groups():
    comps, _ = collected(n=4, size=40)
    group = np.repeat(np.arange(10), 4)
    group[-4:] = -1  # the last four belong to no ranking
    comps = type(comps)(a=comps.a, b=comps.b, outcome=comps.outcome, group=group, systems=comps.systems)
    env = RealJudgments(comps)
    env.reset(np.random.default_rng(0))
    a, _, _ = env.judge_rankings(3)
    taken = np.nonzero(env.used)[0]
    whole = [g for g in range(9) if env.used[g * 4:(g + 1) * 4].any()]
    assert all(env.used[g * 4:(g + 1) * 4].all() for g in whole)
    assert len(whole) + int(env.used[36:].sum()) == 3 and len(taken) == len(a)


def test_grm_uncertainty_asks_about_the_least_certain_system_first():
    from humeval.active import GRMUncertainty
    from humeval.ranking import GRM
    comparisons, truth = simulate_grm(n_systems=4, n_segments=40, n_comparisons=800, random_state=3)
    rows = np.nonzero((comparisons.a != 2) | (np.arange(len(comparisons)) % 10 == 0))[0]  # sys03 seldom judged
    model = GRM(baseline="base").partial_fit(comparisons.take(rows))
    chooser = GRMUncertainty(truth.theta.index, truth.thresholds.index)
    system, segment = chooser.choose(model, 12, np.random.default_rng(0))
    assert model.scores_std_.drop("base").idxmax() == "sys03"
    assert system[0] == 2 and (system == 2).sum() > 3  # most of the batch goes to it
    # its segments are the most informative at its θ, in order
    theta = model.scores_["sys03"]
    seg = model.segment_thresholds_.reindex(truth.thresholds.index)
    b1, b2 = seg.b1.fillna(seg.b1.mean()).to_numpy(), seg.b2.fillna(seg.b2.mean()).to_numpy()
    info = item_information_all(theta, b1, b2, float(model.judge_sensitivity_.mean()))
    np.testing.assert_array_equal(np.sort(segment[system == 2]), np.sort(np.argsort(-info)[:(system == 2).sum()]))


def item_information_all(theta, b1, b2, a):
    from humeval.ranking.grm import item_information
    return np.array([item_information(theta, x, y, a)[0] for x, y in zip(b1, b2)])


def test_baseline_study_online_strategies_track_the_truth():
    _, truth = simulate_grm(n_systems=6, n_segments=60, random_state=0)
    curves = baseline_study(truth, budget=1200, batch=200, trials=1, random_state=0,
                            strategies=["uncertainty (online)", "random (online)"])
    final = curves[curves.judgments == 1200].set_index("strategy").spearman
    assert (final >= 0.8).all()
    assert curves.seconds.sum() < 5
    with pytest.raises(ValueError, match="unknown strategies"):
        baseline_study(truth, strategies=["best"])


def test_real_baseline_draws_real_judgments_without_replacement():
    from humeval.active.environments import RealBaseline
    # A against base on s1 (A wins), s2 (tie); B against base on s1 (base wins, written base first)
    c = Comparisons(a=[0, 0, 2, 0], b=[2, 2, 1, 1], outcome=[1, 0, 1, 1], item=[0, 1, 0, 0], judge=[0, 1, 1, 0],
                    systems=("A", "B", "base"), items=("s1", "s2"), judges=("j1", "j2"))
    env = RealBaseline(c, "base")
    assert env.systems == ("A", "B", "base")
    env.reset(np.random.default_rng(0))
    outcome, judge, segment, system = env.judge(np.array([0, 1]), np.array([0, 0]))
    assert outcome.tolist() == [1, 2] and segment.tolist() == [0, 0] and system.tolist() == [0, 1]
    assert judge.tolist() == [0, 1]
    outcome, _, segment, system = env.judge(np.array([0, 0]), np.array([0, 0]))  # A's s1 is used: its s2 instead, then nothing is left
    assert segment.tolist() == [1] and outcome.tolist() == [0] and env.substituted == 1 and len(system) == 1
    assert env.used.all()


def test_baseline_study_on_resampled_real_judgments():
    from humeval.active.environments import RealBaseline
    comparisons, truth = simulate_grm(n_systems=5, n_segments=50, n_comparisons=1500, random_state=1)
    env = RealBaseline(comparisons, "base")
    curves = baseline_study(None, budget=1000, batch=250, trials=1, random_state=0, environment=env,
                            reference=truth.theta.to_numpy(), strategies=["random (online)", "uncertainty (online)"])
    assert set(curves.judgments) == {250, 500, 750, 1000}
    assert (curves[curves.judgments == 1000].spearman >= 0.8).all()


def test_active_study_table_shows_the_checkpoints_its_savings_cite():
    """Issue 27: the curve table showed 8 of 16 checkpoints, dropping ones the savings table cited,
    and the baseline 'saved' against itself."""
    args = ["active-study", "--systems", "8", "--budget", "1600", "--batch", "100", "--trials", "2",
            "--strategies", "uniform,bt-order,trueskill", "--clusters"]
    data = json.loads(CliRunner().invoke(cli, [*args, "--json"]).output)
    cited = {row[k] for frame in (data["savings"], data["clusters"]) for row in frame for k in row
             if k.startswith("judgments to reach") and row[k] is not None}
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    curve_table = result.output.split("Judgments needed")[0]
    rows = {int(line.split()[0].replace(",", "")) for line in curve_table.splitlines()
            if line.split() and line.split()[0].replace(",", "").isdigit()}
    assert cited and cited <= rows and len(rows) >= 8
    baseline = [r for r in data["savings"] if r["strategy"] == "uniform pairs"][0]
    assert baseline["saving"] == 0 and baseline[[k for k in baseline if k.startswith("judgments")][0]] == 1600
    # savings are written as the report writes shares
    saving = [r["saving"] for r in data["savings"] if r["strategy"] != "uniform pairs" and r["saving"] is not None]
    assert all(f"{s:.1%}" in result.output for s in saving)
