"""`rank --order`: TrueSkill and Elo play the comparisons in the order asked (WMT14-16 ran
TrueSkill with Sakaguchi et al.'s active order)."""

import json

import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.data.export import pairwise_frame, write
from humeval.ranking import Elo, TrueSkill
from humeval.simulate import simulate_competition


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    sim = simulate_competition(n_systems=6, n_items=100, n_judges=5, n_judgments=600, design="pairs", random_state=3)
    path = tmp_path_factory.mktemp("order") / "pairs.csv"
    write(pairwise_frame(sim.comparisons), path)
    return path, sim.comparisons


@pytest.mark.parametrize("name, cls, order", [("trueskill", TrueSkill, "random"), ("trueskill", TrueSkill, "active"),
                                             ("elo", Elo, "random")])
def test_order_reaches_the_model(campaign, name, cls, order):
    path, comparisons = campaign
    result = CliRunner().invoke(cli, ["rank", str(path), "-m", name, "--order", order, "--random-state", "4", "--json"])
    assert result.exit_code == 0, result.output
    (rows,) = json.loads(result.output).values()
    expected = cls(order=order, random_state=4).fit(comparisons).scores_
    data_order = cls(random_state=4).fit(comparisons).scores_
    got = {row["system"]: row["score"] for row in rows}
    assert got == pytest.approx(expected.to_dict(), abs=1e-9)
    assert got != pytest.approx(data_order.to_dict(), abs=1e-6)  # the order matters, so the option did something


def test_order_is_refused_for_models_without_one(campaign):
    result = CliRunner().invoke(cli, ["rank", str(campaign[0]), "-m", "bt", "--order", "active"])
    assert result.exit_code == 2 and "--order" in result.output and "trueskill and elo" in result.output
    result = CliRunner().invoke(cli, ["rank", str(campaign[0]), "-m", "elo", "--order", "active"])
    assert result.exit_code == 2 and "elo plays data or random order; active sampling is TrueSkill's" in result.output
