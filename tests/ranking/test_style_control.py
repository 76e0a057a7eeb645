"""Style control: covariates fitted jointly with the abilities in the Bradley–Terry family."""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from humeval.data import Comparisons
from humeval.ranking import BradleyTerry, Davidson, RaoKupper
from humeval.ranking.bradley_terry import _davidson, _davidson_tie, _rao_kupper, _rao_kupper_tie
from humeval.simulate import simulate_battles
from helpers import assert_covariate_bootstrap_is_newton

THETA = np.linspace(1.0, -1.0, 8)
VERBOSE = np.array([5.5, 5.5, 6.5, 6.5, 5.5, 7.0, 5.5, 7.0])  # sys03, sys04, sys06, sys08 write long answers


def battles(**kw):
    kw = dict(abilities=THETA, log_length=VERBOSE, beta=1.5, n_battles=60_000, random_state=3) | kw
    return simulate_battles(**kw)


def test_style_control_recovers_planted_bias_and_ranking():
    sim = battles()
    controlled = BradleyTerry().fit(sim.comparisons)
    plain = BradleyTerry(covariates=False).fit(sim.comparisons)
    truth = sim.truth.abilities
    assert controlled.coef_["length"] == pytest.approx(1.5, abs=4 * controlled.coef_std_["length"])
    np.testing.assert_allclose(controlled.scores_.to_numpy(), truth.to_numpy(), atol=0.06)
    assert list(controlled.ranking().index) == list(truth.sort_values(ascending=False).index)
    order = list(plain.ranking().index)
    assert order != list(truth.index)  # length inflates the verbose systems ...
    assert order.index("sys06") < order.index("sys05")  # ... sys06 (θ = −0.43, verbose) above sys05 (θ = −0.14)
    assert "covariates held at zero" in controlled.scale_


def test_rao_kupper_and_davidson_with_covariates_and_ties():
    sim = battles(eta=0.4, beta=1.0, position=0.2, random_state=4)
    rk = RaoKupper(position_effect=True).fit(sim.comparisons)
    assert rk.coef_["length"] == pytest.approx(1.0, abs=4 * rk.coef_std_["length"])
    assert rk.eta_ == pytest.approx(0.4, abs=0.03)
    assert rk.position_effect_ == pytest.approx(0.2, abs=0.05)
    np.testing.assert_allclose(rk.scores_.to_numpy(), THETA, atol=0.08)
    dav = Davidson().fit(sim.comparisons)  # a different tie model: the order is still right
    assert list(dav.ranking().index) == list(sim.truth.abilities.sort_values(ascending=False).index)
    assert dav.coef_["length"] > 0.5


def small(seed=0, n=5, size=300, p=2):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, size)
    b = (a + rng.integers(1, n, size)) % n
    z = rng.normal(0, 1, (size, p))
    x = np.linspace(0.6, -0.6, n)[a] - np.linspace(0.6, -0.6, n)[b] + z @ np.array([0.8, -0.4][:p]) + 0.2
    r = rng.random(size)
    p1, p2 = expit(x - 0.3), expit(-x - 0.3)
    outcome = np.where(r < p1, 1, np.where(r < p1 + p2, 2, 0))
    return Comparisons(a=a, b=b, outcome=outcome, systems=tuple(f"s{i}" for i in range(n)), covariates=z,
                       covariate_names=("len", "bold")[:p], weight=rng.choice([0.5, 1.0, 2.0], size))


def log_probs(kind, x, tie):
    """log P(tie), P(a), P(b) written out from the papers (not the model's link functions)."""
    if kind == "bt":  # ties as half a win each: the log-likelihood of a tie is ½ log σ(x) + ½ log σ(−x)
        return 0.5 * np.log(expit(x)) + 0.5 * np.log(expit(-x)), np.log(expit(x)), np.log(expit(-x))
    if kind == "davidson":
        nu = np.exp(tie)
        d = np.exp(x / 2) + np.exp(-x / 2) + nu
        return np.log(nu / d), np.log(np.exp(x / 2) / d), np.log(np.exp(-x / 2) / d)
    eta = np.exp(tie)
    p1, p2 = expit(x - eta), expit(-x - eta)
    return np.log(1 - p1 - p2), np.log(p1), np.log(p2)


