"""Plackett–Luce with ties (Davidson–Luce): a brute-force likelihood, choix, Davidson on pairs, the
rebuilding of rankings from their pairs, and a simulator's truth."""

from itertools import combinations, product

import numpy as np
import pytest
from scipy.optimize import minimize

from humeval.data import Comparisons
from humeval.data.tables import Rankings
from humeval.errors import DisconnectedError
from humeval.ranking import Davidson, PlackettLuce, make_model
from humeval.ranking.plackett_luce import weak_orders


def rankings(classes_list, systems):
    """Rankings from lists of tie classes of system names (best class first)."""
    k = max(sum(len(c) for c in classes) for classes in classes_list)
    system = np.full((len(classes_list), k), -1)
    rank = np.full((len(classes_list), k), -1)
    for row, classes in enumerate(classes_list):
        position = 0
        for level, tied in enumerate(classes):
            for name in tied:
                system[row, position], rank[row, position] = systems.index(name), level + 1
                position += 1
    return Rankings(system=system, rank=rank, systems=tuple(systems))


def brute_log_likelihood(classes_list, systems, theta, log_delta):
    """Σ log Π_j f(G_j) / Σ_{S ⊆ A_j, |S| ∈ orders} f(S), every subset enumerated; log f(S) =
    log δ_|S| + mean θ over S (Firth, Kosmidis & Turner 2019)."""
    index = {s: i for i, s in enumerate(systems)}
    log_f = lambda S: (log_delta[len(S)] if len(S) > 1 else 0.0) + np.mean([theta[index[s]] for s in S])  # noqa: E731
    total = 0.0
    for classes in classes_list:
        left = [s for c in classes for s in c]
        for chosen in classes:
            if len(left) > 1:
                subsets = [S for t in [1, *log_delta] for S in combinations(left, t)]
                total += log_f(chosen) - np.logaddexp.reduce([log_f(S) for S in subsets])
            left = [s for s in left if s not in chosen]
    return total


TINY = [[["A"], ["B", "C"], ["D"]], [["B"], ["A"], ["D"], ["C"]], [["C", "D"], ["A", "B"]], [["A", "B", "C"], ["D"]],
        [["D"], ["C"], ["B"]], [["B"], ["D", "A"]], [["A"], ["C"]], [["C", "B"]], [["D"], ["A", "B", "C"]]]


def test_matches_a_brute_force_likelihood_and_its_optimum():
    systems = list("ABCD")
    model = PlackettLuce(l2=0.5).fit(rankings(TINY, systems))
    assert model.orders_ == (1, 2, 3) and model.rankings_ == {2: 2, 3: 2, 4: 5} and model.pairs_alone_ == 0
    theta = model.scores_.to_numpy()
    assert model.log_likelihood_ == pytest.approx(brute_log_likelihood(TINY, systems, theta, model.log_delta_),
                                                  abs=1e-10)

    def minus_posterior(x):
        th, ld = x[:4], {2: x[4], 3: x[5]}
        return -brute_log_likelihood(TINY, systems, th, ld) + 0.25 * np.sum((th - th.mean()) ** 2)

    best = minimize(minus_posterior, np.zeros(6), method="BFGS", options={"gtol": 1e-9}).x
    np.testing.assert_allclose(theta, best[:4] - best[:4].mean(), atol=1e-5)
    assert [model.log_delta_[2], model.log_delta_[3]] == pytest.approx(best[4:], abs=1e-5)


def test_pairs_are_davidsons_model_and_predict_proba_is_its_pair_form():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 5, 300)
    b = (a + rng.integers(1, 5, 300)) % 5
    outcome = np.where(rng.random(300) < 0.25, 0, np.where(rng.random(300) < 0.5 + 0.1 * (b - a), 1, 2))
    c = Comparisons(a=a, b=b, outcome=outcome, systems=tuple("ABCDE"))  # group -1: rankings of two
    pl, dv = PlackettLuce().fit(c), Davidson().fit(c)
    np.testing.assert_allclose(pl.scores_, dv.scores_, atol=1e-8)
    np.testing.assert_allclose(pl.scores_std_, dv.scores_std_, atol=1e-6)
    assert pl.delta_[2] == pytest.approx(dv.nu_, rel=1e-7)
    names = list("ABCDE")
    np.testing.assert_allclose(pl.predict_proba(names, names[::-1]), dv.predict_proba(names, names[::-1]), atol=1e-8)


