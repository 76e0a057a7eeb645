"""Per-comparison weights in the Bradley–Terry family: fits, tie rate, covariance, bootstrap."""

import numpy as np
import pytest

from humeval.data import Comparisons
from humeval.ranking import BradleyTerry, Davidson, RaoKupper
from humeval.simulate import simulate_battles

MODELS = [BradleyTerry, Davidson, RaoKupper]


def base(n_battles=3_000, seed=0):
    return simulate_battles(n_systems=6, n_battles=n_battles, beta=1.0, eta=0.3, position=0.1,
                            random_state=seed).comparisons


def reweighted(c, weight, rows=None):
    rows = np.arange(len(c)) if rows is None else rows
    cols = {k: getattr(c, k)[rows] for k in ("a", "b", "outcome", "item", "judge", "track", "covariates")}
    return Comparisons(**cols, weight=weight, systems=c.systems, items=c.items, judges=c.judges, tracks=c.tracks,
                       covariate_names=c.covariate_names)


def fitted_values(model):
    out = [model.scores_.to_numpy(), model.scores_std_.to_numpy(), [model.tie_rate_, model.position_effect_]]
    if model._tie_name:
        out.append([getattr(model, f"{model._tie_name}_")])
    if model.covariate_names_:
        out += [model.coef_.to_numpy(), model.coef_std_.to_numpy()]
    return np.concatenate([np.asarray(v, dtype=float) for v in out])


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("covariates", [False, True])
def test_weights_one_equal_no_weights_exactly(model, covariates):
    c = base()
    ones = reweighted(c, np.ones(len(c)))
    plain = model(position_effect=True, covariates=covariates)
    left, right = plain.fit(c), model(position_effect=True, covariates=covariates).fit(ones)
    np.testing.assert_array_equal(fitted_values(left), fitted_values(right))
    np.testing.assert_array_equal(left.covariance("sandwich", "judge").to_numpy(),
                                  right.covariance("sandwich", "judge").to_numpy())
    np.testing.assert_array_equal(left.bootstrap_scores(c, None, 5, np.random.default_rng(1)),
                                  right.bootstrap_scores(ones, None, 5, np.random.default_rng(1)))


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("covariates", [False, True])
def test_integer_weights_equal_duplicated_rows(model, covariates):
    c = base(seed=1)
    k = np.random.default_rng(2).integers(0, 4, len(c))  # 0 to 3 copies
    weighted = model(position_effect=True, covariates=covariates).fit(reweighted(c, k.astype(float)))
    copies = model(position_effect=True, covariates=covariates).fit(reweighted(c, np.ones(k.sum()),
                                                                               np.repeat(np.arange(len(c)), k)))
    exact = 0 if not covariates else 1e-9  # pair cells sum the same integers; covariate rows sum in another order
    np.testing.assert_allclose(fitted_values(weighted), fitted_values(copies), rtol=exact, atol=exact)
    np.testing.assert_allclose(weighted.covariance().to_numpy(), copies.covariance().to_numpy(), rtol=exact or 1e-12)


def test_weighted_tie_rate_by_hand():
    c = Comparisons(a=[0, 0, 1], b=[1, 1, 0], outcome=[0, 1, 2], weight=[3.0, 1.0, 0.5], systems=("x", "y"))
    model = BradleyTerry().fit(c)
    assert model.tie_rate_ == pytest.approx(3 / 4.5)
    assert model.predict_proba(["x"], ["y"])[0, 0] == pytest.approx(3 / 4.5)


@pytest.mark.parametrize("covariates", [False, True])
def test_weights_are_frequencies_for_fisher_but_rows_stay_the_resampling_unit(covariates):
    """Halving every weight (no prior): the same scores; Fisher std √2 wider (half the
    information); the sandwich and the bootstrap, which resample comparisons, unchanged."""
    c = base(n_battles=20_000, seed=3)
    half = reweighted(c, np.full(len(c), 0.5))
    full = BradleyTerry(l2=0, covariates=covariates).fit(c)
    halved = BradleyTerry(l2=0, covariates=covariates).fit(half)
    np.testing.assert_allclose(halved.scores_.to_numpy(), full.scores_.to_numpy(), atol=1e-9)
    np.testing.assert_allclose(halved.scores_std_.to_numpy(), np.sqrt(2) * full.scores_std_.to_numpy(), rtol=1e-6)
    np.testing.assert_allclose(halved.intervals("sandwich")["std"], full.intervals("sandwich")["std"], rtol=1e-6)
    boot_full = full.bootstrap_scores(c, None, 600, np.random.default_rng(4)).std(axis=0)
    boot_half = halved.bootstrap_scores(half, None, 600, np.random.default_rng(5)).std(axis=0)
    np.testing.assert_allclose(boot_half, boot_full, rtol=0.12)  # frequencies would make it √2 (41 %) wider


def test_weighted_clustered_bootstrap_counts_weights():
    """Judge-clustered bootstrap of a weighted table equals that of the table with rows
    duplicated within their judge (the unit is the judge, so copies move together)."""
    c = base(n_battles=4_000, seed=6)
    k = np.random.default_rng(7).integers(1, 3, len(c))
    weighted = reweighted(c, k.astype(float))
    copies = reweighted(c, np.ones(k.sum()), np.repeat(np.arange(len(c)), k))
    for model in (BradleyTerry(), RaoKupper()):
        left = model.fit(weighted).bootstrap_scores(weighted, weighted.judge, 4, np.random.default_rng(8))
        right = model.fit(copies).bootstrap_scores(copies, copies.judge, 4, np.random.default_rng(8))
        np.testing.assert_allclose(left, right, atol=1e-7)
