"""WMT15/16's TrueSkill procedure (``humeval.experiments.wmt_trueskill``) against the scripts'
rules: cluster.py's trimmed rank range and boundaries by hand, and every run against a literal
re-implementation of infer_TS.py's loop (next_comparison.get, N + 1 matches, β = σ·(N+1)/40)
that rates with the reference ``trueskill`` package; the generator is the one thing shared."""

from __future__ import annotations

import math

import numpy as np
import pytest
import trueskill

from conftest import shared_file
from humeval.experiments.wmt_trueskill import WMTTrueSkillResult, wmt_alpha, wmt_rank_range, wmt_trueskill
from humeval.ranking import _trueskill_kernel as kernel
from humeval.ranking.trueskill import _play_seed
from humeval.simulate import simulate_competition


def test_alpha_is_cluster_pys():
    # int(math.ceil((n - n * 1.0 * 0.95) / 2.0)): 1000 -> 25, 999 -> ceil(24.975) = 25, 100 -> ceil(2.5) = 3
    assert [wmt_alpha(n, 0.95) for n in (1000, 999, 100, 40)] == [25, 25, 3, 1]
    assert wmt_alpha(20, 0.9) == 1


def test_rank_range_trims_alpha_at_each_end():
    # 20 runs, 90 %: alpha = 1; sorted ranks 1 1 2 … 2 3 3 3 -> keep [1:19] = 1 2 … 3 3 -> (1, 3)
    ranks = np.array([2] * 15 + [1, 1] + [3, 3, 3])
    assert wmt_rank_range(ranks, 0.9) == (1.0, 3.0)
    # one 1 and one 4 only: both trimmed -> (2, 3)
    assert wmt_rank_range(np.array([1] + [2] * 10 + [3] * 8 + [4]), 0.9) == (2.0, 3.0)
    with pytest.raises(ValueError):
        wmt_rank_range(np.array([1.0, 2.0]), 0.5)  # alpha = 1 of 2 runs: nothing left


def test_ranks_order_and_clusters_by_hand():
    """Three systems, four runs, 50 %: alpha = ceil((4 − 2) / 2) = 1, the middle two ranks kept.
    Run 3 ties A and B on μ: cluster.py's reverse sort of (μ, σ², name) puts the larger σ first."""
    mu = np.array([[0.9, 0.5, 0.1],
                   [0.8, 0.6, 0.0],
                   [0.4, 0.4, 0.3],   # A = B: B has the larger σ² and ranks first
                   [0.7, 0.2, 0.6]])
    sigma = np.array([[0.1, 0.1, 0.1], [0.1, 0.1, 0.1], [0.1, 0.2, 0.1], [0.1, 0.1, 0.1]])
    result = WMTTrueSkillResult(("A", "B", "C"), mu, sigma, 2016, np.full(4, 11), confidence=0.5)
    np.testing.assert_array_equal(result.rank_samples(), [[1, 2, 3], [1, 2, 3], [2, 1, 3], [1, 3, 2]])
    table = result.table()
    # means: A 0.7, B 0.425, C 0.25; ranks sorted A 1 1 1 2 -> (1, 1); B 1 2 2 3 -> (2, 2); C 2 3 3 3 -> (3, 3)
    assert list(table.index) == ["A", "B", "C"]
    np.testing.assert_allclose(table["score"], [0.7, 0.425, 0.25])
    np.testing.assert_allclose(table["std"], [np.std(mu[:, 0]), np.std(mu[:, 1]), np.std(mu[:, 2])])
    assert table[["rank_lo", "rank_hi"]].to_numpy().tolist() == [[1, 1], [2, 2], [3, 3]]
    assert table["cluster"].tolist() == [1, 2, 3]
    # with every run kept (alpha = 0 at a confidence of 1) B (1–3) and C (2–3) overlap: one cluster
    loose = WMTTrueSkillResult(("A", "B", "C"), mu, sigma, 2016, np.full(4, 11), confidence=1.0).table()
    assert loose[["rank_lo", "rank_hi"]].to_numpy().tolist() == [[1, 2], [1, 3], [2, 3]]
    assert loose["cluster"].tolist() == [1, 1, 1]


