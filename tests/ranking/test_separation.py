"""Which fixed effects the data separate (``ranking.separation``): hand-made cones, and the
Bradley–Terry family's check, which must not depend on how far its solver ran."""

import numpy as np
import pytest

from humeval.ranking.separation import separated_columns

TIE, A, B = 0, 1, 2


def cells(*outcomes):
    """counts (cells × 3) with weight 1 at each cell's outcome."""
    counts = np.zeros((len(outcomes), 3))
    counts[np.arange(len(outcomes)), outcomes] = 1.0
    return counts


def test_a_covariate_that_separates_alone_is_named_and_the_one_it_leaves_room_for_is_not():
    # z = +1 exactly where a won: d = e_z keeps every cell's likelihood rising. The noise column
    # lies in the cone too (d = (1, 0.5): z's margin of 1 leaves room), but separates nothing alone
    z = np.array([1.0, -1.0, 1.0, -1.0])
    noise = np.array([1.0, 1.0, -1.0, -1.0])
    assert list(separated_columns(np.c_[z, noise], cells(A, B, A, B))) == [True, False]
    assert list(separated_columns(np.c_[-z, noise], cells(A, B, A, B))) == [True, False]  # d = −e_z


def test_two_covariates_that_separate_only_together_are_both_named():
    # a won exactly where z1 + z2 > 0; neither column alone has the outcomes' sign everywhere,
    # so the linear programs find d = (1, 1) (both move)
    z1 = np.array([2.0, -1.0, -2.0, 1.0])
    z2 = np.array([-1.0, 2.0, 1.0, -2.0])
    counts = cells(A, A, B, B)
    assert list(separated_columns(np.c_[z1, z2], counts)) == [True, True]
    assert list(separated_columns(z1[:, None], counts)) == [False]  # z1 alone: 2·1 ≥ 0 but −1 where a won


def test_outcomes_both_ways_and_ties_leave_no_direction():
    # each covariate value saw a win each way (or a tie, where the row must stay at 0): no direction
    z = np.array([1.0, 1.0, -1.0, -1.0, 1.0])
    assert list(separated_columns(z[:, None], cells(A, B, A, B, A))) == [False]
    assert list(separated_columns(np.array([[1.0], [1.0], [-1.0]]), cells(A, TIE, B))) == [False]
    assert list(separated_columns(np.array([[1.0], [0.0], [-1.0]]), cells(A, TIE, B))) == [True]  # 0 at the tie


def test_without_a_prior_the_abilities_move_too():
    # systems 0 and 1, z = ±1: (0 v 1, z = +1, a won), (0 v 1, z = −1, a won), (1 v 0, z = +1, a
    # won), (1 v 0, z = −1, b won). With θ held (a prior on it) z has no direction: d_z ≥ 0 and
    # −d_z ≥ 0 where 0 beat 1. With θ free, d = (θ₀ − θ₁ = 1, z = 1) keeps every cell rising
    z = np.array([[1.0], [-1.0], [1.0], [-1.0]])
    a, b = np.array([0, 0, 1, 1]), np.array([1, 1, 0, 0])
    counts = cells(A, A, A, B)
    assert list(separated_columns(z, counts)) == [False]
    assert list(separated_columns(z, counts, a, b, m=2)) == [True]


def test_separation_is_found_where_the_fit_stopped_short():
    # one covariate z = ±1 that predicts every outcome (z = +1 exactly when a wins) separates the
    # data: the likelihood rises for ever in β. Started where the solver stops short (β = 3, below
    # SEPARATED = 10 logits per RMS unit), the outward test still finds the objective rising
    # there, while a covariate unrelated to the outcomes (half its wins at z = +1) falls outward
    import warnings
    from humeval.data import Comparisons
    from humeval.ranking import BradleyTerry
    from humeval.ranking.bradley_terry import SeparationWarning
    rng = np.random.default_rng(0)
    n = 200
    a = rng.integers(0, 4, n)
    b = (a + 1 + rng.integers(0, 3, n)) % 4
    outcome = rng.choice([1, 2], n)
    z = np.where(outcome == 1, 1.0, -1.0)
    unrelated = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    c = Comparisons(a=a, b=b, outcome=outcome, covariates=np.c_[z, unrelated], covariate_names=("z", "noise"),
                    systems=("s0", "s1", "s2", "s3"))
    with pytest.warns(SeparationWarning, match="covariate 'z' separates"):
        model = BradleyTerry(standardize=True).fit(c)
    assert model.separated_ == ("z",)
    # the outward test alone, at β_z = 3 (short of SEPARATED; no iteration): rising for z, falling
    # for the noise
    from humeval.ranking.bradley_terry import rated_rows
    model._phi_prec = np.zeros(2)
    a, b, counts, X = model._fit_data(c, model._design(c)[1], model._fit_cells[1])[:4]
    rows = rated_rows(np.ones(4, bool), a, b)
    rising, flat = model._outwards(rows, counts[rows.keep], model._fixed(X[rows.keep], len(rows.la)), np.zeros(4),
                                   np.array([3.0, 0.5]), 0.0, np.ones(2))
    assert list(rising) == [True, False]
    assert list(flat) == [True, False]  # z = ±1 everywhere: the reach step is the RMS step
    # and at β = 0 there is no outward side
    assert not np.any(model._outwards(rows, counts[rows.keep], model._fixed(X[rows.keep], len(rows.la)), np.zeros(4),
                                      np.zeros(2), 0.0, np.ones(2)))


