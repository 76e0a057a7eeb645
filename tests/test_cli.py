import json

import numpy as np
import pytest
from click.testing import CliRunner

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
    result = run("demo")
    assert result.exit_code == 0
    assert "Spearman correlation of win share with the true abilities: 0.972" in result.output
    data = json.loads(run("demo", "--json").output)
    assert data["comparisons"][0]["comparisons"] == 20000
    on_file = run("demo", fixture("mqm_small.ende.tsv"))
    assert on_file.exit_code == 0 and "mean score per system" in on_file.output


def test_info_on_ratings_and_post_edits(fixture):
    ratings = json.loads(run("info", fixture("ratings_long.csv"), "--json").output)["ratings"][0]
    # scores 70, 55, 80, 40: mean 61.25, sample sd sqrt(918.75 / 3) = 17.5
    assert (ratings["scores"], ratings["mean"], ratings["sd"], ratings["judges"]) == (4, 61.25, 17.5, 2)
    edits = json.loads(run("info", fixture("wmt10_edits_small.tsv"), "--json").output)["post_edits"][0]
    assert (edits["EDIT"], edits["OK"], edits["BAD"], edits["editors"]) == (1, 1, 1, 2)
    shown = run("info", fixture("mlqe_pe_small.pe"))
    assert shown.exit_code == 0 and "mean HTER" in shown.output
