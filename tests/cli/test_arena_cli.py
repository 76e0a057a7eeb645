"""`rank` on arena battles: --board-by boards with rank changes, --both-bad policies, --weight,
--category, and the refusals (exit 2, one line, never the "bug" line)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from conftest import FIXTURES
from humeval.cli import cli
from humeval.cli.common import BOTH_BAD
from humeval.ranking.boards import ANCHOR, POLICIES

BATTLES = str(FIXTURES / "arena_battles.json")
WEIGHTS = str(FIXTURES / "arena_weights.csv")


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert "this is a bug" not in result.output, result.output
    return result


@pytest.fixture(scope="module")
def categories(tmp_path_factory):
    """The boards test's campaign as a battles CSV: x ranks C, A, B; y and overall rank A, B, C."""
    rows = [("C", "A", "x")] * 3 + [("C", "B", "x")] * 3 + [("A", "B", "x")] * 3 + [("A", "B", "y")] * 10 \
        + [("B", "C", "y")] * 10 + [("A", "C", "y")] * 10
    path = tmp_path_factory.mktemp("arena") / "battles.csv"
    pd.DataFrame(rows, columns=["model_a", "model_b", "topic"]).assign(winner="model_a").to_csv(path, index=False)
    return path


def test_board_by_a_file_column_writes_the_long_table(categories, tmp_path):
    out = tmp_path / "boards.csv"
    result = run("rank", categories, "-m", "bt", "--board-by", "topic", "--out", out)
    assert result.exit_code == 0, result.output
    assert "board (overall)" in result.output and "board x" in result.output and "Δ rank" in result.output
    table = pd.read_csv(out)
    x = table[table.board == "x"].set_index("system")
    assert x["rank"].to_dict() == {"C": 1, "A": 2, "B": 3}
    assert x["rank_change"].to_dict() == {"C": 2, "A": -1, "B": -1}
    assert set(table.board) == {"(overall)", "x", "y"} and (table.track == "(no track)").all()


def test_board_by_category_names_the_category_column(categories):
    by_category = run("rank", categories, "-m", "bt", "--board-by", "category", "--category", "topic", "--json")
    by_column = run("rank", categories, "-m", "bt", "--board-by", "topic", "--json")
    unsigned = [[{k: v for k, v in row.items() if k != "signature"} for row in json.loads(r.output)]
                for r in (by_category, by_column)]  # the signatures name the options, which differ
    assert by_category.exit_code == 0 and unsigned[0] == unsigned[1]
    clash = run("rank", categories, "-m", "bt", "--board-by", "language", "--category", "topic")
    assert clash.exit_code == 2 and "name two columns" in clash.output


def test_board_by_with_bootstrap_intervals(categories):
    result = run("rank", categories, "-m", "bt", "--board-by", "topic", "--bootstrap", "20", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert {"lower", "upper", "rank_lo", "rank_hi"} <= set(rows[0])
    assert all(r["lower"] <= r["score"] <= r["upper"] for r in rows)


def test_arena_json_boards_by_language_with_both_bad_loss():
    result = run("rank", BATTLES, "-m", "bt", "--board-by", "language", "--both-bad", "loss")
    assert result.exit_code == 0, result.output
    assert "board English" in result.output and "board German" in result.output and ANCHOR in result.output
    assert "2 of 3 ties are both-bad" in result.output and "--both-bad loss" in result.output


@pytest.mark.parametrize("policy, systems, said", [("tie", 3, "counted as ties"), ("drop", 3, "left out"),
                                                   ("loss", 3, "a loss for both")])
def test_both_bad_policy_is_said(policy, systems, said):
    result = run("rank", BATTLES, "-m", "bt", "--both-bad", policy, "--json")
    assert result.exit_code == 0, result.output
    (rows,) = json.loads(result.output).values()
    assert len(rows) == systems
    text = run("rank", BATTLES, "-m", "bt", "--both-bad", policy).output
    assert said in text and ANCHOR not in {r["system"] for r in rows}  # the anchor is set aside, named in a note
    assert ("anchor '(both bad)'" in text) == (policy == "loss")


def test_weights_count_in_the_board(tmp_path):
    out = tmp_path / "w.csv"
    result = run("rank", WEIGHTS, "-m", "bt", "--weight", "weight", "--board-by", "category", "--out", out)
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out)
    overall = table[table.board == "(overall)"].set_index("system")
    # kept: lines 2 (w 2, gpt–claude), 3 (w 1, claude–llama), 4 (w 0.5, llama–gpt), 5 (w 1, gpt–llama), 8 (w 3)
    assert overall["comparisons"].to_dict() == {"gpt": 6.5, "claude": 6.0, "llama": 2.5}
    assert "skipped 1 row without a weight (weight) (e.g. line 6)" in result.output
    assert "skipped 1 row of weight 0 (weight) (e.g. line 7)" in result.output
    assert "board (overall) (7.5 comparisons)" in result.output  # by weight: (6.5 + 6 + 2.5) / 2


