import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import command_tree

import humeval
from humeval.cli import cli


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result


def test_info_table_and_json(fixture):
    result = run("info", fixture("wmt10_small.csv"))
    assert result.exit_code == 0, result.output
    assert "French-English" in result.output and "skipped 4 pairs with an unset rank" in result.output
    data = json.loads(run("info", fixture("wmt10_small.csv"), "--json").output)
    rows = {r["track"]: r for r in data["comparisons"]}
    assert rows["French-English"]["comparisons"] == 16 and rows["French-English"]["ties"] == 2
    assert rows["(all)"]["comparisons"] == 26 and rows["(all)"]["pairs skipped"] == 4


def test_info_track_filter_and_unknown_track(fixture):
    data = json.loads(run("info", fixture("wmt10_small.csv"), "--track", "German-English", "--json").output)
    assert [r["track"] for r in data["comparisons"]] == ["German-English"]
    result = run("info", fixture("wmt10_small.csv"), "--track", "Klingon-English")
    assert result.exit_code == 2 and "no track named Klingon-English" in result.output


def test_errors_are_one_line_exit_2(tmp_path):
    result = run("info", tmp_path / "missing.csv")
    assert result.exit_code == 2
    assert result.output.strip().startswith("error:") and "no such file" in result.output
    assert "Traceback" not in result.output


def test_columns_and_outcomes_options(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("l,r,w\nX,Y,L\nY,Z,T\n")
    data = json.loads(run("info", path, "-f", "pairwise", "--columns", "a=l,b=r,outcome=w",
                          "--outcomes", "L=1,R=2,T=0", "--json").output)
    assert data["comparisons"][0]["comparisons"] == 2 and data["comparisons"][0]["ties"] == 1
    bad = run("info", path, "--columns", "a")
    assert bad.exit_code == 2 and "KEY=VALUE" in bad.output


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".jsonl"])
def test_convert_round_trip(fixture, tmp_path, suffix):
    out = tmp_path / f"pairs{suffix}"
    result = run("convert", fixture("wmt10_small.csv"), out)
    assert result.exit_code == 0 and "wrote 26 comparisons" in result.output
    original = humeval.read(fixture("wmt10_small.csv")).comparisons
    back = humeval.read(out).comparisons
    for name in ("a", "b"):
        assert (np.array(back.systems)[getattr(back, name)] == np.array(original.systems)[getattr(original, name)]).all()
    for name in ("outcome", "group"):
        np.testing.assert_array_equal(getattr(back, name), getattr(original, name))
    assert back.tracks == original.tracks and back.judges == original.judges


def test_convert_anonymize_is_stable(fixture, tmp_path):
    for i in range(2):
        assert run("convert", fixture("wmt10_small.csv"), tmp_path / f"a{i}.csv", "--anonymize", "--salt", "s").exit_code == 0
    first, second = (humeval.read(tmp_path / f"a{i}.csv").comparisons for i in range(2))
    assert first.judges == second.judges and len(first.judges) == 2
    assert all(j.startswith("judge-") for j in first.judges) and "jdoe" not in (tmp_path / "a0.csv").read_text()
    other = run("convert", fixture("wmt10_small.csv"), tmp_path / "b.csv", "--anonymize", "--salt", "t")
    assert other.exit_code == 0 and humeval.read(tmp_path / "b.csv").comparisons.judges != first.judges


def test_convert_writes_side_tables(fixture, tmp_path):
    result = run("convert", fixture("wmt09_small.tsv"), tmp_path / "w.csv")
    assert result.exit_code == 0
    assert (tmp_path / "w.ratings.csv").exists() and (tmp_path / "w.post_edits.csv").exists()
    assert humeval.read(tmp_path / "w.ratings.csv").ratings.score.tolist() == [4, 3, 2, 5]
    bad = run("convert", fixture("wmt10_small.csv"), tmp_path / "w.xlsx")
    assert bad.exit_code == 2 and ".parquet" in bad.output


