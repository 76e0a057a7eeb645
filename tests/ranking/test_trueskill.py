import math

import numpy as np
import pytest
import trueskill
from scipy.stats import norm

from humeval.data import Comparisons
from humeval.ranking import Elo, TrueSkill
from humeval.ranking._trueskill_kernel import rate_ranking
from humeval.ranking.trueskill import draw_margin
from humeval.simulate import simulate_competition


def reference(beta, backend="scipy"):
    return trueskill.TrueSkill(mu=0.0, sigma=0.5, beta=beta, tau=0.0, draw_probability=0.25, backend=backend)


def replay_pairs(env, c):
    r = [env.create_rating() for _ in c.systems]
    for a, b, o in zip(c.a, c.b, c.outcome):
        ranks = [0, 0] if o == 0 else ([0, 1] if o == 1 else [1, 0])
        (r[a],), (r[b],) = env.rate([(r[a],), (r[b],)], ranks=ranks)
    return np.array([x.mu for x in r]), np.array([x.sigma for x in r])


@pytest.fixture(scope="module")
def campaign():
    return simulate_competition(n_systems=8, n_judgments=250, design="rankings", random_state=0)


def test_pairwise_matches_the_reference_package(campaign):
    c = campaign.comparisons
    model = TrueSkill().fit(c)
    assert model.beta_ == pytest.approx(0.5 * len(c) / 40)  # WMT's β = σ · matches / 40
    mu, sigma = replay_pairs(reference(model.beta_), c)
    np.testing.assert_allclose(model.mu_, mu, atol=1e-9, rtol=0)
    np.testing.assert_allclose(model.sigma_, sigma, atol=1e-9, rtol=0)
    # the package's default backend approximates erfc (about 1e-7): agreement to 1e-5 only
    approx_mu, _ = replay_pairs(reference(model.beta_, backend=None), c.take(np.arange(300)))
    ours = TrueSkill(beta=model.beta_).fit(c.take(np.arange(300))).mu_
    assert np.abs(ours - approx_mu).max() < 1e-5


def test_five_way_rankings_with_ties_match_the_reference(campaign):
    r = campaign.rankings
    assert (np.array([len(set(row)) for row in r.rank.tolist()]) < 5).any()  # ties present
    model = TrueSkill().fit(r)
    env = reference(0.5 * len(r) / 40)
    ratings = [env.create_rating() for _ in r.systems]
    for systems, ranks in zip(r.system, r.rank):
        for s, (new,) in zip(systems, env.rate([(ratings[s],) for s in systems], ranks=list(ranks))):
            ratings[s] = new
    np.testing.assert_allclose(model.mu_, [x.mu for x in ratings], atol=1e-9, rtol=0)
    np.testing.assert_allclose(model.sigma_, [x.sigma for x in ratings], atol=1e-9, rtol=0)


def test_single_free_for_all_updates_match():
    rng = np.random.default_rng(3)
    env = reference(0.25)
    margin = draw_margin(0.25, 0.25)
    for _ in range(200):
        k = int(rng.integers(2, 7))
        mu, sigma, ranks = rng.normal(0, 0.5, k), rng.uniform(0.1, 0.6, k), rng.integers(1, 4, k)
        result = env.rate([(env.create_rating(m, s),) for m, s in zip(mu, sigma)], ranks=list(ranks))
        new_mu, new_sigma = rate_ranking(mu, sigma, ranks.astype(np.int64), 0.25, 0.0, margin, 1e-4)
        np.testing.assert_allclose(new_mu, [x[0].mu for x in result], atol=1e-9, rtol=0)
        np.testing.assert_allclose(new_sigma, [x[0].sigma for x in result], atol=1e-9, rtol=0)


