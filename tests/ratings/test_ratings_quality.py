"""Annotator quality control as WMT runs it: degraded-reference pairing, Wilcoxon p-values,
repeat consistency, and planted random annotators in a simulated campaign."""

import itertools
import numpy as np
import scipy
import pandas as pd
import pytest
from scipy import stats

from humeval.data.readers import read
from humeval.data.tables import Ratings
from humeval.ratings.quality import (
    annotator_qc,
    control_pairs,
    degraded_pvalue,
    has_controls,
    repeat_consistency,
    system_ratings,
)
from humeval.simulate.ratings import simulate_ratings

HEADER = "HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time"


def write_da(path, rows):
    """A WMT DA per-annotator file: space-separated header, tab-separated rows
    (worker, system, type, segment, score)."""
    lines = [HEADER] + ["\t".join(["H1", w, "de", "en", "1", "1", s, "r", t, str(i), str(x), "10"])
                        for w, s, t, i, x in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


HAND = [
    ("w1", "A", "SYSTEM", 1, 80), ("w1", "A", "SYSTEM", 2, 60), ("w1", "B", "SYSTEM", 1, 70),
    ("w1", "A", "BAD_REF", 1, 30),   # pairs with w1's A/1 = 80
    ("w1", "B", "BAD_REF", 1, 75),   # pairs with w1's B/1 = 70 (scored higher: a failure sign)
    ("w1", "A", "REPEAT", 2, 64),    # repeat of w1's A/2 = 60
    ("w1", "A", "SYSTEM", 1, 10),    # a second SYSTEM rating of A/1: the first (80) is the original
    ("w2", "A", "SYSTEM", 1, 50),
    ("w2", "B", "BAD_REF", 1, 40),   # w2 never rated B/1: unpaired (not paired with w1's rating)
    ("w2", "A", "BAD_REF", 1, 20),   # pairs with w2's A/1 = 50
    ("w2", "A", "REF", 3, 90),       # reference shown as a control: neither paired nor ranked
]


def test_bad_ref_pairs_with_the_same_annotators_first_rating_of_the_original(tmp_path):
    ratings = read(write_da(tmp_path / "ad-good-raw.csv", HAND), controls=True).ratings
    pairs, skipped = control_pairs(ratings)
    got = sorted(pairs[["judge", "system", "item", "control", "original", "score"]].itertuples(index=False, name=None))
    assert got == [("w1", "A", "1", "BAD_REF", 80.0, 30.0), ("w1", "A", "2", "REPEAT", 60.0, 64.0),
                   ("w1", "B", "1", "BAD_REF", 70.0, 75.0), ("w2", "A", "1", "BAD_REF", 50.0, 20.0)]
    assert skipped == {"degraded-reference items whose original the same annotator did not rate (unpaired)": 1}
    qc = annotator_qc(ratings)
    w1 = qc.table.loc["w1"]
    assert w1["bad-ref pairs"] == 2 and w1["mean drop"] == pytest.approx((50 + -5) / 2)
    assert w1["p (degraded lower)"] == pytest.approx(stats.wilcoxon([50, -5], alternative="greater").pvalue)
    assert w1["repeat pairs"] == 1 and w1["repeat |diff|"] == 4.0
    assert w1["ratings"] == 4 and qc.table.loc["w2", "ratings"] == 1
    # two or one pairs can never reach p < 0.05: both fail, and the notes say why
    assert sorted(qc.failed) == ["w1", "w2"]
    assert any("fewer than 5" in n for n in qc.notes)
    kept = system_ratings(ratings)
    assert len(kept) == 5 and set(kept.kinds) == {"SYSTEM"}


def test_reader_skips_controls_by_default_and_counts_them(tmp_path):
    judgments = read(write_da(tmp_path / "ad-good-raw.csv", HAND))
    assert len(judgments.ratings) == 5 and not has_controls(judgments.ratings)
    skipped = judgments.report.skipped
    assert skipped["quality-control rows of type BAD_REF (controls=True keeps them)"] == 4
    assert skipped["quality-control rows of type REPEAT (controls=True keeps them)"] == 1


@pytest.mark.parametrize("n, seed", [(8, 0), (30, 1), (80, 2)])
def test_wilcoxon_pvalue_equals_scipy_on_the_paired_vectors(n, seed):
    rng = np.random.default_rng(seed)
    original = rng.integers(0, 101, n).astype(float)
    degraded = np.clip(original - rng.normal(5, 20, n).round(), 0, 100)
    expected = stats.wilcoxon(original - degraded, alternative="greater").pvalue
    assert degraded_pvalue(original, degraded) == pytest.approx(expected, rel=1e-12)
    # and through the per-annotator table, on the same vectors
    rows = [("w", "S", "SYSTEM", i, o) for i, o in enumerate(original)] + \
           [("w", "S", "BAD_REF", i, b) for i, b in enumerate(degraded)]
    df = pd.DataFrame(rows, columns=["judge", "system", "kind", "item", "score"])
    table = annotator_qc(Ratings.from_pandas(df)).table
    assert table.loc["w", "p (degraded lower)"] == pytest.approx(expected, rel=1e-12)
    assert table.loc["w", "flag"] == ("pass" if expected < 0.05 else "fail")


@pytest.mark.parametrize("d", [
    [3.0, 3.0, -1.0, 0.0, 5.0],  # ties and a zero: scipy's permutation test
    [2.0, 2.0, 2.0, -2.0, 7.0, 0.0, 0.0, 1.0, -3.0, 4.0, 4.0, 9.0, -1.0],  # 13 pairs, the largest enumerated
    [1.0, 2.5, -0.5, 4.0, 3.0, -2.0, 6.0, 7.5, 8.0, 10.0, -11.0],  # no ties: scipy's exact distribution
])
def test_small_samples_enumerate_the_sign_assignments_as_scipy(d):
    d = np.array(d)
    # every sign assignment of the non-zero differences, one by one: the share whose W+ reaches the observed
    nonzero = d[d != 0]
    ranks = stats.rankdata(np.abs(nonzero))
    observed = ranks[nonzero > 0].sum()
    flips = [sum(r for r, keep in zip(ranks, signs) if keep) for signs in itertools.product((0, 1), repeat=len(ranks))]
    assert degraded_pvalue(d, np.zeros(len(d))) == pytest.approx(np.mean(np.array(flips) >= observed - 1e-9), rel=1e-12)
    if tuple(int(x) for x in scipy.__version__.split(".")[:2]) >= (1, 15):  # scipy's default method since 1.15
        expected = stats.wilcoxon(d, alternative="greater").pvalue
        assert degraded_pvalue(d, np.zeros(len(d))) == pytest.approx(expected, rel=1e-12)
    # by hand for the first: |d| non-zero 3, 3, 1, 5 -> ranks 2.5, 2.5, 1, 4; W+ = 9 of 10; the 16 sign
    # assignments reaching 9: {all positive} (10), {-1} (9): 2 of 16
    if len(d) == 5:
        assert degraded_pvalue(d, np.zeros(5)) == pytest.approx(2 / 16)


def test_all_zero_differences_give_p_one_not_nan():
    assert degraded_pvalue([50, 60, 70], [50, 60, 70]) == 1.0


def test_repeat_consistency_by_hand():
    r, mad = repeat_consistency([10, 20, 30, 40], [12, 18, 33, 40])
    assert mad == pytest.approx((2 + 2 + 3 + 0) / 4)
    assert r == pytest.approx(np.corrcoef([10, 20, 30, 40], [12, 18, 33, 40])[0, 1])
    assert np.isnan(repeat_consistency([10, 20], [11, 19])[0])


def test_file_without_controls_says_so_instead_of_guessing():
    df = pd.DataFrame({"judge": ["a", "a", "b"], "item": ["1", "2", "1"], "system": ["S", "S", "T"],
                       "score": [50.0, 60.0, 70.0]})
    qc = annotator_qc(Ratings.from_pandas(df))
    assert not qc.has_controls and qc.failed == [] and len(qc.table) == 0
    assert "marks no degraded-reference (BAD_REF) or repeat items" in qc.notes[0]


def test_simulated_campaign_random_annotators_fail_honest_ones_pass():
    # few systems and segments, so that each degraded item's original was rated by the same annotator
    sim = simulate_ratings(n_systems=4, n_items=15, n_judges=20, n_ratings=8000, bad_ref=0.1, repeat=0.05,
                           random_judges=0.2, random_state=1)
    qc = annotator_qc(sim.ratings)
    planted = set(map(str, sim.truth.random_judges))
    assert len(planted) == 4
    assert set(qc.failed) == planted
    honest = qc.table.drop(index=list(planted))
    assert (honest["flag"] == "pass").all() and (honest["p (degraded lower)"] < 1e-6).all()
    # honest annotators repeat themselves more closely than random clickers
    assert honest["repeat |diff|"].mean() < 0.5 * qc.table.loc[list(planted), "repeat |diff|"].mean()


def test_error_scores_are_oriented_before_the_test():
    # MQM-like: lower is better, so a degraded output gets a *higher* error score
    rows = [("w", "S", "SYSTEM", i, float(i % 3)) for i in range(10)] + \
           [("w", "S", "BAD_REF", i, float(i % 3) + 5) for i in range(10)]
    df = pd.DataFrame(rows, columns=["judge", "system", "kind", "item", "score"])
    qc = annotator_qc(Ratings.from_pandas(df, higher_is_better=False))
    assert qc.table.loc["w", "flag"] == "pass"
    assert qc.table.loc["w", "p (degraded lower)"] == pytest.approx(stats.wilcoxon(np.full(10, 5.0),
                                                                                    alternative="greater").pvalue)


def test_control_rows_are_never_ranked():
    from humeval.ratings import rank_ratings
    df = pd.DataFrame({"judge": ["a"] * 6, "item": ["1", "2", "1", "2", "1", "2"], "system": list("SSTTSS"),
                       "kind": ["SYSTEM", "SYSTEM", "SYSTEM", "SYSTEM", "BAD_REF", "REPEAT"],
                       "score": [80.0, 70.0, 40.0, 30.0, 0.0, 100.0]})
    result = rank_ratings(Ratings.from_pandas(df), model="raw")
    assert result.table["raw"].to_dict() == {"S": 75.0, "T": 35.0}
    assert result.skipped == {"quality-control ratings (degraded outputs, repeats, references), not ranked": 2}