def test_equals_choix_on_tie_free_rankings():
    choix = pytest.importorskip("choix")
    rng = np.random.default_rng(7)
    truth = rng.normal(0, 1, 6)
    data = []
    for _ in range(150):  # Plackett–Luce rankings of 3–5 of 6 items by Gumbel noise
        shown = rng.choice(6, int(rng.integers(3, 6)), replace=False)
        data.append([int(i) for i in shown[np.argsort(-(truth[shown] + rng.gumbel(size=len(shown))))]])
    alpha = 0.05  # choix's penalty α Σθ² is our λ/2 Σθ² with λ = 2α
    expected = choix.opt_rankings(6, data, alpha=alpha, tol=1e-12)
    model = PlackettLuce(l2=2 * alpha).fit(rankings([[[str(i)] for i in r] for r in data], [str(i) for i in range(6)]))
    assert model.orders_ == (1,)
    np.testing.assert_allclose(model.scores_.to_numpy(), expected - expected.mean(), atol=1e-6)


def simulate(theta, log_delta, n, k, rng):
    """Davidson–Luce rankings of k of the systems: at each stage a subset S of the systems left
    (|S| ≤ 3) is drawn with probability ∝ δ_|S| (Π α)^{1/|S|}."""
    out = []
    for _ in range(n):
        left, classes = list(rng.choice(len(theta), k, replace=False)), []
        while left:
            subsets = [S for t in (1, 2, 3) for S in combinations(left, t)]
            logf = np.array([(log_delta[len(S)] if len(S) > 1 else 0) + np.mean(theta[list(S)]) for S in subsets])
            p = np.exp(logf - logf.max())
            chosen = subsets[rng.choice(len(subsets), p=p / p.sum())]
            classes.append([str(s) for s in chosen])
            left = [s for s in left if s not in chosen]
        out.append(classes)
    return out


def test_recovers_simulated_truth():
    rng = np.random.default_rng(11)
    theta = np.linspace(-1.2, 1.2, 7)
    data = simulate(theta, {2: np.log(0.6), 3: np.log(0.3)}, 1500, 5, rng)
    model = PlackettLuce(l2=0).fit(rankings(data, [str(i) for i in range(7)]))
    error = model.scores_.to_numpy() - theta
    assert np.abs(error).max() < 0.12 and (np.abs(error) < 3.5 * model.scores_std_.to_numpy()).all()
    # the tie parameters within 3.5 standard errors (SE of log δ_2 ≈ 0.036, of log δ_3 ≈ 0.058 here)
    assert model.delta_[2] == pytest.approx(0.6, rel=0.13) and model.delta_[3] == pytest.approx(0.3, rel=0.2)
    assert list(model.ranking().index) == [str(i) for i in range(6, -1, -1)]


def test_rankings_rebuilt_from_shuffled_pairs_and_broken_groups_count_as_pairs():
    systems = list("ABCD")
    c = rankings(TINY, systems).expand()
    whole = PlackettLuce().fit(c)
    shuffled = PlackettLuce().fit(c.take(np.random.default_rng(0).permutation(len(c))))
    np.testing.assert_allclose(shuffled.scores_, whole.scores_, atol=1e-10)
    # ranking 0 (A > B = C > D) without its pair (A, D): its other five pairs stand alone
    first = np.flatnonzero(c.group == 0)
    missing = first[(c.a[first] == 0) & (c.b[first] == 3)]
    broken = PlackettLuce().fit(c.take(np.setdiff1d(np.arange(len(c)), missing)))
    assert broken.pairs_alone_ == 5 and broken.rankings_ == {2: 2 + 5, 3: 2, 4: 4}
    # a group that contradicts itself (A > B, B > C, C > A) also counts as three pairs
    cycle = Comparisons(a=[0, 1, 2], b=[1, 2, 0], outcome=[1, 1, 1], group=[0, 0, 0], systems=("A", "B", "C"))
    ranking, system, rank, _, _, alone = weak_orders(cycle)
    assert alone == 3 and np.bincount(ranking).tolist() == [2, 2, 2]
    # and a whole one is read back as its weak order
    ranking, system, rank, _, _, alone = weak_orders(rankings([[["C"], ["A", "D"], ["B"]]], systems).expand())
    assert alone == 0 and dict(zip(system.tolist(), rank.tolist())) == {2: 1, 0: 2, 3: 2, 1: 4}


