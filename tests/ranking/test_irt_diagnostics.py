"""Split-R̂ and bulk ESS (Vehtari et al. 2021) for the Gibbs models, across chains."""

import numpy as np
import pandas as pd
import pytest

from humeval.ranking import IRTCategorical, IRTGaussian
from humeval.ranking.irt import bulk_ess, ess, split_rhat
from humeval.simulate import simulate_competition


def test_rhat_and_ess_of_independent_draws():
    draws = np.random.default_rng(1).standard_normal((4, 1000))
    assert split_rhat(draws) == pytest.approx(1.0, abs=0.01)
    assert ess(draws) == pytest.approx(4000, rel=0.1)
    assert bulk_ess(draws) == pytest.approx(4000, rel=0.1)


def test_ess_of_an_autoregressive_chain():
    """AR(1) with φ = 0.8: τ = (1 + φ)/(1 − φ) = 9, so ESS ≈ 8000 / 9 ≈ 889."""
    rng = np.random.default_rng(2)
    x = np.zeros((4, 2000))
    noise = rng.standard_normal(x.shape)
    for t in range(1, x.shape[1]):
        x[:, t] = 0.8 * x[:, t - 1] + noise[:, t]
    assert ess(x) == pytest.approx(889, rel=0.2)


def test_rhat_by_hand_and_for_chains_that_disagree():
    # Gelman–Rubin on two split halves per chain: chains offset by 0, 0.5, 1, 1.5 sd never agree
    draws = np.random.default_rng(1).standard_normal((4, 1000)) + np.arange(4)[:, None] * 0.5
    assert split_rhat(draws) > 1.1
    # a trend inside one chain is caught by the split: first half 0, second half 3
    trend = np.concatenate([np.zeros(50), np.full(50, 3.0)]) + np.random.default_rng(3).normal(0, 0.1, 100)
    assert split_rhat(trend[None, :]) > 2
    assert np.isnan(split_rhat(np.ones((2, 10)))) and np.isnan(split_rhat(np.zeros((2, 3))))


@pytest.fixture(scope="module")
def small():
    return simulate_competition(n_systems=4, n_items=200, n_judgments=200, design="pairs",
                                random_state=3).comparisons


def test_well_mixed_chains_give_rhat_near_one(small):
    # 5,000 kept sweeps per chain: over 12 seeds the largest R̂ was 1.012–1.020 and the smallest
    # ESS 218–327 (at 1,500 kept sweeps R̂ still reached 1.03–1.18 for either sweep, by chance)
    model = IRTGaussian(iterations=6000, burn_in=1000, chains=4, random_state=0).fit(small)
    assert model.rhat_.max() < 1.04
    assert model.ess_.min() > 120
    assert len(model.samples_) == 4 * 5000
    assert "4 chains × 5000 kept sweeps" in model.convergence()


@pytest.mark.parametrize("model", [IRTGaussian, IRTCategorical])
def test_a_short_chain_is_flagged(small, model):
    fitted = model(iterations=10, burn_in=0, chains=4, random_state=0).fit(small)
    assert fitted.rhat_.max() > 1.1
    assert "run longer chains" in fitted.convergence()
    assert list(fitted.diagnostics().columns) == ["score", "rhat", "ess"]


def test_one_chain_is_unchanged_and_chains_are_reproducible(small):
    one = IRTGaussian(iterations=30, burn_in=10, random_state=5).fit(small)
    again = IRTGaussian(iterations=30, burn_in=10, random_state=5, chains=1).fit(small)
    np.testing.assert_array_equal(one.samples_, again.samples_)
    a = IRTGaussian(iterations=30, burn_in=10, random_state=5, chains=3).fit(small)
    b = IRTGaussian(iterations=30, burn_in=10, random_state=5, chains=3).fit(small)
    np.testing.assert_array_equal(a.samples_, b.samples_)
    assert not np.array_equal(a.samples_[:20], a.samples_[20:40])  # the chains differ
    with pytest.raises(ValueError, match="chains must be a whole number"):
        IRTGaussian(iterations=30, burn_in=10, chains=0).fit(small)


def test_rank_prints_the_diagnostics_with_chains(tmp_path):
    from click.testing import CliRunner

    from humeval.cli import cli
    from humeval.data.export import write
    c = simulate_competition(n_systems=4, n_items=100, n_judgments=150, design="pairs", random_state=1).comparisons
    frame = c.to_pandas()
    write(pd.DataFrame({"question_id": frame["item"], "model_a": frame["a"], "model_b": frame["b"],
                        "winner": frame["outcome"].map({0: "tie", 1: "model_a", 2: "model_b"})}), tmp_path / "c.csv")
    run = lambda *args: CliRunner().invoke(cli, ["rank", str(tmp_path / "c.csv"), "-m", "irt-gaussian", *args])
    result = run("--chains", "3")
    assert result.exit_code == 0, result.output
    assert "3 chains × 150 kept sweeps: max split-R̂" in result.output
    assert "split-R̂" not in run().output
    bad = run("--chains", "0")
    assert bad.exit_code == 2 and "--chains" in bad.output
    other = CliRunner().invoke(cli, ["rank", str(tmp_path / "c.csv"), "-m", "bt", "--chains", "2"])
    assert other.exit_code == 2 and "applies to the Gibbs models" in other.output
