import numpy as np
import pytest
from scipy.stats import chisquare, spearmanr

from humeval.simulate import simulate_competition


def test_proba_rows_sum_to_one_and_are_symmetric():
    truth = simulate_competition(random_state=0, random_judges=0.25).truth
    a, b = np.repeat(np.arange(12), 12), np.tile(np.arange(12), 12)
    p = truth.proba(a, b)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    np.testing.assert_allclose(p[:, 1], truth.proba(b, a)[:, 2])
    # equal abilities: P(tie) = 2Φ(r/s) − 1 with s = sqrt(2·0.25 + 2·1) (no random judges)
    same = simulate_competition(random_state=0).truth.proba([3], [3])[0]
    from scipy.stats import norm
    assert same[0] == pytest.approx(2 * norm.cdf(0.4 / np.sqrt(2.5)) - 1)


@pytest.mark.parametrize("design", ["pairs", "baseline"])
def test_outcomes_follow_the_exact_truth(design):
    sim = simulate_competition(design=design, n_systems=4, n_items=20000, n_judgments=60000,
                               random_judges=0.2, random_state=1)
    c = sim.comparisons
    for a, b in {(int(x), int(y)) for x, y in zip(c.a[:50], c.b[:50])}:
        sel = (c.a == a) & (c.b == b)
        observed = np.bincount(c.outcome[sel], minlength=3)
        expected = sim.truth.proba([a], [b])[0] * sel.sum()
        assert chisquare(observed, expected).pvalue > 1e-3


def test_baseline_design():
    c = simulate_competition(design="baseline", baseline=3, random_state=0).comparisons
    assert set(c.b.tolist()) == {3} and 3 not in set(c.a.tolist()) and len(set(c.a.tolist())) == 11


def test_rankings_design():
    sim = simulate_competition(design="rankings", n_judgments=300, k=5, random_state=2)
    r = sim.rankings
    assert r.system.shape == (300, 5)
    assert all(len(set(row)) == 5 for row in r.system.tolist())
    assert len(sim.comparisons) == 3000 and set(sim.comparisons.group.tolist()) == set(range(300))
    # ranks: 1 + number of outputs seen as better by more than the radius, so 1 is always used
    assert (r.rank.min(axis=1) == 1).all() and r.rank.max() <= 5


def test_win_share_tracks_truth_and_random_judges_hurt():
    clean = simulate_competition(design="rankings", n_judgments=1500, random_state=3)
    rho = spearmanr(clean.comparisons.tally().win_share, clean.truth.abilities).statistic
    assert rho > 0.9
    noisy = simulate_competition(design="rankings", n_judgments=1500, random_judges=1.0, random_state=3)
    assert len(noisy.truth.random_judges) == 20 and noisy.truth.random_share == 1.0
    # all-random judges: rank ties between two outputs happen with probability 1/k
    assert abs(noisy.comparisons.tie_rate - 0.2) < 0.02


def test_reproducible_and_validated():
    a = simulate_competition(random_state=7).comparisons
    b = simulate_competition(random_state=7).comparisons
    np.testing.assert_array_equal(a.outcome, b.outcome)
    with pytest.raises(ValueError, match="design"):
        simulate_competition(design="swiss")
    with pytest.raises(ValueError, match="k <= n_systems"):
        simulate_competition(design="rankings", n_systems=3, k=5)
