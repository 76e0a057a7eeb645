"""Hopkins & May's ⟨P_X, P_J⟩-relative ability: uniform weights give the unweighted quantity,
non-uniform judge weights move Crowd-BT's answer as the hand formula says."""

import numpy as np
import pytest
from scipy.special import expit

from humeval.data import Comparisons
from humeval.experiments import relative_ability
from humeval.ranking import BradleyTerry, CrowdBT, OrigWMT


def judged(seed=0, n=600):
    """Systems A > B > C; judge x is reliable, judge y reverses most of its preferences."""
    rng = np.random.default_rng(seed)
    theta = np.array([1.0, 0.0, -1.0])
    a = rng.integers(0, 3, n)
    b = (a + rng.integers(1, 3, n)) % 3
    judge = rng.integers(0, 2, n)
    better_a = rng.random(n) < expit(theta[a] - theta[b])
    says_a = np.where(judge == 0, better_a, np.where(rng.random(n) < 0.2, better_a, ~better_a))
    return Comparisons(a=a, b=b, outcome=np.where(says_a, 1, 2), judge=judge, item=rng.integers(0, 40, n),
                       systems=("A", "B", "C"), judges=("x", "y"), items=tuple(map(str, range(40))))


def net_wins(model):
    p = model.proba_matrix()
    net = p[:, :, 1] - p[:, :, 2]
    np.fill_diagonal(net, 0)
    return net.sum(axis=1) / (len(net) - 1)


def test_uniform_weights_give_the_unweighted_quantity():
    c = judged()
    bt = BradleyTerry().fit(c)
    expected = net_wins(bt)
    uniform_segments = {s: 1.0 for s in c.items}
    for kw in ({}, {"segment_weights": uniform_segments}, {"judge_weights": {"x": 1, "y": 1}},
               {"judge_weights": {"x": 5, "y": 0}, "segment_weights": {"3": 1}}):
        np.testing.assert_allclose(relative_ability(bt, c, **kw).to_numpy(), expected, atol=1e-12)
    crowd = CrowdBT(min_judgments=1).fit(c)
    np.testing.assert_allclose(relative_ability(crowd, c).to_numpy(), net_wins(crowd), atol=1e-12)
    # judges weighted by their judgments is Crowd-BT's own η̄, the unweighted quantity
    shares = crowd.judge_judgments_.to_dict()
    np.testing.assert_allclose(relative_ability(crowd, c, judge_weights=shares).to_numpy(), net_wins(crowd),
                               atol=1e-12)


def test_judge_weights_by_hand():
    c = judged()
    crowd = CrowdBT(min_judgments=1).fit(c)
    eta = crowd.judge_reliability_
    assert eta["x"] > 0.8 and eta["y"] < 0.35  # the adversarial judge is found
    t, theta = crowd.tie_rate_, crowd.theta_
    # P_J = ¾ on x, ¼ on y: η̄ = ¾ η_x + ¼ η_y; RA(A) = ½ Σ_o (1 − t)(2 q(A, o) − 1), q = η̄ σ(d) + (1 − η̄) σ(−d)
    eta_bar = 0.75 * eta["x"] + 0.25 * eta["y"]

    def ra(s):
        total = 0.0
        for o in range(3):
            if o != s:
                d = theta[s] - theta[o]
                q = eta_bar * expit(d) + (1 - eta_bar) * expit(-d)
                total += (1 - t) * (2 * q - 1)
        return total / 2

    got = relative_ability(crowd, c, judge_weights={"x": 3, "y": 1})
    assert got.tolist() == pytest.approx([ra(0), ra(1), ra(2)], abs=1e-12)
    # impressing only the adversarial judge reverses the order
    only_y = relative_ability(crowd, c, judge_weights={"y": 1})
    assert only_y.idxmax() == "C" and got.idxmax() == "A"


def test_bad_weights_and_models_are_refused():
    c = judged()
    bt = BradleyTerry().fit(c)
    with pytest.raises(ValueError, match="unknown judges"):
        relative_ability(bt, c, judge_weights={"zed": 1})
    with pytest.raises(ValueError, match="non-negative"):
        relative_ability(bt, c, segment_weights={"1": -1, "2": 2})
    with pytest.raises(TypeError, match="not a preference model"):
        relative_ability(OrigWMT().fit(c), c)