def test_draw_margin_and_predictions():
    assert draw_margin(0.25, 1.0) == pytest.approx(norm.ppf(0.625) * math.sqrt(2))
    c = Comparisons(a=[0, 1], b=[1, 2], outcome=[1, 0], systems=("A", "B", "C"))
    model = TrueSkill(beta=0.3).fit(c)
    p = model.predict_proba(["A", "B"], ["B", "A"])
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert p[0, 1] == pytest.approx(p[1, 2]) and p[0, 1] > p[0, 2]
    scale = math.sqrt(2 * 0.09 + model.sigma_[0] ** 2 + model.sigma_[1] ** 2)
    gap = model.mu_[0] - model.mu_[1]
    assert p[0, 1] == pytest.approx(1 - norm.cdf((model.margin_ - gap) / scale))


def test_orders_and_active_sampling(campaign):
    c = campaign.comparisons
    data = TrueSkill(beta=1.0).fit(c)
    shuffled = TrueSkill(beta=1.0, order="random", random_state=1).fit(c)
    assert not np.allclose(data.mu_, shuffled.mu_)
    active = TrueSkill(beta=1.0, order="active", n_matches=500, random_state=2).fit(c)
    again = TrueSkill(beta=1.0, order="active", n_matches=500, random_state=2).fit(c)
    assert active.n_matches_ == 500 and np.array_equal(active.mu_, again.mu_)
    # with one observed pair only, active sampling can only ever replay that pair
    lone = Comparisons(a=[0, 0, 1], b=[1, 1, 0], outcome=[1, 1, 2], systems=("A", "B", "C"))
    model = TrueSkill(beta=1.0, order="active", n_matches=20, random_state=0).fit(lone)
    assert np.isnan(model.scores_["C"]) and model.scores_["A"] > model.scores_["B"]
    with pytest.raises(ValueError, match="order"):
        TrueSkill(order="sorted").fit(c)


def test_elo_by_hand():
    c = Comparisons(a=[0, 1, 0], b=[1, 0, 1], outcome=[1, 1, 0], systems=("A", "B"))
    model = Elo(k=4).fit(c)
    # A beats B at 1000-1000: +2 / -2. B beats A: E_B = 1 / (1 + 10^(4/400)). Then a tie.
    e_b = 1 / (1 + 10 ** (4 / 400))
    a, b = 1002 - 4 * (1 - e_b), 998 + 4 * (1 - e_b)
    e_a = 1 / (1 + 10 ** ((b - a) / 400))
    a, b = a + 4 * (0.5 - e_a), b - 4 * (0.5 - e_a)
    assert model.scores_.tolist() == pytest.approx([a, b])
    p = model.predict_proba(["A"], ["B"])[0]
    assert p[0] == pytest.approx(1 / 3) and p.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("by", ["comparison", "ranking"])
