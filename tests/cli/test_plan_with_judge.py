"""`humeval plan` on a pilot with human and automatic judges: how many human battles each budget still
needs with the judge, from PPI++'s precision (``experiments.ppi_plan.judge_worth``), checked against
``ppi``'s own "worth" on the pilot and against fresh simulated campaigns."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.experiments.ppi import ppi_bradley_terry
from humeval.experiments.ppi_plan import judge_worth
from humeval.simulate.judged import battles_frame, judged_battles


def test_worth_at_the_pilot_ratio_is_ppis_and_predicts_fresh_campaigns():
    _, h, j = judged_battles(n_human=300, n_judge=3000, random_state=0)
    table = judge_worth(h, j)
    fit = ppi_bradley_terry(h, j)["ppi"]
    assert table.attrs["pilot_ratio"] == pytest.approx(10.0)
    assert table.loc[10.0, "worth"] == pytest.approx(fit.extra["effective_n"] / fit.n, rel=1e-3)
    assert table.loc[10.0, "lambda"] == pytest.approx(fit.lam, abs=1e-3)
    assert table["worth"].is_monotonic_increasing  # more judge battles per human one: each human one worth more
    # fresh campaigns with one judge battle per human battle: the pilot's prediction within their spread
    fresh = []
    for seed in range(12):
        _, h2, j2 = judged_battles(n_human=600, n_judge=600, random_state=100 + seed)
        r = ppi_bradley_terry(h2, j2)["ppi"]
        fresh.append(r.extra["effective_n"] / r.n)
    assert abs(table.loc[1.0, "worth"] - np.mean(fresh)) < 2 * np.std(fresh) + 0.02


def test_plan_prints_the_human_battles_still_needed(tmp_path):
    _, h, j = judged_battles(n_human=300, n_judge=3000, random_state=0)
    path = tmp_path / "pilot.csv"
    battles_frame(h, j).to_csv(path, index=False)
    worth = judge_worth(h, j).loc[10.0, "worth"]
    result = CliRunner().invoke(cli, ["plan", str(path), "--budget", "500,1000", "--simulations", "3",
                                      "--no-clusters", "--json"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.output)
    rows = {r["budget"]: r for r in got["with_judge"]}
    assert rows[1000]["human battles with the judge"] == int(np.ceil(1000 / worth))
    assert rows[1000]["judge battles"] == int(np.ceil(np.ceil(1000 / worth) * 10))
    assert got["(no track)"]  # the plan itself ran on the human battles
    text = CliRunner().invoke(cli, ["plan", str(path), "--budget", "500", "--simulations", "2", "--no-clusters"]).output
    assert f"300 human battles with llm-judge are worth {worth * 300:,.0f} human battles alone" in " ".join(text.split())
    ratio = CliRunner().invoke(cli, ["plan", str(path), "--budget", "500", "--simulations", "2", "--no-clusters",
                                     "--judge-ratio", "1", "--json"])
    assert ratio.exit_code == 0, ratio.output
    assert json.loads(ratio.output)["with_judge"][0]["judge battles"] == json.loads(ratio.output)["with_judge"][0][
        "human battles with the judge"]


def test_judge_ratio_needs_both_kinds(tmp_path):
    _, h, _ = judged_battles(n_human=200, n_judge=10, random_state=0)
    systems = np.asarray(h.systems)
    path = tmp_path / "humans.csv"
    path.write_text("model_a,model_b,winner\n" + "\n".join(
        f"{systems[a]},{systems[b]},{'model_a' if o == 1 else 'model_b'}" for a, b, o in zip(h.a, h.b, h.outcome)))
    result = CliRunner().invoke(cli, ["plan", str(path), "--budget", "500", "--simulations", "2", "--no-clusters",
                                      "--judge-ratio", "3"])
    assert result.exit_code == 2 and "human and automatic judges" in result.output
