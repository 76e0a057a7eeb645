import numpy as np
import pytest
from scipy.special import expit

from humeval.data import Comparisons
from humeval.ranking import BradleyTerry, CrowdBT


def test_finds_adversarial_and_random_judges():
    rng = np.random.default_rng(0)
    n, judges, size = 12, 30, 60_000
    theta = rng.normal(0, 1, n)
    theta -= theta.mean()
    eta = np.where(np.arange(judges) < 4, 0.1, np.where(np.arange(judges) < 8, 0.5, 0.95))
    a = rng.integers(0, n, size)
    b = (a + rng.integers(1, n, size)) % n
    j = rng.integers(0, judges, size)
    better_a = rng.random(size) < 1 / (1 + np.exp(-(theta[a] - theta[b])))
    says_a = np.where(rng.random(size) < eta[j], better_a, ~better_a)
    c = Comparisons(a=a, b=b, outcome=np.where(says_a, 1, 2), judge=j, systems=tuple(f"s{i}" for i in range(n)),
                    judges=tuple(f"j{k:02d}" for k in range(judges)))
    model = CrowdBT().fit(c)
    flags = model.judge_flags_
    assert set(flags[flags == "adversarial"].index) == {f"j{k:02d}" for k in range(4)}
    assert set(flags[flags == "random"].index) == {f"j{k:02d}" for k in range(4, 8)}
    # η is identified only through how far σ(θi − θj) is from ½: about ±0.06 with 2,000 judgments a judge
    np.testing.assert_allclose(model.judge_reliability_.to_numpy(), eta, atol=0.08)
    crowd_error = np.abs(model.scores_.to_numpy() - theta).max()
    plain_error = np.abs(BradleyTerry().fit(c).scores_.to_numpy() - theta).max()
    assert crowd_error < 0.1 < plain_error
    assert model.judges().index[0] in {f"j{k:02d}" for k in range(4)}  # least reliable first


def test_unknown_judges_and_ties():
    c = Comparisons(a=[0, 1, 0, 1], b=[1, 2, 2, 0], outcome=[1, 1, 0, 2], judge=[0, -1, -1, 0],
                    systems=("A", "B", "C"), judges=("alice",))
    model = CrowdBT(min_judgments=1).fit(c)
    assert list(model.judge_reliability_.index) == ["alice", "(unknown judge)"] and model.n_ties_ == 1
    assert model.judge_judgments_.tolist() == [2, 1]
    np.testing.assert_allclose(model.predict_proba(["A"], ["B"]).sum(), 1.0)


def test_small_training_sets_beat_the_uniform_models():
    """100 comparisons of 12 systems leave pairs one-sided; the N(0, 1) prior on θ keeps the
    held-out perplexity below the uniform model's 3 and the adjusted uniform's. The old default
    (θ ~ N(0, 10²)) reached about 10 here."""
    from humeval.experiments import perplexity
    from humeval.ranking import AdjustedUniform
    from humeval.simulate import simulate_competition

    c = simulate_competition(n_systems=12, n_items=300, n_judges=30, n_judgments=3000, design="rankings",
                             random_judges=0.2, random_state=1).comparisons
    train, test = c.take(np.arange(len(c)) < len(c) // 2), c.take(np.arange(len(c)) >= len(c) // 2)
    rng = np.random.default_rng(0)
    crowd, adjusted, weak = [], [], []
    for _ in range(5):
        sample = train.take(np.sort(rng.choice(len(train), 100, replace=False)))
        crowd.append(perplexity(CrowdBT().fit(sample), test))
        adjusted.append(perplexity(AdjustedUniform().fit(sample), test))
        weak.append(perplexity(CrowdBT(l2=0.01).fit(sample), test))
    assert max(crowd) < 3.0 and np.mean(crowd) < np.mean(adjusted) - 0.03
    assert np.mean(weak) > 3.0  # the failure this guards against


def test_prediction_averages_over_judge_reliability():
    c = Comparisons(a=[0, 0, 0, 1, 1, 2, 0], b=[1, 1, 2, 2, 0, 0, 2], outcome=[1, 1, 1, 1, 2, 2, 0],
                    judge=[0, 0, 0, 1, 1, 1, 1], systems=("A", "B", "C"), judges=("ann", "bob"))
    model = CrowdBT().fit(c)
    eta, n = model.judge_reliability_.to_numpy(), model.judge_judgments_.to_numpy()
    assert n.tolist() == [3, 3] and model.reliability_ == pytest.approx((3 * eta[0] + 3 * eta[1]) / 6)
    # η_k = (Σ r + a − 1) / (n_k + a + b − 2) with r the posterior that the judgment was truthful
    theta = model.theta_
    d = np.array([theta[0] - theta[1]] * 2 + [theta[0] - theta[2]])  # ann's three judgments (winner − loser)
    r = eta[0] * expit(d) / (eta[0] * expit(d) + (1 - eta[0]) * expit(-d))
    assert eta[0] == pytest.approx((r.sum() + 1) / (3 + 1), abs=1e-5)
    t, e, x = 1 / 7, model.reliability_, theta[0] - theta[2]
    p = e * expit(x) + (1 - e) * expit(-x)
    np.testing.assert_allclose(model.predict_proba(["A"], ["C"])[0], [t, (1 - t) * p, (1 - t) * (1 - p)])
