"""The compiled Davidson / Rao–Kupper bootstrap (``_pair_kernel``) against the Python solver.

Every resample's counts are drawn again from the same seeds (or units from the same generator)
and refitted by ``_refit_counts`` (the robust Newton path, started from the full-data fit); the
compiled scores must agree to 1e-8.
"""

import numpy as np
import pytest

from humeval.data import Comparisons
from humeval.ranking import Davidson, RaoKupper
from humeval.ranking import _pair_kernel
from humeval.ranking.bradley_terry import TIE_BOUND, _bootstrap_cells, _PairModel, _row_keys, resample_counts

SEED_MAX = 2 ** 31 - 1


def simulate(n_systems=6, size=900, seed=0, weights=None, rare=False):
    """Davidson-distributed comparisons (ν = 0.6) with abilities spread over 2 logits; items of
    5 comparisons each (the bootstrap units); ``rare``: the last system compared once, so about
    a third of the resamples ((1 − 1/n)^n ≈ e⁻¹) leave it out."""
    rng = np.random.default_rng(seed)
    theta = np.linspace(-1, 1, n_systems)
    a = rng.integers(0, n_systems, size)
    b = (a + rng.integers(1, n_systems, size)) % n_systems
    if rare:
        last = n_systems - 1
        a = np.where(a == last, 0, a)
        b = np.where((b == last) | (b == a), (a + 1) % (n_systems - 1), b)
        a[0], b[0] = last, 0
    u = (theta[a] - theta[b]) / 2
    p = np.column_stack([np.full(size, 0.6), np.exp(u), np.exp(-u)])
    p /= p.sum(axis=1, keepdims=True)
    outcome = (rng.random(size)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    kw = {} if weights is None else {"weight": weights(rng, size)}
    return Comparisons(a=a, b=b, outcome=outcome, item=np.arange(size) // 5,
                       items=tuple(f"i{k}" for k in range(size // 5 + 1)),
                       systems=tuple(f"s{i}" for i in range(n_systems)), **kw)


def python_refits(model, c, unit, n, seed):
    """Each resample of the compiled bootstrap, redrawn and refitted by the Python solver."""
    cells = _bootstrap_cells(model, c, ordered=bool(model.position_effect))
    rng = np.random.default_rng(seed)
    seeds = rng.integers(0, SEED_MAX, n)
    n_cells = 3 * len(cells.pi)
    weight = cells.rows(c)[1] if c.weighted else None
    if unit is not None:
        counts = resample_counts(cells.row_codes(c), c, unit, n_cells, rng)(n)
    else:
        total, key_p, key_cell, key_weight = _row_keys(cells, c, weight)
        counts = [_pair_kernel.draw(True, total, np.zeros(0), key_p, key_cell, key_weight, n_cells, s) for s in seeds]
    return np.array([model._refit_counts(cells.to_ordered(k)) for k in counts])


@pytest.mark.parametrize("model_class", [Davidson, RaoKupper])
@pytest.mark.parametrize("by_unit", [False, True])
@pytest.mark.parametrize("l2", [1.0, 0.0])
def test_compiled_equals_python_refits(model_class, by_unit, l2):
    c = simulate(seed=1)
    model = model_class(l2=l2).fit(c)
    unit = c.item.astype(np.int64) if by_unit else None
    compiled = model.bootstrap_scores(c, unit, 40, np.random.default_rng(7))
    python = python_refits(model, c, unit, 40, 7)
    assert np.isfinite(compiled).all()
    np.testing.assert_allclose(compiled, python, atol=1e-8, rtol=0)
    assert compiled.std(axis=0).min() > 0.01  # the resamples differ


@pytest.mark.parametrize("model_class", [Davidson, RaoKupper])
def test_position_effect_and_anchor_use_ordered_cells(model_class):
    c = simulate(seed=2)
    model = model_class(position_effect=True, anchor="s0", scale="elo").fit(c)
    compiled = model.bootstrap_scores(c, None, 30, np.random.default_rng(3))
    np.testing.assert_allclose(compiled, python_refits(model, c, None, 30, 3), atol=1e-6, rtol=0)  # Elo points
    assert np.all(compiled[:, 0] == 1000.0)


@pytest.mark.parametrize("model_class", [Davidson, RaoKupper])
def test_the_position_effects_prior_is_in_the_compiled_gradient(model_class):
    """With a prior on the fixed effects (``coef_l2``) the position effect h is pulled toward 0 in
    every resample as in the Python solver (the compiled gradient once left −Λh out while H₀
    had it: resamples then converged to the unpenalised h, 1e-4 to 5e-2 away)."""
    c = simulate(seed=2)
    model = model_class(position_effect=True, coef_l2=4.0).fit(c)
    assert model._phi_prec[0] == 4.0
    for unit in (None, c.item.astype(np.int64)):
        compiled = model.bootstrap_scores(c, unit, 30, np.random.default_rng(3))
        np.testing.assert_allclose(compiled, python_refits(model, c, unit, 30, 3), atol=1e-8, rtol=0)


@pytest.mark.parametrize("model_class", [Davidson, RaoKupper])
def test_weighted_rows_resampled_with_their_weights(model_class):
    c = simulate(seed=3, weights=lambda rng, n: rng.uniform(0.2, 3.0, n))
    assert c.weighted
    model = model_class().fit(c)
    assert len(_row_keys(_bootstrap_cells(model, c, ordered=False), c, c.weight)[1]) == 0  # every row a key: row draws
    compiled = model.bootstrap_scores(c, None, 30, np.random.default_rng(4))
    np.testing.assert_allclose(compiled, python_refits(model, c, None, 30, 4), atol=1e-8, rtol=0)
    unit = c.item.astype(np.int64)
    compiled = model.bootstrap_scores(c, unit, 20, np.random.default_rng(5))
    np.testing.assert_allclose(compiled, python_refits(model, c, unit, 20, 5), atol=1e-8, rtol=0)


@pytest.mark.parametrize("keys", ["rows", "multinomial"])
def test_a_resample_draws_rows_and_adds_their_weights(keys):
    # three rows in one cell with weights 0.5, 0.5 and 2: a resample of 3 rows holds k halves
    # and 3 − k doubles, so the cell's count is one of 6, 4.5, 3, 1.5; the mean over resamples
    # is the weight sum 3, and all three rows are the heavy one with probability 1/27
    if keys == "rows":
        key_p, key_cell, key_weight = np.empty(0), np.array([0, 0, 0]), np.array([0.5, 0.5, 2.0])
    else:
        key_p, key_cell, key_weight = np.array([2 / 3, 1 / 3]), np.array([0, 0]), np.array([0.5, 2.0])
    draws = np.array([_pair_kernel.draw(True, 3, np.zeros(0), key_p, key_cell, key_weight, 3, s)[0] for s in range(4000)])
    assert set(np.unique(draws)) == {1.5, 3.0, 4.5, 6.0}
    assert draws.mean() == pytest.approx(3.0, abs=0.05)
    assert np.mean(draws == 6.0) == pytest.approx(1 / 27, abs=0.01)


@pytest.mark.parametrize("model_class", [Davidson, RaoKupper])
def test_many_rows_per_cell_draw_one_multinomial(model_class):
    # fractional (design) weights: rows are the units, keyed by (cell, weight)
    c = simulate(n_systems=3, size=3000, seed=8, weights=lambda rng, n: rng.choice([1.0, 2.5], n))
    model = model_class().fit(c)
    cells = _bootstrap_cells(model, c, ordered=False)
    assert len(_row_keys(cells, c, cells.rows(c)[1])[1]) == 18  # 3 pairs × 3 outcomes × 2 weights
    # whole-number weights are frequencies: one key per cell, the duplicated rows' multinomial
    whole = simulate(n_systems=3, size=3000, seed=8, weights=lambda rng, n: rng.choice([1.0, 3.0], n))
    assert len(_row_keys(_bootstrap_cells(model_class().fit(whole), whole, ordered=False), whole, whole.weight)[1]) == 9
    compiled = model.bootstrap_scores(c, None, 30, np.random.default_rng(2))
    np.testing.assert_allclose(compiled, python_refits(model, c, None, 30, 2), atol=1e-8, rtol=0)


@pytest.mark.parametrize("model_class", [Davidson, RaoKupper])
def test_unconverged_resamples_fall_back_to_the_python_solver(model_class, monkeypatch):
    c = simulate(seed=4, rare=True)
    model = model_class().fit(c)
    calls = []
    refit = _PairModel._refit_counts
    monkeypatch.setattr(_PairModel, "_refit_counts", lambda self, counts: calls.append(1) or refit(self, counts))
    compiled = model.bootstrap_scores(c, None, 60, np.random.default_rng(6))
    left_out = np.isnan(compiled[:, -1])
    assert 10 < left_out.sum() < 35  # e⁻¹ of 60 resamples: 22 expected
    assert len(calls) >= left_out.sum()
    assert np.isfinite(compiled[:, :-1]).all()
    monkeypatch.undo()
    np.testing.assert_allclose(compiled, python_refits(model, c, None, 60, 6), atol=1e-8, rtol=0)


def test_no_ties_leaves_the_tie_parameter_at_its_bound_and_the_python_path():
    c = simulate(seed=5)
    c = c.take(c.outcome != 0)
    model = Davidson().fit(c)
    assert abs(model._tie) == TIE_BOUND
    out = model.bootstrap_scores(c, None, 5, np.random.default_rng(0))
    reference = _PairModel._refit_bootstrap(model, c, None, 5, np.random.default_rng(0))
    np.testing.assert_array_equal(out, reference)


@pytest.mark.parametrize("model_class", [Davidson, RaoKupper])
def test_spread_matches_the_python_bootstrap(model_class):
    # different random numbers (numba's per-seed streams vs numpy's multinomial), same distribution:
    # the standard deviations over 300 resamples agree within their sampling error (~ 4 % each)
    c = simulate(seed=6, size=3000)
    model = model_class().fit(c)
    compiled = model.bootstrap_scores(c, None, 300, np.random.default_rng(1)).std(axis=0)
    python = _PairModel._refit_bootstrap(model, c, None, 300, np.random.default_rng(1)).std(axis=0)
    np.testing.assert_allclose(compiled, python, rtol=0.15)
