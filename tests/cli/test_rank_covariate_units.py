"""`rank` says in which unit its covariate coefficients are, `--standardize` puts a converted
file's raw covariates on --style-control's scale, and a tie parameter stuck at its bound is said."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from conftest import FIXTURES
from humeval.cli import cli
from humeval.simulate import write_arena_battles


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert "this is a bug" not in result.output, result.output
    return result


def coefficients(output: str) -> dict[str, float]:
    """coef NAME → estimate, from the printed coefficient table."""
    rows = [line.split("│") for line in output.splitlines() if line.strip().startswith("coef ")]
    return {row[0].strip(): float(row[1]) for row in rows}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("styled")
    battles = folder / "battles.json"
    write_arena_battles(battles)
    styled = folder / "styled.parquet"
    assert run("convert", battles, styled, "--style-control").exit_code == 0
    return battles, styled


def test_standardize_gives_a_converted_file_the_style_control_coefficients(files):
    battles, styled = files
    controlled = run("rank", battles, "-m", "bt", "--style-control", "--intervals", "fisher")
    raw = run("rank", styled, "-m", "bt", "--intervals", "fisher")
    scaled = run("rank", styled, "-m", "bt", "--intervals", "fisher", "--standardize")
    assert controlled.exit_code == raw.exit_code == scaled.exit_code == 0, raw.output
    c, r, s = coefficients(controlled.output), coefficients(raw.output), coefficients(scaled.output)
    assert c["coef length"] == pytest.approx(0.769, abs=5e-4)  # the README's figure
    assert s == pytest.approx(c, rel=1e-3)
    assert r["coef length"] / c["coef length"] > 2.5  # per raw ratio unit: the ratio's RMS is about 1/3
    flat = {name: " ".join(result.output.split()) for name, result in
            (("controlled", controlled), ("raw", raw), ("scaled", scaled))}  # titles wrap
    assert "per RMS unit: covariates standardised" in flat["controlled"]
    assert "per RMS unit: covariates standardised" in flat["scaled"]
    assert "per unit, covariates as read" in flat["raw"] and "standardised" not in flat["raw"]


def test_standardize_without_covariates_is_refused(files):
    result = run("rank", FIXTURES / "arena_battles.json", "-m", "bt", "--standardize")
    assert result.exit_code == 2 and "this file brings none" in result.output


def test_a_separating_covariate_is_named_and_its_coefficient_stays_finite():
    """Seven weighted votes in which the length difference explains every decided one: without a
    prior the coefficient is infinite (and Davidson's log ν ran to its bound, 10); the fit says the
    covariate separates the outcomes and prints finite numbers from the prior on the coefficients."""
    result = run("rank", FIXTURES / "arena_weights.csv", "-m", "davidson", "--weight", "weight", "--covariates",
                 "len_a/len_b", "--json")
    assert result.exit_code == 0
    assert "covariate 'len_a-len_b' separates the outcomes" in " ".join(result.output.split())
    shown = json.loads(result.stdout)
    rows = {r["parameter"]: r for r in shown["(coefficients)"]["(no track)"]}
    assert abs(rows["log nu"]["estimate"]) < 5 and 0 < rows["coef len_a-len_b"]["std"] < 1
    plain = run("rank", FIXTURES / "arena_weights.csv", "-m", "davidson", "--weight", "weight")
    assert plain.exit_code == 0 and "stopped at its bound" not in plain.output


def test_no_ties_put_the_tie_parameter_at_its_lower_bound_and_say_it_is_bt(tmp_path):
    """Without a single tie Rao–Kupper's η goes to 0 (log η at −10, the bound): the right answer,
    said as such — the model is Bradley–Terry's — with or without covariates."""
    path = tmp_path / "noties.csv"
    path.write_text("model_a,model_b,winner\na,b,model_a\nb,c,model_a\na,c,model_a\nc,a,model_b\nb,a,model_b\n")
    result = run("rank", path, "-m", "rao-kupper", "--intervals", "fisher")
    flat = " ".join(result.output.split())
    assert result.exit_code == 0 and "rao-kupper's tie parameter is at its lower bound (log eta = -10)" in flat
    assert "the model is Bradley–Terry's" in flat and "stopped at its bound" not in flat


def test_standardize_with_the_covariates_left_out_names_the_conflict(files):
    result = run("rank", files[1], "-m", "bt", "--standardize", "--covariates", "none")
    assert result.exit_code == 2 and "--covariates none left them out" in " ".join(result.output.split())
