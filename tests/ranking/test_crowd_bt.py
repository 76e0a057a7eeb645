import numpy as np

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
