"""`humeval plan --target-width/--target-top` with an automatic judge: the fewest human judgments that
reach a target, found by simulated PPI++ campaigns (``experiments.ppi_plan.human_budget``), checked
by fresh campaigns of the judged-campaign simulators (biased judges the plan's simulator does not
model) at the planned budget, for battles and for ratings means."""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy.stats import norm

from humeval.cli import cli
from humeval.experiments.ppi import ppi_bradley_terry, system_means
from humeval.experiments.ppi_plan import battles_pilot, human_budget, ratings_pilot, simulate_budget
from humeval.simulate.judged import battles_frame, judged_battles, judged_ratings
from conftest import shared_file

Z = 2 * norm.ppf(0.975)


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_planned_battles_reach_the_target_width_in_fresh_campaigns():
    _, h, j = judged_battles(n_human=300, n_judge=3000, random_state=0)
    pilot = battles_pilot(h, j)
    assert pilot.ratio == pytest.approx(10.0) and 0.75 < pilot.agreement < 0.9
    # the pilot's own campaign size: the simulated width is the pilot's PPI++ width (within 10 %)
    fit = ppi_bradley_terry(h, j)["ppi"]
    assert simulate_budget(pilot, 300, 40, 0)["width"] == pytest.approx(Z * fit.se.mean(), rel=0.1)
    table = human_budget(pilot, target_width=0.4, simulations=60, random_state=0)
    n = table.attrs["answer"]
    assert table.loc[n, "width"] <= 0.4
    smaller = table[table.index < n / 1.2]
    assert (smaller["width"] > 0.4).all()  # no budget a fifth smaller reaches it
    # 1/√n scaling from the pilot's width: the same order (the simulation draws the truth around it)
    assert n == pytest.approx(300 * (Z * fit.se.mean() / 0.4) ** 2, rel=0.25)
    fresh = [Z * ppi_bradley_terry(*judged_battles(n_human=n, n_judge=10 * n, random_state=100 + s)[1:])["ppi"]
             .se.mean() for s in range(12)]
    assert np.median(fresh) == pytest.approx(0.4, rel=0.07)


def test_planned_ratings_reach_the_target_width_in_fresh_campaigns():
    _, hr, jr = judged_ratings(random_state=0)
    pilot = ratings_pilot(hr, jr)
    table = human_budget(pilot, target_width=3.0, simulations=60, random_state=0)
    n = table.attrs["answer"]
    assert table.loc[n, "width"] <= 3.0 and table.loc[n, "human-only width"] > 3.0
    fresh = []
    for s in range(12):  # human units ≈ n: n_items · 5 systems · 15 %
        _, h, j = judged_ratings(n_items=int(round(n / (5 * 0.15))), random_state=200 + s)
        fresh.append(system_means(h, j).width_ppi.mean())
    assert np.median(fresh) == pytest.approx(3.0, rel=0.1)


def test_plan_cli_target_width_and_top(tmp_path):
    _, h, j = judged_battles(n_human=300, n_judge=3000, random_state=0)
    path = tmp_path / "pilot.csv"
    battles_frame(h, j).to_csv(path, index=False)
    result = run("plan", path, "--target-width", "0.6", "--target-top", "0.9", "--simulations", "20", "--json")
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    want = human_budget(battles_pilot(h, j), 0.6, 0.9, simulations=20, random_state=0).attrs["answer"]
    assert got["answer"] == want and got["judge_per_human"] == pytest.approx(10.0)
    text = run("plan", path, "--target-width", "0.6", "--simulations", "20").output
    assert "human battles with llm-judge" in " ".join(text.split())
    # a human-only pilot with the judge described by numbers; a weaker judge needs more humans
    humans = tmp_path / "humans.csv"
    frame = battles_frame(h, j)
    frame[frame.judge_kind == "human"].drop(columns="judge_kind").to_csv(humans, index=False)
    strong, weak = (json.loads(run("plan", humans, "--target-width", "0.6", "--agreement", a, "--judge-ratio", "10",
                                   "--simulations", "20", "--json").stdout)["answer"] for a in ("0.95", "0.6"))
    assert strong < weak
    missing = run("plan", humans, "--target-width", "0.6", "--simulations", "5")
    assert missing.exit_code == 2 and "--agreement and --judge-ratio" in missing.output
    useless = run("plan", humans, "--target-width", "0.6", "--agreement", "0.4", "--judge-ratio", "3")
    assert useless.exit_code == 2 and "no information" in useless.output
    assert run("plan", path, "--agreement", "0.8").exit_code == 2  # only with a target


