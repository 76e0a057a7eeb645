import numpy as np
import pandas as pd
import pytest

import humeval
from conftest import shared_file
from humeval.data import Comparisons
from humeval.experiments import (ability_trials, crowd_vs_expert, hopkins_may_split, learning_curve, mean_curve,
                                 perplexity, track_curves)
from humeval.ranking import AdjustedUniform, Bojar, IndependentPairs, IRTGaussian, Uniform
from humeval.simulate import simulate_competition


def segment_table():
    # segment s0 in 1 comparison, s1 in 2, s2 in 3, s3 in 4; plus one comparison without a segment
    items = [0] + [1] * 2 + [2] * 3 + [3] * 4 + [-1]
    n = len(items)
    return Comparisons(a=np.zeros(n), b=np.ones(n), outcome=np.arange(n) % 3, item=items,
                       systems=("A", "B"), items=("s0", "s1", "s2", "s3"), track=np.zeros(n), tracks=("t",))


def test_split_takes_the_smallest_k():
    # k=1 gives 1 comparison, k=2 gives 3, k=3 gives 6
    for min_test, k, test_size in ((1, 1, 1), (2, 2, 3), (3, 2, 3), (4, 3, 6), (6, 3, 6), (7, 4, 10)):
        split = hopkins_may_split(segment_table(), min_test=min_test)["t"]
        assert (split.k, len(split.test), len(split.train)) == (k, test_size, 11 - test_size)
    # more than the track has: everything with a segment is test; no-segment comparisons always train
    split = hopkins_may_split(segment_table(), min_test=50)["t"]
    assert (split.k, len(split.test), split.train.item.tolist()) == (4, 10, [-1])


# Hopkins & May (2013), Table 3, WMT10 column: train, test
TABLE3 = {"Czech-English": (3166, 2209), "French-English": (5918, 2376), "German-English": (7422, 3002),
          "Spanish-English": (8411, 2896), "English-Czech": (10490, 3048), "English-French": (5720, 2242),
          "English-German": (10852, 2842), "English-Spanish": (2962, 2212)}


def test_split_reproduces_table3_on_wmt10():
    comparisons = humeval.read(shared_file("wmt10-rankings/wmt10/data_RNK.csv")).comparisons
    got = {t: (len(s.train), len(s.test)) for t, s in hopkins_may_split(comparisons).items()}
    assert got == TABLE3


def test_perplexity_by_hand():
    test = Comparisons(a=[0, 0, 1, 0], b=[1, 1, 0, 1], outcome=[0, 0, 1, 2], systems=("A", "B"))
    model = AdjustedUniform().fit(Comparisons(a=[0, 0], b=[1, 1], outcome=[0, 1], systems=("A", "B")))
    # Q = (1/2, 1/4, 1/4): log2 Q = -1, -1, -2, -2 -> perplexity 2 ** 1.5
    assert perplexity(model, test) == pytest.approx(2 ** 1.5)
    assert perplexity(Uniform().fit(test), test) == pytest.approx(3.0)


def test_perplexity_matches_systems_by_name():
    train = Comparisons(a=[0], b=[1], outcome=[1], systems=("A", "B"))
    test = Comparisons(a=[1], b=[0], outcome=[1], systems=("B", "A"))  # A preferred, coded the other way round
    model = IndependentPairs(alpha=1).fit(train)
    assert perplexity(model, test) == pytest.approx(2.0)  # Q(A over B) = (1 + 1) / (3 + 1)


@pytest.fixture(scope="module")
def simulated():
    sim = simulate_competition(n_systems=6, n_items=3000, n_judgments=3000, design="pairs", random_state=4)
    c = sim.comparisons
    return c.take(np.arange(2000)), c.take(np.arange(2000, 3000))


def test_learning_curve_shape_and_uniform(simulated):
    train, test = simulated
    curve = learning_curve([Uniform(), IndependentPairs()], train, test, sizes=(50, 400, 5000), trials=2,
                           random_state=0)
    assert len(curve) == 2 * 3 * 2 and set(curve.columns) == {"model", "size", "trial", "train", "perplexity"}
    assert curve[curve.model == "Uniform"].perplexity.tolist() == pytest.approx([3.0] * 6)
    assert curve[curve["size"] == 5000].train.unique().tolist() == [2000]  # capped at the training set
    table = mean_curve(curve)
    assert table.loc["IndependentPairs", 400] < table.loc["IndependentPairs", 50]


def test_learning_curve_is_the_same_in_parallel(simulated):
    train, test = simulated
    models = {"irt": IRTGaussian(iterations=30, burn_in=10)}
    serial = learning_curve(models, train, test, sizes=(100, 200), trials=2, random_state=3)
    parallel = learning_curve(models, train, test, sizes=(100, 200), trials=2, random_state=3, jobs=2)
    pd.testing.assert_frame_equal(serial, parallel)


