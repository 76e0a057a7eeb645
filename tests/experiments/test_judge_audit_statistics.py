"""The judge audit's Kendall τ (system and battle level), tie-calibrated accuracy, self-preference and
reliability table: hand-computed fixtures, scipy.stats.kendalltau, and a simulated judge that favours
its own family."""

import numpy as np
import pytest
from scipy.stats import kendalltau

from humeval.data.tables import Comparisons
from humeval.experiments.judge_audit import (audit, family_of, reliability, segment_tau, self_preference,
                                             system_scores, system_tau, tie_calibrated_accuracy)
from humeval.simulate.judged import judged_battles


def test_tie_calibrated_accuracy_by_hand():
    y = [1, 0, 0.5, 1, 0.5]
    yhat = [0.9, 0.4, 0.55, 0.6, 0.5]
    # |ŷ − ½| = .4 .1 .05 .1 0. ε = 0: a b a a tie vs a b tie a tie → 4/5; ε = .05: the third becomes a
    # tie → 5/5; ε = .1: the second and fourth too → 3/5; ε = .4: all ties → 2/5
    assert tie_calibrated_accuracy(y, yhat) == (pytest.approx(1.0), pytest.approx(0.05))
    assert tie_calibrated_accuracy([1, 0, 1], [0.5, 0.5, 0.5]) == (pytest.approx(0.0), pytest.approx(0.0))


def test_segment_tau_by_hand():
    # decided battles: y = 1, 0, 1, 0 (the ½ is left out); judge: same, same, other, tie → C = 2, D = 2
    assert segment_tau([1, 0, 1, 0, 0.5], [0.8, 0.1, 0.3, 0.5, 0.9]) == (pytest.approx(0.0), 4)
    assert segment_tau([1, 1, 0], [0.6, 0.7, 0.2]) == (pytest.approx(1.0), 3)


def test_system_tau_is_scipys_on_the_systems_mean_verdicts():
    rng = np.random.default_rng(0)
    k, n = 5, 400
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, n)) % k
    y = (rng.random(n) < 1 / (1 + np.exp(-(a - b) * 0.4))).astype(float)
    yhat = np.clip(y + rng.normal(0, 0.6, n), 0, 1)
    h, j = system_scores(y, a, b, k), system_scores(yhat, a, b, k)
    # by hand for system 0: its verdicts where it was a, and 1 − y where it was b
    mine = np.concatenate([y[a == 0], 1 - y[b == 0]])
    assert h[0] == pytest.approx(mine.mean())
    assert system_tau(y, yhat, a, b, k) == pytest.approx(kendalltau(h, j).statistic)


def test_self_preference_by_hand():
    systems = ["gpt-4o", "llama-3", "gpt-3.5"]
    a, b = np.array([0, 1, 1, 0]), np.array([1, 2, 0, 2])
    y, yhat = np.array([1.0, 0.0, 0.5, 1.0]), np.array([1.0, 0.0, 0.0, 0.5])
    # mixed battles: 0 (gpt-4o is a: 1 − 1 = 0), 1 (gpt-3.5 is b: −(0 − 0) = 0), 2 (gpt-4o is b: −(0 − .5) = .5)
    m, lo, hi, n, own = self_preference(y, yhat, a, b, systems, "gpt")
    assert (m, n, own) == (pytest.approx(0.5 / 3), 3, ["gpt-4o", "gpt-3.5"])
    assert family_of("gpt-4.1") == "gpt" and family_of("claude-3-opus") == "claude" and family_of("42") == ""


def test_reliability_table_by_hand():
    table = reliability([0.05, 0.15, 0.12, 0.95], [0, 1, 0, 1], bins=10)
    assert list(table.index) == ["0.0–0.1", "0.1–0.2", "0.9–1.0"]
    assert table["battles"].tolist() == [1, 2, 1]
    assert table.loc["0.1–0.2", "judge P(a)"] == pytest.approx(0.135)
    assert table.loc["0.1–0.2", "humans prefer a"] == pytest.approx(0.5)
    assert (table["lo"] <= table["humans prefer a"]).all() and (table["humans prefer a"] <= table["hi"]).all()


def test_a_judge_favouring_its_family_is_caught_and_an_honest_one_is_not():
    truth, h, j = judged_battles(n_human=800, n_judge=3000, favour=1.0, position=0, verbosity=0, random_state=1)
    # the simulator's judge favours S0: name S0 its family
    summary, _ = audit(h, j, random_state=0, family="S0")
    row = summary.loc[[i for i in summary.index if i.startswith("self-preference")][0]]
    assert row.lo > 0
    _, h2, j2 = judged_battles(n_human=800, n_judge=3000, favour=0, position=0, verbosity=0, noise=0.3,
                               random_state=1)
    summary2, _ = audit(h2, j2, random_state=0, family="S0")
    row2 = summary2.loc[[i for i in summary2.index if i.startswith("self-preference")][0]]
    assert row2.lo < 0 < row2.hi
    # an honest, low-noise judge orders the systems as the humans do; the battle-level τ is high
    assert summary2.loc["Kendall tau, system level (bootstrap interval)"].estimate > 0.7
    assert summary2.loc["Kendall tau, battle level (DARR-like)"].estimate > 0.6
    assert summary2.filter(like="tie-calibrated", axis=0).estimate.iloc[0] > 0.8


def test_the_family_is_guessed_from_the_judge_kind():
    c = dict(a=np.array([0, 1, 0, 1]), b=np.array([1, 0, 1, 0]), item=np.arange(4), items=("i0", "i1", "i2", "i3"),
             systems=("gpt-x", "other"))
    human = Comparisons(outcome=np.array([2, 1, 2, 1]), judge_kind=np.zeros(4, np.int8), judge_kinds=("human",), **c)
    judge = Comparisons(outcome=np.array([1, 2, 1, 1]), judge_kind=np.zeros(4, np.int8), judge_kinds=("gpt-4",), **c)
    summary, _ = audit(human, judge, n_resamples=20, random_state=0)
    row = [i for i in summary.index if i.startswith("self-preference")]
    assert row and "family 'gpt'" in row[0]
    # gpt-x side by the judge: 1, 1, 1, 0 (battle 4 it was b and lost); by humans 0 in all: + 3/4
    assert summary.loc[row[0]].estimate == pytest.approx(0.75)
