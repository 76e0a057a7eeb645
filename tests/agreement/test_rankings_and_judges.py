import numpy as np
import pandas as pd
import pytest

from humeval.agreement import (drop_judges, flagged, judge_quality, quality_control, ranking_agreement,
                               rating_agreement, z_normalize)
from humeval.data import Rankings, Ratings
from humeval.simulate import simulate_competition


def overlapping():
    # segment s1: j1 ranks A1 B2 C2; j2 ranks A1 B1 C3; j1 again ranks A1 B2 C3
    return Rankings(system=[[0, 1, 2]] * 3, rank=[[1, 2, 2], [1, 1, 3], [1, 2, 3]], item=[0, 0, 0],
                    judge=[0, 1, 0], systems=("A", "B", "C"), items=("s1",), judges=("j1", "j2")).expand()


def test_wmt_agreement_by_hand():
    result = ranking_agreement(overlapping())
    # labels (A,B): j1 <, j2 =, j1 <; (A,C): < < <; (B,C): j1 =, j2 <, j1 <
    # inter: j2 against each j1 label: (A,B) 0/2, (A,C) 2/2, (B,C) 1/2 -> 3/6
    # intra: j1's repeats: (A,B) agree, (A,C) agree, (B,C) not -> 2/3
    # labels: 2 '=', 7 '<' -> P(E) = (2/9)² + (7/9)² = 53/81
    inter, intra = result["inter"], result["intra"]
    assert (inter.p_agree, inter.pairs) == (0.5, 6) and inter.p_expected == pytest.approx(53 / 81)
    assert inter.kappa == pytest.approx((0.5 - 53 / 81) / (1 - 53 / 81))
    assert (intra.p_agree, intra.pairs) == (pytest.approx(2 / 3), 3)
    wmt = ranking_agreement(overlapping(), expected="wmt")["inter"]
    assert wmt.p_expected == pytest.approx((2 / 9) ** 2 + 2 * ((7 / 9) / 2) ** 2)
    no_ties = ranking_agreement(overlapping(), drop_ties=True)["inter"]
    # without the two '=' labels: (A,B) j2 gone -> no inter pair; (A,C) 2/2; (B,C) j2 vs second j1: 1/1
    assert (no_ties.p_agree, no_ties.pairs, no_ties.p_expected) == (1.0, 3, 1.0)
    no_a = ranking_agreement(overlapping(), exclude=("A",))["inter"]
    assert (no_a.p_agree, no_a.pairs) == (0.5, 2)


def test_scale_agreement_by_hand():
    # item i1, system S: j1 4, j2 4, j3 2, j1 again 4; item i2: j1 1, j2 2
    r = Ratings(item=[0, 0, 0, 0, 1, 1], system=[0] * 6, judge=[0, 1, 2, 0, 0, 1], criterion=[0] * 6,
                score=[4.0, 4, 2, 4, 1, 2], systems=("S",), items=("i1", "i2"), judges=("j1", "j2", "j3"),
                criteria=("adequacy",))
    result = rating_agreement(r)
    # inter pairs i1: 6 pairs minus j1's own 1 = 5: agree (4,4) j1-j2 twice -> 2 of 5; i2: 1 pair, no -> 2/6
    # scores: 1, 2, 2, 4, 4, 4 -> P(E) = (1/6)² + (2/6)² + (3/6)² = 14/36
    assert (result["inter"].p_agree, result["inter"].pairs) == (pytest.approx(2 / 6), 6)
    assert result["inter"].p_expected == pytest.approx(14 / 36)
    assert (result["intra"].p_agree, result["intra"].pairs) == (1.0, 1)
    weighted = result["inter (linear weights)"]
    # disagreement weights |a − b| / 3 over the 6 inter pairs: i1: 0,0,2/3,2/3,2/3 (j1,j2 vs j3...) , i2: 1/3
    assert weighted.p_agree == pytest.approx(1 - (3 * 2 / 3 + 1 / 3) / 6)


def test_continuous_scores_use_alpha_and_repeat_correlation():
    """One judge scores items i1..i3 twice: (1.5, 1.5), (2.5, 3.5), (3.5, 2.5); non-integer scores
    are continuous. Repeat correlation: r of (1.5, 2.5, 3.5) and (1.5, 3.5, 2.5) = 0.5.
    Interval alpha: D_o = (0 + 2·1 + 2·1)/6 = 2/3; values 1.5, 2.5, 3.5 twice each:
    D_e = 2·(4·1 + 4·4 + 4·1)/(6·5) = 1.6; alpha = 1 − (2/3)/1.6 = 7/12."""
    r = Ratings(item=[0, 0, 1, 1, 2, 2], system=np.zeros(6), judge=np.zeros(6), criterion=np.zeros(6),
                score=[1.5, 1.5, 2.5, 3.5, 3.5, 2.5], systems=("S",), judges=("j",), criteria=("DA",),
                items=("i1", "i2", "i3"))
    result = rating_agreement(r)
    assert set(result) == {"alpha (interval)", "intra (repeat correlation)"}
    assert result["intra (repeat correlation)"].kappa == pytest.approx(0.5, abs=1e-12)
    assert result["intra (repeat correlation)"].pairs == 3
    assert result["alpha (interval)"].kappa == pytest.approx(7 / 12, abs=1e-12) and result["alpha (interval)"].pairs == 6