def brute_fit(c, kind, l2):
    """The MAP by a general-purpose optimiser on the row likelihood."""
    n, p = len(c.systems), c.covariates.shape[1]
    def negative(v):
        theta, h, beta, tie = v[:n], v[n], v[n + 1:n + 1 + p], v[-1]
        x = theta[c.a] - theta[c.b] + h + c.covariates @ beta
        lp = np.column_stack(log_probs(kind, x, tie))[np.arange(len(c)), c.outcome]
        return -(c.weight * lp).sum() + l2 / 2 * np.sum((theta - theta.mean()) ** 2) + np.sum(theta) ** 2
    v = minimize(negative, np.zeros(n + 2 + p), method="BFGS", options={"gtol": 1e-9}).x
    return v[:n] - v[:n].mean(), v[n], v[n + 1:n + 1 + p], v[-1]


@pytest.mark.parametrize("model, kind", [(BradleyTerry, "bt"), (Davidson, "davidson"), (RaoKupper, "rk")])
def test_covariate_fit_matches_a_general_optimiser(model, kind):
    c = small()
    fitted = model(position_effect=True, l2=0.5).fit(c)
    theta, h, beta, tie = brute_fit(c, kind, 0.5)
    np.testing.assert_allclose(fitted.scores_.to_numpy(), theta, atol=2e-5)
    np.testing.assert_allclose(fitted.coef_.to_numpy(), beta, atol=2e-5)
    assert fitted.position_effect_ == pytest.approx(h, abs=2e-5)
    if kind != "bt":
        assert fitted._tie == pytest.approx(tie, abs=2e-5)


# fits of a fixed data set by the code before covariates existed (scores, std, position effect, tie parameter)
OLD = {
    ("BradleyTerry", False): ([0.773451757968, 0.396546024812, -0.060227301062, -0.404646892424, -0.705123589294],
                              [0.137597752802, 0.132411934856, 0.135813510765, 0.130218911929, 0.144075943359],
                              0.0, None),
    ("BradleyTerry", True): ([0.78025746707, 0.390100991432, -0.073934677152, -0.39119623277, -0.705227548579],
                             [0.138239107384, 0.133111536376, 0.136865965878, 0.13046680875, 0.14495403728],
                             0.1984455046360884, None),
    ("Davidson", False): ([0.917133020677, 0.46949225177, -0.071471945739, -0.479275264435, -0.835878062273],
                          [0.151863768744, 0.144710035951, 0.147843628213, 0.142323473066, 0.158478047978],
                          0.0, 0.36453404984088517),
    ("Davidson", True): ([0.92673742572, 0.462595705158, -0.087903871068, -0.463872875707, -0.837556384103],
                         [0.152739056617, 0.145592595865, 0.149142531157, 0.142652619157, 0.159602462461],
                         0.23752930162209185, 0.3670910879281797),
    ("RaoKupper", False): ([0.80176811762, 0.428695004507, -0.065106969572, -0.415236639022, -0.750119513532],
                           [0.127798106301, 0.123062336117, 0.126730414462, 0.122082714093, 0.137178359291],
                           0.0, 0.33493098184081743),
    ("RaoKupper", True): ([0.805243103656, 0.425267486527, -0.074745235733, -0.403420460039, -0.752344894411],
                          [0.128368129992, 0.12353851507, 0.127317417165, 0.122094048521, 0.13794742017],
                          0.1979984508488058, 0.3380625486798822),
}


