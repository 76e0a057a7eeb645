import numpy as np
import pytest

from humeval.data import Comparisons
from humeval.experiments import bootstrap, rank_clusters
from humeval.experiments.bootstrap import simultaneous_rank_intervals, trimmed_range, units_of
from humeval.ranking import BradleyTerry, Bojar, TrueSkill
from humeval.ranking.bradley_terry import _PairModel
from humeval.simulate import simulate_competition


def test_trimmed_range_as_wmt():
    ranks = np.array([5.0] + [2.0] * 9 + [3.0] * 9 + [1.0])
    # 20 resamples at 90 %: drop ceil((20 - 18) / 2) = 1 from each end -> 2..3
    assert trimmed_range(ranks, 0.9) == (2.0, 3.0)
    assert trimmed_range(ranks, 1.0) == (1.0, 5.0)  # nothing dropped
    assert trimmed_range(np.array([np.nan, 4.0]), 0.95) == (4.0, 4.0)


def test_rank_clusters_rule():
    # boundary after i when its worst rank beats the best rank of everyone below
    lo = np.array([1, 2, 2, 4, 4, 6])
    hi = np.array([1, 3, 3, 5, 6, 6])
    assert rank_clusters(lo, hi).tolist() == [1, 2, 2, 3, 3, 3]


def test_simultaneous_intervals_separate_clear_winners():
    rng = np.random.default_rng(0)
    estimate = np.array([3.0, 2.0, 0.0, 0.01])
    samples = estimate + rng.normal(0, 0.05, (400, 4))
    lo, hi = simultaneous_rank_intervals(estimate, samples, 0.95)
    assert lo.tolist() == [1, 2, 3, 3] and hi.tolist() == [1, 2, 4, 4]


def test_units():
    c = Comparisons(a=[0, 0, 1, 1], b=[1, 1, 0, 0], outcome=[1, 1, 1, 1], judge=[3, -1, 3, 0], group=[7, 7, 8, -1],
                    systems=("A", "B"), judges=("j0", "j1", "j2", "j3"))
    unit, n_units, missing = units_of(c, "judge")
    assert n_units == 3 and missing == 1 and unit[0] == unit[2] and len(set(unit.tolist())) == 3
    unit, n_units, _ = units_of(c, "ranking")
    assert n_units == 3 and unit[0] == unit[1] != unit[2]
    with pytest.raises(ValueError, match="by must be"):
        units_of(c, "day")


@pytest.fixture(scope="module")
def campaign():
    return simulate_competition(n_systems=6, n_items=400, n_judges=12, n_judgments=600, design="rankings",
                                random_state=5)


class CellPath(BradleyTerry):  # per-resample Newton on ordered cells
    def bootstrap_scores(self, comparisons, unit, n, rng, progress=None):
        return _PairModel._refit_bootstrap(self, comparisons, unit, n, rng, progress)


class RefitPath(BradleyTerry):  # copy rows, refit from scratch
    def bootstrap_scores(self, comparisons, unit, n, rng, progress=None):
        return None


@pytest.mark.parametrize("by", ["comparison", "judge"])
def test_bt_bootstrap_paths_agree(campaign, by):
    c = campaign.comparisons
    compiled = bootstrap(BradleyTerry(), c, n=400, by=by, random_state=0)
    cells = bootstrap(CellPath(), c, n=400, by=by, random_state=1)
    refit = bootstrap(RefitPath(), c, n=400, by=by, random_state=2)
    for other in (cells, refit):
        np.testing.assert_allclose(np.nanstd(compiled.samples, axis=0), np.nanstd(other.samples, axis=0), rtol=0.2)
        np.testing.assert_allclose(np.nanmean(compiled.samples, axis=0), np.nanmean(other.samples, axis=0), atol=0.03)
    # the table from the samples, computed here independently: estimate, mean, 2.5/97.5 % percentiles,
    # and WMT's rank range (400 sorted ranks, ⌈(400 − 380)/2⌉ = 10 dropped from each end)
    table = compiled.table().reindex(c.systems)
    np.testing.assert_allclose(table["score"], BradleyTerry().fit(c).scores_[list(c.systems)], atol=1e-12)
    np.testing.assert_allclose(table["mean"], compiled.samples.mean(axis=0), atol=1e-12)
    np.testing.assert_allclose(table[["lower", "upper"]].T, np.percentile(compiled.samples, [2.5, 97.5], axis=0), atol=1e-12)
    ranks = np.sort(1 + (compiled.samples[:, None, :] > compiled.samples[:, :, None]).sum(axis=2), axis=0)
    np.testing.assert_array_equal(table["rank_lo"], ranks[10])
    np.testing.assert_array_equal(table["rank_hi"], ranks[389])
    # 600 five-way rankings of six well-separated systems: six clusters, in the simulator's true order
    true_rank = campaign.truth.abilities.rank(ascending=False)
    assert table["cluster"].tolist() == true_rank[list(c.systems)].astype(int).tolist()


