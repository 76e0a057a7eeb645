import numpy as np
import pytest
from helpers import HAND, comparisons

from humeval.data import Comparisons
from humeval.experiments import perplexity
from humeval.ranking import (MODELS, AdjustedUniform, IndependentPairs, IndependentStudents, IRTGaussian,
                             PREFERENCE_MODELS, Uniform, make_model)


@pytest.mark.parametrize("name", PREFERENCE_MODELS)
def test_rows_sum_to_one_and_models_are_estimators(name):
    model = make_model(name, random_state=0)
    model.set_params(**({"iterations": 30, "burn_in": 10} if "iterations" in model.get_params() else {}))
    assert model.fit(comparisons(HAND)) is model
    p = model.predict_proba(["A", "B", "C", "A"], ["B", "C", "A", "A"])
    assert p.shape == (4, 3) and (p >= 0).all()
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert list(model.scores_.index) == ["A", "B", "C"]


def test_uniform_perplexity_is_exactly_three():
    c = comparisons(HAND)
    assert perplexity(Uniform().fit(c), c) == pytest.approx(3.0, abs=1e-12)


def test_adjusted_uniform():
    c = comparisons(HAND)  # 3 ties of 7
    p = AdjustedUniform().fit(c).predict_proba([0], [1])[0]
    assert p.tolist() == pytest.approx([3 / 7, 2 / 7, 2 / 7])
    ties = comparisons([("A", "B", 0)] * 4)
    assert perplexity(AdjustedUniform().fit(comparisons([("A", "B", 0), ("A", "B", 1)])), ties) == pytest.approx(2.0)


def test_independent_pairs_by_hand():
    # A vs B, from A's side: 1 tie, 2 wins, 1 loss; Dirichlet(1): (1 + [1, 2, 1]) / (3 + 4)
    model = IndependentPairs(alpha=1.0).fit(comparisons(HAND))
    assert model.predict_proba(["A"], ["B"])[0].tolist() == pytest.approx([2 / 7, 3 / 7, 2 / 7])
    assert model.predict_proba(["B"], ["A"])[0].tolist() == pytest.approx([2 / 7, 2 / 7, 3 / 7])
    # never compared: the prior, uniform
    lone = IndependentPairs().fit(comparisons([("A", "B", 1)]))
    assert lone.predict_proba(["A"], ["C"])[0].tolist() == pytest.approx([1 / 3] * 3)


def test_independent_students_reconstructions_by_hand():
    c = comparisons(HAND)
    # universal abilities: A (tie, win, loss) = (1, 3, 1) -> (2, 4, 2) / 8; B = (3, 1, 2) -> (4, 2, 3) / 9
    qa, qb = np.array([2, 4, 2]) / 8, np.array([4, 2, 3]) / 9
    qb_negated = qb[[0, 2, 1]]
    for reconstruction, expected in (("asymmetric", qa), ("arithmetic", (qa + qb_negated) / 2),
                                     ("geometric", np.sqrt(qa * qb_negated) / np.sqrt(qa * qb_negated).sum())):
        model = IndependentStudents(alpha=1.0, reconstruction=reconstruction).fit(c)
        assert model.predict_proba(["A"], ["B"])[0] == pytest.approx(expected)
    with pytest.raises(ValueError, match="reconstruction"):
        IndependentStudents(reconstruction="harmonic").fit(c)


def test_errors_name_the_problem():
    c = comparisons(HAND)
    with pytest.raises(RuntimeError, match="not fitted"):
        Uniform().predict_proba([0], [1])
    with pytest.raises(ValueError, match="unknown systems \\['Z'\\]"):
        Uniform().fit(c).predict_proba(["A"], ["Z"])
    two_tracks = Comparisons(a=[0, 1], b=[1, 0], outcome=[1, 1], track=[0, 1], systems=("A", "B"), tracks=("x", "y"))
    with pytest.raises(ValueError, match="one track at a time"):
        Uniform().fit(two_tracks)
    with pytest.raises(ValueError, match="unknown model"):
        make_model("glicko")
    with pytest.raises(TypeError, match="ranking heuristic"):
        perplexity(make_model("bojar").fit(c), c)
    assert set(PREFERENCE_MODELS) >= {"irt-gaussian", "uniform"} and "bojar" in MODELS
    assert repr(make_model("irt-gaussian", random_state=3)) == "IRTGaussian(random_state=3)"
    assert isinstance(make_model("irt-gaussian"), IRTGaussian)