def old_data(covariates=None):
    rng = np.random.default_rng(5)
    n = 5
    a = rng.integers(0, n, 400)
    b = (a + rng.integers(1, n, 400)) % n
    x = np.array([0.8, 0.3, 0.0, -0.4, -0.7])[a] - np.array([0.8, 0.3, 0.0, -0.4, -0.7])[b] + 0.2
    r = rng.random(400)
    p1, p2 = 1 / (1 + np.exp(-(x - 0.4))), 1 / (1 + np.exp(x + 0.4))
    kw = {} if covariates is None else dict(covariates=covariates, covariate_names=("len",))
    return Comparisons(a=a, b=b, outcome=np.where(r < p1, 1, np.where(r < p1 + p2, 2, 0)),
                       systems=tuple(f"s{i}" for i in range(n)), **kw)


@pytest.mark.parametrize("key", list(OLD))
def test_fit_without_covariates_equals_the_old_fit(key):
    name, position = key
    model = {"BradleyTerry": BradleyTerry, "Davidson": Davidson, "RaoKupper": RaoKupper}[name]
    scores, std, h, tie = OLD[key]
    covariates = np.random.default_rng(1).normal(size=(400, 1))
    for c, kw in ((old_data(), {}), (old_data(covariates), {"covariates": False})):
        fitted = model(position_effect=position, **kw).fit(c)
        np.testing.assert_allclose(fitted.scores_.to_numpy(), scores, atol=1e-10)
        np.testing.assert_allclose(fitted.scores_std_.to_numpy(), std, rtol=1e-6)  # tie terms: finite differences
        assert fitted.position_effect_ == pytest.approx(h, abs=1e-10)
        if tie is not None:
            assert getattr(fitted, f"{fitted._tie_name}_") == pytest.approx(tie, abs=1e-10)
    # a covariate that is zero everywhere: left out (NaN coefficient), the fit on rows equals the old one
    fitted = model(position_effect=position).fit(old_data(np.zeros((400, 1))))
    assert np.isnan(fitted.coef_["len"])
    np.testing.assert_allclose(fitted.scores_.to_numpy(), scores, atol=1e-9)
    np.testing.assert_allclose(fitted.scores_std_.to_numpy(), std, rtol=1e-6)


def test_covariates_by_name_and_standardised():
    c = small(p=2)
    both = BradleyTerry().fit(c)
    one = BradleyTerry(covariates=["bold"]).fit(c)
    assert list(one.coef_.index) == ["bold"] and list(both.coef_.index) == ["len", "bold"]
    assert one.coef_["bold"] != pytest.approx(both.coef_["bold"], abs=1e-3)
    scaled = BradleyTerry(standardize=True).fit(c)
    rms = np.sqrt((c.weight[:, None] * c.covariates ** 2).sum(0) / c.weight.sum())
    np.testing.assert_allclose(scaled.covariate_scale_.to_numpy(), rms)
    np.testing.assert_allclose(scaled.coef_.to_numpy(), both.coef_.to_numpy() * rms, rtol=1e-8)
    np.testing.assert_allclose(scaled.coef_std_.to_numpy(), both.coef_std_.to_numpy() * rms, rtol=1e-6)
    np.testing.assert_allclose(scaled.scores_.to_numpy(), both.scores_.to_numpy(), atol=1e-9)
    with pytest.raises(ValueError, match="no covariates \\['words'\\]"):
        BradleyTerry(covariates="words").fit(c)
    bad = Comparisons(a=[0, 1], b=[1, 0], outcome=[1, 2], systems=("x", "y"), covariates=[[np.nan], [1.0]],
                      covariate_names=("len",))
    with pytest.raises(ValueError, match="covariate 'len' has 1 missing"):
        BradleyTerry().fit(bad)


@pytest.mark.parametrize("model", [BradleyTerry, Davidson, RaoKupper])
@pytest.mark.parametrize("by_judge", [False, True])
def test_compiled_covariate_bootstrap_equals_newton_on_the_same_resample(model, by_judge):
    sim = battles(n_battles=5_000, position=0.3, eta=0.3, random_state=7)
    c = sim.comparisons
    model = model(position_effect=True).fit(c)
    unit = c.judge.astype(np.int64) if by_judge else None
    samples = assert_covariate_bootstrap_is_newton(model, c, unit)
    assert np.std(samples[:, 0]) > 0


