import numpy as np
import pytest
from scipy.stats import norm, spearmanr

from humeval.data import Comparisons
from humeval.experiments import perplexity
from humeval.ranking import IRTCategorical, IRTGaussian
from humeval.ranking.irt import _truncated_normal, item_index, thurstone_proba
from humeval.simulate import simulate_competition


def truth_perplexity(truth, test):
    p = truth.proba(test.a, test.b)[np.arange(len(test)), test.outcome]
    return float(2 ** -np.mean(np.log2(p)))


def test_thurstone_formula():
    p = thurstone_proba([0.0, 1.0], scale=2.0, radius=0.5)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert p[0, 1] == pytest.approx(1 - norm.cdf(0.25)) and p[0, 1] == pytest.approx(p[0, 2])
    assert p[1, 1] == pytest.approx(1 - norm.cdf((0.5 - 1) / 2)) and p[1, 2] == pytest.approx(norm.cdf(-1.5 / 2))


def test_truncated_normal_moments():
    rng = np.random.default_rng(0)
    n = 200_000
    x = _truncated_normal(rng, np.zeros(n), 1.0, np.full(n, 1.0), np.full(n, np.inf))
    assert x.min() >= 1.0 and x.mean() == pytest.approx(norm.pdf(1) / norm.sf(1), rel=0.01)
    y = _truncated_normal(rng, np.full(n, 30.0), 1.0, np.full(n, -np.inf), np.full(n, 0.0))  # far tail
    assert y.max() <= 0.0 and np.isfinite(y).all()


def test_items_are_system_segment_pairs():
    c = Comparisons(a=[0, 0, 1, 0], b=[1, 2, 2, 1], outcome=[0, 1, 2, 1], item=[0, 0, 0, -1],
                    systems=("A", "B", "C"), items=("s1",))
    items, author = item_index(c)
    assert items[0, 0] == items[1, 0] and items[0, 1] == items[2, 0] and items[1, 1] == items[2, 1]
    assert len({items[3, 0], items[3, 1]} & set(items[:3].ravel())) == 0  # unknown segment: fresh items
    assert author[items].tolist() == [[0, 1], [0, 2], [1, 2], [0, 1]]


@pytest.fixture(scope="module")
def simulated():
    train = simulate_competition(n_systems=12, n_items=1500, n_judgments=3200, design="pairs", random_state=11)
    test = simulate_competition(n_systems=12, n_items=1500, n_judgments=4000, design="pairs", random_state=11)
    return train, test


def test_irt_gaussian_recovers_abilities(simulated):
    train, _ = simulated
    model = IRTGaussian(random_state=0).fit(train.comparisons)
    assert spearmanr(model.scores_, train.truth.abilities).statistic >= 0.9
    assert model.samples_.shape == (150, 12) and (model.scores_std_ > 0).all()
    assert model.n_items_ == len(np.unique(np.stack([train.comparisons.a, train.comparisons.b]) * 10_000
                                           + train.comparisons.item))


def test_irt_gaussian_perplexity_approaches_the_truth(simulated):
    train, test = simulated
    held_out = test.comparisons.take(np.arange(len(test.comparisons)) % 2 == 1)
    best = truth_perplexity(train.truth, held_out)
    small = perplexity(IRTGaussian(random_state=0).fit(train.comparisons.take(np.arange(100))), held_out)
    full = perplexity(IRTGaussian(random_state=0).fit(train.comparisons), held_out)
    # on 2,000 held-out comparisons the truth's own perplexity is noisy (±0.01): the full fit lands
    # within a few thousandths of it, on either side, and far closer than the 100-comparison fit
    assert abs(full - best) < 0.005 * best
    assert small - best > 20 * abs(full - best)


def test_irt_categorical_recovers_the_order(simulated):
    train, test = simulated
    model = IRTCategorical(random_state=0).fit(train.comparisons)
    assert spearmanr(model.scores_, train.truth.abilities).statistic >= 0.9
    assert perplexity(model, test.comparisons) < 0.03 * truth_perplexity(train.truth, test.comparisons) + \
        truth_perplexity(train.truth, test.comparisons)
    assert ((model.scores_ >= 1) & (model.scores_ <= 8)).all()


def test_reproducible_and_validated(simulated):
    c = simulated[0].comparisons.take(np.arange(300))
    a = IRTGaussian(random_state=5, iterations=40, burn_in=10).fit(c).scores_
    b = IRTGaussian(random_state=5, iterations=40, burn_in=10).fit(c).scores_
    assert a.equals(b)
    with pytest.raises(ValueError, match="burn_in"):
        IRTGaussian(iterations=10, burn_in=10).fit(c)
    with pytest.raises(ValueError, match="no room"):
        IRTCategorical(levels=2, radius=1).fit(c)