def test_simulate_writes_readable_file(tmp_path):
    out, truth = tmp_path / "sim.parquet", tmp_path / "truth.csv"
    result = run("simulate", out, "--design", "pairs", "--judgments", 500, "--truth", truth)
    assert result.exit_code == 0
    c = humeval.read(out).comparisons
    assert len(c) == 500 and len(c.systems) == 12 and len(truth.read_text().splitlines()) == 13


def test_demo_simulated_and_on_a_file(fixture):
    result = run("demo", "--no-report")
    assert result.exit_code == 0
    assert "Spearman correlation of win_share with the true abilities: 0.972" in result.output
    assert "Spearman correlation of irt-gaussian with the true abilities: 0.972" in result.output
    data = json.loads(run("demo", "--json", "--no-report").output)
    assert data["comparisons"][0]["comparisons"] == 20000
    on_file = run("demo", fixture("mqm_small.ende.tsv"), "--no-report")
    assert on_file.exit_code == 0 and "mean score per system" in on_file.output


def test_info_on_ratings_and_post_edits(fixture):
    ratings = json.loads(run("info", fixture("ratings_long.csv"), "--json").output)["ratings"][0]
    # scores 70, 55, 80, 40: mean 61.25, sample sd sqrt(918.75 / 3) = 17.5
    assert (ratings["scores"], ratings["mean"], ratings["sd"], ratings["judges"]) == (4, 61.25, 17.5, 2)
    edits = json.loads(run("info", fixture("wmt10_edits_small.tsv"), "--json").output)["post_edits"][0]
    assert (edits["EDIT"], edits["OK"], edits["BAD"], edits["editors"]) == (1, 1, 1, 2)
    shown = run("info", fixture("mlqe_pe_small.pe"))
    assert shown.exit_code == 0 and "mean HTER" in shown.output


def test_rank_by_hand_and_side_by_side(fixture):
    data = json.loads(run("rank", fixture("wmt10_small.csv"), "--track", "French-English", "-m", "bojar", "--json").output)
    rows = {r["system"]: r for r in data["French-English"]}
    # _ref beat all three it met; bbn: 4 wins in the first ranking, 3 losses in the second
    assert rows["_ref"]["score"] == 1.0 and rows["_ref"]["rank"] == 1 and rows["bbn"]["score"] == pytest.approx(4 / 7)
    both = json.loads(run("rank", fixture("wmt10_small.csv"), "-m", "bojar,expected-wins", "--json").output)
    assert set(both) == {"French-English", "German-English"}
    assert set(both["German-English"][0]) == {"system", "bojar", "expected-wins", "note", "signature"}
    assert both["German-English"][0]["system"] == "kit"  # ranked 1 in the only German-English ranking
    assert both["German-English"][0]["note"] == "never lost"
    bad = run("rank", fixture("wmt10_small.csv"), "-m", "glicko")
    assert bad.exit_code == 2 and "unknown model 'glicko'" in bad.output
    ratings = run("rank", fixture("ratings_long.csv"))  # ratings take WMT's procedure (tests/ratings/)
    assert ratings.exit_code == 0 and "clusters by wilcoxon" in ratings.output
    edits = run("rank", fixture("wmt10_edits_small.tsv"))
    assert edits.exit_code == 2 and "holds no pairwise comparisons" in edits.output


def test_rank_plots(fixture, tmp_path):
    result = run("rank", fixture("wmt10_small.csv"), "-m", "irt-gaussian", "--plot", tmp_path / "a.png",
                 "--heatmap", tmp_path / "h.png")
    assert result.exit_code == 0
    assert {p.name for p in tmp_path.iterdir()} == {"a.French-English.png", "a.German-English.png",
                                                    "h.French-English.png", "h.German-English.png"}


