"""Grid search of hyperparameters on development tracks by held-out perplexity."""

import numpy as np
import pytest

from humeval.data import Comparisons
from humeval.experiments import hopkins_may_split, perplexity, tune
from humeval.experiments.tuning import select_tracks
from humeval.ranking import BradleyTerry, IndependentPairs


def two_tracks(train_a_wins, test_a_wins):
    """Track "dev": A vs B, 30 training comparisons on 10 segments judged 3 times each, A winning
    ``train_a_wins``, and 20 test comparisons on segments judged once, A winning ``test_a_wins``
    (Hopkins & May's split with min_test=20 puts exactly those in the test set). Track "other"
    repeats it with the opposite test result."""
    rows = []
    for track, test_wins in ((0, test_a_wins), (1, 20 - test_a_wins)):
        for i in range(30):
            rows.append((1 if i < train_a_wins else 2, i // 3, track))
        for i in range(20):
            rows.append((1 if i < test_wins else 2, 100 + i, track))
    outcome, item, track = map(np.array, zip(*rows))
    return Comparisons(a=np.zeros(len(rows), int), b=np.ones(len(rows), int), outcome=outcome, item=item,
                       track=track, systems=("A", "B"), items=tuple(map(str, range(120))), tracks=("dev", "other"))


def test_chosen_l2_has_the_lowest_dev_perplexity_by_construction():
    # training says A wins 27 of 30; the dev test set says 10 of 20: the strongest prior (scores
    # pulled together, P(A) toward ½) predicts it best, so λ = 100 is chosen
    c = two_tracks(27, 10)
    result = tune(BradleyTerry(), c, {"l2": [0.01, 1.0, 100.0]}, tracks=["dev"], min_test=20)
    assert result.best == {"l2": 100.0} and result.model.l2 == 100.0
    # the table's numbers are the perplexities computed directly on the split
    split = hopkins_may_split(select_tracks(c, ["dev"]), min_test=20)["dev"]
    assert len(split.test) == 20 and split.k == 1
    direct = [perplexity(BradleyTerry(l2=v).fit(split.train), split.test) for v in (0.01, 1.0, 100.0)]
    np.testing.assert_allclose(result.table["mean perplexity"], direct, rtol=1e-12)
    assert direct[0] > direct[1] > direct[2] > 1.99  # 2 = a fair coin's
    # when the dev test agrees with training (A wins 18 of 20 ≈ 27 of 30), the weakest prior wins
    agree = tune(BradleyTerry(), two_tracks(27, 18), {"l2": [0.01, 1.0, 100.0]}, tracks=["dev"], min_test=20)
    assert agree.best == {"l2": 0.01}
    # on both tracks the dev signals cancel in the mean; the table has a column per track
    both = tune(BradleyTerry(), c, {"l2": [0.01, 100.0]}, min_test=20)
    assert {"perplexity dev", "perplexity other"} <= set(both.table.columns)


def test_grid_of_two_parameters_and_errors():
    c = two_tracks(27, 10)
    result = tune(IndependentPairs(), c, {"alpha": [0.5, 50.0]}, tracks=["dev"], min_test=20)
    assert result.table["alpha"].tolist() == [0.5, 50.0] and result.best == {"alpha": 50.0}
    with pytest.raises(ValueError, match="has no parameter 'sigma'"):
        tune(BradleyTerry(), c, {"sigma": [1]}, min_test=20)
    with pytest.raises(ValueError, match="unknown tracks"):
        tune(BradleyTerry(), c, {"l2": [1]}, tracks=["nope"], min_test=20)
    with pytest.raises(ValueError, match="empty grid"):
        tune(BradleyTerry(), c, {}, min_test=20)


def test_compare_models_tune_on(tmp_path):
    import json

    from click.testing import CliRunner

    from humeval.cli import cli
    c = two_tracks(27, 10)
    rows = ["system_a,system_b,outcome,item,track"] + [f"A,B,{o},s{i},{c.tracks[t]}"
                                                        for o, i, t in zip(c.outcome, c.item, c.track)]
    path = tmp_path / "pairs.csv"
    path.write_text("\n".join(rows) + "\n")
    args = ["compare-models", str(path), "-m", "bt", "--tune-on", "dev", "--grid", "l2=0.01,1,100", "--min-test", "20",
            "--sizes", "30", "--trials", "1"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "chosen: l2=100" in result.output and "bt (l2=100)" in result.output
    assert "test sets: other 20" in result.output
    as_json = json.loads(CliRunner().invoke(cli, args + ["--json"]).output)
    assert as_json["tuning"]["chosen"] == {"l2": 100.0} and len(as_json["tuning"]["grid"]) == 3
    assert as_json["tracks"] == ["other"]
    every = CliRunner().invoke(cli, args[:5] + ["dev,other"] + args[6:])
    assert every.exit_code == 2 and "none is left to evaluate on" in every.output
    two = CliRunner().invoke(cli, args[:2] + ["-m", "bt,davidson"] + args[4:])
    assert two.exit_code == 2 and "one model at a time" in two.output