def test_bad_input_is_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text(open(WEIGHTS).read().replace("gpt,claude,model_a,2,", "gpt,claude,model_a,-2,"))
    result = run("rank", bad, "-m", "bt", "--weight", "weight")
    assert result.exit_code == 2 and "bad.csv:2" in result.output and "≥ 0" in result.output
    result = run("rank", WEIGHTS, "-m", "bt", "--covariates", "nope")
    assert result.exit_code == 2 and "no column 'nope'" in result.output
    result = run("rank", FIXTURES / "wmt10_small.csv", "-m", "bt", "--board-by", "language")
    assert result.exit_code == 2 and "does not apply to format" in result.output


def test_refused_combinations(categories):
    for extra, words in ((["--plot", "x.png"], "--plot does not apply with --board-by"),
                         (["--clusters", "--bootstrap", "10"], "--clusters does not apply"),
                         (["-m", "bt,davidson"], "one model at a time")):
        result = run("rank", categories, "-m", "bt", "--board-by", "topic", *extra)
        assert result.exit_code == 2 and words in result.output, result.output


def test_choices_are_the_policies():
    assert BOTH_BAD == POLICIES


def test_info_shows_both_bad_ties():
    result = run("info", BATTLES, "--json")
    assert result.exit_code == 0
    shown = json.loads(result.output)
    (row,) = shown["comparisons"]
    assert (row["ties"], row["both-bad ties"]) == (3, 2)
    # the format is the name --format takes (the file kind apart): it reads the file again
    assert (shown["format"], shown["detail"]) == ("pairwise", "json")
    assert run("info", BATTLES, "--format", shown["format"], "-q").exit_code == 0


def test_the_report_says_how_it_read_the_source(tmp_path):
    from humeval.data.judgments import ReadReport
    assert ReadReport("f.csv", "pairwise", rows=3, detail="csv").lines()[0] == "f.csv: 3 rows read as pairwise (csv)"
    assert ReadReport("f.tsv", "wmt-da", rows=1).lines()[0] == "f.tsv: 1 row read as wmt-da"