def _battles(n: int = 3000, k: int = 6):
    """(rng, a, b, outcome): n battles among k systems under Bradley–Terry, no ties (seed 0)."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, n)) % k
    theta = rng.normal(0, 1, k)
    return rng, a, b, np.where(rng.random(n) < 1 / (1 + np.exp(-(theta[a] - theta[b]))), 1, 2)


def test_a_rare_feature_that_always_sides_with_the_winner_is_separation():
    """A covariate nonzero in 6 of 3,000 comparisons, +1 where a won and −1 where b won: its RMS
    is √(6/3000) ≈ 0.045, so the estimate the solver stopped at, 4.5 per RMS unit, was short of
    SEPARATED = 10 while moving those 6 comparisons by 100 logits; it was reported with a
    standard error of 1.9e20 and no warning. Now it is named, and the refit under the prior gives
    a finite coefficient with a finite error; the dense covariate is left as it was."""
    import warnings
    from humeval.data import Comparisons
    from humeval.ranking import BradleyTerry
    from humeval.ranking.bradley_terry import SeparationWarning
    from humeval.ranking.separation import alone_columns
    rng, a, b, outcome = _battles()
    n, k = len(a), 6
    rare = np.zeros(n)
    rows = rng.choice(n, 6, replace=False)
    rare[rows] = np.where(outcome[rows] == 1, 1.0, -1.0)
    length = rng.normal(0, 1, n)
    c = Comparisons(a=a, b=b, outcome=outcome, covariates=np.c_[length, rare], covariate_names=("length", "rare"),
                    systems=tuple(f"s{i}" for i in range(k)))
    with pytest.warns(SeparationWarning, match="covariate 'rare' separates"):
        model = BradleyTerry(standardize=True).fit(c)
    assert model.separated_ == ("rare",)
    assert 0 < model.coef_["rare"] < 1 and model.coef_std_["rare"] < 1
    # the same data without the rare column: no warning, and the length coefficient near 0 (it is noise)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SeparationWarning)
        dense = BradleyTerry(standardize=True, covariates=["length"]).fit(c)
    assert dense.separated_ == () and abs(dense.coef_["length"]) < 3 * dense.coef_std_["length"]
    # the cheap test alone: one tie among the rare rows and it no longer separates on its own
    counts = np.zeros((n, 3))
    counts[np.arange(n), outcome] = 1
    assert alone_columns(np.c_[length, rare], counts).tolist() == [False, True]
    counts[rows[0]] = [1, 0, 0]
    assert alone_columns(np.c_[length, rare], counts).tolist() == [False, False]


def test_two_rare_features_that_separate_only_together_are_named():
    """r1 is 1 on six comparisons (three won by a, three by b), r2 is 2 where a won and 0.5 where b
    won: neither separates the outcomes alone, but r2 − r1 does (+1 where a won, −0.5 where b
    won). The solver stopped where the line search found no ascent (no step left, so not
    'stalled'), each estimate short of SEPARATED per RMS unit, and their standard errors came out
    as 4e-19 (a null direction of the information matrix): shown as certain. Flat outwards, they
    now go to the linear programs, which name both."""
    from humeval.data import Comparisons
    from humeval.ranking import BradleyTerry
    from humeval.ranking.bradley_terry import SeparationWarning
    rng, a, b, outcome = _battles()
    n, k = len(a), 6
    rows = np.r_[np.flatnonzero(outcome == 1)[:3], np.flatnonzero(outcome == 2)[:3]]
    r1, r2 = np.zeros(n), np.zeros(n)
    r1[rows] = 1.0
    r2[rows] = np.where(outcome[rows] == 1, 2.0, 0.5)
    c = Comparisons(a=a, b=b, outcome=outcome, covariates=np.c_[rng.normal(0, 1, n), r1, r2],
                    covariate_names=("length", "r1", "r2"), systems=tuple(f"s{i}" for i in range(k)))
    with pytest.warns(SeparationWarning, match="covariates 'r1', 'r2' separate"):
        model = BradleyTerry(standardize=True).fit(c)
    assert model.separated_ == ("r1", "r2")
    assert (model.coef_std_[["r1", "r2"]] > 0.1).all() and (model.coef_std_ < 1).all()
    assert model.coef_["r1"] < 0 < model.coef_["r2"]  # the separating direction's signs


def test_a_fit_stopped_while_still_moving_says_so():
    """max_iter = 2: the second Newton step still moves the abilities, which is no estimate."""
    from humeval.ranking import BradleyTerry
    from humeval.ranking.base import FitWarning
    from humeval.simulate import simulate_competition
    c = simulate_competition(n_systems=6, n_judgments=600, design="pairs", random_state=3).comparisons
    with pytest.warns(FitWarning, match="the fit did not converge: after 2 Newton iterations"):
        BradleyTerry(max_iter=2).fit(c)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", FitWarning)
        BradleyTerry().fit(c)


def test_a_fit_that_met_its_own_tolerance_is_not_called_unconverged():
    """tol = 1e-3: Newton stops after 5 steps, the last moving 1.4e-4 (< tol, converged by the
    user's own rule); it was reported as 'did not converge after 5 Newton iterations (max_iter)'."""
    from humeval.ranking import BradleyTerry
    from humeval.ranking.base import FitWarning
    from humeval.simulate import simulate_competition
    c = simulate_competition(n_systems=6, n_judgments=600, design="pairs", random_state=3).comparisons
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", FitWarning)
        loose = BradleyTerry(tol=1e-3).fit(c)
    assert loose.scores_.to_numpy() == pytest.approx(BradleyTerry().fit(c).scores_.to_numpy(), abs=1e-3)
