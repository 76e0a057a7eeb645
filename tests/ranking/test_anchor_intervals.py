"""Simultaneous analytic intervals with a both-bad anchor (``--both-bad loss``): the max-|t|
critical value counts the real systems only. Checked against the exact bivariate-normal value
(scipy's multivariate normal CDF) for two systems, against the old all-systems value, and, without
an anchor, against ``model.intervals``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.optimize import brentq
from scipy.stats import multivariate_normal

from humeval.cli import cli
from humeval.data.tables import Comparisons
from humeval.ranking import BradleyTerry, Davidson
from humeval.ranking.boards import ANCHOR, analytic_intervals, both_bad


def two_systems() -> Comparisons:
    """A beats B 30 times, B beats A 20 times, 20 both-bad ties."""
    return Comparisons(a=[0] * 70, b=[1] * 70, outcome=[1] * 30 + [2] * 20 + [0] * 20,
                       bothbad=[False] * 50 + [True] * 20, systems=("A", "B"))


def exact_box(rho: float, confidence: float) -> float:
    """c with P(|Z₁| ≤ c, |Z₂| ≤ c) = confidence for standard normals of correlation rho."""
    law = multivariate_normal([0, 0], [[1, rho], [rho, 1]])
    box = lambda x: law.cdf([x, x]) - 2 * law.cdf([x, -x]) + law.cdf([-x, -x])
    return brentq(lambda x: box(x) - confidence, 1, 5)


def test_critical_value_counts_the_real_systems_only():
    comparisons, _ = both_bad(two_systems(), "loss")
    model = BradleyTerry().fit(comparisons)
    assert model.systems_ == ("A", "B", ANCHOR)
    table = analytic_intervals(model)
    # in the model's own gauge (mean 0 over A, B and the anchor) A and B correlate: ρ ≈ 0.39
    cov = model.covariance().to_numpy()[:2, :2]
    rho = cov[0, 1] / np.sqrt(cov[0, 0] * cov[1, 1])
    assert exact_box(rho, 0.95) == pytest.approx(2.2226, abs=1e-3)
    # the table re-centres the scores on A and B (mean 0 over them): A' = (A − B)/2 = −B', so ρ = −1 and the box
    # of the two is one interval: the simultaneous value is the pointwise z
    assert table.loc[["A", "B"], "score"].sum() == pytest.approx(0, abs=1e-12)
    assert table.loc["A", "std"] == pytest.approx(table.loc["B", "std"], rel=1e-9)
    assert table.loc["A", "std"] ** 2 == pytest.approx((cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]) / 4, rel=1e-9)
    assert table.attrs["simultaneous_value"] == pytest.approx(1.959964, abs=5e-3)  # 200,000 draws
    counted = model.intervals(simultaneous=True).attrs["critical_value"]  # the anchor counted (before)
    assert counted > 1.959964 + 0.03
    s = table.loc["A"]
    assert s["sim_upper"] - s["score"] == pytest.approx(table.attrs["simultaneous_value"] * s["std"], rel=1e-12)
    assert s["upper"] - s["score"] == pytest.approx(1.959964 * s["std"], rel=1e-6)


@pytest.mark.parametrize("model", [BradleyTerry(), Davidson()])
def test_without_an_anchor_equals_model_intervals(model):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, 400)
    b = (a + rng.integers(1, 4, 400)) % 4
    comparisons = Comparisons(a=a, b=b, outcome=rng.integers(0, 3, 400), systems=tuple("ABCD"))
    fitted = model.fit(comparisons)
    table = analytic_intervals(fitted, "sandwich", 0.9, random_state=3)
    pointwise = fitted.intervals("sandwich", 0.9, random_state=3)
    together = fitted.intervals("sandwich", 0.9, simultaneous=True, random_state=3)
    np.testing.assert_array_equal(table[["score", "std", "lower", "upper"]].to_numpy(),
                                  pointwise[["score", "std", "lower", "upper"]].to_numpy())
    np.testing.assert_array_equal(table["sim_lower"].to_numpy(), together["lower"].to_numpy())
    np.testing.assert_array_equal(table["sim_upper"].to_numpy(), together["upper"].to_numpy())


def test_rank_prints_the_real_systems_critical_value(tmp_path):
    path = tmp_path / "battles.csv"
    c = two_systems()
    rows = ["model_a,model_b,winner"] + [f"A,B,{w}" for w in ["model_a"] * 30 + ["model_b"] * 20
                                          + ["tie (bothbad)"] * 20]
    path.write_text("\n".join(rows) + "\n")
    result = CliRunner().invoke(cli, ["rank", str(path), "-m", "bt", "--both-bad", "loss", "--intervals", "fisher",
                                      "--json"])
    assert result.exit_code == 0, result.output
    (rows,) = json.loads(result.output).values()
    assert [r["system"] for r in rows] == ["A", "B"]  # the anchor set aside
    expected = analytic_intervals(BradleyTerry().fit(both_bad(c, "loss")[0]))
    for r in rows:
        assert r["sim_lower"] == pytest.approx(expected.loc[r["system"], "sim_lower"], abs=1e-9)
        assert r["sim_upper"] == pytest.approx(expected.loc[r["system"], "sim_upper"], abs=1e-9)
