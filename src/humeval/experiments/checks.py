"""``check_model``: what every registered model must do, as scikit-learn's ``check_estimator``.

Each check takes a command-line name, builds the model with ``make_model`` and raises
``AssertionError`` saying what failed. A model that cannot do something declares so in its
``Tags`` (``ranking.registry``) and the check verifies the declaration instead: a heuristic has no
``predict_proba``, a model without the ``covariates`` tag has no ``covariates`` parameter, a
``refit`` bootstrap has no ``bootstrap_scores`` of its own. The data are tiny (3 to 40
judgments), so the whole suite over the registry runs in seconds
(``tests/ranking/test_conformance.py``).
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np

from humeval.data.tables import Comparisons
from humeval.ranking.base import MaterialisedWarning, clone
from humeval.ranking.registry import make_model, tags


def _pairs(pairs, outcome, systems, **columns) -> Comparisons:
    a, b = np.array(pairs, dtype=int).T
    for column, labels in (("item", "items"), ("judge", "judges")):
        if column in columns:
            columns[labels] = tuple(f"{column}{i}" for i in range(int(np.max(columns[column])) + 1))
    return Comparisons(a=a, b=b, outcome=np.asarray(outcome, dtype=int), systems=tuple(systems), **columns)


def _ordered(n_systems=4, per_pair=5, upset=True) -> Comparisons:
    """Every pair judged ``per_pair`` times, the better (lower code) system winning all but, with
    ``upset``, one judgment per pair (a tie); items and judges cycle so that every model can fit."""
    pairs, outcome = [], []
    for i in range(n_systems):
        for j in range(i + 1, n_systems):
            for k in range(per_pair):
                pairs.append((i, j) if k % 2 else (j, i))
                won = 0 if upset and k == per_pair - 1 else (1 if k % 2 else 2)
                outcome.append(won)
    n = len(pairs)
    return _pairs(pairs, outcome, [f"s{i}" for i in range(n_systems)], item=np.arange(n) % 7,
                  judge=np.arange(n) % 3, group=np.arange(n))


def _three() -> Comparisons:
    """Three judgments: x beats y three times."""
    return _pairs([(0, 1)] * 3, [1, 1, 1], ("x", "y"), item=np.arange(3), judge=np.arange(3), group=np.arange(3))


def _fit(name, data, **params):
    model = make_model(name, random_state=0)
    if params:
        model.set_params(**params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(data)


def _finite_scores(model, what):
    scores = model.scores_.to_numpy(dtype=float)
    assert np.all(np.isfinite(scores)), f"{what}: scores not finite: {model.scores_.to_dict()}"
    if tags(model).std:
        std = model.scores_std_.to_numpy(dtype=float)
        assert np.all(np.isfinite(std)) and np.all(std >= 0), f"{what}: scores_std_ not finite: {std}"


def check_tiny_data(name):
    """Three judgments: finite scores (and std), the winner first or level, a ranking table."""
    model = _fit(name, _three())
    _finite_scores(model, "3 judgments")
    assert model.scores_["x"] >= model.scores_["y"], "3 judgments of x beating y rank y above x"
    table = model.ranking()
    assert list(table.columns[:1]) == ["score"] and table["rank"].min() == 1


def check_separated_data(name):
    """A strict order that no judgment contradicts: finite scores in that order (ties allowed)."""
    data = _ordered(upset=False)
    model = _fit(name, data)
    _finite_scores(model, "separated data")
    if tags(model).informative:
        scores = model.scores_.to_numpy()
        assert np.all(np.diff(scores) <= 1e-9), f"separated data out of order: {model.scores_.to_dict()}"
        assert scores[0] > scores[-1], "separated data: best and worst level"


def check_all_ties(name):
    """Nothing but ties: every system shares rank 1."""
    base = _ordered()
    data = _pairs(np.column_stack([base.a, base.b]), np.zeros(len(base), dtype=int), base.systems,
                  item=base.item, judge=base.judge, group=base.group)
    ranks = _fit(name, data).ranking()["rank"]
    assert set(ranks) == {1}, f"all ties ranked {ranks.to_dict()}"


def check_disconnected(name):
    """Two groups never compared: two components named, a component column, finite scores."""
    a = _ordered(2, 6)
    pairs = np.concatenate([np.column_stack([a.a, a.b]), np.column_stack([a.a, a.b]) + 2])
    outcome = np.concatenate([a.outcome, a.outcome])
    n = len(outcome)
    data = _pairs(pairs, outcome, ("a", "b", "c", "d"), item=np.arange(n) % 7, judge=np.arange(n) % 3,
                  group=np.arange(n))
    model = _fit(name, data)
    assert len(model.groups()) == 2, f"components: {model.groups()}"
    assert "component" in model.ranking().columns
    _finite_scores(model, "disconnected data")


def check_weights_are_copies(name):
    """Whole-number weights equal duplicated rows (the scores, and ``n_judgments_``: the judgments
    counted); a model that is not ``weighted`` warns that it repeated them (``MaterialisedWarning``),
    a ``weighted`` one does not."""
    base = _ordered(3, 4)
    weight = (np.arange(len(base)) % 3 + 1).astype(float)
    weighted = _pairs(np.column_stack([base.a, base.b]), base.outcome, base.systems, item=base.item,
                      judge=base.judge, group=base.group, weight=weight)
    rows = np.repeat(np.arange(len(base)), weight.astype(int))
    copies = base.take(rows)
    model = make_model(name, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(weighted)
    warned = any(issubclass(w.category, MaterialisedWarning) for w in caught)
    assert warned != tags(model).weighted, f"weighted tag {tags(model).weighted} but MaterialisedWarning {warned}"
    other = _fit(name, copies)
    assert model.n_judgments_ == other.n_judgments_ == len(copies), (
        f"n_judgments_ {model.n_judgments_} (weighted) and {other.n_judgments_} (copies), not {len(copies)}")
    if tags(model).deterministic or not tags(model).weighted:  # the same rows and seed, or the same counts
        np.testing.assert_allclose(model.scores_.to_numpy(), other.scores_.to_numpy(), atol=1e-6,
                                   err_msg="weights differ from duplicated rows")


def check_covariates(name):
    """The ``covariates`` tag: a covariate fit gives finite coefficients with finite std; without
    the tag the model has no ``covariates`` parameter (the CLI refuses style control for it)."""
    model = make_model(name, random_state=0)
    declared = tags(model).covariates
    assert declared == ("covariates" in model.get_params()), "covariates tag disagrees with the parameters"
    if not declared:
        return
    base = _ordered(3, 8)
    z = np.linspace(-1, 1, len(base))[:, None] * np.where(base.outcome == 1, 1, -1)[:, None]  # separates
    data = _pairs(np.column_stack([base.a, base.b]), base.outcome, base.systems, covariates=z,
                  covariate_names=("len",))
    fitted = _fit(name, data)
    assert np.all(np.isfinite(fitted.coef_)) and np.all(np.isfinite(fitted.coef_std_)), \
        f"covariate coefficients not finite: {fitted.coef_.to_dict()}"
    _finite_scores(fitted, "covariates")


def check_bootstrap(name, n=200):
    """An ``exact`` bootstrap (the model's own ``bootstrap_scores``) gives the distribution of
    refitting each resample: per system the same mean (within a quarter of a standard deviation)
    and standard deviation (within 35%), 200 resamples each; a ``refit`` model has no fast path."""
    data = _ordered(3, 10)
    model = _fit(name, data)
    rng = np.random.default_rng(1)
    fast = model.bootstrap_scores(data, None, n, rng)
    if tags(model).bootstrap == "refit":
        assert fast is None, "declared refit but bootstrap_scores returned resamples"
        return
    assert fast is not None and fast.shape == (n, len(data.systems)), "declared exact but no resamples"
    assert np.all(np.isfinite(fast)), "bootstrap resamples not finite"
    unit = data.group if tags(model).bootstrap_unit == "ranking" else np.arange(len(data))
    units = np.unique(unit)
    refits = []
    for _ in range(n):
        drawn = rng.choice(units, len(units))
        rows = np.concatenate([np.nonzero(unit == u)[0] for u in drawn])
        refits.append(_fit(name, data.take(rows)).scores_.reindex(list(data.systems)).to_numpy())
    refits = np.array(refits)
    sd = refits.std(axis=0)
    assert np.all(np.abs(fast.mean(axis=0) - refits.mean(axis=0)) <= 0.25 * sd + 1e-9), \
        f"bootstrap means {fast.mean(axis=0)} vs refits {refits.mean(axis=0)}"
    assert np.all(np.abs(fast.std(axis=0) / sd - 1) < 0.35), f"bootstrap std {fast.std(axis=0)} vs refits {sd}"


def check_predict_proba(name):
    """A preference model's ``predict_proba`` is a distribution (n, 3) over tie / a / b; a
    heuristic has none."""
    model = _fit(name, _ordered())
    if not tags(model).preference:
        assert not hasattr(model, "predict_proba"), "a heuristic with predict_proba: declare it a preference model"
        return
    p = np.asarray(model.predict_proba(["s0", "s3", "s1"], ["s1", "s0", "s1"]))
    assert p.shape == (3, 3) and np.all(np.isfinite(p)) and np.all(p >= 0), f"predict_proba {p}"
    np.testing.assert_allclose(p.sum(axis=1), 1, atol=1e-9)


def check_pickle_and_clone(name):
    """A fitted model pickles whole; ``clone`` copies the parameters, not the fit, and a
    deterministic model refits to the same scores."""
    data = _ordered()
    model = _fit(name, data)
    back = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(back.scores_.to_numpy(), model.scores_.to_numpy())
    assert back.ranking().equals(model.ranking())
    copy = clone(model)
    assert copy.get_params() == model.get_params() and not hasattr(copy, "scores_")
    if tags(model).deterministic:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.testing.assert_allclose(copy.fit(data).scores_.to_numpy(), model.scores_.to_numpy(), atol=1e-12)


def check_honest_intervals(name):
    """Bootstrap intervals from three judgments are finite and never of zero width, and nobody is
    separated: one cluster."""
    from humeval.experiments.bootstrap import bootstrap
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = bootstrap(make_model(name, random_state=0), _three(), n=20, random_state=0).table()
    assert np.all(np.isfinite(table[["lower", "upper"]].to_numpy())), "intervals not finite"
    if tags(name).informative:
        assert np.all(table["upper"] > table["lower"]), f"zero-width intervals from 3 judgments: {table}"
    assert set(table["cluster"]) == {1}, "3 judgments separated systems"


def check_declarations(name):
    """The remaining tags against the model: prior (``l2``), chains, orders, analytic intervals,
    a tie parameter, the scale label (and ``scale_`` where a fit sets one)."""
    model = make_model(name, random_state=0)
    t = tags(model)
    params = model.get_params()
    assert t.prior == ("l2" in params), "prior tag disagrees with an l2 parameter"
    assert t.chains == ("chains" in params), "chains tag disagrees with a chains parameter"
    assert t.orders == tuple(getattr(model, "orders", ())), "orders tag disagrees with the model's orders"
    assert t.analytic == callable(getattr(model, "intervals", None)), "analytic tag disagrees with intervals()"
    assert t.scale, "no scale declared"
    fitted = _fit(name, _ordered())
    assert t.fitted_scale == isinstance(getattr(fitted, "scale_", None), str), "fitted_scale tag vs scale_"
    if t.fitted_scale:
        assert t.scale.split()[0].lower() in fitted.scale_.lower(), f"scale {t.scale!r} vs scale_ {fitted.scale_!r}"
    if t.tie_parameter:
        assert np.isfinite(fitted.log_tie_) and fitted.tie_name_, "tie parameter not public"
    assert t.std == hasattr(fitted, "scores_std_"), "std tag disagrees with scores_std_"


CHECKS = (check_tiny_data, check_separated_data, check_all_ties, check_disconnected, check_weights_are_copies,
          check_covariates, check_bootstrap, check_predict_proba, check_pickle_and_clone, check_honest_intervals,
          check_declarations)


def check_model(name: str) -> None:
    """Run every check on the model registered as ``name`` (AssertionError on the first failure)."""
    for check in CHECKS:
        check(name)
