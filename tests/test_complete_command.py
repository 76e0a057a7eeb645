"""The ``complete`` command on ratings whose truth is known: judge bias + column effect, no noise."""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humeval.cli import cli


def test_complete_command_recovers_an_additive_truth(tmp_path):
    rng = np.random.default_rng(0)
    judges, items = 20, 20  # columns: 20 items × systems S and T
    bias = rng.normal(0, 8, judges)
    effect = rng.normal(0, 10, (items, 2)) + [20, 0]  # system S is 20 points better on average
    truth = 50 + bias[:, None, None] + effect[None]  # judge × item × system
    seen = rng.random(truth.shape) < 0.7
    j, i, s = np.nonzero(seen)
    pd.DataFrame({"judge": [f"j{k:02d}" for k in j], "item": [f"i{k:02d}" for k in i], "system": np.array(["S", "T"])[s],
                  "score": truth[j, i, s]}).to_csv(tmp_path / "ratings.csv", index=False)
    result = CliRunner().invoke(cli, ["complete", str(tmp_path / "ratings.csv"), "--trials", "1",
                                      "--out", str(tmp_path / "completed.csv"), "--decisions", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    errors = pd.DataFrame(data["errors"]).set_index("method")
    # the cells rated, less the 10 % hidden for testing
    assert errors["observed share"].tolist() == pytest.approx([seen.mean() * 0.9] * 5, abs=0.02)
    # the global mean misses by the spread of the truth (about √(8² + 10² + 10²) = 16); bias + item recovers
    # the additive truth up to its shrinkage (one pseudo-rating per effect), soft-impute almost exactly
    assert errors.loc["global mean", "RMSE"] == pytest.approx(np.std(truth[seen]), rel=0.15)
    assert errors.loc["judge bias + item", "RMSE"] < 0.15 * errors.loc["global mean", "RMSE"]
    assert errors.loc["soft-impute", "RMSE"] < 0.5
    assert errors.index[-1] == "global mean"  # worst last
    completed = pd.read_csv(tmp_path / "completed.csv").set_index("judge")
    assert set(completed.pop("signature")) == {data["errors"][0]["signature"]}  # every --out table is signed
    assert completed.shape == (judges, 2 * items)
    expected = pd.DataFrame({f"i{k:02d} | {name}": truth[:, k, m] for k in range(items) for m, name in enumerate("ST")},
                            index=[f"j{k:02d}" for k in range(judges)])
    gap = (completed[expected.columns] - expected.to_numpy()).to_numpy()
    assert np.sqrt(np.mean(gap[~seen.reshape(judges, -1)] ** 2)) < 1.0  # unseen cells, against a spread of 16
    # the decision study: S better than T for the reference judges, and from the working judges' one
    # rating per (item, system) (all 40 columns), that plus completion, and all their ratings
    decisions = pd.DataFrame(data["decisions"]).set_index("condition")
    assert list(decisions.index) == ["one rating", "all ratings", "one rating + 5 shared + completion"]
    assert decisions["agreement"].tolist() == [1.0, 1.0, 1.0] and decisions["same direction"].tolist() == [1.0, 1.0, 1.0]
    assert decisions.loc["one rating", "ratings"] == 2 * items
    assert 2 * items < decisions.loc["one rating + 5 shared + completion", "ratings"] < decisions.loc["all ratings", "ratings"]
