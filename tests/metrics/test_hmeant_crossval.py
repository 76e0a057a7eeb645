"""Supervised HMEANT weights out of sample (k-fold), beside relative-frequency weights (Lo & Wu 2012's
claim), on simulated annotations with known human scores (the real WMT13 data has no adequacy judgments)."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.metrics.hmeant import Weights, cross_validate, frame_statistics, write_json
from humeval.metrics.hmeant.crossval import COLUMNS, held_out_tau
from humeval.metrics.hmeant.weights import human_pairs
from humeval.simulate.hmeant import TYPES, simulate_hmeant

PROBS = np.array([0.35, 0.25, 0.05, 0.15, 0.12, 0.08])
FREQUENCY_LIKE = Weights(1.0, dict(zip(TYPES, PROBS * 3)), 0.5)  # humans weigh roles by how common they are
FAR = Weights(1.0, {"AGENT": 0.25, "PATIENT": 0.5, "MODAL": 3.0, "LOCATIVE": 0.0, "TEMPORAL": 2.0, "MANNER": 1.5}, 0.25)
SUPERVISED, FREQUENCY, UNIFORM, _ = COLUMNS


def test_held_out_tau_of_the_planted_weights_is_one():
    annotations, human = simulate_hmeant(FAR, n_items=40, type_probabilities=PROBS, noise=0.0, random_state=4)
    stats = frame_statistics(annotations)
    tau, pairs = held_out_tau(stats, FAR, human)
    assert tau == pytest.approx(1.0) and pairs == len(human_pairs(stats, human)[1]) > 0
    # scaling every weight together changes nothing (HMEANT is scale-free)
    doubled = Weights(2.0, {t: 2 * w for t, w in FAR.roles.items()}, FAR.partial)
    assert held_out_tau(stats, doubled, human)[0] == pytest.approx(1.0)


@pytest.fixture(scope="module")
def folds():
    out = {}
    for name, planted in (("frequency-like", FREQUENCY_LIKE), ("far", FAR)):
        annotations, human = simulate_hmeant(planted, n_items=150, type_probabilities=PROBS, noise=0.02,
                                             random_state=2)
        out[name] = cross_validate(annotations, human, k=3), human_pairs(frame_statistics(annotations), human)[1]
    return out


def test_folds_partition_the_items_and_pairs(folds):
    table, pairs = folds["far"]
    assert list(table.index) == [1, 2, 3, "mean"]
    assert table.loc["mean", "items"] == 150 == table.loc[[1, 2, 3], "items"].sum()
    assert table.loc["mean", "pairs"] == len(pairs)  # every human pair lies inside one fold
    per_fold = table.loc[[1, 2, 3]]
    expected = float((per_fold[SUPERVISED] * per_fold["pairs"]).sum() / per_fold["pairs"].sum())
    assert table.loc["mean", SUPERVISED] == pytest.approx(expected)


def test_unsupervised_is_as_good_when_humans_weigh_by_frequency(folds):
    mean = folds["frequency-like"][0].loc["mean"]
    assert abs(mean[SUPERVISED] - mean[FREQUENCY]) < 0.05
    assert mean[FREQUENCY] > mean[UNIFORM]


def test_supervised_wins_out_of_sample_when_humans_weigh_otherwise(folds):
    mean = folds["far"][0].loc["mean"]
    assert mean[SUPERVISED] > mean[FREQUENCY] + 0.1
    assert mean[SUPERVISED] > mean[UNIFORM] + 0.1


def test_fold_count_is_checked():
    annotations, human = simulate_hmeant(FAR, n_items=4, noise=0.0)
    with pytest.raises(ValueError, match="k must be between 2 and the number of items"):
        cross_validate(annotations, human, k=5)


def test_hmeant_command_cv(tmp_path):
    annotations, human = simulate_hmeant(FAR, n_items=60, type_probabilities=PROBS, noise=0.01, random_state=3)
    write_json(annotations, tmp_path / "sim.json")
    human.rename("score").reset_index().to_csv(tmp_path / "human.csv", index=False)
    result = CliRunner().invoke(cli, ["hmeant", str(tmp_path / "sim.json"), "--tune", str(tmp_path / "human.csv"),
                                      "--cv", "3", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["cross-validation"]
    assert [r["fold"] for r in rows] == [1, 2, 3, "mean"] and sum(r["items"] for r in rows[:3]) == 60
    shown = CliRunner().invoke(cli, ["hmeant", str(tmp_path / "sim.json"), "--tune", str(tmp_path / "human.csv"),
                                     "--cv", "3"])
    assert "3-fold cross-validation" in shown.output
    alone = CliRunner().invoke(cli, ["hmeant", str(tmp_path / "sim.json"), "--cv", "3"])
    assert alone.exit_code == 2 and "--cv does nothing without --tune FILE" in alone.output
    one = CliRunner().invoke(cli, ["hmeant", str(tmp_path / "sim.json"), "--tune", str(tmp_path / "human.csv"),
                                   "--cv", "1"])
    assert one.exit_code == 2 and "--cv" in one.output
