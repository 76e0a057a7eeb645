"""Analytic (Fisher, sandwich) covariance and intervals of the Bradley–Terry family."""

import numpy as np
import pytest
from scipy.special import expit
from scipy.stats import norm

from humeval.data import Comparisons
from humeval.ranking import BradleyTerry, Davidson, RaoKupper
from humeval.ranking.analytic import critical_value
from humeval.ranking.bradley_terry import ELO_PER_LOGIT
from humeval.simulate import simulate_battles


def test_bt_fisher_intervals_agree_with_a_2000_resample_bootstrap():
    c = simulate_battles(n_systems=10, n_battles=60_000, beta=0.0, random_state=0).comparisons
    model = BradleyTerry(covariates=False).fit(c)
    boot = model.bootstrap_scores(c, None, 2000, np.random.default_rng(0)).std(axis=0)
    analytic = model.intervals()["std"].to_numpy()
    np.testing.assert_allclose(analytic, boot, rtol=0.10)
    assert np.max(np.abs(analytic / boot - 1)) < 0.06  # in fact within a few per cent


def test_style_controlled_intervals_agree_with_the_bootstrap():
    c = simulate_battles(n_systems=6, n_battles=50_000, beta=1.0, position=0.2, random_state=1).comparisons
    model = BradleyTerry(position_effect=True).fit(c)
    samples = model.bootstrap_scores(c, None, 500, np.random.default_rng(1))  # 500: the std to ±3 %
    np.testing.assert_allclose(model.scores_std_.to_numpy(), samples.std(axis=0), rtol=0.10)


@pytest.mark.parametrize("model", [Davidson, RaoKupper])
def test_tie_models_fisher_agrees_with_the_bootstrap(model):
    c = simulate_battles(n_systems=5, n_battles=20_000, beta=0.0, eta=0.4, random_state=2).comparisons
    fitted = model(covariates=False).fit(c)
    boot = fitted.bootstrap_scores(c, None, 400, np.random.default_rng(2)).std(axis=0)
    np.testing.assert_allclose(fitted.intervals()["std"], boot, rtol=0.15)  # 400 resamples: ±3.5 % noise


def test_sandwich_widens_when_judgments_cluster_by_judge():
    sim = simulate_battles(n_systems=6, n_battles=50_000, beta=0.0, n_judges=40, sigma_judge=0.5, random_state=3)
    c = sim.comparisons
    model = BradleyTerry(covariates=False).fit(c)
    fisher = model.intervals()["std"].to_numpy()
    rows = model.intervals("sandwich")["std"].to_numpy()
    judge = model.intervals("sandwich", clusters="judge")["std"].to_numpy()
    np.testing.assert_allclose(rows, fisher, rtol=0.05)  # comparisons alone: no wider than Fisher
    assert np.all(judge > 1.5 * fisher)
    boot = model.bootstrap_scores(c, c.judge, 1000, np.random.default_rng(3)).std(axis=0)
    np.testing.assert_allclose(judge, boot, rtol=0.2)  # 40 clusters: the judge bootstrap agrees
    np.testing.assert_allclose(model.intervals("sandwich", clusters=c.judge.astype(np.int64))["std"], judge)


def row_loglik(kind, v, c, n):
    """Per-comparison log-likelihood (no prior) written out from the papers, v = (θ, h, β, log tie)."""
    theta, h, beta, tie = v[:n], v[n], v[n + 1:-1], v[-1]
    x = theta[c.a] - theta[c.b] + h + c.covariates @ beta
    if kind == "davidson":
        nu = np.exp(tie)
        d = np.exp(x / 2) + np.exp(-x / 2) + nu
        lp = np.log(np.column_stack([nu / d, np.exp(x / 2) / d, np.exp(-x / 2) / d]))
    else:
        eta = np.exp(tie)
        p1, p2 = expit(x - eta), expit(-x - eta)
        lp = np.log(np.column_stack([1 - p1 - p2, p1, p2]))
    return c.weight * lp[np.arange(len(c)), c.outcome]