def test_repeat_correlation_recovers_the_simulated_reliability():
    # score = quality + noise with sd 15 and 5: two scores of an item correlate 15²/(15² + 5²) = 0.9,
    # and (one unit per item) interval alpha, an intraclass correlation, is 0.9 too
    rng = np.random.default_rng(0)
    n = 2000
    quality = rng.normal(60, 15, n)
    first, second = quality + rng.normal(0, 5, n), quality + rng.normal(0, 5, n)
    r = Ratings(item=np.r_[np.arange(n), np.arange(n)], system=np.zeros(2 * n), judge=np.zeros(2 * n),
                criterion=np.zeros(2 * n), score=np.r_[first, second], systems=("S",), judges=("j",), criteria=("DA",),
                items=tuple(f"i{k}" for k in range(n)))
    result = rating_agreement(r)
    assert result["intra (repeat correlation)"].pairs == n
    assert result["intra (repeat correlation)"].kappa == pytest.approx(0.9, abs=0.01)
    assert result["alpha (interval)"].kappa == pytest.approx(0.9, abs=0.01)


def test_z_normalize_and_quality_control():
    rng = np.random.default_rng(1)
    rows = []
    for judge, careful in (("good", True), ("bad", False)):
        for item in range(30):
            original = rng.uniform(40, 90)
            degraded = original - 25 if careful else rng.uniform(40, 90)  # same distribution as originals
            rows += [(f"i{item}", "mt", judge, original), (f"i{item}", "mt-degraded", judge, degraded)]
    r = Ratings.from_pandas(pd.DataFrame(rows, columns=["item", "system", "judge", "score"]))
    z = z_normalize(r)
    df = z.to_pandas()
    assert df.groupby("judge", observed=True)["score"].mean().abs().max() < 1e-12
    assert df.groupby("judge", observed=True)["score"].std().tolist() == pytest.approx([1.0, 1.0])
    qc = quality_control(r, {"mt-degraded": "mt"})
    assert qc.loc["good", "passes"] and not qc.loc["bad", "passes"] and qc.loc["good", "pairs"] == 30
    assert qc.loc["good", "mean difference"] == pytest.approx(25)
    with pytest.raises(ValueError, match="unknown systems"):
        quality_control(r, {"nope": "mt"})


def test_planted_random_judges_rank_at_the_bottom():
    sim = simulate_competition(n_systems=8, n_items=40, n_judges=20, n_judgments=2500, design="rankings",
                               random_judges=0.2, random_state=0)
    quality = judge_quality(sim.comparisons)
    planted = set(sim.truth.random_judges)
    assert len(planted) == 4 and set(quality.index[:4]) == planted
    assert set(flagged(quality)) == planted
    kept = drop_judges(sim.comparisons, flagged(quality))
    assert set(kept.judges) == set(sim.comparisons.judges) - planted
    assert len(kept) == int(np.isin(sim.comparisons.judge, [sim.comparisons.judges.index(j) for j in
                                                            set(sim.comparisons.judges) - planted]).sum())


def test_judge_quality_columns_by_hand():
    q = judge_quality(overlapping(), min_pairs=1)
    assert q.loc["j2", "pairs"] == 6 and q.loc["j2", "agreement"] == 0.5
    assert q.loc["j1", "self-consistency"] == pytest.approx(2 / 3)
    with pytest.raises(TypeError, match="takes Comparisons or Ratings, not str"):
        judge_quality("not a table")


def test_judge_pvalue_is_the_one_sided_binomial_test():
    """p (above chance) = scipy.stats.binomtest(agreements, pairs, P(E), "greater"), judge by judge."""
    from scipy import stats
    sim = simulate_competition(n_systems=8, n_items=40, n_judges=20, n_judgments=2500, design="rankings",
                               random_judges=0.2, random_state=0)
    q = judge_quality(sim.comparisons)
    p_e = float(((q["agreement"] - q["kappa"]) / (1 - q["kappa"])).median())  # kappa = (P(A) − P(E)) / (1 − P(E))
    expected = [stats.binomtest(int(round(a * n)), int(n), p_e, alternative="greater").pvalue
                for a, n in zip(q["agreement"], q["pairs"])]
    np.testing.assert_allclose(q["p (above chance)"], expected, rtol=1e-9)
    assert q["p (above chance)"].max() > 0.05 and q["p (above chance)"].min() < 1e-6