def test_bt_fallback_when_a_resample_breaks_the_graph():
    # C met A only twice (one win each way): resamples that keep only C's win (or loss) cut C off
    rows = [("A", "B", 1), ("B", "A", 1)] * 20 + [("A", "C", 1), ("C", "A", 1)]
    index = {"A": 0, "B": 1, "C": 2}
    c = Comparisons(a=[index[r[0]] for r in rows], b=[index[r[1]] for r in rows], outcome=[r[2] for r in rows],
                    systems=("A", "B", "C"))
    result = bootstrap(BradleyTerry(l2=0), c, n=300, random_state=0)
    cut = np.isnan(result.samples[:, 2])
    assert 0 < cut.sum() < 300 and np.isfinite(result.samples[~cut]).all()
    assert np.isfinite(result.samples[:, :2]).all()  # A and B stay ranked
    assert result.failed == {"system scores left undefined by a resample (NaN)": int(cut.sum())}


def test_position_effect_bootstrap_agrees_with_refitting(campaign):
    # with a position effect the compiled path steps aside: per-resample Newton on ordered cells
    cells = bootstrap(BradleyTerry(position_effect=True), campaign.comparisons, n=300, random_state=0)

    refit = bootstrap(RefitPath(position_effect=True), campaign.comparisons, n=300, random_state=1)
    assert cells.samples.shape == (300, 6) and np.isfinite(cells.samples).all()
    np.testing.assert_allclose(cells.samples.std(axis=0), refit.samples.std(axis=0), rtol=0.2)
    np.testing.assert_allclose(cells.samples.mean(axis=0), refit.samples.mean(axis=0), atol=0.03)


def test_clustered_resampling_is_wider(campaign):
    c = campaign.comparisons
    single = bootstrap(BradleyTerry(), c, n=300, random_state=0)
    rankings = bootstrap(BradleyTerry(), c, n=300, by="ranking", random_state=0)
    # pairs from one 5-way ranking are correlated: resampling whole rankings widens the intervals
    assert np.nanstd(rankings.samples, axis=0).mean() > np.nanstd(single.samples, axis=0).mean()


MASK = (1 << 64) - 1


def splitmix_units(seed: int, n_units: int) -> list[int]:
    """The units one compiled TrueSkill bootstrap run draws: SplitMix64 (Steele, Lea & Flood 2014)
    from the run's seed, each output's top 32 bits times the number of units, divided by 2³²
    (Lemire's multiply-shift reduction)."""
    state, drawn = seed, []
    for _ in range(n_units):
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        drawn.append((((z ^ (z >> 31)) >> 32) * n_units) >> 32)
    return drawn