def test_plan_with_wmt10_crowd_as_the_judge():
    experts = shared_file("wmt10-rankings/wmt10/data_RNK.csv")
    crowd = shared_file("wmt10-rankings/wmt10/data_RNK-public.csv")
    result = run("plan", experts, "--judge-file", crowd, "--track", "Spanish-English", "--target-width", "0.5",
                 "--simulations", "20", "--json")
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    assert 0.7 < got["agreement"] < 0.8  # on the 2,500-odd battles both decided
    rows = {r["human"]: r for r in got["simulated"]}
    unbounded = lambda width: float("inf") if width is None else width  # JSON's null: no finite interval
    assert rows[got["answer"]]["width"] <= 0.5 < min(unbounded(r["width"]) for n, r in rows.items()
                                                     if n < got["answer"] / 1.2)
    # at 50 human battles most simulated campaigns leave a system unbeaten by the humans: their width
    # has no finite value (JSON null; it used to be a median over fits that had wandered to abilities
    # of 1e10), while PPI++, with the judge's battles, mostly has one; the top is rarely found
    assert rows[50]["human-only width"] is None and 2 < rows[50]["width"] < 5
    assert rows[50]["P(top identified)"] < 0.5
    assert 1.0 < got["calibration"] < 1.25  # the uniform-tie simulator is a little optimistic on WMT10 (1.12)
    # the pilot's own PPI++ width (3,005 expert battles the crowd also ranked; mean 95 % width 0.377)
    # as the target: the plan gives back about the pilot's size
    pilot = json.loads(run("ppi", experts, "--judge-file", crowd, "--track", "Spanish-English", "--json").stdout)
    width = np.mean([r["ppi_hi"] - r["ppi_lo"] for r in pilot["systems"]])
    assert width == pytest.approx(0.377, abs=0.001)
    again = json.loads(run("plan", experts, "--judge-file", crowd, "--track", "Spanish-English", "--target-width",
                           f"{width:.4f}", "--simulations", "20", "--json").stdout)
    assert again["answer"] == pytest.approx(3005, rel=0.1)


def test_plan_cli_on_a_ratings_file_with_judge_kind(tmp_path):
    _, hr, jr = judged_ratings(random_state=0)
    frame = pd.concat([hr.rename("score").reset_index().assign(judge_kind="human"),
                       jr.rename("score").reset_index().assign(judge_kind="metric")])
    frame.to_csv(tmp_path / "ratings.csv", index=False)
    result = run("plan", tmp_path / "ratings.csv", "--target-width", "3", "--simulations", "20", "--json")
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    assert got["kind"] == "ratings"
    assert got["answer"] == human_budget(ratings_pilot(hr, jr), 3.0, simulations=20, random_state=0).attrs["answer"]
    text = " ".join(run("plan", tmp_path / "ratings.csv", "--target-width", "3", "--simulations", "20").output.split())
    assert "human rated units with metric" in text and "system means" in text


def test_plan_options_a_target_search_would_ignore_are_refused(tmp_path):
    _, h, j = judged_battles(n_human=100, n_judge=300, random_state=0)
    path = tmp_path / "pilot.csv"
    battles_frame(h, j).to_csv(path, index=False)
    for option in (["--budget", "500"], ["--plot", tmp_path / "p.png"], ["--model", "davidson"]):
        result = run("plan", path, "--target-width", "0.5", *option)
        assert result.exit_code == 2 and "nothing with --target-width/--target-top" in result.output
