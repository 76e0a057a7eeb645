"""The compiled IRT-Gaussian sweep: its rejection sampler draws the truncated normal, and its
posterior is the numpy (inverse-CDF) sweep's."""

import functools

import numba
import numpy as np
import pytest
from scipy import stats

from humeval.data import Comparisons
from humeval.ranking import IRTCategorical, IRTGaussian, _irt_kernel
from humeval.ranking.base import clone
from humeval.ranking.irt import _Gibbs


@numba.njit
def _draws(seed_rng, a, b, n):
    out = np.empty(n)
    for i in range(n):
        out[i] = _irt_kernel.truncated_standard_normal(seed_rng, a, b)
    return out


# one interval per branch of the sampler: 0 inside and wide (normal rejection; finite ones of
# width ≥ √(2π) too), 0 inside and narrow (uniform), upper tail wide and narrow (exponential,
# uniform), far tails, the mirror images of each below zero, and intervals ending at zero
INTERVALS = [(-1.0, np.inf), (-2.0, 1.0), (-1.0, 2.0), (-0.3, 0.5), (-2.0, 0.2), (1.5, np.inf), (3.0, 6.0),
             (2.0, 2.2), (8.0, np.inf), (-np.inf, -1.5), (-6.0, -3.0), (-2.2, -2.0), (-np.inf, 0.3), (-0.8, 0.0),
             (0.0, 0.8), (30.0, 31.0), (-50.0, -49.9)]


@pytest.mark.parametrize("a,b", INTERVALS)
def test_sampler_draws_the_truncated_normal(a, b):
    z = _draws(np.random.default_rng(11), a, b, 40_000)
    assert z.min() >= a and z.max() <= b
    target = stats.truncnorm(a, b)
    assert stats.kstest(z, target.cdf).pvalue > 1e-3
    se = target.std() / np.sqrt(len(z))
    assert abs(z.mean() - target.mean()) < 4.5 * se


def test_sampler_detects_a_wrong_distribution():
    """The KS check above can fail: the interval's draws are not those of a neighbouring interval."""
    z = _draws(np.random.default_rng(11), 1.5, np.inf, 40_000)
    assert stats.kstest(z, stats.truncnorm(1.4, np.inf).cdf).pvalue < 1e-6


def test_degenerate_interval_and_empty_one():
    assert np.all(_draws(np.random.default_rng(0), 0.7, 0.7, 5) == 0.7)  # radius 0: a tie pins the draw
    assert np.all(_draws(np.random.default_rng(0), -0.7, -0.7, 5) == -0.7)
    with pytest.raises(ValueError, match="empty interval"):
        _draws(np.random.default_rng(0), 1.0, 0.5, 1)


def _comparisons(n=1200, systems=6, seed=0):
    rng = np.random.default_rng(seed)
    skill = np.linspace(-0.8, 0.8, systems)
    a = rng.integers(0, systems, n)
    b = (a + rng.integers(1, systems, n)) % systems
    d = skill[a] - skill[b] + rng.normal(0, 1, n)
    outcome = np.where(np.abs(d) < 0.3, 0, np.where(d > 0, 1, 2))
    return Comparisons(a=a, b=b, outcome=outcome, item=rng.integers(-1, 50, n), items=tuple(f"i{k}" for k in range(50)),
                       systems=tuple(f"s{i}" for i in range(systems)))


@pytest.mark.parametrize("radius", [0.4, 0.0])
def test_compiled_sweep_has_the_numpy_sweeps_posterior(radius):
    """Two exact samplers of the same conditionals: posterior means of the contrasts (score minus
    the sweep's mean score) agree within Monte-Carlo error; the draws themselves differ."""
    c = _comparisons()
    fits = {}
    for name in ("compiled", "numpy"):
        model = IRTGaussian(radius=radius, iterations=2500, burn_in=300, random_state=5)
        if name == "numpy":  # the generic loop over the numpy sweep, not the compiled block
            model._sweep = model._sweep_numpy
            model._sweeps = functools.partial(_Gibbs._sweeps, model)
        fits[name] = model.fit(c)
    contrast = {k: m.samples_ - m.samples_.mean(axis=1, keepdims=True) for k, m in fits.items()}
    assert not np.array_equal(fits["compiled"].samples_, fits["numpy"].samples_)
    # Monte-Carlo standard error from batch means (25 batches of 88 sweeps)
    se = {k: v[: 25 * 88].reshape(25, 88, -1).mean(axis=1).std(axis=0, ddof=1) / 5 for k, v in contrast.items()}
    diff = contrast["compiled"].mean(axis=0) - contrast["numpy"].mean(axis=0)
    assert np.all(np.abs(diff) < 4 * np.hypot(se["compiled"], se["numpy"]))
    np.testing.assert_allclose(contrast["compiled"].std(axis=0), contrast["numpy"].std(axis=0), rtol=0.15)
    # and the posterior orders the systems as simulated
    assert list(np.argsort(contrast["compiled"].mean(axis=0))) == list(range(6))


@pytest.mark.parametrize("model", [IRTGaussian(iterations=61, burn_in=13, random_state=3, chains=2),
                                   IRTCategorical(iterations=31, burn_in=7, random_state=3)])
def test_blocks_of_sweeps_draw_what_single_sweeps_draw(model):
    """Without a progress callback the sweeps run in compiled blocks (SWEEP_BLOCK at a time, the
    burn-in ending inside a block); with one, one by one with every sweep reported: same samples."""
    c = _comparisons(n=300)
    calls = []
    blocked = clone(model).fit(c)
    single = clone(model).fit(c, progress=lambda done, total: calls.append((done, total)))
    np.testing.assert_array_equal(blocked.samples_, single.samples_)
    chains = getattr(model, "chains", 1)
    assert len(blocked.samples_) == chains * (model.iterations - model.burn_in)
    assert calls == [(k, chains * model.iterations) for k in range(1, chains * model.iterations + 1)]


@pytest.mark.parametrize("params,message", [({"radius": np.inf}, "radius must be a finite number"),
                                            ({"radius": np.nan}, "radius must be a finite number"),
                                            ({"radius": -0.1}, "radius must be a finite number"),
                                            ({"sigma_obs": 1e-200}, "sigma_obs must be a positive finite"),
                                            ({"sigma_obs": np.nan}, "sigma_obs must be a positive finite"),
                                            ({"sigma_a": 0.0}, "sigma_a must be a positive finite"),
                                            ({"sigma0": np.inf}, "sigma0 must be a positive finite")])
def test_parameters_that_would_stall_the_sampler_are_refused(params, message):
    """An infinite radius or a vanishing σ makes every truncation bound infinite or NaN, where a
    rejection loop would never accept: refused before the first sweep, the model left unfitted."""
    model = IRTGaussian(iterations=3, burn_in=1, **params)
    with pytest.raises(ValueError, match=message):
        model.fit(_comparisons(n=50))
    assert not hasattr(model, "scores_")


def test_empty_or_infinite_intervals_raise_instead_of_looping():
    for a, b in [(np.inf, np.inf), (-np.inf, -np.inf), (np.nan, 1.0), (1.0, np.nan)]:
        with pytest.raises(ValueError, match="empty interval"):
            _draws(np.random.default_rng(0), a, b, 1)
    z = _draws(np.random.default_rng(0), 1e200, np.inf, 1000)  # a² would overflow: λ written without it
    assert np.all(z >= 1e200) and np.all(np.isfinite(z))
