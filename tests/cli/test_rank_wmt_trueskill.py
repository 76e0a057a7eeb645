"""`rank --protocol wmt15-trueskill|wmt16-trueskill`: WMT15/16's TrueSkill procedure from the command line prints (and
writes) what ``humeval.experiments.wmt_trueskill`` computes, sorted by the number it shows."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.data.export import pairwise_frame, write
from humeval.experiments.wmt_trueskill import wmt_trueskill
from humeval.simulate import simulate_competition


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    sim = simulate_competition(n_systems=5, n_items=80, n_judges=4, n_judgments=400, design="pairs", random_state=6)
    path = tmp_path_factory.mktemp("wmtts") / "pairs.csv"
    write(pairwise_frame(sim.comparisons), path)
    return path, sim.comparisons


@pytest.mark.parametrize("year", ["2015", "2016"])
def test_the_command_prints_the_protocols_table(campaign, year):
    path, comparisons = campaign
    args = ["rank", str(path), "--protocol", f"wmt{year[2:]}-trueskill", "--bootstrap", "30", "--random-state", "5"]
    result = CliRunner().invoke(cli, args + ["--json"])
    assert result.exit_code == 0, result.output
    (rows,) = json.loads(result.output).values()
    expected = wmt_trueskill(comparisons, year=int(year), n=30, random_state=5).table()
    assert [r["system"] for r in rows] == list(expected.index)
    np.testing.assert_allclose([r["score"] for r in rows], expected["score"], rtol=0, atol=1e-9)  # --json: 10 decimals
    assert [r["cluster"] for r in rows] == expected["cluster"].tolist()
    scores = [r["score"] for r in rows]
    assert scores == sorted(scores, reverse=True)  # the printed number is the one the rows are sorted by
    shown = CliRunner().invoke(cli, args)
    text = " ".join(shown.output.split())  # the note wraps with the terminal's width
    assert shown.exit_code == 0 and f"WMT{year[2:]}'s TrueSkill procedure" in text
    assert "score = mean μ over the runs (what the rows are sorted by)" in text


def test_other_models_and_orders_are_refused(campaign):
    path = str(campaign[0])
    result = CliRunner().invoke(cli, ["rank", path, "--protocol", "wmt16-trueskill", "-m", "bt"])
    assert result.exit_code == 2 and "--model" in result.output
    result = CliRunner().invoke(cli, ["rank", path, "--protocol", "wmt16-trueskill", "--order", "data", "--bootstrap", "5"])
    assert result.exit_code == 2 and "--order" in result.output
    for args, option in ((["--l2", "2"], "--l2"), (["--chains", "2"], "--chains"), (["--rank-sets"], "--rank-sets"),
                         (["--robustness"], "--robustness"), (["--both-bad", "drop"], "--both-bad")):
        result = CliRunner().invoke(cli, ["rank", path, "--protocol", "wmt15-trueskill", "--bootstrap", "5", *args])
        assert result.exit_code == 2 and f"{option} does nothing with --protocol wmt15-trueskill" in result.output, \
            result.output
