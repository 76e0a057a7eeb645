"""Whole-number weights are frequencies, in the bootstrap too: a weight k is k copies of the row
(a streamed dataset's rows are counts of battles), so resampling a weighted table draws the same
resamples as resampling the duplicated rows — with the same random numbers, the same scores."""

import numpy as np
import pytest

from humeval.data.tables import Comparisons
from humeval.ranking import BradleyTerry, Davidson, RaoKupper
from humeval.ranking.base import integral


def _table(seed=3, n=400, k=5):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, n)) % k
    p = 1 / (1 + np.exp(-(a - b) * 0.4))
    u = rng.random(n)
    outcome = np.where(u < 0.2, 0, np.where(u < 0.2 + 0.8 * p, 1, 2))
    weight = rng.integers(1, 4, n).astype(float)
    return Comparisons(a=a, b=b, outcome=outcome, weight=weight, systems=[f"s{i}" for i in range(k)])


def _duplicated(c: Comparisons) -> Comparisons:
    rows = np.repeat(np.arange(len(c)), c.weight.astype(int))
    return Comparisons(a=c.a[rows], b=c.b[rows], outcome=c.outcome[rows], systems=c.systems)


def test_integral_tells_frequencies_from_fractional_weights():
    assert integral(None) and integral(np.array([1.0, 3.0, 12.0]))
    assert not integral(np.array([1.0, 0.5]))


@pytest.mark.parametrize("model", [BradleyTerry, Davidson, RaoKupper])
def test_integer_weights_bootstrap_like_duplicated_rows(model):
    weighted = _table()
    copies = _duplicated(weighted)
    assert len(copies) == int(weighted.weight.sum()) > len(weighted)
    fit_w, fit_c = model().fit(weighted), model().fit(copies)
    np.testing.assert_allclose(fit_w.scores_, fit_c.scores_, atol=1e-10)
    boot_w = fit_w.bootstrap_scores(weighted, None, 200, np.random.default_rng(7))
    boot_c = fit_c.bootstrap_scores(copies, None, 200, np.random.default_rng(7))
    # the spread is that of the duplicated rows' bootstrap (Σw comparisons), not of the distinct rows'
    # one multinomial of Σw comparisons over the same cell counts: the very draws of the copies
    np.testing.assert_allclose(boot_w, boot_c, atol=1e-8)
    assert boot_w.std(axis=0).min() > 0


def test_fractional_weights_resample_rows_as_units():
    c = _table()
    half = Comparisons(a=c.a, b=c.b, outcome=c.outcome, weight=c.weight / 2, systems=c.systems)
    fit = BradleyTerry().fit(half)
    boot = fit.bootstrap_scores(half, None, 200, np.random.default_rng(7))
    # the rows (400), not Σw/… comparisons, are the units: the spread is that of 400 rows
    rows = BradleyTerry().fit(Comparisons(a=c.a, b=c.b, outcome=c.outcome, systems=c.systems))
    boot_rows = rows.bootstrap_scores(Comparisons(a=c.a, b=c.b, outcome=c.outcome, systems=c.systems), None, 200,
                                      np.random.default_rng(7))
    ratio = boot.std(axis=0) / boot_rows.std(axis=0)
    assert np.all(ratio > 0.7) and np.all(ratio < 1.4)


def test_refitted_bootstrap_draws_frequencies_too():
    # a model without a fast bootstrap (expected wins) refits on resamples; with whole-number weights
    # the resample draws Σw comparisons, so its spread is that of the duplicated rows
    from humeval.experiments.bootstrap import bootstrap
    from humeval.ranking import MODELS
    weighted = _table(n=300)
    copies = _duplicated(weighted)
    model = MODELS["expected-wins"]()
    spread_w = bootstrap(model, weighted, n=300, random_state=1).samples.std(axis=0)
    spread_c = bootstrap(model, copies, n=300, random_state=1).samples.std(axis=0)
    np.testing.assert_allclose(spread_w, spread_c, rtol=0.25)
    # resampling the 300 distinct rows instead would be wider by about sqrt(Σw / 300) ≈ 1.4
    assert spread_w.mean() < 1.2 * spread_c.mean()


@pytest.mark.parametrize("model", [BradleyTerry, Davidson, RaoKupper])
def test_a_few_rows_standing_for_many_battles_bootstrap_in_bounded_memory(model):
    # 9 distinct rows standing for 3·10⁸ battles (a streamed table): the resample is one multinomial
    # over the cells, never a row per battle (which would need gigabytes here)
    c = _table(n=9, k=3)
    big = Comparisons(a=c.a, b=c.b, outcome=c.outcome, weight=np.full(9, 3e7) + np.arange(9), systems=c.systems)
    fit = model().fit(big)
    boot = fit.bootstrap_scores(big, None, 20, np.random.default_rng(0))
    assert np.isfinite(boot).all()
    # with 3·10⁸ comparisons the spread is tiny: about 1/sqrt(3·10⁸ / 3) in log-odds
    assert boot.std(axis=0).max() < 1e-3
