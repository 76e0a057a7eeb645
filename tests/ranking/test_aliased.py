"""Covariates the data cannot tell apart (``separation.aliased_columns``): before, two copies of
one feature each got half its coefficient with a standard error as if estimable (0.266 ± 0.021,
z = 12.6, twice), and a copy off by 1e-9 was reported as separating the outcomes. Now the later
column is left out with a warning, as R's glm marks aliased coefficients, and the one kept gets
the whole effect (the simulated 0.5 per unit)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from humeval.data import Comparisons
from humeval.ranking import BradleyTerry, Davidson
from humeval.ranking.base import FitWarning
from humeval.ranking.separation import aliased_columns

N, K = 3000, 6


@pytest.fixture(scope="module")
def battles():
    rng = np.random.default_rng(0)
    a = rng.integers(0, K, N)
    b = (a + rng.integers(1, K, N)) % K
    theta = rng.normal(0, 1, K)
    z, other = rng.normal(0, 1, N), rng.normal(0, 1, N)
    outcome = np.where(rng.random(N) < 1 / (1 + np.exp(-(theta[a] - theta[b] + 0.5 * z))), 1, 2)
    return a, b, outcome, z, other, rng


def fit(battles, columns, names, model=BradleyTerry, **options):
    a, b, outcome = battles[:3]
    c = Comparisons(a=a, b=b, outcome=outcome, covariates=np.column_stack(columns), covariate_names=names,
                    systems=tuple(f"s{i}" for i in range(K)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fitted = model(standardize=True, **options).fit(c)
    return fitted, [str(w.message) for w in caught if issubclass(w.category, FitWarning)]


@pytest.mark.parametrize("copy", ["same", "twice", "off by 1e-9"])
def test_a_copy_of_a_covariate_is_left_out_and_the_other_keeps_the_whole_effect(battles, copy):
    z, rng = battles[3], battles[5]
    second = {"same": z, "twice": 2 * z, "off by 1e-9": z + 1e-9 * rng.normal(size=N)}[copy]
    model, said = fit(battles, [z, second], ("len", "len2"))
    alone, quiet = fit(battles, [z], ("len",))
    assert model.aliased_ == ("len2",) and alone.aliased_ == () and quiet == []
    assert np.isnan(model.coef_["len2"]) and np.isnan(model.coef_std_["len2"])
    assert model.coef_["len"] == pytest.approx(alone.coef_["len"], rel=1e-6)  # the one kept: as if alone
    assert model.coef_["len"] == pytest.approx(0.5, abs=3 * model.coef_std_["len"])  # the simulated effect
    assert said == ["'len2' is a linear combination of 'len': the data cannot tell its coefficient apart, so it is "
                    "left out of the fit (coefficient NaN), as R's glm leaves out aliased columns; drop or combine "
                    "the columns to choose which one stays"]
    assert model.separated_ == ()


def test_a_feature_constant_per_system_is_absorbed_by_the_scores(battles):
    a, b, z = battles[0], battles[1], battles[3]
    is_open = np.array([1.0, 0, 1, 0, 0, 1])
    model, said = fit(battles, [z, is_open[a] - is_open[b]], ("len", "open"), Davidson)
    assert model.aliased_ == ("open",) and "'open' is a linear combination of the systems' identities" in said[0]


def test_combinations_and_the_position_effect(battles):
    z, other = battles[3], battles[4]
    model, said = fit(battles, [z, other, z + 2 * other], ("len", "bold", "mix"))
    assert model.aliased_ == ("mix",) and "'mix' is a linear combination of 'len' and 'bold'" in said[0]
    ones = np.ones(N)
    assert fit(battles, [z, ones], ("len", "one"), position_effect=True)[0].aliased_ == ("one",)
    assert fit(battles, [z, ones], ("len", "one"))[0].aliased_ == ()  # without h, a constant is h



def test_self_comparisons_the_fit_leaves_out_do_not_hide_an_alias(battles):
    """30 comparisons of a system with itself (``pair_cells`` leaves them out of the fit) on which
    the copy differs, and a column nonzero only there: the check read those rows, so 'len2' was
    kept (each copy half the effect, 0.221 ± 0.021, z = 10.5) and 'self' had 0.0 ± 0.0."""
    a, b, outcome, z = battles[:4]
    rng = np.random.default_rng(5)
    same = np.arange(30) % K
    c = Comparisons(a=np.r_[a, same], b=np.r_[b, same], outcome=np.r_[outcome, np.ones(30, dtype=int)],
                    covariates=np.column_stack([np.r_[z, rng.normal(size=30)], np.r_[z, rng.normal(size=30)],
                                                np.r_[np.zeros(N), np.ones(30)]]),
                    covariate_names=("len", "len2", "self"), systems=tuple(f"s{i}" for i in range(K)))
    with pytest.warns(FitWarning, match="'len2' is a linear combination of 'len'"):
        model = BradleyTerry(standardize=True).fit(c)
    alone = fit(battles, [z], ("len",))[0]
    assert model.aliased_ == ("len2",) and np.isnan(model.coef_[["len2", "self"]]).all()
    assert model.coef_["len"] == pytest.approx(alone.coef_["len"], rel=1e-6)
    assert model.coef_std_["len"] == pytest.approx(alone.coef_std_["len"], rel=1e-6)

def test_aliased_columns_by_hand():
    """Four comparisons of two systems, W = 1: L = [[4, −4], [−4, 4]], L⁺ = L/64; column z = (1, 2,
    3, 4) has FᵀWF = 30 and B = (10, −10), so S = 30 − BᵀL⁺B = 30 − 25 = 5 = Σ(z − z̄)²: kept. A
    multiple of z is aliased with z; the column (1, 1, 1, 1) is the systems' difference itself
    (a = 0, b = 1 throughout): aliased with the identities; z + 1 with both."""
    a, b, w = np.zeros(4, dtype=np.int64), np.ones(4, dtype=np.int64), np.ones(4)
    z = np.array([1.0, 2, 3, 4])
    assert aliased_columns(np.c_[z], a, b, w, 2) == []
    assert aliased_columns(np.c_[z, 3 * z], a, b, w, 2) == [(1, [0], False)]
    assert aliased_columns(np.c_[z, np.ones(4)], a, b, w, 2) == [(1, [], True)]
    assert aliased_columns(np.c_[z, z + 1], a, b, w, 2) == [(1, [0], True)]


def test_rank_says_which_column_it_left_out(battles, tmp_path):
    import pandas as pd
    from click.testing import CliRunner

    from humeval.cli import cli
    a, b, outcome, z = battles[:4]
    path = tmp_path / "battles.csv"
    pd.DataFrame({"model_a": [f"m{i}" for i in a], "model_b": [f"m{i}" for i in b],
                  "winner": np.where(outcome == 1, "model_a", "model_b"), "len": z, "len_copy": z}).to_csv(path, index=False)
    result = CliRunner().invoke(cli, ["rank", str(path), "-m", "bt", "--covariates", "len,len_copy", "--json"])
    assert result.exit_code == 0, result.output
    assert "'len_copy' is a linear combination of 'len'" in " ".join(result.stderr.split())
    assert "bug" not in result.output


def test_estimable_covariates_are_neither_aliased_nor_separated():
    """Guards on the two checks: a heavy-tailed covariate (Student t, 1.5 degrees of freedom), two
    correlated 0.99 (each keeps 2 % of its information after the other) and a rare one (nonzero on
    ~1 % of the comparisons, both outcomes there) are estimable: no warning, each coefficient
    within 4 standard errors of the simulated one."""
    rng = np.random.default_rng(1)
    n, k = 20000, 8
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, n)) % k
    heavy, x = rng.standard_t(1.5, n), rng.normal(size=n)
    x2 = 0.99 * x + np.sqrt(1 - 0.99 ** 2) * rng.normal(size=n)
    rare = np.where(rng.random(n) < 0.01, rng.normal(size=n), 0.0)
    truth = {"heavy": 0.02, "x": 0.5, "x2": 0.3, "rare": 0.8}
    eta = rng.normal(0, 1, k)[a] - rng.normal(0, 1, k)[b] + sum(truth[c] * v for c, v in
                                                                zip(truth, (heavy, x, x2, rare)))
    outcome = np.where(rng.random(n) < 1 / (1 + np.exp(-eta)), 1, 2)
    c = Comparisons(a=a, b=b, outcome=outcome, covariates=np.column_stack([heavy, x, x2, rare]),
                    covariate_names=tuple(truth), systems=tuple(f"s{i}" for i in range(k)))
    for standardize in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("error", FitWarning)
            model = BradleyTerry(standardize=standardize).fit(c)
        assert model.aliased_ == () and model.separated_ == ()
        per_unit = model.coef_ / model.covariate_scale_  # back to the covariates' own units
        std = model.coef_std_ / model.covariate_scale_
        for name, value in truth.items():
            assert per_unit[name] == pytest.approx(value, abs=4 * std[name]), (standardize, name)


def test_the_warning_names_what_the_column_really_combines(battles):
    """z + 1 with a position effect is 'len' plus the position effect (the warning said 'len'
    only). A feature constant per pair on a chain of 200 systems (each pair a potential
    difference) is the systems' identities alone; an earlier column equal to it up to 1e-4 noise,
    kept (2e-8 of its information left), was named as part of it, by the rounding of S."""
    z = battles[3]
    said = fit(battles, [z, z + 1], ("len", "mix"), position_effect=True)[1]
    assert said[0].startswith("'mix' is a linear combination of the position effect and 'len':")
    rng = np.random.default_rng(2)
    n = 200
    a = np.repeat(np.arange(n - 1), 20)
    b, x = a + 1, rng.normal(size=len(a))
    pair = rng.normal(size=n)[a]
    w = rng.exponential(size=len(a)) * np.where(a < n // 2, 1e3, 1.0)
    assert aliased_columns(np.c_[x, pair + 1e-4 * rng.normal(size=len(a)), pair], a, b, w, n) == [(2, [], True)]


def test_many_systems_still_absorb_a_feature_constant_per_system(battles, monkeypatch):
    """Above ALIAS_SYSTEMS (2,000) the check left the abilities out, so a feature constant per
    system was kept there (the split the check exists to stop). Now a sparse solve with one system
    per connected part held at 0 gives the dense pseudo-inverse's answer: checked with the limit
    set to 0, on two separate groups of systems, an unused one and a zero-weight row."""
    import humeval.ranking.separation as separation
    a, b, z = battles[0], battles[1], battles[3]
    a2, b2 = np.r_[a, a + K, [2 * K]], np.r_[b, b + K, [0]]  # a second group, a system in a weight-0 row only
    w = np.r_[np.ones(2 * N), 0.0]
    level = np.random.default_rng(7).normal(size=2 * K + 2)
    Z = np.c_[np.r_[z, z[::-1], 1.0], level[a2] - level[b2], np.r_[2 * z, 2 * z[::-1], 5.0]]
    dense = aliased_columns(Z, a2, b2, w, 2 * K + 2)
    assert dense == [(1, [], True), (2, [0], False)]
    monkeypatch.setattr(separation, "ALIAS_SYSTEMS", 0)
    assert aliased_columns(Z, a2, b2, w, 2 * K + 2) == dense
    assert aliased_columns(Z, a2, b2, w, 2 * K + 2, position=True) == dense
    zz = np.array([1.0, 2, 3, 4])  # the by-hand case: S = 5 for z, kept
    assert aliased_columns(np.c_[zz, np.ones(4)], np.zeros(4, dtype=np.int64), np.ones(4, dtype=np.int64),
                           np.ones(4), 2) == [(1, [], True)]
