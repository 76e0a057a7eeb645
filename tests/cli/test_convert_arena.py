"""`humeval convert` with the arena options: the written file (humeval's layout, covariates in
columns cov:NAME) reads back with the same comparisons, weights, categories, both-bad flags and
covariates without any option, in every output format."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import humeval
from conftest import FIXTURES
from humeval.cli import cli
from humeval.data.export import pairwise_frame
from humeval.data.readers.arena import COVARIATE_PREFIX

BATTLES = FIXTURES / "arena_battles.json"
WEIGHTS = FIXTURES / "arena_weights.csv"


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert "this is a bug" not in result.output, result.output
    return result


def same(left, right):
    """Two Comparisons hold the same battles, labels, arena columns and covariates."""
    assert left.systems == right.systems and left.categories == right.categories
    np.testing.assert_array_equal(left.a, right.a)
    np.testing.assert_array_equal(left.b, right.b)
    np.testing.assert_array_equal(left.outcome, right.outcome)
    np.testing.assert_array_equal(left.bothbad, right.bothbad)
    np.testing.assert_array_equal(left.category, right.category)
    np.testing.assert_allclose(left.weight, right.weight, rtol=1e-14)
    assert left.covariate_names == right.covariate_names
    np.testing.assert_allclose(left.covariates, right.covariates, rtol=1e-14, atol=1e-15)  # JSONL: 15 digits


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".tsv", ".jsonl"])
def test_style_and_category_round_trip_without_options(tmp_path, suffix):
    out = tmp_path / f"styled{suffix}"
    result = run("convert", BATTLES, out, "--style-control", "--category", "language")
    assert result.exit_code == 0, result.output
    assert "with covariates length, headers, lists, bold" in result.output
    original = humeval.read(BATTLES, style=True, category="language").comparisons
    back = humeval.read(out).comparisons
    same(back, original)
    assert back.bothbad.tolist() == [False, False, False, True, False, True, False, False]
    # q1's length feature by hand: (300 − 100) / (300 + 100 + 1)
    assert back.covariates[0, 0] == pytest.approx(200 / 401, abs=1e-12)


def test_weights_and_column_differences_round_trip(tmp_path):
    out = tmp_path / "votes.parquet"
    result = run("convert", WEIGHTS, out, "--weight", "weight", "--covariates", "len_a/len_b,style_diff",
                 "--category", "category", "--json")
    assert result.exit_code == 0, result.output
    written = json.loads(result.output)["comparisons"]
    # 7 rows: one without style_diff, one without a weight, one of weight 0 are skipped
    assert written["rows"] == 4 and written["covariates"] == ["len_a-len_b", "style_diff"]
    header = pd.read_parquet(out).columns.tolist()
    assert header[-2:] == ["cov:len_a-len_b", "cov:style_diff"] and "weight" in header
    back = humeval.read(out).comparisons
    same(back, humeval.read(WEIGHTS, weight="weight", covariates="len_a/len_b,style_diff",
                             category="category").comparisons)
    assert back.weight.tolist() == [2.0, 1.0, 0.5, 3.0]
    assert back.covariates[:, 0].tolist() == [200.0, -100.0, 0.0, -180.0]


def test_reading_back_chooses_or_refuses_covariates(tmp_path):
    out = tmp_path / "styled.csv"
    assert run("convert", BATTLES, out, "--style-control", "-q").exit_code == 0
    assert humeval.read(out, covariates=False).comparisons.covariate_names == ()
    only = humeval.read(out, covariates="bold").comparisons  # NAME finds column cov:NAME
    assert only.covariate_names == ("bold",)
    np.testing.assert_allclose(only.covariates[:, 0], humeval.read(BATTLES, style=True).comparisons.covariates[:, 3])
    result = run("rank", out, "-m", "trueskill")
    assert result.exit_code == 2 and "--covariates none" in result.output, result.output
    assert run("rank", out, "-m", "trueskill", "--covariates", "none").exit_code == 0
    result = run("rank", out, "-m", "bt", "--covariates", "none", "--style-control")
    assert result.exit_code == 2 and "pick one" in result.output, result.output


def test_a_covariate_named_like_a_column_keeps_both(tmp_path):
    """A covariate called 'weight' is written as cov:weight and cannot overwrite the weights."""
    c = humeval.read(WEIGHTS, covariates="len_a/len_b", weight="weight").comparisons
    c = type(c)(a=c.a, b=c.b, outcome=c.outcome, weight=c.weight, systems=c.systems, covariates=c.covariates,
                covariate_names=("weight",))
    df = pairwise_frame(c)
    assert COVARIATE_PREFIX + "weight" in df and df["weight"].tolist() == [2.0, 1.0, 0.5, 1.0, 3.0]
    path = tmp_path / "x.csv"
    df.to_csv(path, index=False)
    same(humeval.read(path).comparisons, c)


def test_both_bad_policies_are_written(tmp_path):
    loss, drop = tmp_path / "loss.csv", tmp_path / "drop.csv"
    result = run("convert", BATTLES, loss, "--both-bad", "loss")
    assert result.exit_code == 0 and "a loss for both systems" in result.output, result.output
    written = pd.read_csv(loss)
    assert len(written) == 8 - 2 + 4  # two both-bad battles → two anchor wins each
    assert (written["system_a"] == "(both bad)").sum() == 4 and "bothbad" not in written
    assert run("convert", BATTLES, drop, "--both-bad", "drop", "-q").exit_code == 0
    assert len(pd.read_csv(drop)) == 6
    result = run("convert", FIXTURES / "wmt10_small.csv", tmp_path / "w.csv", "--both-bad", "drop")
    assert result.exit_code == 0, result.output  # rankings expand to comparisons: no both-bad ties to drop