@pytest.mark.parametrize("model, kind", [(Davidson, "davidson"), (RaoKupper, "rk")])
def test_covariance_by_numerical_derivatives(model, kind):
    """H and the per-judge scores by finite differences of the written-out likelihood; the
    covariance of θ on the sum-zero plane by projecting with P = I − 11ᵀ/n."""
    c = simulate_battles(n_systems=4, n_battles=600, beta=0.8, eta=0.4, position=0.2, n_judges=12,
                         random_state=4).comparisons
    fitted = model(position_effect=True, l2=0.3).fit(c)
    n = 4
    v = np.concatenate([fitted.theta_, fitted._phi, [fitted._tie]])
    size, e = len(v), 1e-5
    scores = np.empty((len(c), size))
    for i in range(size):
        up, down = v.copy(), v.copy()
        up[i] += e
        down[i] -= e
        scores[:, i] = (row_loglik(kind, up, c, n) - row_loglik(kind, down, c, n)) / (2 * e)
    def gradient(w):
        out = np.empty(size)
        for i in range(size):
            up, down = w.copy(), w.copy()
            up[i] += e
            down[i] -= e
            out[i] = (row_loglik(kind, up, c, n).sum() - row_loglik(kind, down, c, n).sum()) / (2 * e)
        return out
    H = np.empty((size, size))
    for i in range(size):
        up, down = v.copy(), v.copy()
        up[i] += 1e-4
        down[i] -= 1e-4
        H[:, i] = -(gradient(up) - gradient(down)) / 2e-4
    H[:n, :n] += 0.3 * (np.eye(n) - 1 / n) + 1 / n  # the prior, and the gauge on the common shift
    P = np.eye(size)
    P[:n, :n] -= 1 / n
    inverse = np.linalg.inv(H)
    fisher = P @ inverse @ P
    np.testing.assert_allclose(fitted.covariance().to_numpy(), fisher, rtol=1e-3, atol=1e-6)
    G = np.array([scores[c.judge == j].sum(axis=0) for j in range(12)])
    sandwich = P @ inverse @ G.T @ G @ inverse @ P
    np.testing.assert_allclose(fitted.covariance("sandwich", "judge", small_sample=False).to_numpy(), sandwich,
                               rtol=1e-3, atol=1e-6)
    cr1 = 12 / 11 * (len(c) - 1) / (len(c) - (size - 1))  # G/(G − 1)·(N − 1)/(N − K), the default
    np.testing.assert_allclose(fitted.covariance("sandwich", "judge").to_numpy(), cr1 * sandwich, rtol=1e-3, atol=1e-6)
    rows = P @ inverse @ scores.T @ scores @ inverse @ P
    np.testing.assert_allclose(fitted.covariance("sandwich").to_numpy(), rows, rtol=1e-3, atol=1e-6)


def test_anchor_and_elo_transform_the_covariance():
    c = simulate_battles(n_systems=5, n_battles=5_000, beta=0.5, random_state=5).comparisons
    plain = BradleyTerry().fit(c).covariance("sandwich", "judge").to_numpy()
    anchored = BradleyTerry(anchor="sys02", scale="elo").fit(c)
    cov = anchored.covariance("sandwich", "judge").to_numpy()
    k = 1
    for s in range(5):
        expected = ELO_PER_LOGIT ** 2 * (plain[s, s] - 2 * plain[s, k] + plain[k, k])
        assert cov[s, s] == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert cov[5, 5] == pytest.approx(plain[5, 5], rel=1e-9)  # the length coefficient stays in logits
    table = anchored.intervals()
    assert table.loc["sys02", "std"] == 0 and table.loc["sys02", "score"] == pytest.approx(1000)
    np.testing.assert_allclose(table["std"], anchored.scores_std_)