def test_integer_weights_equal_repeated_rankings():
    systems = list("ABCD")
    once = rankings(TINY, systems).expand()
    twice = rankings(TINY + TINY[:3], systems).expand()
    weights = np.where(once.group < 3, 2.0, 1.0)
    weighted = Comparisons(a=once.a, b=once.b, outcome=once.outcome, group=once.group, weight=weights,
                           systems=once.systems)
    np.testing.assert_allclose(PlackettLuce().fit(weighted).scores_, PlackettLuce().fit(twice).scores_, atol=1e-10)


def test_maximum_likelihood_refuses_a_separated_graph_and_the_prior_keeps_it_finite():
    c = rankings([[["A"], ["B"], ["C"]], [["A"], ["C"], ["B"]]], list("ABC")).expand()
    with pytest.raises(DisconnectedError, match="parts that never beat each other"):
        PlackettLuce(l2=0).fit(c)
    model = make_model("plackett-luce", l2=1.0).fit(c)
    assert model.ranking().index[0] == "A" and model.ranking().loc["A", "note"] == "never lost"
    assert np.isfinite(model.scores_).all()
    with pytest.raises(ValueError, match="prior precision"):
        PlackettLuce(l2=-1).fit(c)


def weak_orders_of(names):
    """Every ordered partition of ``names``: classes best first."""
    out = []
    for levels in product(range(len(names)), repeat=len(names)):
        if set(levels) == set(range(max(levels) + 1)):
            out.append([[n for n, level in zip(names, levels) if level == j] for j in range(max(levels) + 1)])
    return out


def test_pair_predictions_marginalise_over_the_usual_ranking():
    systems = list("ABC")
    data = [[["A"], ["B", "C"]], [["B"], ["A"], ["C"]], [["A", "B", "C"]], [["C"], ["A"], ["B"]], [["A"], ["B"], ["C"]],
            [["A", "C"], ["B"]]]
    model = PlackettLuce().fit(rankings(data, systems))
    theta = model.scores_.to_numpy()
    orders = weak_orders_of(systems)
    assert len(orders) == 13
    # three systems: the third is the only context, so the marginal is a sum over the 13 weak orders
    expected = np.zeros(3)
    for classes in orders:
        place = {s: j for j, c in enumerate(classes) for s in c}
        relation = 0 if place["A"] == place["B"] else 1 if place["A"] < place["B"] else 2
        expected[relation] += np.exp(brute_log_likelihood([classes], systems, theta, model.log_delta_))
    assert expected.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(model.predict_proba(["A", "B"], ["B", "A"]), [expected, expected[[0, 2, 1]]],
                               atol=1e-12)
    pair = PlackettLuce(predict="pair").fit(rankings(data, systems)).predict_proba(["A"], ["B"])[0]
    u, nu = (theta[0] - theta[1]) / 2, model.delta_[2]
    np.testing.assert_allclose(pair, np.array([nu, np.exp(u), np.exp(-u)]) / (np.exp(u) + np.exp(-u) + nu))
    assert pair[0] < expected[0]  # in a ranking of three, A and B also tie within a three-way tie
    with pytest.raises(ValueError, match="predict must be"):
        PlackettLuce(predict="other").fit(rankings(data, systems))


def test_bootstrap_reweights_whole_rankings_as_a_refit_on_repeated_rows_does():
    from humeval.experiments import bootstrap
    rng = np.random.default_rng(2)
    theta = np.array([0.8, 0.3, 0.0, -0.4, -0.9])
    c = rankings(simulate(theta, {2: np.log(0.5), 3: np.log(0.2)}, 60, 4, rng), [str(i) for i in range(5)]).expand()
    model = PlackettLuce().fit(c)
    fast = model.bootstrap_scores(c, None, 3, np.random.default_rng(9))
    draws = np.random.default_rng(9)
    for row in fast:
        drawn = np.bincount(draws.integers(0, 60, 60), minlength=60)
        refit = PlackettLuce().fit(c.take(np.repeat(np.arange(len(c)), drawn[c.group])))  # each pair r times
        assert refit.pairs_alone_ == 0
        np.testing.assert_allclose(row, refit.scores_.to_numpy(), atol=1e-7)
    by_ranking = bootstrap(PlackettLuce(), c, n=200, by="ranking", random_state=0).samples
    assert by_ranking.shape == (200, 5) and np.isfinite(by_ranking).all()
    # the spread of the resampled scores is about the Laplace standard error
    np.testing.assert_allclose(by_ranking.std(axis=0), model.scores_std_.to_numpy(), rtol=0.3)
    with pytest.raises(ValueError, match="fitted on"):
        model.bootstrap_scores(c.take(np.arange(5)), None, 2, np.random.default_rng(0))