def refit_trueskill_resamples(result, c, by, seed):
    """Compare every compiled run with TrueSkill refitted in Python on the same resample."""
    unit, n_units, _ = units_of(c, by)
    rows_of = [np.flatnonzero(unit == u) for u in range(n_units)]
    beta = TrueSkill().fit(c).beta_
    seeds = np.random.default_rng(seed).integers(1, 2 ** 63, result.n, dtype=np.int64)
    for sample, run_seed in zip(result.samples, seeds):
        rows = np.concatenate([rows_of[u] for u in splitmix_units(int(run_seed), n_units)])
        refit = TrueSkill(beta=beta).fit(c.take(rows))
        np.testing.assert_allclose(sample, refit.scores_.reindex(c.systems).to_numpy(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("by", ["comparison", "judge"])
def test_trueskill_compiled_bootstrap_equals_refitting_each_resample(campaign, by):
    """Each compiled run must equal TrueSkill fitted in Python on that run's resample: the units
    its seed draws, their comparisons replayed in the order drawn, with the full data's β (WMT's
    σ·matches/40, also when resampled judges make a resample of another size); systems a
    resample leaves out are NaN. The seeds are the bootstrap's own (``rng.integers(1, 2**63, n)``
    from ``random_state``), the draws SplitMix64's."""
    c = campaign.comparisons
    result = bootstrap(TrueSkill(), c, n=12, by=by, random_state=3)
    assert result.samples.shape == (12, 6)
    np.testing.assert_array_equal(result.samples, bootstrap(TrueSkill(), c, n=12, by=by, random_state=3).samples)
    refit_trueskill_resamples(result, c, by, 3)
    # system C is judged by j1 only: resamples without j1 leave it undefined, as refits do
    lonely = Comparisons(a=[0, 0, 1, 2, 1, 0], b=[1, 1, 0, 0, 0, 2], outcome=[1, 2, 1, 1, 2, 1],
                         judge=[0, 0, 2, 1, 2, 1], systems=("A", "B", "C"), judges=("j0", "j1", "j2"))
    result = bootstrap(TrueSkill(), lonely, n=40, by="judge", random_state=4)
    assert 0 < np.isnan(result.samples[:, 2]).sum() < 40
    refit_trueskill_resamples(result, lonely, "judge", 4)


def test_missing_systems_are_nan_and_reported():
    # system C is judged only by judge j1: resamples without j1 leave C undefined
    c = Comparisons(a=[0, 0, 1, 2, 1, 0], b=[1, 1, 0, 0, 0, 2], outcome=[1, 2, 1, 1, 2, 1],
                    judge=[0, 0, 2, 1, 2, 1], systems=("A", "B", "C"), judges=("j0", "j1", "j2"))
    result = bootstrap(Bojar(), c, n=200, by="judge", random_state=0)
    missing = np.isnan(result.samples[:, 2]).sum()
    assert 0 < missing < 200 and result.table().loc["C", "missing"] == missing
    assert result.failed == {"system scores left undefined by a resample (NaN)": np.isnan(result.samples).sum()}


def test_generic_path_in_parallel(campaign):
    c = campaign.comparisons.take(np.arange(300))
    serial = bootstrap(Bojar(), c, n=20, random_state=4)
    parallel = bootstrap(Bojar(), c, n=20, random_state=4, jobs=2)
    np.testing.assert_array_equal(serial.samples, parallel.samples)


def test_a_system_no_resample_defined_gets_nan_without_a_warning():
    """An all-NaN column (a system every resample left undefined) is NaN in the table, silently:
    the live leaderboard called this on early campaigns and numpy's "Mean of empty slice" leaked."""
    import warnings

    import pandas as pd

    from humeval.experiments.bootstrap import BootstrapResult
    samples = np.array([[1.0, 0.0, np.nan], [2.0, 0.5, np.nan], [1.5, -0.5, np.nan], [0.5, 0.2, np.nan]])
    result = BootstrapResult(("a", "b", "c"), pd.Series([1.2, 0.1, np.nan], index=["a", "b", "c"]), samples,
                             "comparison", 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = result.table()
    assert np.isnan(table.loc["c", "mean"]) and np.isnan(table.loc["c", "lower"]) and table.loc["c", "missing"] == 4
    assert table.loc["a", "mean"] == 1.25 and table.loc["a", "lower"] == np.quantile(samples[:, 0], 0.25)
