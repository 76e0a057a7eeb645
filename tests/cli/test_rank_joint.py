"""``rank PAIRS --joint RATINGS`` (and ``humeval.rank(..., joint=...)``): the joint model from the command line."""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import humeval
from humeval.cli import cli
from humeval.ranking import JointModel
from humeval.simulate.joint import simulate_two_protocols


@pytest.fixture
def campaign(tmp_path):
    sim = simulate_two_protocols(n_systems=5, n_comparisons=300, n_ratings=200, random_state=4)
    c, r = sim.comparisons, sim.ratings
    winner = np.array(["tie", "model_a", "model_b"])[c.outcome]
    pairs = pd.DataFrame({"model_a": np.array(c.systems)[c.a], "model_b": np.array(c.systems)[c.b],
                          "winner": winner})
    ratings = pd.DataFrame({"item": [f"r{i}" for i in range(len(r))], "system": np.array(r.systems)[r.system],
                            "judge": "j1", "score": r.score, "criterion": "DA"})
    pairs.to_csv(tmp_path / "pairs.csv", index=False)
    ratings.to_csv(tmp_path / "da.csv", index=False)
    return tmp_path / "pairs.csv", tmp_path / "da.csv", sim


def test_joint_prints_the_model_fit_in_python(campaign):
    pairs, da, sim = campaign
    result = CliRunner().invoke(cli, ["rank", str(pairs), "--joint", str(da), "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    track = next(k for k in shown if k not in ("(protocols)", "(heldout)", "(warnings)"))
    table = pd.DataFrame(shown[track]).set_index("system")
    expected = JointModel().fit(sim.comparisons, sim.ratings)
    for system, score in expected.scores_.items():  # the same numbers as the model fitted in Python
        assert table.loc[system, "score"] == pytest.approx(score, abs=1e-5)
    assert table["ratings"].sum() == 200
    protocol = shown["(protocols)"][track][0]
    assert protocol["protocol"] == "DA" and protocol["slope"] == pytest.approx(expected.protocol_.loc["DA", "slope"],
                                                                               rel=1e-4)
    assert {row["protocol"] for row in shown["(heldout)"][track]} == {"comparisons", "DA"}
    # 300 comparisons over 5 systems: about 120 per system, under the 200 report.evidence asks for, so the
    # ranking is said to be weak on stderr and in the JSON, and the fit converged (no such warning)
    warnings = shown["(warnings)"][track]
    assert len(warnings) == 1 and "fewer than 200 comparisons" in warnings[0], warnings
    assert "warning:" in result.stderr and "fewer than 200" in result.stderr


def test_joint_through_the_api(campaign):
    pairs, da, sim = campaign
    result = humeval.rank(str(pairs), joint=str(da))
    assert set(result.table.index) == set(sim.theta.index) and result.table["ratings"].sum() == 200


def test_joint_refuses_what_it_cannot_do(campaign, tmp_path):
    pairs, da, _ = campaign
    for extra, text in ((["--bootstrap", "10"], "--bootstrap"), (["--model", "bt"], "--model bt"),
                        (["--rank-sets"], "--rank-sets")):
        result = CliRunner().invoke(cli, ["rank", str(pairs), "--joint", str(da), *extra])
        assert result.exit_code == 2 and text in result.output, result.output
    result = CliRunner().invoke(cli, ["rank", str(da), "--joint", str(da)])  # FILE is the comparisons
    assert result.exit_code == 2 and "this file holds ratings" in result.output, result.output
    result = CliRunner().invoke(cli, ["rank", str(pairs), "--joint", str(da), "--protocol", "wmt16-trueskill"])
    assert result.exit_code == 2 and "--protocol" in result.output, result.output
    result = CliRunner().invoke(cli, ["rank", str(pairs), "--joint", str(pairs)])  # comparisons, not ratings
    assert result.exit_code != 0 and "holds no ratings" in result.output and "bug" not in result.output


def test_the_signature_hashes_the_ratings_file(campaign):
    """--joint's file decides the numbers, so the signature holds its content hash and a re-run
    with --signature refuses a changed file (as it refuses a changed FILE)."""
    pairs, da, _ = campaign
    first = CliRunner().invoke(cli, ["rank", str(pairs), "--joint", str(da)])
    assert first.exit_code == 0, first.output
    signature = first.output.split("signature: ")[1].strip()
    assert "|joint:sha256:" in signature and str(da) not in signature  # by content, never by path
    again = CliRunner().invoke(cli, ["rank", str(pairs), "--joint", str(da), "--signature", signature])
    assert again.exit_code == 0 and again.output.split("signature: ")[1].strip() == signature, again.output
    da.write_text(da.read_text() + "r9999,sys0,j1,50,DA\n")
    changed = CliRunner().invoke(cli, ["rank", str(pairs), "--joint", str(da), "--signature", signature])
    assert changed.exit_code != 0 and "the signature's --joint has content hash" in changed.output, changed.output