def test_track_curves_and_crowd_vs_expert():
    expert = simulate_competition(n_systems=5, n_items=200, n_judgments=600, design="rankings", random_state=1)
    crowd = simulate_competition(n_systems=5, n_items=200, n_judgments=600, design="rankings", random_judges=0.5,
                                 random_state=2)
    calls = []
    curve = crowd_vs_expert(crowd.comparisons, expert.comparisons, [Uniform()], sizes=(100,), trials=2,
                            random_state=0, progress=lambda done, total: calls.append((done, total)))
    assert sorted(curve.model.unique()) == ["Uniform (crowd)", "Uniform (expert)"]
    assert set(curve.training) == {"crowd", "expert"} and calls[-1] == (4, 4)
    assert len(curve) == 4 and curve.perplexity.tolist() == pytest.approx([3.0] * 4)  # the uniform model: exactly 3
    plain = track_curves(expert.comparisons, [Uniform()], sizes=(100,), trials=1, min_test=500)
    assert len(plain) == 1 and plain.test.iloc[0] >= 500 and set(plain.training) == {"train split"}
    assert plain.perplexity.tolist() == pytest.approx([3.0])
    # the test set is the split hopkins_may_split holds out; training draws 100 of the rest
    split = hopkins_may_split(expert.comparisons, min_test=500)["simulated"]
    assert (plain.track.iloc[0], plain.test.iloc[0], plain.train.iloc[0]) == ("simulated", len(split.test), 100)


def test_ability_trials(simulated):
    train, _ = simulated
    full = Bojar().fit(train).scores_
    # trials on the whole training set all give the full fit: that mean, no spread, best first
    whole = ability_trials(Bojar(), train, size=len(train), trials=3, random_state=0)
    assert list(whole.columns) == ["mean", "std"] and list(whole.index) == list(full.sort_values(ascending=False).index)
    np.testing.assert_allclose(whole["mean"], full[whole.index], atol=1e-12)
    np.testing.assert_allclose(whole["std"], 0.0, atol=1e-12)
    # 500 of the 2,000 comparisons: a system's Bojar score is its win share p over about D/4 of its D
    # decided comparisons, drawn without replacement: sd ≈ √(p(1 − p)/(D/4) · (1 − 1/4))
    table = ability_trials(Bojar(), train, size=500, trials=200, random_state=0).reindex(train.systems)
    decided = train.outcome != 0
    d = np.bincount(np.r_[train.a[decided], train.b[decided]], minlength=len(train.systems))
    p = full[list(train.systems)].to_numpy()
    sd = np.sqrt(p * (1 - p) / (d / 4) * (1 - 1 / 4))
    np.testing.assert_allclose(table["std"], sd, rtol=0.2)
    np.testing.assert_allclose(table["mean"], p, atol=4 * sd.max() / np.sqrt(200))


def test_split_without_repeated_segments_takes_every_third_comparison():
    """No segment column, or every segment judged once (an arena log): Hopkins & May's split would
    put everything in the test set; every third comparison is the test set instead (k = 0)."""
    from humeval.data import Comparisons
    from humeval.experiments.perplexity import hopkins_may_split
    n = 30
    a, b, outcome = np.arange(n) % 3, (np.arange(n) + 1) % 3, np.arange(n) % 3
    for item, items in ((None, ()), (np.arange(n), tuple(f"q{i}" for i in range(n)))):
        kwargs = {} if item is None else {"item": item, "items": items}
        c = Comparisons(a=a, b=b, outcome=outcome, systems=("x", "y", "z"), **kwargs)
        split = hopkins_may_split(c, min_test=5)["(no track)"]
        assert split.k == 0 and len(split.test) == 10 and len(split.train) == 20
        np.testing.assert_array_equal(split.test.a, a[2::3])


def test_report_on_an_arena_log_runs_and_says_how_it_split(tmp_path):
    """The README's battles file (every prompt judged once) through the whole report: no bug line,
    the perplexity table's caption says the test set is every third comparison."""
    import json

    from click.testing import CliRunner

    from humeval.cli import cli
    from humeval.simulate import write_arena_battles
    battles = tmp_path / "battles.json"
    write_arena_battles(battles, n_battles=1200)
    out = tmp_path / "r.json"
    result = CliRunner().invoke(cli, ["report", str(battles), "-o", str(out), "--model", "bt,davidson",
                                      "--bootstrap", "50", "--trials", "1", "--quiet"])
    assert result.exit_code == 0 and "bug" not in result.output, result.output
    report = json.loads(out.read_text())
    captions = [t["how"] for s in report["sections"] for t in s["tables"] if "perplexity" in t["title"]]
    assert any("every third comparison (no segment judged twice) instead" in c for c in captions)
