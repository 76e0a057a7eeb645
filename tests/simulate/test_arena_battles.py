"""The README's arena battles file (humeval.simulate.write_arena_battles, `humeval simulate
--design battles`): FastChat's clean_battle layout that reads back as arena battles with the
counts the README quotes, both-bad ties and the style features of its conv_metadata."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import humeval
from humeval.cli import cli
from humeval.errors import InputError
from humeval.simulate import arena_battles, write_arena_battles
from humeval.simulate.battles import ARENA_MODELS, ARENA_STRENGTH


@pytest.fixture(scope="module")
def readme_file(tmp_path_factory):
    return write_arena_battles(tmp_path_factory.mktemp("arena") / "battles.json")


def test_the_readme_file_reads_back_as_arena_battles_with_its_counts(readme_file):
    records = json.loads(readme_file.read_text(encoding="utf-8"))
    assert len(records) == 4000 and set(records[0]) >= {"model_a", "model_b", "winner", "question_id", "judge",
                                                         "language", "category_tag", "conv_metadata"}
    comparisons = humeval.read(readme_file, style=True).comparisons
    assert len(comparisons) == 4000 and comparisons.systems == ARENA_MODELS
    # the README's "291 of 1,053 ties are both-bad"
    assert int((comparisons.outcome == 0).sum()) == 1053 and int(comparisons.bothbad.sum()) == 291
    assert (comparisons.outcome[comparisons.bothbad] == 0).all()
    winners = [r["winner"] for r in records]
    assert winners.count("tie (bothbad)") == 291 and winners.count("tie") == 1053 - 291
    names = [comparisons.systems[i] for i in comparisons.a]
    assert names == [r["model_a"] for r in records]
    a_won = np.array([w == "model_a" for w in winners])
    np.testing.assert_array_equal(comparisons.outcome == 1, a_won)


def test_style_features_are_fastchats_ratios_of_the_metadata_counts(readme_file):
    records = json.loads(readme_file.read_text(encoding="utf-8"))
    comparisons = humeval.read(readme_file, style=True).comparisons
    assert comparisons.covariate_names == ("length", "headers", "lists", "bold")
    meta = [r["conv_metadata"] for r in records]
    ta = np.array([m["sum_assistant_a_tokens"] for m in meta], float)
    tb = np.array([m["sum_assistant_b_tokens"] for m in meta], float)
    ha = np.array([sum(m["header_count_a"].values()) for m in meta], float)
    hb = np.array([sum(m["header_count_b"].values()) for m in meta], float)
    np.testing.assert_allclose(comparisons.covariates[:, 0], (ta - tb) / (ta + tb + 1))
    np.testing.assert_allclose(comparisons.covariates[:, 1], (ha - hb) / (ha + hb + 1))
    # the verbose models (ember-pro 700, fjord-large 800 tokens) write the longer answers
    verbose = [ARENA_MODELS.index("ember-pro"), ARENA_MODELS.index("fjord-large")]
    longer = comparisons.covariates[np.isin(comparisons.a, verbose) & ~np.isin(comparisons.b, verbose), 0] > 0
    assert longer.mean() > 0.95


def test_both_bad_share_of_ties_matches_the_simulators_probability(readme_file):
    """A tie is both-bad with probability σ(−2 (s_a + s_b) − 1.5): the share among the 1,053 ties
    is within 3 standard errors of that probability averaged over them."""
    comparisons = humeval.read(readme_file).comparisons
    strength = np.array(ARENA_STRENGTH)
    ties = comparisons.outcome == 0
    p = 1 / (1 + np.exp(2 * (strength[comparisons.a[ties]] + strength[comparisons.b[ties]]) + 1.5))
    share = comparisons.bothbad[ties].mean()
    assert abs(share - p.mean()) < 3 * np.sqrt((p * (1 - p)).sum()) / ties.sum()


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet", ".csv", ".tsv"])
def test_every_format_reads_as_the_json_array_does(tmp_path, suffix):
    first = humeval.read(write_arena_battles(tmp_path / "b.json", 300, 5), style=True,
                         category="category_tag.math_v0.1.math").comparisons
    other = humeval.read(write_arena_battles(tmp_path / f"b{suffix}", 300, 5), style=True,
                         category="category_tag.math_v0.1.math").comparisons
    for name in ("a", "b", "outcome", "bothbad", "category"):
        np.testing.assert_array_equal(getattr(other, name), getattr(first, name))
    np.testing.assert_allclose(other.covariates, first.covariates)
    assert [c.lower() for c in other.categories] == ["false", "true"]


def test_same_seed_same_bytes_and_another_seed_other_battles(tmp_path):
    one = write_arena_battles(tmp_path / "one.json", 200, 7).read_bytes()
    assert write_arena_battles(tmp_path / "two.json", 200, 7).read_bytes() == one
    assert write_arena_battles(tmp_path / "three.json", 200, 8).read_bytes() != one
    assert json.loads(one) == arena_battles(200, 7)


def test_an_unknown_ending_is_refused(tmp_path):
    with pytest.raises(InputError, match=r"cannot write battles to \.xlsx.*\.json, \.jsonl"):
        write_arena_battles(tmp_path / "b.xlsx", 10)


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert "this is a bug" not in result.output, result.output
    return result


def test_cli_writes_the_readme_file_and_takes_a_count_and_seed(tmp_path, readme_file):
    result = run("simulate", tmp_path / "battles.json", "--design", "battles")
    assert result.exit_code == 0, result.output
    assert "wrote 4,000 arena battles" in result.output and "seed 18" in result.output
    assert (tmp_path / "battles.json").read_bytes() == readme_file.read_bytes()
    result = run("simulate", tmp_path / "small.parquet", "--design", "battles", "--battles", "50",
                 "--random-state", "3", "--json")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown.pop("signature").startswith("humeval:0") and "|cmd:simulate|" in result.output  # every --json is signed
    assert shown == {"battles": 50, "output": str(tmp_path / "small.parquet"), "random_state": 3,
                     "models": list(ARENA_MODELS)}
    written = humeval.read(tmp_path / "small.parquet").comparisons
    expected = humeval.read(write_arena_battles(tmp_path / "expected.json", 50, 3)).comparisons
    np.testing.assert_array_equal(written.outcome, expected.outcome)
    assert len(written) == 50


@pytest.mark.parametrize("args, message", [
    (["b.csv", "--battles", "10"], "--battles does nothing without --design battles"),
    (["b.json", "--design", "battles", "--judges", "5"], "--judges does nothing with --design battles"),
    (["b.json", "--design", "battles", "--truth", "t.csv"], "--truth does nothing with --design battles"),
    (["b.json", "--design", "pairs"], "cannot write .json"),
    (["b.xlsx", "--design", "battles"], "cannot write .xlsx"),
    (["b.json", "--design", "battles", "--battles", "0"], "0 is not in the range"),
])
def test_cli_refusals(tmp_path, args, message):
    result = run("simulate", *[str(tmp_path / a) if a.startswith("b.") or a == "t.csv" else a for a in args])
    assert result.exit_code == 2 and message in result.output, result.output
    assert not (tmp_path / args[0]).exists()
