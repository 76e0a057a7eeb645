"""``humeval rank --model mixed|ordinal`` on ratings files, and ``rank_fitted``."""

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from click.testing import CliRunner

from humeval.cli import cli
from humeval.ratings.fitted import rank_fitted, wald_pvalues
from humeval.simulate.ratings import simulate_ratings


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def csv_of(sim, path):
    sim.ratings.to_pandas()[["item", "system", "judge", "score"]].to_csv(path, index=False)
    return path


def test_rank_mixed_json(tmp_path):
    sim = simulate_ratings(n_systems=3, n_items=60, n_judges=12, n_ratings=2000, sigma_system=15.0, random_state=3)
    result = run("rank", csv_of(sim, tmp_path / "da.csv"), "--model", "mixed", "--json", "--bootstrap", 20)
    assert result.exit_code == 0, result.output
    (track,) = json.loads(result.output).values()
    assert track["model"] == "mixed" and track["test"] == "wald"
    rows = track["table"]
    truth = sim.truth.effects.sort_values(ascending=False)
    assert [r["system"] for r in rows] == truth.index.tolist()
    assert [r["cluster"] for r in rows] == [1, 2, 3]
    # scale a_j ≈ 1 on average: the spread of the system means follows the planted effects
    assert rows[0]["mixed"] - rows[2]["mixed"] == pytest.approx(truth.iloc[0] - truth.iloc[2], rel=0.1)
    assert all(r["lo"] < r["mixed"] < r["hi"] for r in rows)
    assert any("--bootstrap not used by the mixed model" in n for n in track["notes"])


def test_rank_ordinal_on_likert_file(tmp_path):
    sim = simulate_ratings(n_systems=3, n_items=40, n_judges=8, n_ratings=1500, levels=5, sigma_system=1.0,
                           sigma_segment=0.5, sigma_bias=0.5, random_state=0)
    result = run("rank", csv_of(sim, tmp_path / "likert.csv"), "--model", "ordinal", "--out", tmp_path / "o.csv")
    assert result.exit_code == 0, result.output
    table = pd.read_csv(tmp_path / "o.csv")
    truth = sim.truth.effects.sort_values(ascending=False)
    assert table["system"].tolist() == truth.index.tolist()
    assert {"raw", "ordinal", "se", "lo", "hi", "wins", "cluster"} <= set(table.columns)
    assert "ordinal model (cumulative logit, 5 levels)" in result.output


def test_ordinal_refuses_a_slider(tmp_path):
    sim = simulate_ratings(n_systems=3, n_items=20, n_judges=4, n_ratings=300, random_state=4)
    result = run("rank", csv_of(sim, tmp_path / "da.csv"), "--model", "ordinal")
    assert result.exit_code == 2 and "for Likert scales of at most 11 levels" in result.output
    assert "Traceback" not in result.output


def test_wald_pvalues_by_hand():
    est = np.array([1.0, 0.0])
    cov = np.array([[0.25, 0.05], [0.05, 0.16]])
    p = wald_pvalues(est, cov)
    z = 1.0 / np.sqrt(0.25 + 0.16 - 0.1)
    assert p[0, 1] == pytest.approx(stats.norm.sf(z))
    assert p[1, 0] == pytest.approx(stats.norm.cdf(z))
    assert p[0, 0] == 1.0


def test_rank_fitted_leaves_humans_out_of_the_table_but_fits_them():
    sim = simulate_ratings(n_systems=4, n_items=60, n_judges=10, n_ratings=3000, random_state=1)
    r = sim.ratings
    renamed = r._rebuild(dict(r._cols), dict(r._labels, systems=("HUMAN-A", "sys02", "sys03", "sys04")))
    with_human = rank_fitted(renamed, "mixed")
    without = rank_fitted(renamed, "mixed", human=False)
    assert "HUMAN-A" in with_human.table.index and "HUMAN-A" not in without.table.index
    np.testing.assert_allclose(without.table["mixed"], with_human.table.loc[without.table.index, "mixed"])
    assert any("still fitted" in n for n in without.notes)
    with pytest.raises(ValueError, match="unknown fitted model"):
        rank_fitted(r, "irt")


def test_rank_heldout_says_which_model_predicts_best(tmp_path):
    sim = simulate_ratings(n_systems=4, n_items=60, n_judges=12, n_ratings=2000, random_state=5)
    path = csv_of(sim, tmp_path / "da.csv")
    result = run("rank", path, "--heldout")
    assert result.exit_code == 0, result.output
    assert "held-out ratings (400), log density per rating" in result.output
    assert "predicts the held-out ratings best" in result.output
    result = run("rank", path, "--heldout", "--json")
    (track,) = json.loads(result.output).values()
    assert track["heldout"]["best"].startswith("mixed")
    assert {r["model"] for r in track["heldout"]["table"]} == {"raw", "z-mean", "mixed", "mixed-scale"}
