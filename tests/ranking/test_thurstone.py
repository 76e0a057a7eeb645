"""Thurstone–Mosteller (probit link): hand-worked maximum likelihood, a general optimiser with the
prior and covariates, the compiled covariate bootstrap, the scale, and the CLI."""

import json

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.optimize import minimize
from scipy.special import log_ndtr, ndtri

from conftest import FIXTURES
from helpers import assert_covariate_bootstrap_is_newton
from humeval.cli import cli
from humeval.data import Comparisons
from humeval.ranking import Thurstone
from humeval.experiments.checks import check_model


def test_two_systems_by_hand():
    """a preferred in 7 of 10: the maximum-likelihood difference is Φ⁻¹(0.7) = 0.5244; a tie is half a win."""
    c = Comparisons(a=np.zeros(10, dtype=int), b=np.ones(10, dtype=int), outcome=[1] * 7 + [2] * 3, systems=("a", "b"))
    model = Thurstone(l2=0).fit(c)
    assert model.scores_["a"] - model.scores_["b"] == pytest.approx(ndtri(0.7), abs=1e-9)
    assert model.scores_["a"] == pytest.approx(0.5244005 / 2, abs=1e-6)
    ties = Comparisons(a=np.zeros(10, dtype=int), b=np.ones(10, dtype=int), outcome=[1] * 6 + [0] * 2 + [2] * 2,
                       systems=("a", "b"))
    assert np.diff(Thurstone(l2=0).fit(ties).scores_.to_numpy())[0] == pytest.approx(-ndtri(0.7), abs=1e-9)
    p = model.predict_proba(["a"], ["b"])[0]
    assert p == pytest.approx([0.0, 0.7, 0.3], abs=1e-9)
    assert model.scale_ == "probit units, mean 0"


def data(seed=0, n=5, size=400):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, size)
    b = (a + rng.integers(1, n, size)) % n
    z = rng.normal(0, 1, (size, 1))
    x = np.linspace(0.5, -0.5, n)[a] - np.linspace(0.5, -0.5, n)[b] + 0.6 * z[:, 0]
    outcome = np.where(rng.random(size) < np.exp(log_ndtr(x)), 1, 2)
    return Comparisons(a=a, b=b, outcome=outcome, systems=tuple(f"s{i}" for i in range(n)), covariates=z,
                       covariate_names=("len",))


def test_map_with_covariates_matches_a_general_optimiser():
    c = data()
    model = Thurstone(l2=0.5).fit(c)
    n = len(c.systems)

    def negative(v):
        x = v[c.a] - v[c.b] + c.covariates[:, 0] * v[n]
        lp = np.where(c.outcome == 1, log_ndtr(x), log_ndtr(-x))
        return -lp.sum() + 0.25 * np.sum((v[:n] - v[:n].mean()) ** 2) + np.sum(v[:n]) ** 2
    v = minimize(negative, np.zeros(n + 1), method="BFGS", options={"gtol": 1e-9}).x
    np.testing.assert_allclose(model.scores_.to_numpy(), v[:n] - v[:n].mean(), atol=2e-5)
    assert model.coef_["len"] == pytest.approx(v[n], abs=2e-5)
    assert model.coef_["len"] == pytest.approx(0.6, abs=0.2)  # the planted effect


def test_compiled_covariate_bootstrap_equals_newton_on_each_resample():
    c = data(1, size=300)
    model = Thurstone().fit(c)
    samples = assert_covariate_bootstrap_is_newton(model, c, seed=4)
    assert np.std(samples[:, 0]) > 0


def test_elo_scale_is_refused_and_the_model_conforms():
    with pytest.raises(ValueError, match="probit units"):
        Thurstone(scale="elo").fit(data())
    check_model("thurstone")


def test_rank_compare_models_and_report(tmp_path):
    runner = CliRunner()
    styled = runner.invoke(cli, ["rank", str(FIXTURES / "arena_battles.json"), "-m", "thurstone", "--style-control",
                                 "--bootstrap", "20"])
    assert styled.exit_code == 0 and "probit units" in styled.output, styled.output
    assert "separate the outcomes" in " ".join(styled.output.split())
    analytic = runner.invoke(cli, ["rank", str(FIXTURES / "wmt10_small.csv"), "-m", "thurstone", "--intervals",
                                   "fisher", "--json"])
    assert analytic.exit_code == 0, analytic.output
    rows = next(iter(json.loads(analytic.stdout).values()))
    assert all(np.isfinite(r["lower"]) and r["upper"] > r["lower"] for r in rows)
    curves = runner.invoke(cli, ["compare-models", str(FIXTURES / "wmt10_small.csv"), "-m", "thurstone,bt",
                                 "--sizes", "50", "--trials", "1", "--min-test", "30", "--json"])
    assert curves.exit_code == 0, curves.output
    mean = {r["model"]: r for r in json.loads(curves.stdout)["mean_perplexity"]}
    assert 1 < mean["thurstone"]["50"] < 3  # better than the uniform guess (3)
    out = tmp_path / "r.md"
    report = runner.invoke(cli, ["report", str(FIXTURES / "wmt10_small.csv"), "-o", str(out), "-m", "thurstone,bt",
                                 "--bootstrap", "20", "--trials", "1", "--quiet"])
    assert report.exit_code == 0, report.output
    assert "thurstone" in out.read_text()
