"""Meta-evaluation as WMT22–24 do it: grouped correlations, tie-calibrated pairwise accuracy, metric
significance clusters, and sacrebleu's paired tests between systems."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from humeval.metaeval.grouped import correlation, to_matrix
from humeval.metaeval.significance import assign_ranks, compare_metrics, statistic_value, swapped_pearson
from humeval.metaeval.systems import mean_statistics, paired_test
from humeval.metaeval.ties import pairwise_confidence_error, soft_pairwise_accuracy, sweep, tie_calibrated_accuracy

NAN = np.nan


def test_grouped_correlation_by_hand():
    # 3 systems × 4 items; the humans have no score for (sys 0, item 3) and the metric none for (sys 2, item 0)
    gold = np.array([[1, 2, 3, NAN], [2, 1, 5, 1], [3, 0, 4, 2]], dtype=float)
    metric = np.array([[10, 20, 1, 7], [30, 10, 2, 3], [NAN, 0, 3, 1]], dtype=float)
    # item 0: systems 0, 1 only (2 entries: Pearson undefined, dropped); item 1: (2,1,0) vs (20,10,0) r = 0.9820;
    # item 2: (3,5,4) vs (1,2,3): r = 0.5; item 3: (1,2) vs (3,1): two entries, dropped
    r1 = np.corrcoef([2, 1, 0], [20, 10, 0])[0, 1]
    assert correlation(gold, metric, "pearson", "item") == pytest.approx((r1 + 0.5) / 2)
    assert correlation(gold, metric, "pearson", "item", nan_as_zero=True) == pytest.approx((r1 + 0.5) / 4)
    # system 0: items 0–2: (1,2,3) vs (10,20,1); system 1: all four; system 2: items 1–3
    expected = np.mean([np.corrcoef([1, 2, 3], [10, 20, 1])[0, 1], np.corrcoef([2, 1, 5, 1], [30, 10, 2, 3])[0, 1],
                        np.corrcoef([0, 4, 2], [0, 3, 1])[0, 1]])
    assert correlation(gold, metric, "pearson", "system") == pytest.approx(expected)
    keep = ~(np.isnan(gold) | np.isnan(metric))
    assert correlation(gold, metric, "kendall", "none") == pytest.approx(stats.kendalltau(gold[keep], metric[keep])[0])
    assert correlation(gold, metric, "spearman", "none") == pytest.approx(stats.spearmanr(gold[keep], metric[keep])[0])
    with pytest.raises(ValueError, match="average_by must be one of"):
        correlation(gold, metric, "pearson", "document")


def test_to_matrix():
    s = pd.Series([1.0, 2.0, 3.0], index=pd.MultiIndex.from_tuples([("2", "B"), ("10", "A"), ("2", "A")],
                                                                     names=["item", "system"]))
    matrices, systems, items = to_matrix({"x": s})
    m = matrices["x"]
    assert systems == ["A", "B"] and items == ["2", "10"]  # items in natural order
    np.testing.assert_array_equal(m, [[3, 2], [1, NAN]])


def brute_force_accuracy(gold, metric, average_by, variant="acc_eq"):
    """The O(P × candidates) reference: every ε in {0} ∪ {|Δm|}, every pair counted in a loop."""
    gold, metric = np.asarray(gold, float), np.asarray(metric, float)
    if average_by == "none":
        keep = ~(np.isnan(gold) | np.isnan(metric))
        group_list = [(gold[keep], metric[keep])]
    else:
        g, m = (gold, metric) if average_by == "item" else (gold.T, metric.T)
        group_list = []
        for col in range(g.shape[1]):
            ok = ~(np.isnan(g[:, col]) | np.isnan(m[:, col]))
            if ok.sum() >= 2:
                group_list.append((g[ok, col], m[ok, col]))
    pairs = [[(gh[i] - gh[j], gm[i] - gm[j]) for i, j in itertools.combinations(range(len(gh)), 2)]
             for gh, gm in group_list]
    candidates = sorted({0.0} | {abs(dm) for group in pairs for _, dm in group})
    best = (-math.inf, None)
    for eps in candidates:
        values = []
        for group in pairs:
            c = d = th = tm = thm = 0
            for dh, dm in group:
                tied = abs(dm) <= eps
                if dh == 0 and tied:
                    thm += 1
                elif dh == 0:
                    th += 1
                elif tied:
                    tm += 1
                elif np.sign(dh) == np.sign(dm):
                    c += 1
                else:
                    d += 1
            total = c + d + th + tm + thm
            values.append((c + thm) / total if variant == "acc_eq" else (c + thm - d - th - tm) / total)
        value = float(np.mean(values))
        if value > best[0] + 1e-12:
            best = (value, eps)
    return best


@pytest.mark.parametrize("average_by", ["none", "item", "system"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tie_calibration_equals_brute_force(average_by, seed):
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 4, size=(6, 9)).astype(float)  # many human ties
    metric = np.round(gold + rng.normal(0, 1.2, size=gold.shape), 1)  # metric ties too
    gold[rng.random(gold.shape) < 0.1] = NAN
    metric[rng.random(gold.shape) < 0.05] = NAN
    for variant in ("acc_eq", "tau_eq"):
        value, eps = tie_calibrated_accuracy(gold, metric, average_by, variant)
        ref_value, ref_eps = brute_force_accuracy(gold, metric, average_by, variant)
        assert value == pytest.approx(ref_value, abs=1e-12)
        assert eps == pytest.approx(ref_eps)


def test_acc_eq_by_hand():
    # 4 entries: human 1, 1, 2, 3; metric 0.5, 0.6, 2, 1: pairs (Δh, Δm):
    # (0, −.1) (−1, −1.5) (−2, −.5) (−1, −1.4) (−2, −.4) (−1, 1): with ε = 0 → C = 4, D = 1, T_h = 1 → 4/6;
    # ε = 0.1 ties the human tie → (C 4 + T_hm 1) / 6 = 5/6; ε ≥ .4 ties C pairs and loses
    gold, metric = [1, 1, 2, 3], [0.5, 0.6, 2, 1]
    assert tie_calibrated_accuracy(gold, metric, "none", epsilon=0.0)[0] == pytest.approx(4 / 6)
    value, eps = tie_calibrated_accuracy(gold, metric)
    assert (value, eps) == (pytest.approx(5 / 6), pytest.approx(0.1))
    assert tie_calibrated_accuracy(gold, metric, variant="tau_eq")[0] == pytest.approx(2 * 5 / 6 - 1)
    assert np.isnan(sweep(np.array([]), np.array([]), np.array([], dtype=int))[0])
    with pytest.raises(ValueError, match="variant must be one of"):
        tie_calibrated_accuracy(gold, metric, variant="acc")


def test_soft_pairwise_accuracy_bounds():
    rng = np.random.default_rng(3)
    gold = rng.normal(size=(5, 40)) + np.arange(5)[:, None]
    assert soft_pairwise_accuracy(gold, gold, n=200) == pytest.approx(1.0)  # same scores → same p-values
    reversed_ = soft_pairwise_accuracy(gold, -gold, n=200)
    assert reversed_ < 0.2  # every clear human preference reversed: |p_h − p_m| near 1


def test_pairwise_confidence_error_by_hand():
    """Scores where every permutation p-value is known: a pair with the same score on every segment
    has p = 1 (every sign flip ties the observed 0); a pair one system wins on all 30 segments has
    p(winner > loser) = (1 + 0) / (n + 1) (only the all-plus flip, chance 2^-30, reaches the observed
    sum) and p(loser > winner) = 1. System 3 shares one segment only: p = 1 under both."""
    n = 200
    base = np.random.default_rng(5).normal(size=30)
    metric = base + np.array([2.0, 0.0, 1.0, 0.0])[:, None]  # metric: 0 > 2 > 1 on every segment
    metric[3, 1:] = NAN
    metric[2, 7] = NAN  # a missing score: 29 segments still decide the pair
    flat = np.tile(base, (4, 1))  # humans: no differences at all
    small = 1 / (n + 1)
    # pairs (0,1), (0,2), (1,2), (0,3), (1,3), (2,3): p_m = small, small, 1, 1, 1, 1 and p_h = 1
    assert pairwise_confidence_error(flat, metric, n) == pytest.approx(2 * (1 - small) / 6)
    ordered = base + np.array([2.0, 1.0, 0.0, 0.0])[:, None]  # humans: 0 > 1 > 2, p_h(1,2) = small
    assert pairwise_confidence_error(ordered, metric, n) == pytest.approx((1 - small) / 6)
    assert pairwise_confidence_error(2 * metric, metric, n) == pytest.approx(0.0)
    assert soft_pairwise_accuracy(ordered, metric, n) == pytest.approx(1 - (1 - small) / 6)  # SPA = 1 − PCE
    assert np.isnan(pairwise_confidence_error(flat[:1], metric[:1], n))  # one system: no pairs


def test_swapped_pearson_equals_loop():
    rng = np.random.default_rng(4)
    gold, a, b = rng.normal(size=(3, 5, 12))
    gold[0, 0] = NAN
    a[1, 2] = b[1, 2] = NAN  # as permutation_pvalues passes them: missing in both
    swap = rng.random((3, 5, 12)) < 0.5
    for average_by in ("none", "item", "system"):
        x, y = swapped_pearson(gold, a, b, swap, average_by)
        np.testing.assert_allclose(x, [correlation(gold, np.where(s, b, a), "pearson", average_by) for s in swap])
        np.testing.assert_allclose(y, [correlation(gold, np.where(s, a, b), "pearson", average_by) for s in swap])


def test_assign_ranks_mt_metrics_eval_rule():
    # sorted best first; 0 beats 2 only: 2 starts cluster 2; 1 ties both; 3 beaten by 2 → cluster 3
    p = np.array([[1, .3, .01, .01], [0, 1, .2, .01], [0, 0, 1, .04], [0, 0, 0, 1]])
    assert assign_ranks(p, 0.05).tolist() == [1, 1, 2, 3]


@pytest.mark.parametrize("method", ["permutation", "bootstrap"])
def test_compare_metrics_orders_and_clusters(method):
    rng = np.random.default_rng(5)
    gold = rng.normal(size=(6, 80))
    metrics = {"noisy": gold + rng.normal(0, 3, gold.shape), "good": gold + rng.normal(0, 0.3, gold.shape),
               "good2": None}
    metrics["good2"] = metrics["good"] + rng.normal(0, 0.02, gold.shape)  # indistinguishable from "good"
    result = compare_metrics(gold, metrics, "pearson", "item", method, n=300)
    assert list(result.table.index[:2]) != ["noisy"] and result.table.index[-1] == "noisy"
    assert result.table["rank"].tolist()[-1] == 2 and result.table["rank"].iloc[0] == 1
    assert result.pvalues.loc[result.table.index[0], "noisy"] < 0.01
    assert result.pvalues.loc["good", "good2"] > 0.01 or result.pvalues.loc["good2", "good"] > 0.01
    assert result.table["pearson"].tolist() == [statistic_value(gold, metrics[k], "pearson", "item")
                                                for k in result.table.index]


def test_paired_tests_agree_with_sacrebleu():
    """sacrebleu and humeval draw different random replicates, so their p-values differ by Monte
    Carlo error only: each is a proportion over B replicates with s.e. √(p(1 − p)/B), so the difference
    of two independent estimates has s.d. √(2 p(1 − p)/B); 4 s.d. (≈ 0.036 at p = 0.3, B = 2,000)
    fails by chance with probability 6e-5."""
    from sacrebleu.metrics import BLEU, CHRF, TER
    from sacrebleu.significance import PairedTest

    from humeval.metrics.baselines import corpus_statistics
    rng = np.random.default_rng(0)
    words = ["the", "a", "cat", "dog", "sat", "on", "mat", "house", "big", "small", "red", "blue", "ran", "fast", "slowly"]
    refs = [" ".join(rng.choice(words, 8)) for _ in range(150)]

    def noisy(ref, rate):
        return " ".join(w if rng.random() > rate else rng.choice(words) for w in ref.split())
    base, system = [noisy(r, 0.42) for r in refs], [noisy(r, 0.40) for r in refs]
    n = 2000
    for test in ("bs", "ar"):
        metrics = {"bleu": BLEU(), "chrf": CHRF(), "ter": TER()}
        _, theirs = PairedTest([("base", base), ("system", system)], dict(metrics), [refs], test_type=test,
                               n_samples=n)()
        for name, key in (("bleu", "BLEU"), ("chrf", "chrF2"), ("ter", "TER")):
            stats_a, score, _ = corpus_statistics(name, base, refs)
            stats_b, _, _ = corpus_statistics(name, system, refs)
            ours = paired_test(stats_a, stats_b, score, test, n, random_state=7)
            their = theirs[key][1]
            assert ours.system == pytest.approx(their.score)
            p = their.p_value
            tolerance = 4 * math.sqrt(2 * max(p * (1 - p), 1 / n) / n)
            assert abs(ours.p_value - p) < tolerance, (test, name, ours.p_value, p)


def test_paired_test_on_segment_means_by_hand():
    a = np.array([0.0, 0.0, 0.0, 0.0])
    b = np.array([1.0, 1.0, 1.0, 1.0])
    # AR: every trial mixes the systems; |mean difference| > 1 never happens (1 only if no or all swaps)
    result = paired_test(*(mean_statistics(x)[0] for x in (a, b)), mean_statistics(a)[1], "ar", 1000)
    assert (result.baseline, result.system) == (0.0, 1.0)
    assert result.p_value == pytest.approx(1 / 1001)
    with pytest.raises(ValueError, match="test must be one of"):
        paired_test(mean_statistics(a)[0], mean_statistics(b)[0], mean_statistics(a)[1], "t")
    with pytest.raises(ValueError, match="must score the same segments"):
        paired_test(mean_statistics(a)[0], mean_statistics(b[:3])[0], mean_statistics(a)[1])