def test_style_control_and_analytic_intervals_reach_the_model():
    import humeval
    from humeval.ranking import BradleyTerry
    result = run("rank", BATTLES, "-m", "bt", "--style-control", "--intervals", "sandwich", "--cluster-by", "judge",
                 "--json")
    assert result.exit_code == 0, result.output
    assert "covariates 'length', 'headers', 'lists', 'bold' separate the outcomes" in " ".join(result.stderr.split())
    shown = json.loads(result.stdout)
    rows = {r["system"]: r for r in shown["(no track)"]}
    coefficients = {r["parameter"]: r for r in shown["(coefficients)"]["(no track)"]}
    with pytest.warns(UserWarning, match="separate the outcomes"):
        model = BradleyTerry(standardize=True).fit(humeval.read(BATTLES, style=True).comparisons)
    assert np.all(np.abs(model.coef_) < 5) and np.all(model.coef_std_ > 0)  # finite, honestly wide
    expected = model.intervals("sandwich", 0.95, clusters="judge")
    together = model.intervals("sandwich", 0.95, simultaneous=True, clusters="judge")
    for system in model.systems_:
        assert rows[system]["score"] == pytest.approx(model.scores_[system], abs=1e-9)
        assert rows[system]["lower"] == pytest.approx(expected.loc[system, "lower"], abs=1e-9)
        assert rows[system]["sim_upper"] == pytest.approx(together.loc[system, "upper"], abs=1e-9)
    for name, value in model.coef_.items():
        assert coefficients[f"coef {name}"]["estimate"] == pytest.approx(value, abs=1e-9)
    text = run("rank", BATTLES, "-m", "bt", "--style-control", "--intervals", "fisher").output
    assert "covariate coefficients" in text and "coef length" in text and "inverse Fisher" in text


def test_covariate_pairs_from_the_command_line():
    import humeval
    from humeval.ranking import Davidson
    result = run("rank", WEIGHTS, "-m", "davidson", "--covariates", "len_a/len_b", "--weight", "weight", "--json")
    assert result.exit_code == 0, result.output
    coefficients = json.loads(result.stdout)["(coefficients)"]["(no track)"]
    c = humeval.read(WEIGHTS, covariates="len_a/len_b", weight="weight").comparisons
    model = Davidson().fit(c)
    assert coefficients[0]["parameter"] == "coef len_a-len_b"
    assert coefficients[0]["estimate"] == pytest.approx(model.coef_["len_a-len_b"], abs=1e-9)


@pytest.mark.parametrize("args, words", [
    (["-m", "trueskill", "--style-control"], "trueskill cannot fit covariates"),
    (["-m", "bt", "--cluster-by", "judge"], "--cluster-by applies to --intervals sandwich"),
    (["-m", "bt", "--intervals", "bootstrap"], "needs --bootstrap N"),
    (["-m", "bt", "--intervals", "fisher", "--bootstrap", "10"], "pick one"),
    (["-m", "irt-gaussian", "--intervals", "fisher"], "irt-gaussian has no analytic intervals"),
    (["-m", "bt", "--confidence", "0.9"], "--confidence does nothing"),
])
def test_interval_and_style_refusals(args, words):
    result = run("rank", BATTLES, *args)
    assert result.exit_code == 2 and words in result.output, result.output


def test_boards_with_analytic_intervals(categories):
    result = run("rank", categories, "-m", "bt", "--board-by", "topic", "--intervals", "fisher", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert {"lower", "upper", "sim_lower", "sim_upper"} <= set(rows[0])
    assert all(r["sim_lower"] <= r["lower"] <= r["score"] <= r["upper"] <= r["sim_upper"] for r in rows)


def test_covariates_from_the_command_line_recover_the_planted_order(tmp_path):
    """Simulated battles where a length bias promotes the verbose systems: `rank --covariates
    length` finds the true order, the plain fit does not (the simulator's known truth)."""
    from humeval.data.export import pairwise_frame, write
    from humeval.simulate import simulate_battles
    sim = simulate_battles(n_systems=6, n_battles=20_000, beta=1.5, log_length=[5.5, 6.5, 5.5, 7.0, 5.5, 7.0],
                           random_state=1)
    path = write(pairwise_frame(sim.comparisons), tmp_path / "battles.parquet")
    truth = sim.truth.abilities.sort_values(ascending=False).index.tolist()
    def order(*extra):
        (rows,) = [v for k, v in json.loads(run("rank", path, "-m", "bt", "--json", *extra).output).items()
                   if k != "(coefficients)"]
        return [r["system"] for r in rows]

    assert order("--covariates", "length") == truth
    assert order() == truth  # the file humeval wrote carries its covariate (column cov:length)
    assert order("--covariates", "none") != truth
