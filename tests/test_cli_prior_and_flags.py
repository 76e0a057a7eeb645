"""The model options and messages of the CLI: --l2/--prior on every command that fits models,
flags for systems that never lost or were never compared, errors that survive --jobs."""

import json

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import two_groups_comparisons

from humeval.cli import cli
from humeval.data.export import pairwise_frame, write


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def two_group_file(path, n=2600, seed=0):
    """A simulated campaign of two groups never compared with each other: A, B, C and D, E, F;
    one comparison per segment mostly, so Hopkins & May's test split takes 2,000 and leaves 600."""
    write(pairwise_frame(two_groups_comparisons(n, seed, items=2 * n)), path)
    return path


@pytest.fixture(scope="module")
def two_groups(tmp_path_factory):
    return two_group_file(tmp_path_factory.mktemp("two") / "two.csv")


@pytest.mark.parametrize("command", ["rank", "compare-models", "report", "plan", "demo", "active-study"])
def test_every_model_fitting_command_takes_the_prior(command):
    result = run(command, "--help")
    assert result.exit_code == 0 and "--l2, --prior" in result.output


def test_a_negative_prior_is_refused(two_groups):
    result = run("rank", two_groups, "-m", "bt", "--l2", -1)
    assert result.exit_code == 2 and "--l2" in result.output and "-1" in result.output


def test_rank_flags_a_system_that_never_lost(tmp_path):
    path = tmp_path / "p.csv"
    rows = ["A,B,model_a"] * 5 + ["A,C,model_a"] * 5 + ["B,C,model_a", "C,B,model_a", "B,C,model_b"]
    path.write_text("model_a,model_b,winner\n" + "\n".join(rows) + "\n")
    result = run("rank", path, "-m", "bt")
    assert result.exit_code == 0, result.output
    assert "never lost" in result.output and "rest on the prior" in result.output
    data = json.loads(run("rank", path, "-m", "bt", "--json").output)
    (rows,) = data.values()
    first = rows[0]
    assert first["system"] == "A" and first["note"] == "never lost"
    assert first["std"] > max(row["std"] for row in rows[1:])  # the likelihood is flat where A sits
    (weak,) = json.loads(run("rank", path, "-m", "bt", "--l2", 0.01, "--json").output).values()
    assert weak[0]["std"] > 1.5 > first["std"]  # the weaker the prior, the wider
    assert run("rank", path, "-m", "bt", "--l2", 0).exit_code == 2


def test_rank_names_the_components_with_every_model(two_groups):
    result = run("rank", two_groups, "-m", "bt,irt-gaussian,trueskill,elo,expected-wins,feedback-arc")
    assert result.exit_code == 0, result.output
    assert "2 groups never compared with each other ({A, B, C}; {D, E, F})" in result.output
    (rows,) = json.loads(run("rank", two_groups, "-m", "bt,elo", "--json").output).values()
    assert {r["system"]: r["component"] for r in rows} == {"A": 1, "B": 1, "C": 1, "D": 2, "E": 2, "F": 2}
    boot = run("rank", two_groups, "-m", "bt", "--bootstrap", 50, "--json")
    (rows,) = json.loads(boot.output).values()
    assert {r["system"]: r["component"] for r in rows}["E"] == 2


def test_compare_models_with_default_settings_on_a_disconnected_campaign(two_groups):
    result = run("compare-models", two_groups, "--json")
    assert result.exit_code == 0, result.output
    table = {r["model"]: r for r in json.loads(result.output)["mean_perplexity"]}
    assert set(table) >= {"bt", "davidson", "rao-kupper", "irt-gaussian", "trueskill", "crowd-bt"}
    assert table["uniform"]["100"] == pytest.approx(3.0)
    assert all(np.isfinite(row["3200"]) and row["3200"] < 3.0 for name, row in table.items() if name != "uniform")


def test_a_failure_in_a_worker_process_arrives_whole(two_groups):
    # maximum likelihood (--l2 0) refuses the disconnected training subsets, in a pool of two processes
    result = run("compare-models", two_groups, "-m", "bt,davidson", "--sizes", "100,200", "--trials", 2, "--l2", 0,
                 "--jobs", 2)
    assert result.exit_code == 2
    assert "falls into 2 parts that never beat each other both ways ({A, B, C}; {D, E, F})" in result.output
    assert "leave out --l2 0" in result.output and "bug in humeval" not in result.output


def test_plan_runs_on_a_disconnected_pilot(two_groups):
    result = run("plan", two_groups, "--budget", "300", "--simulations", 3, "--no-clusters", "--json")
    assert result.exit_code == 0, result.output
    (rows,) = json.loads(result.output).values()
    assert rows[0]["comparisons"] == 300 and -1 <= rows[0]["spearman"] <= 1


def test_report_with_a_model_without_quick_bootstrap(tmp_path):
    # irt-gaussian has no quick bootstrap: the report ranks with bt and says so (it crashed before)
    path = two_group_file(tmp_path / "small.csv", n=500)
    out = tmp_path / "r.json"
    result = run("report", path, "-o", out, "--model", "irt-gaussian", "--bootstrap", 20, "--trials", 1, "--quiet")
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert any("none of the compared models has a quick bootstrap" in line and "uses bt" in line
               for line in report["summary"])