def test_simultaneous_critical_value():
    # independent scores: max-|t| equals the Šidák value Φ⁻¹((1 + 0.95^(1/k)) / 2)
    assert critical_value(np.eye(6), 0.95, True) == pytest.approx(norm.ppf((1 + 0.95 ** (1 / 6)) / 2), abs=0.01)
    assert critical_value(np.eye(6), 0.95, False) == pytest.approx(1.959964, abs=1e-6)
    # perfectly correlated: one interval
    assert critical_value(np.ones((4, 4)), 0.95, True) == pytest.approx(1.96, abs=0.01)
    c = simulate_battles(n_systems=8, n_battles=5_000, random_state=6).comparisons
    table = BradleyTerry().fit(c).intervals(confidence=0.9, simultaneous=True)
    z = table.attrs["critical_value"]
    assert norm.ppf(0.95) < z < norm.ppf(1 - 0.1 / 16)  # wider than pointwise, narrower than Bonferroni
    np.testing.assert_allclose(table["upper"] - table["score"], z * table["std"])


def test_coefficients_and_bad_arguments():
    c = simulate_battles(n_systems=4, n_battles=4_000, beta=1.2, eta=0.3, random_state=7).comparisons
    model = RaoKupper().fit(c)
    table = model.coefficients()
    assert list(table.index) == ["coef length", "log eta"]
    assert table.loc["coef length", "estimate"] == pytest.approx(model.coef_["length"])
    assert table.loc["coef length", "std"] == pytest.approx(model.coef_std_["length"])
    assert table.loc["log eta", "estimate"] == pytest.approx(np.log(model.eta_))
    with pytest.raises(ValueError, match="kind must be one of"):
        model.covariance("hessian")
    with pytest.raises(ValueError, match="clusters apply to the sandwich"):
        model.covariance("fisher", clusters="judge")
    with pytest.raises(ValueError, match="clusters must be one of"):
        model.covariance("sandwich", clusters="prompt")
    with pytest.raises(ValueError, match="one entry per comparison"):
        model.covariance("sandwich", clusters=np.zeros(3, dtype=int))


@pytest.mark.parametrize("small_sample,use_correction", [(True, True), (False, False)])
def test_clustered_sandwich_is_statsmodels_cluster_robust_covariance(small_sample, use_correction):
    """Bradley–Terry without a prior is a logistic regression on the ±1 design (one system as the
    reference): the judge-clustered sandwich equals statsmodels' GLM ``cov_type="cluster"``, with
    its default CR1 factor G/(G − 1)·(N − 1)/(N − K) or without it (``use_correction=False``)."""
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(0)
    n, m, judges = 3000, 5, 40
    skill = np.linspace(-1, 1, m)
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    judge = rng.integers(0, judges, n)
    lean = rng.normal(0, 0.7, judges)  # each judge exaggerates or flattens the differences
    win = rng.random(n) < expit((1 + lean[judge]) * (skill[a] - skill[b]))
    c = Comparisons(a=a, b=b, outcome=np.where(win, 1, 2), judge=judge, judges=tuple(f"j{k}" for k in range(judges)),
                    systems=tuple(f"s{i}" for i in range(m)))
    model = BradleyTerry(l2=0, anchor="s0").fit(c)
    ours = model.covariance("sandwich", clusters="judge", small_sample=small_sample).to_numpy()[1:m, 1:m]
    X = np.zeros((n, m))
    np.add.at(X, (np.arange(n), a), 1.0)
    np.add.at(X, (np.arange(n), b), -1.0)
    glm = sm.GLM(win.astype(float), X[:, 1:], family=sm.families.Binomial())
    theirs = glm.fit(cov_type="cluster", cov_kwds={"groups": judge, "use_correction": use_correction})
    np.testing.assert_allclose(model.scores_.to_numpy()[1:], theirs.params, rtol=1e-6)
    np.testing.assert_allclose(ours, theirs.cov_params(), rtol=1e-6)
    plain = model.covariance("sandwich", clusters="judge", small_sample=False).to_numpy()[1:m, 1:m]
    factor = judges / (judges - 1) * (n - 1) / (n - (m - 1))
    np.testing.assert_allclose(ours, plain * (factor if small_sample else 1.0), rtol=1e-12)
