import krippendorff
import numpy as np
import pytest
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa as sm_fleiss

from humeval.agreement import cohen_kappa, fleiss_kappa, krippendorff_alpha, units_matrix


def contingency(x, y, k):
    table = np.zeros((k, k))
    np.add.at(table, (x, y), 1)
    return table


@pytest.mark.parametrize("weights, wt", [(None, None), ("linear", "linear"), ("quadratic", "quadratic")])
def test_cohen_matches_statsmodels(weights, wt):
    rng = np.random.default_rng(0)
    for _ in range(20):
        x = rng.integers(0, 5, 200)
        y = np.where(rng.random(200) < 0.6, x, rng.integers(0, 5, 200))
        ours = cohen_kappa(x, y, weights=weights, categories=range(5))
        theirs = cohens_kappa(contingency(x, y, 5), wt=wt) if wt else cohens_kappa(contingency(x, y, 5))
        assert ours.kappa == pytest.approx(theirs.kappa, abs=1e-12)
        assert ours.pairs == 200


def test_cohen_edge_cases():
    same = cohen_kappa([1, 2, 3, 1], [1, 2, 3, 1])
    assert (same.kappa, same.p_agree) == (1.0, 1.0)
    opposite = cohen_kappa([0, 1, 0, 1], [1, 0, 1, 0])
    assert opposite.p_agree == 0 and opposite.p_expected == 0.5 and opposite.kappa == -1.0
    one_category = cohen_kappa([2, 2, 2], [2, 2, 2])
    assert one_category.p_agree == 1 and one_category.p_expected == 1 and np.isnan(one_category.kappa)
    missing = cohen_kappa([1, None, 2, 2], [1, 2, np.nan, 2])
    assert missing.pairs == 2 and missing.p_agree == 1
    with pytest.raises(ValueError, match="differ in length"):
        cohen_kappa([1], [1, 2])


def test_fleiss_matches_statsmodels():
    rng = np.random.default_rng(1)
    for _ in range(20):
        truth = rng.integers(0, 4, 60)
        ratings = np.where(rng.random((60, 5)) < 0.5, truth[:, None], rng.integers(0, 4, (60, 5)))
        table, _ = aggregate_raters(ratings, n_cat=4)
        ours = fleiss_kappa(table)
        assert ours.kappa == pytest.approx(sm_fleiss(table), abs=1e-12)
        assert ours.pairs == 60 * 10
    all_agree = fleiss_kappa([[3, 0], [0, 3]])
    assert all_agree.kappa == pytest.approx(1.0) and all_agree.p_agree == 1.0
    # varying numbers of raters: each item's agreement over its own pairs
    varying = fleiss_kappa([[2, 0], [1, 1], [3, 1], [1, 0]])
    assert varying.p_agree == pytest.approx(np.mean([1.0, 0.0, 0.5])) and varying.pairs == 1 + 1 + 6


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_alpha_matches_krippendorff(level):
    rng = np.random.default_rng(2)
    data = rng.integers(1, 6, (4, 30)).astype(float)
    data[rng.random(data.shape) < 0.3] = np.nan
    ours = krippendorff_alpha(data, level)
    assert ours.kappa == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement=level))


def test_alpha_nominal_parts_by_hand():
    data = np.array([[1, 1, 2], [1, 2, 2]], dtype=float)  # units (1,1), (1,2), (2,2)
    a = krippendorff_alpha(data, "nominal")
    # pairable values: 6; value counts 1: 3, 2: 3 -> P(E) = (3·2 + 3·2) / (6·5) = 0.4; D_o = 2/6 -> P(A) = 2/3
    assert a.p_expected == pytest.approx(0.4) and a.p_agree == pytest.approx(2 / 3) and a.pairs == 6
    assert a.kappa == pytest.approx(1 - (1 / 3) / 0.6)
    assert np.isnan(krippendorff_alpha(np.array([[3.0, 3.0], [3.0, 3.0]])).kappa)


def test_units_matrix_stacks_values_per_unit():
    m = units_matrix(["u1", "u2", "u1", "u1"], [1.0, 2.0, 3.0, np.nan])
    assert m.shape == (2, 2) and m[:, 0].tolist() == [1.0, 3.0] and m[0, 1] == 2.0 and np.isnan(m[1, 1])