def script_run(c, rows, seed):
    """One run of infer_TS.py -n 2 -d 0 -s 2 on the comparisons ``rows``, literally: N + 1
    matches, β = 0.5 (N + 1) / 40; next_comparison.get picks the largest (σ², name) and an
    opponent ∝ 1/exp(|Δμ|) among the others; random.choice of that pair's judgments; rated with
    the ``trueskill`` package. The random numbers come from humeval's generator (seeded ``seed``)
    in the order the kernel draws them, so the run is comparable draw for draw."""
    names = list(c.systems)
    matches = len(rows) + 1
    env = trueskill.TrueSkill(mu=0.0, sigma=0.5, beta=0.5 * matches / 40, tau=0.0, draw_probability=0.25,
                              backend="scipy")
    rating = {s: env.create_rating() for s in names}
    judged = {}
    for i in rows:  # the pair's judgments: (a, b) rows first, then (b, a) rows, as the kernel lists them
        judged.setdefault((names[c.a[i]], names[c.b[i]]), []).append(i)
    state = np.uint64(seed)
    for _ in range(matches):
        first = sorted(((rating[s].sigma ** 2, s) for s in names), reverse=True)[0][1]
        others = [t for t in names if t != first and (judged.get((first, t)) or judged.get((t, first)))]
        weights = [math.exp(-abs(rating[first].mu - rating[t].mu)) for t in others]
        state, u = kernel._uniform(np.uint64(state))
        u *= sum(weights)
        pick, acc = 0, weights[0]
        while acc < u and pick < len(others) - 1:
            pick += 1
            acc += weights[pick]
        second = others[pick]
        pool = judged.get((first, second), []) + judged.get((second, first), [])
        state, j = kernel._uniform_int(np.uint64(state), len(pool))
        i = pool[int(j)]
        a, b = names[c.a[i]], names[c.b[i]]
        if c.outcome[i] == 0:
            rating[a], rating[b] = env.rate_1vs1(rating[a], rating[b], drawn=True)
        else:
            w, l = (a, b) if c.outcome[i] == 1 else (b, a)
            rating[w], rating[l] = env.rate_1vs1(rating[w], rating[l])
    return np.array([rating[s].mu for s in names])


@pytest.fixture(scope="module")
def pairs():
    return simulate_competition(n_systems=6, n_judgments=300, design="pairs", random_state=4).comparisons


@pytest.mark.parametrize("year", [2015, 2016])
def test_every_run_is_the_scripts_run(pairs, year):
    c = pairs
    result = wmt_trueskill(c, year=year, n=3, random_state=11)
    seeds = np.random.default_rng(11).integers(1, 2 ** 63, 3, dtype=np.int64)
    size = len(c)
    for r, seed in enumerate(seeds):
        rows = (kernel.resample_rows(seed, np.arange(size + 1), np.arange(size), size, size) if year == 2016
                else np.arange(size))
        expected = script_run(c, rows, _play_seed(np.random.default_rng(int(seed))))
        np.testing.assert_allclose(result.mu[r], expected, rtol=0, atol=1e-9)
    assert (result.matches == size + 1).all()
    if year == 2015:  # all comparisons every time: the runs differ by their active choices only
        assert np.unique(result.mu[:, 0]).size == 3


def test_threads_change_no_number(pairs):
    one = wmt_trueskill(pairs, year=2016, n=20, random_state=2, jobs=1)
    two = wmt_trueskill(pairs, year=2016, n=20, random_state=2, jobs=2)
    np.testing.assert_array_equal(one.mu, two.mu)
    np.testing.assert_array_equal(one.sigma, two.sigma)


def test_refuses_what_the_scripts_never_read(pairs):
    with pytest.raises(ValueError, match="year"):
        wmt_trueskill(pairs, year=2014, n=2)
    weighted = pairs.take(np.arange(len(pairs)))
    weighted._cols["weight"] = np.full(len(pairs), 2.0)
    with pytest.raises(ValueError, match="weighted"):
        wmt_trueskill(weighted, n=2)


def test_wmt13_sample_resampling_widens_the_ranges():
    """On the WMT13 fr-en sample (the only WMT TrueSkill data here): WMT15's rule (no resample)
    gives rank ranges no wider in total than WMT16's (a bootstrap on top of active sampling),
    and the same order of systems; the scripts shipped no expected output for this sample."""
    import humeval
    c = humeval.read(shared_file("wmt13-fr-en-sample/sample-fr-en-train.csv")).comparisons
    # one thread: the numbers do not depend on jobs (test_threads_change_no_number), and two threads
    # competing on a loaded 2-core machine took 66 s here against 5 s
    tables = {year: wmt_trueskill(c, year=year, n=100, random_state=0, jobs=1).table() for year in (2015, 2016)}
    width = {year: (t["rank_hi"] - t["rank_lo"]).sum() for year, t in tables.items()}
    assert width[2015] < width[2016]
    top = [name for name in tables[2015].index[:3]]
    assert top == list(tables[2016].index[:3])
