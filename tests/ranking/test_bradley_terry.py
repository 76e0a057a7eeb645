import choix
import numpy as np
import pytest

from humeval.data import Comparisons
from humeval.ranking import BradleyTerry, Davidson, DisconnectedError, RaoKupper
from humeval.ranking.bradley_terry import ELO_PER_LOGIT, _bt, _davidson, _rao_kupper


def planted(n=10, size=100_000, seed=0):
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, n)
    theta -= theta.mean()
    a = rng.integers(0, n, size)
    b = (a + rng.integers(1, n, size)) % n
    return rng, theta, a, b


def table(a, b, outcome, n, **kw):
    return Comparisons(a=a, b=b, outcome=outcome, systems=tuple(f"s{i}" for i in range(n)), **kw)


def test_bt_matches_choix_without_ties():
    rng, theta, a, b = planted(n=8, size=5000)
    wins = rng.random(len(a)) < 1 / (1 + np.exp(-(theta[a] - theta[b])))
    model = BradleyTerry(l2=0).fit(table(a, b, np.where(wins, 1, 2), 8))
    data = [(x, y) if w else (y, x) for x, y, w in zip(a, b, wins)]
    expected = choix.ilsr_pairwise(8, data, alpha=0.0, tol=1e-12, max_iter=10_000)
    np.testing.assert_allclose(model.scores_.to_numpy(), expected - expected.mean(), atol=1e-8)


def test_bt_predictions_use_the_tie_rate():
    c = table([0, 0, 0, 1], [1, 1, 1, 0], [1, 1, 0, 1], 2)  # one tie in four
    model = BradleyTerry().fit(c)
    x = model.theta_[0] - model.theta_[1]
    p = model.predict_proba(["s0"], ["s1"])[0]
    assert p.tolist() == pytest.approx([0.25, 0.75 / (1 + np.exp(-x)), 0.75 / (1 + np.exp(x))])


def test_ties_count_half():
    c = table([0, 0, 1], [1, 1, 0], [0, 1, 1], 2)  # A: 1 + ½ of 3 decided... A won 1, B won 1, one tie
    assert BradleyTerry().fit(c).scores_.tolist() == pytest.approx([0.0, 0.0], abs=1e-12)
    c = table([0, 0, 0, 1], [1, 1, 1, 0], [1, 1, 0, 1], 2)  # A 2.5 : B 1.5 -> θA − θB = ln(2.5/1.5)
    s = BradleyTerry(l2=0).fit(c).scores_
    assert s["s0"] - s["s1"] == pytest.approx(np.log(2.5 / 1.5))


@pytest.mark.parametrize("link, tie", [(_bt, 0.0), (_davidson, np.log(0.8)), (_rao_kupper, np.log(0.6))])
def test_link_derivatives(link, tie):
    counts = np.array([[3.0, 5.0, 2.0], [1.0, 0.0, 4.0], [0.0, 2.0, 2.0]])
    x, e = np.array([0.3, -1.2, 2.0]), 1e-6
    value, d1, d2 = link(x, counts, tie)
    plus, minus = link(x + e, counts, tie), link(x - e, counts, tie)
    np.testing.assert_allclose((plus[0] - minus[0]) / (2 * e), d1, atol=1e-6)
    np.testing.assert_allclose((plus[1] - minus[1]) / (2 * e), d2, atol=1e-6)


def test_davidson_recovers_planted_parameters():
    rng, theta, a, b = planted(size=200_000, seed=1)
    u, nu = (theta[a] - theta[b]) / 2, 0.8
    d = np.exp(u) + np.exp(-u) + nu
    r = rng.random(len(a))
    outcome = np.where(r < np.exp(u) / d, 1, np.where(r < (np.exp(u) + nu) / d, 0, 2))
    model = Davidson().fit(table(a, b, outcome, 10))
    assert model.nu_ == pytest.approx(0.8, abs=0.02)
    np.testing.assert_allclose(model.scores_.to_numpy(), theta, atol=0.05)
    p = model.predict_proba(["s0"], ["s1"])[0]
    x = (model.theta_[0] - model.theta_[1]) / 2
    assert p[0] == pytest.approx(model.nu_ / (2 * np.cosh(x) + model.nu_))


def test_rao_kupper_recovers_planted_parameters():
    rng, theta, a, b = planted(size=200_000, seed=2)
    eta = 0.6
    pa = 1 / (1 + np.exp(-(theta[a] - theta[b] - eta)))
    pb = 1 / (1 + np.exp(-(theta[b] - theta[a] - eta)))
    r = rng.random(len(a))
    model = RaoKupper().fit(table(a, b, np.where(r < pa, 1, np.where(r < pa + pb, 2, 0)), 10))
    assert model.eta_ == pytest.approx(0.6, abs=0.02)
    np.testing.assert_allclose(model.scores_.to_numpy(), theta, atol=0.05)
    np.testing.assert_allclose(model.predict_proba(["s0", "s3"], ["s1", "s2"]).sum(axis=1), 1.0)


def test_first_position_effect():
    rng, theta, a, b = planted(size=100_000, seed=3)
    wins = rng.random(len(a)) < 1 / (1 + np.exp(-(theta[a] - theta[b] + 0.3)))
    model = BradleyTerry(position_effect=True).fit(table(a, b, np.where(wins, 1, 2), 10))
    assert model.position_effect_ == pytest.approx(0.3, abs=0.03)
    np.testing.assert_allclose(model.scores_.to_numpy(), theta, atol=0.06)


def test_disconnected_graph_is_reported():
    c = Comparisons(a=[0, 1, 2, 3], b=[1, 0, 3, 2], outcome=[1, 1, 1, 1], systems=("A", "B", "C", "D"))
    with pytest.raises(DisconnectedError, match=r"falls into 2 parts .*\({A, B}; {C, D}\)") as error:
        BradleyTerry(l2=0).fit(c)
    assert error.value.components == [["A", "B"], ["C", "D"]] and "l2=" in str(error.value)
    never_loses = Comparisons(a=[0, 0, 1], b=[1, 2, 2], outcome=[1, 1, 0], systems=("A", "B", "C"))
    with pytest.raises(DisconnectedError, match=r"falls into 2 parts .*\({B, C}; {A}\)"):
        BradleyTerry(l2=0).fit(never_loses)
    with_prior = BradleyTerry(l2=0.1).fit(never_loses).scores_
    assert np.isfinite(with_prior).all() and with_prior["A"] > with_prior["B"]


def test_scale_and_anchor():
    rng, theta, a, b = planted(n=5, size=2000, seed=4)
    c = table(a, b, np.where(rng.random(len(a)) < 1 / (1 + np.exp(-(theta[a] - theta[b]))), 1, 2), 5)
    logit = BradleyTerry().fit(c)
    elo = BradleyTerry(scale="elo").fit(c)
    anchored = BradleyTerry(anchor="s2", scale="elo").fit(c)
    np.testing.assert_allclose(elo.scores_, logit.scores_ * ELO_PER_LOGIT + 1000)
    assert anchored.scores_["s2"] == pytest.approx(1000) and anchored.scale_.endswith("s2 = 1000")
    assert logit.scale_ == "log-odds, mean 0" and logit.scores_.mean() == pytest.approx(0, abs=1e-12)
    with pytest.raises(ValueError, match="anchor"):
        BradleyTerry(anchor="nobody").fit(c)