@pytest.mark.parametrize("link, terms, tie", [(_davidson, _davidson_tie, np.log(0.8)),
                                              (_rao_kupper, _rao_kupper_tie, np.log(0.6))])
def test_tie_derivatives_in_closed_form(link, terms, tie):
    counts = np.array([[3.0, 5.0, 2.0], [1.0, 0.0, 4.0], [0.0, 2.0, 2.0], [2.0, 1.0, 0.0]])
    x, e = np.array([0.3, -1.2, 2.0, 6.0]), 1e-5
    gt, htt, cross = terms(x, counts, tie)
    up, down = link(x, counts, tie + e), link(x, counts, tie - e)
    np.testing.assert_allclose(gt, (up[0] - down[0]) / (2 * e), atol=1e-7)
    np.testing.assert_allclose(cross, -(up[1] - down[1]) / (2 * e), atol=1e-7)
    g_up, g_down = terms(x, counts, tie + e)[0], terms(x, counts, tie - e)[0]
    np.testing.assert_allclose(htt, -(g_up - g_down) / (2 * e), atol=1e-7)


def separated(size=40):
    """Comparisons between two systems that the covariate alone decides: a wins exactly when z > 0."""
    rng = np.random.default_rng(3)
    z = rng.normal(0, 2, (size, 1))
    a, b = np.zeros(size, dtype=int), np.ones(size, dtype=int)
    return Comparisons(a=a, b=b, outcome=np.where(z[:, 0] > 0, 1, 2), systems=("x", "y"), covariates=z,
                       covariate_names=("len",))


def test_separating_covariate_gets_the_prior_named_and_matches_the_map():
    """Without a prior the coefficient is infinite; the fit warns naming it and returns the MAP
    with N(0, 1) per RMS unit on β: −log posterior = −ℓ + λ/2 Σθ² + (β·rms)²/2, checked by BFGS."""
    c = separated()
    with pytest.warns(UserWarning, match="covariate 'len' separates the outcomes"):
        model = BradleyTerry().fit(c)
    assert model.separated_ == ("len",) and np.isfinite(model.coef_["len"]) and np.isfinite(model.coef_std_["len"])
    rms = np.sqrt(np.mean(c.covariates[:, 0] ** 2))
    def negative(v):
        x = v[0] - v[1] + c.covariates[:, 0] * v[2]
        lp = np.where(c.outcome == 1, np.log(expit(x)), np.log(expit(-x)))
        return -lp.sum() + 0.5 * np.sum((v[:2] - v[:2].mean()) ** 2) + (v[2] * rms) ** 2 / 2 + np.sum(v[:2]) ** 2
    v = minimize(negative, np.zeros(3), method="BFGS", options={"gtol": 1e-10}).x
    assert model.coef_["len"] == pytest.approx(v[2], abs=1e-5)
    np.testing.assert_allclose(model.scores_.to_numpy(), v[:2] - v[:2].mean(), atol=1e-5)
    # the compiled bootstrap carries the same prior: each resample equals Newton on it
    samples = assert_covariate_bootstrap_is_newton(model, c, n=4, seed=5, atol=1e-6)
    assert np.all(np.isfinite(samples))


def test_unseparated_data_keep_maximum_likelihood_coefficients():
    """The prior is put on only when the data separate the coefficients (or when coef_l2 asks)."""
    c = small(p=2)
    plain = BradleyTerry().fit(c)
    assert plain.separated_ == () and plain.coef_l2 is None
    shrunk = BradleyTerry(coef_l2=50.0).fit(c)
    assert np.all(np.abs(shrunk.coef_.to_numpy()) < np.abs(plain.coef_.to_numpy()))
