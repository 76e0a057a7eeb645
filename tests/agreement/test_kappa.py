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


# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", example C (4 observers, 12 units,
# missing values); the same data is Krippendorff (2019), Content Analysis, 4th ed., p. 304.
KRIPPENDORFF_C = np.array([[1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
                           [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
                           [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
                           [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan]])


@pytest.mark.parametrize("level, published, exact", [("nominal", 0.743, 113 / 152), ("ordinal", 0.815, 108577 / 133160),
                                                     ("interval", 0.849, 951 / 1120), ("ratio", 0.797, None)])
def test_alpha_on_krippendorffs_own_example(level, published, exact):
    """Pairable values: units 1–10 and 11 (unit 12 has one value): n = 40, with n_1..n_5 = 9, 13, 10, 5, 3.
    Off-diagonal coincidences (each ordered pair of a unit's m values counts 1/(m − 1)): unit 2
    (2,2,3,2) gives 6·⅓ = 2, unit 6 (1,2,3,4) 12·⅓ = 4, unit 8 (1,1,2,1) 6·⅓ = 2: 8 in all, so D_o = 8/40 = 1/5 for the nominal metric.
    Nominal: D_e = 1 − Σ n_c(n_c − 1)/(n(n − 1)) = 1 − 344/1560 = 1216/1560; α = 1 − (1/5)/(1216/1560) = 113/152.
    Interval (δ² = (c − k)²): D_o = (unit 2: 6·⅓·1 + unit 6: ⅓·2·(3·1 + 2·4 + 1·9) + unit 8: 6·⅓·1)/40
    = 13/30; D_e = Σ_c Σ_k n_c n_k (c − k)²/(40·39) = 4480/1560; α = 1 − (13/30)/(4480/1560) = 951/1120.
    Krippendorff publishes .743 (nominal), .815 (ordinal), .849 (interval) and .797 (ratio)."""
    a = krippendorff_alpha(KRIPPENDORFF_C, level)
    assert a.kappa == pytest.approx(published, abs=5e-4) and a.pairs == 40
    if exact is not None:
        assert a.kappa == pytest.approx(exact, abs=1e-12)
    if level == "nominal":
        assert a.p_agree == pytest.approx(4 / 5) and a.p_expected == pytest.approx(344 / 1560)
    else:
        assert np.isnan(a.p_agree) and np.isnan(a.p_expected)
    # alpha pairs values within units only: which observer gave which value does not matter
    shuffled = np.array([np.roll(col, k) for k, col in enumerate(KRIPPENDORFF_C.T)]).T
    assert krippendorff_alpha(shuffled, level).kappa == pytest.approx(a.kappa, abs=1e-12)


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
