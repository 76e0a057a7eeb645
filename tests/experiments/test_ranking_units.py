"""Training subsets of whole rankings (``training_subset``, ``compare-models --sample``) and the
bootstrap's label of what it resampled (``BootstrapResult.resampled``, a model's ``bootstrap_unit``)."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.data import Comparisons
from humeval.data.export import pairwise_frame, write
from humeval.experiments import bootstrap, track_curves
from humeval.experiments.perplexity import hopkins_may_split, training_subset
from humeval.ranking import BradleyTerry, PlackettLuce
from humeval.simulate import simulate_competition


@pytest.fixture(scope="module")
def rankings():
    """400 simulated 4-way rankings of 6 systems (2,400 comparisons, 6 per ranking)."""
    return simulate_competition(n_systems=6, n_items=150, n_judgments=400, design="rankings", k=4,
                                random_state=3).comparisons


def groups_table(sizes, alone):
    """Comparisons in groups of the given sizes, then ``alone`` comparisons with group −1."""
    group = np.concatenate([np.full(s, g) for g, s in enumerate(sizes)] + [np.full(alone, -1)]).astype(int)
    n = len(group)
    return Comparisons(a=np.zeros(n), b=np.ones(n), outcome=np.arange(n) % 3, group=group, systems=("A", "B"))


def test_the_default_unit_keeps_the_published_draws(rankings):
    # perplexities of main before the unit existed (same fixture, seeds and sizes)
    before = [2.089163010083942, 2.049855390335216, 2.0130536089783906, 1.9798903339791505, 1.8824667762221554,
              1.8243736343751336, 1.866776967877389, 1.8226205273615261]
    for unit in ({}, {"unit": "comparison"}):
        curve = track_curves(rankings, [BradleyTerry(), PlackettLuce()], sizes=(50, 300), trials=2, random_state=7,
                             min_test=600, **unit)
        # the same subsets give the same fits; only floating-point summation order differs across numpy/BLAS
        # versions (last-bit differences, seen between numpy 2.3 and 2.4), so compare to 1e-9 relative, far
        # below the 1e-3 a different subset or seed moves these perplexities
        np.testing.assert_allclose(curve["perplexity"].to_numpy(), before, rtol=1e-9, atol=0)
    train = hopkins_may_split(rankings, 600)["simulated"].train
    expected = np.sort(np.random.default_rng(5).choice(len(train), size=50, replace=False))
    assert np.array_equal(training_subset(train, 50, "comparison", 5), expected)


def test_ranking_subsets_by_hand():
    table = groups_table([6] * 5, 0)  # five 4-way rankings of 6 pairs each
    for seed in range(5):
        # 13 comparisons need three whole rankings (18 rows); 12 exactly two
        assert len(training_subset(table, 13, "ranking", seed)) == 18
        assert len(training_subset(table, 12, "ranking", seed)) == 12
        assert len(training_subset(table, 1, "ranking", seed)) == 6
    for unit in ("comparison", "ranking"):  # at or above the table's size: every row
        assert np.array_equal(training_subset(table, 30, unit, 0), np.arange(30))
        assert np.array_equal(training_subset(table, 10 ** 9, unit, 0), np.arange(30))


def test_ranking_subsets_are_whole_minimal_and_uniform():
    sizes = [1, 3, 6, 10, 6, 3]
    table = groups_table(sizes, 4)  # plus 4 comparisons standing alone: 10 units
    group = table.group
    for seed in range(200):
        size = 1 + seed % 25
        rows = training_subset(table, size, "ranking", seed)
        assert np.array_equal(rows, np.sort(rows))
        taken = np.zeros(len(table), dtype=bool)
        taken[rows] = True
        for g in range(len(sizes)):  # a ranking is all in or all out
            assert taken[group == g].all() or not taken[group == g].any()
        # at least the size, and less than the size plus the largest unit taken (the last one drawn)
        largest = max([sizes[g] for g in set(group[rows].tolist()) if g >= 0] + [1])
        assert size <= len(rows) < size + largest
    # size 1 takes exactly the first unit of a random order: each of the 10 units with probability 1/10
    counts = np.zeros(10)
    for seed in range(3000):
        rows = training_subset(table, 1, "ranking", seed)
        g = group[rows[0]]
        counts[g if g >= 0 else len(sizes) + rows[0] - sum(sizes)] += 1
    chi2 = ((counts - 300) ** 2 / 300).sum()
    assert chi2 < 27.9  # the 0.999 quantile of chi-square with 9 degrees of freedom


def test_plackett_luce_sees_whole_rankings_only_when_sampled_by_ranking(rankings):
    train = hopkins_may_split(rankings, 600)["simulated"].train
    whole = PlackettLuce().fit(train.take(training_subset(train, 300, "ranking", 1)))
    assert whole.pairs_alone_ == 0 and whole.rankings_ == {4: 50}
    pairs = PlackettLuce().fit(train.take(training_subset(train, 300, "comparison", 1)))
    # 300 of 1,794 comparisons: no ranking keeps its six pairs, almost all fall apart into rankings of two
    assert 4 not in pairs.rankings_ and pairs.rankings_[2] >= 280 and pairs.pairs_alone_ > 100


def test_ranking_curves_keep_the_test_split_and_report_the_sizes(rankings):
    curve = track_curves(rankings, [BradleyTerry()], sizes=(50, 300), trials=2, random_state=7, min_test=600,
                         unit="ranking")
    assert (curve["test"] == 606).all()  # Hopkins & May's split, as with single comparisons
    assert (curve["train"] == 6 * np.ceil(curve["size"] / 6)).all()  # whole 6-pair rankings: 54 and 300
    with pytest.raises(ValueError, match="unit must be one of"):
        track_curves(rankings, [BradleyTerry()], sizes=(50,), trials=1, unit="segment")


def test_bootstrap_says_what_it_resampled(rankings):
    pl, bt = PlackettLuce(), BradleyTerry()
    assert PlackettLuce.bootstrap_unit == "ranking" and BradleyTerry.bootstrap_unit is None
    assert bootstrap(pl, rankings, n=3, random_state=0).resampled == "ranking"  # by="comparison"
    assert bootstrap(pl, rankings, n=3, by="segment", random_state=0).resampled == "segment"
    assert bootstrap(bt, rankings, n=3, random_state=0).resampled == "comparison"
    assert bootstrap(bt, rankings, n=3, by="judge", random_state=0).resampled == "judge"


@pytest.fixture(scope="module")
def ranking_file(rankings, tmp_path_factory):
    return write(pairwise_frame(rankings), tmp_path_factory.mktemp("units") / "rankings.csv")


def test_cli_compare_models_samples_rankings_and_says_so(ranking_file, rankings):
    args = ["compare-models", str(ranking_file), "-m", "bt,plackett-luce", "--min-test", "600", "--sizes", "50,300",
            "--trials", "2"]
    shown = CliRunner().invoke(cli, args + ["--sample", "ranking"], terminal_width=200)
    assert shown.exit_code == 0, shown.output
    assert "training subsets: whole rankings until they hold the size; mean comparisons 50: 54, 300: 300" \
        in shown.output
    default = CliRunner().invoke(cli, args, terminal_width=200)
    assert "training subsets: random comparisons" in default.output
    as_json = json.loads(CliRunner().invoke(cli, args + ["--sample", "ranking", "--json"]).output)
    assert as_json["sample"] == "ranking"
    # the library's numbers: the curve of whole-ranking subsets, seed 0
    curve = track_curves(rankings, [BradleyTerry(), PlackettLuce()], sizes=(50, 300), trials=2, random_state=0,
                         min_test=600, unit="ranking")
    means = curve.groupby(["model", "size"])["perplexity"].mean()
    for row in as_json["mean_perplexity"]:
        name = {"bt": "BradleyTerry", "plackett-luce": "PlackettLuce"}[row["model"]]
        assert [row["50"], row["300"]] == pytest.approx([means[name, 50], means[name, 300]], abs=1e-9)


def test_cli_compare_models_refuses_rankings_from_pairs(tmp_path):
    pairs = simulate_competition(n_systems=4, n_items=40, n_judgments=300, random_state=1).comparisons
    assert (pairs.group < 0).all()
    path = write(pairwise_frame(pairs), tmp_path / "pairs.csv")
    result = CliRunner().invoke(cli, ["compare-models", str(path), "-m", "bt", "--sample", "ranking",
                                      "--min-test", "100", "--sizes", "50", "--trials", "1"])
    assert result.exit_code != 0 and "no comparison here belongs to one" in result.output
    assert "--sample comparison" in result.output and "Traceback" not in result.output


def test_cli_rank_bootstrap_note_names_the_unit(ranking_file):
    args = ["rank", str(ranking_file), "--bootstrap", "5"]
    pl = CliRunner().invoke(cli, args + ["-m", "plackett-luce"], terminal_width=200)
    assert pl.exit_code == 0, pl.output
    assert ("5 resamples of rankings (plackett-luce is fitted on whole rankings, so --resample comparison resamples "
            "them whole)") in pl.output
    bt = CliRunner().invoke(cli, args + ["-m", "bt"], terminal_width=200)
    assert "5 resamples of comparisons;" in bt.output
