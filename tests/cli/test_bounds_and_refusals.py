"""Sizes have upper bounds, inputs that are not regular files are refused before any read, and
reading never writes: each ends in a clear error (exit 2), never the catch-all "bug" line."""

import os
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from humeval.cli import cli

ROOT = Path(__file__).resolve().parents[2]
PAIRS = ROOT / "tests/fixtures/wmt10_small.csv"  # 26 comparisons


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def refused(result, *words):
    assert result.exit_code == 2, result.output
    assert "bug in humeval" not in result.output and "Traceback" not in result.output
    for word in words:
        assert word in result.output, result.output


@pytest.mark.parametrize("args, words", [
    (["rank", PAIRS, "--bootstrap", "1000000000"], ["--bootstrap", "more than 100,000"]),
    (["report", PAIRS, "-o", "r.html", "--bootstrap", "100001"], ["--bootstrap", "more than 100,000"]),
    (["simulate", "s.csv", "--judgments", "10000000000"], ["--judgments", "1<=x<=5000000"]),
    (["simulate", "s.csv", "--judgments", "600000"], ["--judgments", "6,000,000 comparisons", "at most 500,000"]),
    (["simulate", "s.csv", "--systems", "10000", "--items", "10000"], ["--items", "50,000,000"]),
    (["simulate", "s.csv", "--design", "battles", "--battles", "5000001"], ["--battles"]),
    (["plan", PAIRS, "--simulations", "1000000000"], ["--simulations", "1<=x<=10000"]),
    (["compare-models", PAIRS, "--trials", "1001"], ["--trials"]),
    (["compare-models", PAIRS, "--sizes", "100000000"], ["--sizes"]),
    (["active-study", "--budget", "100000000"], ["--budget"]),
])
def test_sizes_have_upper_bounds(args, words, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    refused(run(*args), *words)
    assert list(tmp_path.iterdir()) == []


def test_compare_models_notes_sizes_the_data_cannot_fill():
    """--sizes 3000 on 26 comparisons: every subset takes the whole training split, so the column
    named 3,000 is not trained on 3,000 comparisons, and the command says so."""
    result = run("compare-models", PAIRS, "-m", "bt", "--sizes", "10,3000", "--trials", "1", "--min-test", "5")
    assert result.exit_code == 0, result.output
    # the 26 comparisons split into tracks whose training parts hold 10 and 7 (the rest is test set)
    assert ("note: --sizes 10, 3,000: the training split holds fewer comparisons (French-English: 10, "
            "German-English: 7), so those columns are trained on all of it") in " ".join(result.output.split())


def test_sizes_a_training_split_cannot_fill_are_noted():
    from humeval.cli.common import capped_sizes
    curve = pd.DataFrame({"model": "bt", "size": [100, 3200, 100, 3200], "train": [100, 2475, 100, 3200],
                          "track": ["a", "a", "b", "b"]})
    assert capped_sizes(curve) == ("note: --sizes 3,200: the training split holds fewer comparisons (a: 2,475), so "
                                   "those columns are trained on all of it, not on the size they name")
    assert capped_sizes(curve[curve["track"] == "b"]) == ""


@pytest.mark.parametrize("make, words", [
    (lambda p: os.mkfifo(p), ["is a FIFO (named pipe), not a file"]),
    (lambda p: p.symlink_to(p), ["loop of symbolic links"]),
])
def test_fifos_and_link_loops_are_refused_before_any_read(make, words, tmp_path, monkeypatch):
    """A FIFO with no writer used to make `info` wait forever: it is refused unopened."""
    def not_reached(*args, **kwargs):
        raise AssertionError("the input was read")

    monkeypatch.setattr("humeval.cli.common.read", not_reached)
    path = tmp_path / "in.csv"
    make(path)
    refused(run("info", path), "FILES", *words)
    refused(run("rank", PAIRS, "--drop-judges", path), "--drop-judges", *words)


def test_devices_and_directories_as_judge_lists_are_refused(tmp_path):
    refused(run("rank", PAIRS, "--drop-judges", "/dev/zero"), "--drop-judges", "/dev/zero is a character device")
    refused(run("rank", PAIRS, "--drop-judges", tmp_path), "--drop-judges", "is a directory")


def test_a_directory_dataset_is_bounded_and_unreadable_folders_are_reported(tmp_path, monkeypatch):
    from humeval.data import stream
    for n in range(4):
        (tmp_path / f"part{n}.csv").write_text("model_a,model_b,winner\nA,B,model_a\n")
    monkeypatch.setattr(stream, "MAX_DATASET_FILES", 3)
    refused(run("info", tmp_path), "more than 3 files", "name the dataset's own folder")
    monkeypatch.setattr(stream, "MAX_DATASET_FILES", 100)

    def unreadable(top, onerror=None, **kwargs):
        onerror(PermissionError(13, "Permission denied", str(tmp_path / "locked")))
        return iter(())

    monkeypatch.setattr(stream.os, "walk", unreadable)
    refused(run("info", tmp_path), f"cannot read the directory {tmp_path / 'locked'} (Permission denied)")


def test_info_on_the_root_directory_is_a_clear_error():
    refused(run("info", "/"))


@pytest.fixture
def parquet(tmp_path):
    pytest.importorskip("duckdb")
    path = tmp_path / "battles.parquet"
    pd.DataFrame({"model_a": ["A", "B", "A"], "model_b": ["B", "C", "C"],
                  "winner": ["model_a", "model_b", "tie"]}).to_parquet(path)
    return path


@pytest.mark.parametrize("sql, what", [
    ("COPY (SELECT 1) TO '{dir}/leak.csv'", "this is COPY"),
    ("ATTACH '{dir}/leak.db' AS x", "this is ATTACH"),
    ("INSTALL httpfs", "this is LOAD"),
    ("CREATE TABLE leak AS SELECT 1", "this is CREATE"),
    ("SELECT * FROM battles; COPY (SELECT 1) TO '{dir}/leak.csv'", "this is 2 statements"),
])
def test_sql_that_writes_is_refused_before_it_runs(sql, what, parquet, tmp_path):
    refused(run("info", parquet, "--sql", sql.format(dir=tmp_path)), what, "give one SELECT query")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["battles.parquet"]


@pytest.mark.parametrize("sql", ["SELECT * FROM battles", "FROM battles WHERE winner <> 'tie'",
                                 "WITH t AS (SELECT * FROM battles) SELECT * FROM t"])
def test_read_only_sql_still_reads(sql, parquet):
    result = run("info", parquet, "--sql", sql, "--json")
    assert result.exit_code == 0, result.output
    assert '"rows": 3' in result.output or '"rows": 2' in result.output


def test_encoding_on_parquet_is_refused_not_ignored(parquet):
    refused(run("info", parquet, "--encoding", "latin-1"), "--encoding", "Parquet")
    refused(run("info", parquet.parent, "--encoding", "latin-1"), "--encoding", "Parquet")
    assert run("info", PAIRS, "--encoding", "latin-1", "-q").exit_code == 0
