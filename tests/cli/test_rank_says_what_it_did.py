"""`rank` prints only what holds: --cluster-by without labels refused, the clusters counted (and few
of them flagged); the reader's skips printed; --both-bad loss scores averaging the stated mean
over the shown systems; boards with style control saying so, with the coefficient table and
integer counts; weight errors in file order; "1 comparison", not "1 comparisons"."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from conftest import FIXTURES
from humeval.cli import cli
from humeval.cli.common import plural
from humeval.experiments.bootstrap import BootstrapResult
from humeval.ranking.boards import ANCHOR, centre, drop_system

BATTLES = str(FIXTURES / "arena_battles.json")


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert "this is a bug" not in result.output, result.output
    return result


def battles(tmp_path, rows, name="b.csv", header="model_a,model_b,winner"):
    path = tmp_path / name
    path.write_text("\n".join([header, *rows]) + "\n")
    return path


CYCLE = ["A,B,model_a", "B,C,model_a", "C,A,model_a", "A,B,model_b", "B,C,tie", "A,C,model_a"]


def test_cluster_judge_without_a_judge_column_is_an_error(tmp_path):
    path = battles(tmp_path, CYCLE, "nojudge.csv")
    result = run("rank", path, "-m", "bt", "--intervals", "sandwich", "--cluster-by", "judge")
    assert result.exit_code == 2
    line = result.output.strip().splitlines()[-1]
    assert line.startswith("error:") and "nojudge.csv" in line and "no judge column" in line
    assert "drop --cluster-by for the comparison-level sandwich" in line


def test_cluster_category_without_category_is_an_error(tmp_path):
    path = battles(tmp_path, [r + ",x" for r in CYCLE], header="model_a,model_b,winner,category")
    result = run("rank", path, "-m", "bt", "--intervals", "sandwich", "--cluster-by", "category")
    assert result.exit_code == 2 and "give --category COLUMN" in result.output
    named = run("rank", path, "-m", "bt", "--intervals", "sandwich", "--cluster-by", "category",
                "--category", "category")
    assert named.exit_code == 0, named.output
    assert ("1 cluster by category; a cluster-robust covariance from so few clusters (G = 1, fewer than 10) is "
            "unreliable") in named.output


def test_partial_judge_column_counts_its_clusters(tmp_path):
    # judges u1 (2 rows), u2 (2 rows), and 2 rows without a judge: G = 2 + 2 = 4 clusters
    judged = [f"{r},{j}" for r, j in zip(CYCLE, ["u1", "u1", "u2", "u2", "", ""])]
    path = battles(tmp_path, judged, header="model_a,model_b,winner,judge")
    result = run("rank", path, "-m", "bt", "--intervals", "sandwich", "--cluster-by", "judge")
    assert result.exit_code == 0, result.output
    assert ("4 clusters by judge (2 comparisons without a judge, each a cluster of its own); a cluster-robust "
            "covariance from so few clusters (G = 4, fewer than 10) is unreliable") in result.output
    assert "clustered by judge" in result.output
    boards = run("rank", path, "-m", "bt", "--intervals", "sandwich", "--cluster-by", "judge", "--board-by", "judge")
    assert boards.exit_code == 0, boards.output
    assert "overall board: 4 clusters by judge (2 comparisons without a judge" in boards.output


def test_plain_rank_prints_the_readers_skips(tmp_path):
    path = battles(tmp_path, ["A,A,model_a", *CYCLE])
    said = "skipped 1 row comparing a system with itself (e.g. line 2)"
    result = run("rank", path, "-m", "bt")
    assert result.exit_code == 0 and said in result.output
    info = run("info", path)
    assert said in info.output  # the same line as info prints
    boards = run("rank", path, "-m", "bt", "--board-by", "judge")
    assert said in boards.output
    assert said not in run("rank", path, "-m", "bt", "--quiet").output
    as_json = run("rank", path, "-m", "bt", "--json")
    assert said not in as_json.stdout and json.loads(as_json.stdout)


def test_both_bad_loss_scores_average_zero_over_the_systems(tmp_path):
    rows = CYCLE + ["A,B,tie (bothbad)", "B,C,tie (bothbad)", "C,A,tie (bothbad)", "A,C,tie (bothbad)"]
    path = battles(tmp_path, rows)
    for extra in ([], ["--intervals", "fisher"], ["--bootstrap", "40"]):
        result = run("rank", path, "-m", "bt", "--both-bad", "loss", "--json", *extra)
        assert result.exit_code == 0, result.output
        (table,) = json.loads(result.stdout).values()
        shown = pd.DataFrame(table).set_index("system")
        assert ANCHOR not in shown.index and len(shown) == 3
        assert shown["score"].mean() == pytest.approx(0, abs=1e-9), extra
        if "lower" in shown:
            assert (shown["lower"] <= shown["score"] + 1e-9).all() and (shown["score"] <= shown["upper"] + 1e-9).all()
    text = run("rank", path, "-m", "bt", "--both-bad", "loss").output
    assert "scores: log-odds, mean 0" in text and "scores centred on the systems (mean 0 over them)" in text


def test_drop_system_recentres_every_resample():
    # two resamples of (A, B, anchor), each mean 0 over all three; without the anchor, mean 0 over A and B
    samples = np.array([[1.0, -3.0, 2.0], [0.5, -1.5, 1.0]])
    result = BootstrapResult(("A", "B", ANCHOR), pd.Series([1.0, -2.0, 1.0], index=["A", "B", ANCHOR]), samples,
                             "comparison", 0.95, "log-odds, mean 0")
    dropped = drop_system(result, ANCHOR)
    np.testing.assert_allclose(dropped.samples, [[2.0, -2.0], [1.0, -1.0]])  # by hand: minus (1 − 3)/2 and −1/2
    np.testing.assert_allclose(dropped.estimate.to_numpy(), [1.5, -1.5])
    elo = drop_system(BootstrapResult(result.systems, result.estimate + 1000, samples + 1000, "comparison", 0.95,
                                      "Elo points (400/ln 10 per logit), mean 1000"), ANCHOR)
    np.testing.assert_allclose(elo.samples, [[1002.0, 998.0], [1001.0, 999.0]])
    kept = drop_system(BootstrapResult(result.systems, result.estimate, samples, "comparison", 0.95,
                                       "log-odds, A = 0"), ANCHOR)  # an anchored scale: no shift
    np.testing.assert_allclose(kept.samples, samples[:, :2])
    assert centre("TrueSkill μ (prior μ = 25, σ = 8.33; β = 4.17)") is None


def test_boards_with_style_control_say_so_and_count_in_integers(tmp_path):
    out = tmp_path / "boards.csv"
    result = run("rank", BATTLES, "-m", "bt", "--board-by", "language", "--style-control", "--out", out)
    assert result.exit_code == 0, result.output
    assert "scores: log-odds, mean 0, covariates held at zero" in result.output
    assert "board (overall): covariate coefficients" in result.output and "coef length" in result.output
    written = out.read_text()
    table = pd.read_csv(out)
    assert table["comparisons"].dtype.kind == "i"
    overall = table[table.board == "(overall)"].set_index("system")["comparisons"]
    assert overall.to_dict() == {"gpt": 5, "llama": 5, "claude": 6}  # 8 battles, each counted for both sides
    assert ",5.0," not in written and ",6.0," not in written


def test_weight_errors_come_in_file_order(tmp_path):
    path = battles(tmp_path, ["A,B,model_a,1", "B,C,model_a,-1", "C,A,model_b,inf", "A,C,tie,2"],
                   "w.csv", "model_a,model_b,winner,weight")
    result = run("rank", path, "-m", "bt", "--weight", "weight")
    assert result.exit_code == 2
    assert "w.csv:3" in result.output and "weight 'weight' is -1; a weight must be finite and ≥ 0" in result.output
    swapped = battles(tmp_path, ["A,B,model_a,1", "B,C,model_a,inf", "C,A,model_b,-1"], "v.csv",
                      "model_a,model_b,winner,weight")
    result = run("rank", swapped, "-m", "bt", "--weight", "weight")
    assert "v.csv:3" in result.output and "weight 'weight' is inf; a weight must be finite and ≥ 0" in result.output


def test_counts_take_their_number(tmp_path):
    assert plural(1, "comparison") == "1 comparison" and plural(2, "comparison") == "2 comparisons"
    assert plural(1109.0, "row") == "1,109 rows" and plural(12.5, "comparison") == "12.5 comparisons"
    path = battles(tmp_path, ["A,B,model_a"])
    result = run("rank", path, "-m", "bt")
    assert "(1 comparison)" in result.output and "1 comparisons" not in result.output
    assert "b.csv: 1 row read as pairwise" in run("info", path).output
    tied = battles(tmp_path, ["A,B,model_a", "A,B,tie (bothbad)"], "t.csv")
    assert "1 of 1 ties is both-bad" in run("rank", tied, "-m", "bt").output


def test_bootstrap_output_starts_with_the_table(tmp_path):
    path = battles(tmp_path, CYCLE)
    result = run("rank", path, "-m", "bt", "--bootstrap", "20")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].startswith("(no track): bt (6 comparisons)")


def test_both_bad_loss_fisher_intervals_are_the_hand_centred_covariance(tmp_path):
    """Four systems: the CLI's Fisher std and intervals under --both-bad loss equal P·Cov·Pᵀ by
    hand, P = I − 1wᵀ with w = 1/4 on the systems and 0 on the anchor, from BradleyTerry fitted
    in Python on the comparisons the loss policy makes (each both-bad battle: two anchor wins)."""
    from humeval.data import Comparisons
    from humeval.ranking import BradleyTerry
    rng = np.random.default_rng(7)
    names = ["A", "B", "C", "D"]
    rows, a, b, outcome = [], [], [], []
    for _ in range(400):
        i, j = rng.choice(4, 2, replace=False)
        kind = rng.choice(["model_a", "model_b", "tie", "tie (bothbad)"], p=[0.45, 0.3, 0.15, 0.1])
        rows.append(f"{names[i]},{names[j]},{kind}")
        if kind == "tie (bothbad)":  # the anchor (code 4) beats both
            a += [4, 4]
            b += [i, j]
            outcome += [1, 1]
        else:
            a.append(i)
            b.append(j)
            outcome.append({"model_a": 1, "model_b": 2, "tie": 0}[kind])
    path = battles(tmp_path, rows)
    result = run("rank", path, "-m", "bt", "--both-bad", "loss", "--intervals", "fisher", "--json")
    assert result.exit_code == 0, result.output
    (table,) = json.loads(result.stdout).values()
    shown = pd.DataFrame(table).set_index("system").loc[names]
    model = BradleyTerry().fit(Comparisons(a=np.array(a), b=np.array(b), outcome=np.array(outcome),
                                           systems=(*names, ANCHOR)))
    P = np.eye(5) - np.outer(np.ones(5), [0.25, 0.25, 0.25, 0.25, 0.0])
    cov = P @ model.covariance().to_numpy()[:5, :5] @ P.T
    score = P @ model.scores_.to_numpy()
    np.testing.assert_allclose(shown["score"], score[:4], atol=1e-6)
    np.testing.assert_allclose(shown["std"], np.sqrt(np.diag(cov))[:4], rtol=1e-6)
    np.testing.assert_allclose(shown["upper"] - shown["score"], 1.959964 * np.sqrt(np.diag(cov))[:4], rtol=1e-5)
    assert not np.allclose(np.sqrt(np.diag(model.covariance().to_numpy()))[:4], shown["std"], rtol=1e-3)