def test_compare_models(tmp_path):
    sim = tmp_path / "sim.parquet"
    assert run("simulate", sim, "--design", "rankings", "--judgments", 600, "--items", 300).exit_code == 0
    result = run("compare-models", sim, "-m", "uniform,independent-pairs", "--sizes", "100,200", "--trials", 2,
                 "--plot", tmp_path / "c.png", "--out", tmp_path / "c.csv", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    rows = {r["model"]: r for r in data["mean_perplexity"]}
    assert rows["uniform"]["100"] == pytest.approx(3.0) and rows["independent-pairs"]["200"] < 3.0
    assert len(pd.read_csv(tmp_path / "c.csv")) == 2 * 2 * 2 and (tmp_path / "c.png").exists()
    bad = run("compare-models", sim, "-m", "bojar")
    assert bad.exit_code == 2 and "no perplexity" in bad.output


def test_rank_bootstrap_wmt_table(tmp_path):
    sim = tmp_path / "sim.parquet"
    assert run("simulate", sim, "--design", "rankings", "--judgments", 400, "--systems", 6).exit_code == 0
    result = run("rank", sim, "-m", "trueskill", "--bootstrap", 200, "--clusters", "--out", tmp_path / "t.csv",
                 "--plot", tmp_path / "t.png")
    assert result.exit_code == 0, result.output
    assert "cluster" in result.output and "simultaneous" in result.output and "─" in result.output
    table = pd.read_csv(tmp_path / "t.csv")
    assert len(table) == 6 and table["cluster"].iloc[0] == 1 and table["cluster"].is_monotonic_increasing
    assert (table["rank_lo"] <= table["rank_hi"]).all() and (tmp_path / "t.png").stat().st_size > 5000
    data = json.loads(run("rank", sim, "-m", "bt", "--bootstrap", 50, "--resample", "ranking", "--json").output)
    assert {"lower", "upper", "rank_lo", "cluster"} <= set(data["simulated"][0])
    both = run("rank", sim, "-m", "bt,elo", "--bootstrap", 10)
    assert both.exit_code == 2 and "one model at a time" in both.output


def test_rank_reports_a_disconnected_graph(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("model_a,model_b,winner\nA,B,model_a\nB,A,model_a\nC,D,model_a\nD,C,model_a\n")
    result = run("rank", path, "-m", "bt", "--l2", 0)  # maximum likelihood; the default prior ranks it
    assert result.exit_code == 2 and "falls into 2 parts" in result.output and "l2=" in result.output


def test_compare_models_puts_trueskill_and_bt_beside_hopkins_may(tmp_path):
    sim = tmp_path / "sim.parquet"
    run("simulate", sim, "--design", "rankings", "--judgments", 600, "--items", 300)
    result = run("compare-models", sim, "-m", "uniform,trueskill,bt,davidson,rao-kupper", "--sizes", "200",
                 "--trials", 1, "--json")
    assert result.exit_code == 0, result.output
    rows = {r["model"]: r["200"] for r in json.loads(result.output)["mean_perplexity"]}
    assert rows["uniform"] == pytest.approx(3.0) and rows["davidson"] < 3.0 and rows["rao-kupper"] < 3.0


def test_rank_crowd_bt_names_suspect_judges(tmp_path):
    rows = ["model_a,model_b,winner,judge"]
    rng = np.random.default_rng(0)
    names = ["A", "B", "C", "D"]
    for i in range(1200):
        a, b = rng.choice(4, 2, replace=False)
        judge = f"j{i % 6}"
        better = a if a < b else b  # A > B > C > D
        said = better if judge != "j0" else (b if better == a else a)  # j0 always reverses
        rows.append(f"{names[a]},{names[b]},{'model_a' if said == a else 'model_b'},{judge}")
    path = tmp_path / "crowd.csv"
    path.write_text("\n".join(rows) + "\n")
    result = run("rank", path, "-m", "crowd-bt")
    assert result.exit_code == 0, result.output
    assert "judges flagged: 1 of 6 — j0 (adversarial" in result.output


def test_agreement_command(fixture, tmp_path):
    data = json.loads(run("agreement", fixture("wmt10_small.csv"), "--json").output)
    rows = list(data.values())[0]
    assert {r["agreement"] for r in rows} == {"inter", "intra"} and {r["track"] for r in rows} >= {"(all)"}
    shown = run("agreement", fixture("mqm_small.ende.tsv"))
    assert shown.exit_code == 0 and "alpha (interval)" in shown.output


def test_judges_command_writes_the_drop_list(tmp_path):
    sim = tmp_path / "sim.parquet"
    made = run("simulate", sim, "--design", "rankings", "--items", 40, "--judgments", 2500, "--systems", 8,
               "--random-judges", 0.2, "--json")
    planted = set(json.loads(made.output)["random_judges"])
    drop = tmp_path / "drop.txt"
    result = run("judges", sim, "--drop-list", drop)
    assert result.exit_code == 0 and "least reliable first" in " ".join(result.output.split())
    assert len(planted) == 4 and set(drop.read_text().split()) == planted


def test_grm_fit_and_study(tmp_path):
    sim = tmp_path / "sim.parquet"
    run("simulate", sim, "--design", "rankings", "--judgments", 600, "--systems", 5, "--items", 200)
    result = run("grm", "fit", sim, "--baseline", "sys02", "--icc", tmp_path / "icc.png", "--information",
                 tmp_path / "info.png", "--out", tmp_path / "grm.csv", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)["simulated"]
    assert data["baseline"] == "sys02" and data["dropped"] > 0 and len(data["systems"]) == 5
    assert (tmp_path / "icc.png").exists() and (tmp_path / "info.png").exists()
    written = pd.read_csv(tmp_path / "grm.csv")
    assert len(written) == 5 and set(written.track) == {"simulated"} and written["rank"].min() == 1
    bad = run("grm", "fit", sim, "--baseline", "nobody")
    assert bad.exit_code == 2 and "not among the systems" in bad.output
    study = run("grm", "study", sim, "--baselines", "sys02", "--budgets", "200,400", "--trials", 1, "--noise", "0.3",
                "--gold-resamples", 50, "--plot", tmp_path / "study.png", "--json")
    assert study.exit_code == 0, study.output
    rows = json.loads(study.output)["budget_study"]
    assert {r["model"] for r in rows} == {"GRM", "Expected Wins", "IRT-Gaussian (H&M)", "TrueSkill (active)",
                                          "Two-stage (Baba & Kashima)"}
    assert (tmp_path / "study.png").stat().st_size > 5000


def test_metric_commands(fixture, tmp_path):
    data = json.loads(run("metric", "hter", fixture("mlqe_pe_small.mt"), "--json").output)
    assert data["systems"][0]["mean"] == pytest.approx((1 / 3 + 0.25) / 2) and data["skipped"] == 0
    scored = run("metric", "score", "--hyp", fixture("mlqe_pe_small.mt"), "--ref", fixture("mlqe_pe_small.pe"),
                 "--metrics", "ter,bleu", "--json")
    rows = {r["metric"]: r for r in json.loads(scored.output)}
    assert rows["TER"]["corpus"] == pytest.approx(2 / 7) and "BLEU" in rows
    (tmp_path / "short.txt").write_text("one line\n")
    bad = run("metric", "score", "--hyp", fixture("mlqe_pe_small.mt"), "--ref", tmp_path / "short.txt")
    assert bad.exit_code == 2 and "line-aligned" in bad.output


def test_every_command_is_consistent():
    """Every subcommand's --help shows an example and has --quiet; readers share --format/-f and
    --track; seeds are --random-state and processes --jobs/-j everywhere."""
    import click

    commands = dict(command_tree(cli))
    assert len(commands) >= 17
    for name, command in commands.items():
        options = {o for p in command.params if isinstance(p, click.Option) for o in p.opts}
        assert "Example" in command.help, name
        assert "--quiet" in options and "--json" in options, name
        if "--format" in options:
            assert {"-f", "--track", "--encoding", "--columns"} <= options, name
        assert not options & {"--seed", "--output-file", "--threads"}, name
        if "--jobs" in options:
            assert "-j" in options, name
        help_text = run(*name.split(), "--help")
        assert help_text.exit_code == 0 and "Example" in help_text.output, name
