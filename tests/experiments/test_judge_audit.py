"""The judge audit finds the biases a simulated judge was given, and not the ones it was not."""

import numpy as np
import pytest

from humeval.experiments.judge_audit import audit, cohen_kappa, ece
from humeval.simulate.judged import judged_battles


def test_kappa_and_ece_by_hand():
    u, v = np.array([1, 1, 2, 2, 0]), np.array([1, 2, 2, 2, 0])
    # p_o = 4/5; p_e = (2/5·1/5) + (2/5·3/5) + (1/5·1/5) = 9/25
    assert cohen_kappa(u, v) == pytest.approx((0.8 - 9 / 25) / (1 - 9 / 25))
    # bins: {0.05, 0.05} with outcomes {0, 1}: |0.5 − 0.05|; {0.95, 0.95} with {1, 1}: |1 − 0.95|
    assert ece([0.05, 0.05, 0.95, 0.95], [0, 1, 1, 1]) == pytest.approx(0.5 * 0.45 + 0.5 * 0.05)


def test_a_biased_judge_is_caught():
    truth, h, j = judged_battles(n_human=600, n_judge=3000, position=0.6, favour=1.0, random_state=0)
    summary, per_system = audit(h, j, random_state=0)
    bias = summary.loc["position bias: judge − humans"]
    assert bias.lo > 0
    assert per_system.index[0] == "S0" and per_system.iloc[0].lo > 0


def test_an_honest_judge_is_not_accused():
    truth, h, j = judged_battles(n_human=600, n_judge=3000, position=0, favour=0, verbosity=0, noise=0.3,
                                 random_state=0)
    summary, per_system = audit(h, j, random_state=0)
    bias = summary.loc["position bias: judge − humans"]
    assert bias.lo < 0 < bias.hi
    assert summary.loc["agreement (share of matched battles)"].estimate > 0.9
    assert ((per_system.lo < 0) & (0 < per_system.hi)).sum() >= len(per_system) - 1