def test_active_bootstrap_equals_refitting_each_resample(campaign, by):
    from humeval.experiments.bootstrap import units_of
    from humeval.ranking import _trueskill_kernel as kernel
    c = campaign.comparisons.take(np.arange(600))
    unit, n_units, _ = units_of(c, by)
    order = np.argsort(unit, kind="stable")
    start = np.zeros(n_units + 1, dtype=np.int64)
    np.cumsum(np.bincount(unit, minlength=n_units), out=start[1:])
    seeds = np.random.default_rng(7).integers(1, 2 ** 63, 12, dtype=np.int64)
    for params in ({}, {"beta": 0.8, "n_matches": 300}):
        model = TrueSkill(order="active", **params).fit(c)
        calls = []
        compiled = model._bootstrap(c, start, order, n_units, seeds, progress=lambda d, t: calls.append((d, t)))
        assert calls[-1] == (12, 12)
        for r, seed in enumerate(seeds):
            rows = kernel.resample_rows(seed, start, order, n_units, len(c))
            size, taken = np.bincount(unit, minlength=n_units), np.bincount(unit[rows], minlength=n_units)
            assert (taken % size == 0).all() and (taken // size).sum() == n_units  # whole units, n_units draws
            refit = TrueSkill(order="active", random_state=int(seed), **params).fit(c.take(rows))
            played = np.bincount(np.concatenate([c.a[rows], c.b[rows]]), minlength=len(c.systems)) > 0
            expected = np.where(played, refit.mu_, np.nan)
            np.testing.assert_array_equal(compiled[r], expected)
        assert np.isfinite(compiled).all() and np.unique(compiled[:, 0]).size == len(seeds)  # runs differ


def test_bootstrap_of_active_order_runs_compiled(campaign, monkeypatch):
    import importlib
    bootstrap_module = importlib.import_module("humeval.experiments.bootstrap")

    def no_refits(task):
        raise AssertionError("active order fell back to refitting in Python")

    monkeypatch.setattr(bootstrap_module, "_refit", no_refits)
    c = campaign.comparisons
    calls = []
    result = bootstrap_module.bootstrap(TrueSkill(order="active"), c, n=100, random_state=0,
                                        progress=lambda done, total: calls.append(done))
    again = bootstrap_module.bootstrap(TrueSkill(order="active"), c, n=100, random_state=0)
    np.testing.assert_array_equal(result.samples, again.samples)
    assert result.samples.shape == (100, len(c.systems)) and np.isfinite(result.samples).all()
    assert calls[-1] == 100 and calls == sorted(calls)
    # the resamples scatter around the full fit
    assert np.abs(np.nanmean(result.samples, axis=0) - result.estimate.to_numpy()).max() < \
        3 * np.nanstd(result.samples, axis=0).max()


def test_bootstrap_blocks_change_nothing(campaign):
    from humeval.ranking import _trueskill_kernel as kernel
    c = campaign.comparisons
    model = TrueSkill().fit(c)
    start, order = np.arange(len(c) + 1, dtype=np.int64), np.arange(len(c), dtype=np.int64)
    seeds = np.random.default_rng(1).integers(1, 2 ** 63, 150, dtype=np.int64)
    calls = []
    blocked = model._bootstrap(c, start, order, len(c), seeds, progress=lambda done, total: calls.append((done, total)))
    codes = kernel.pack_matches(c.a, c.b, c.outcome)
    whole, _ = kernel.bootstrap_play(len(c.systems), 0.0, 0.5, codes, start, order, len(c), seeds, model.beta_, 0.0,
                                     model.margin_)
    np.testing.assert_array_equal(blocked, whole)
    # unit u = comparison u without the lookup table: the same runs
    direct, _ = kernel.bootstrap_play(len(c.systems), 0.0, 0.5, codes, start, np.zeros(0, dtype=np.int64), len(c),
                                      seeds, model.beta_, 0.0, model.margin_)
    np.testing.assert_array_equal(blocked, whole)
    assert calls == [(64, 150), (128, 150), (150, 150)]


@pytest.mark.parametrize("by", ["comparison", "ranking"])
def test_data_order_bootstrap_equals_replaying_the_drawn_units(campaign, by):
    """Each compiled run is TrueSkill replaying its resample's units in the order drawn (β from
    the full data's size), with the units drawn by the kernel's own generator."""
    from humeval.experiments.bootstrap import units_of
    from humeval.ranking import _trueskill_kernel as kernel
    c = campaign.comparisons.take(np.arange(500))
    unit, n_units, _ = units_of(c, by)
    order = np.argsort(unit, kind="stable")
    start = np.zeros(n_units + 1, dtype=np.int64)
    np.cumsum(np.bincount(unit, minlength=n_units), out=start[1:])
    seeds = np.random.default_rng(5).integers(1, 2 ** 63, 6, dtype=np.int64)
    model = TrueSkill().fit(c)
    compiled = model._bootstrap(c, start, order, n_units, seeds)
    for r, seed in enumerate(seeds):
        state, drawn = np.uint64(seed), []
        for _ in range(n_units):
            state, u = kernel._uniform_below(np.uint64(state), n_units)
            drawn.append(order[start[u]:start[u + 1]])
        rows = np.concatenate(drawn)
        replay = TrueSkill(beta=model.beta_).fit(c.take(rows))
        played = np.bincount(np.concatenate([c.a[rows], c.b[rows]]), minlength=len(c.systems)) > 0
        np.testing.assert_allclose(compiled[r], np.where(played, replay.mu_, np.nan), rtol=0, atol=1e-12)


@pytest.mark.parametrize("order", ["data", "active"])
def test_bootstrap_threads_change_no_number(campaign, order):
    """``bootstrap(jobs=)`` sets the compiled runs' threads: one and two give the same runs (each
    run draws from its own seed), and the thread count is restored afterwards."""
    import numba

    from humeval.experiments import bootstrap
    c = campaign.comparisons
    before = numba.get_num_threads()
    one = bootstrap(TrueSkill(order=order), c, n=40, random_state=3, jobs=1).samples
    two = bootstrap(TrueSkill(order=order), c, n=40, random_state=3, jobs=2).samples
    assert numba.get_num_threads() == before
    np.testing.assert_array_equal(one, two)
    assert np.unique(one[:, 0]).size == 40  # the runs differ from each other


def test_packed_matches_unpack_to_winner_loser_draw():
    from humeval.ranking import _trueskill_kernel as kernel
    a, b, outcome = np.array([0, 3, 5, 7]), np.array([1, 2, 6, 4]), np.array([1, 2, 0, 2])
    expected = [(0, 1, 0), (2, 3, 0), (5, 6, 1), (4, 7, 0)]  # winner first; a draw keeps (a, b)
    small = kernel.pack_matches(a, b, outcome)
    big = kernel.pack_matches(a + 40_000, b + 40_000, outcome)  # beyond int32's 15-bit fields: int64
    assert small.dtype == np.int32 and big.dtype == np.int64
    for i, (w, l, d) in enumerate(expected):
        assert tuple(int(x) for x in kernel._unpack(small, i)) == (w, l, d)
        assert tuple(int(x) for x in kernel._unpack(big, i)) == (w + 40_000, l + 40_000, d)


def test_bootstrap_table_shows_the_number_it_sorts_by(campaign):
    """TrueSkill's bootstrap table: score = the mean over the runs (what the rows are sorted by,
    as WMT's tables), so the printed column has no inversions; Bradley–Terry keeps its fit."""
    from humeval.experiments import bootstrap
    from humeval.ranking import BradleyTerry
    c = campaign.comparisons
    result = bootstrap(TrueSkill(), c, n=60, random_state=1)
    table = result.table()
    np.testing.assert_array_equal(table["score"], np.nanmean(result.samples, axis=0)[
        [result.systems.index(s) for s in table.index]])
    assert table["score"].is_monotonic_decreasing and "mean over the 60 resamples" in result.score_note()
    fitted = bootstrap(BradleyTerry(), c, n=20, random_state=1)
    assert fitted.score_note() == ""
    np.testing.assert_array_equal(fitted.table()["score"], fitted.estimate[fitted.table().index])


def test_cached_normal_series_equal_the_exact_functions():
    """The bootstrap's φ and Φ come from Taylor series re-centred when an argument leaves their
    radius (``_normal_at``): relative error ≤ 1e-14 against erfc/exp for |x| ≤ 8, anywhere inside
    the radius, and the same V, W as ``_vw``."""
    from humeval.ranking import _trueskill_kernel as kernel
    cache = kernel.new_cache()
    worst = 0.0
    for x0 in np.linspace(-8, 8, 321):
        kernel._expand(x0, cache, 0)
        radius = cache[0, 1]
        for x in x0 + radius * np.array([-0.999, -0.5, 0.3, 0.999]):
            pdf, cdf = kernel._normal_at(x, cache, 0)
            assert cache[0, 0] == x0  # inside the radius: no re-centring
            worst = max(worst, abs(pdf / kernel._pdf(x) - 1), abs(cdf / kernel._cdf(x) - 1))
    assert worst < 1e-14
    pdf, cdf = kernel._normal_at(3.0, cache, 0)  # far outside: re-centred there, exact
    assert cache[0, 0] == 3.0 and (pdf, cdf) == (kernel._pdf(3.0), kernel._cdf(3.0))
    for diff, margin, draw in [(0.001, 0.3186, False), (-0.4, 0.3, True), (0.2, 0.5, True), (2.0, 0.1, False)]:
        np.testing.assert_allclose(kernel._vw_cached(diff, margin, draw, cache), kernel._vw(diff, margin, draw),
                                   rtol=1e-13)
