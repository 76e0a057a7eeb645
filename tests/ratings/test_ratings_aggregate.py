"""Aggregation as WMT publishes it: hand-worked z, segment-then-system means, skips and errors."""

import numpy as np
import pandas as pd
import pytest

import humeval
from humeval.data.tables import Ratings
from humeval.errors import InputError
from humeval.ratings import aggregate, rank_ratings, redup_ratings, znorm


def make(rows, **attrs):
    df = pd.DataFrame(rows, columns=["system", "item", "judge", "score"])
    return Ratings.from_pandas(df, **attrs)


# j1 rates 70, 50, 90: mean 70, s.d. (n-1) 20 -> z 0, -1, 1.
# j2 rates 60, 40, 50: mean 50, s.d. 10 -> z 1, -1, 0.  j3 rates once: z undefined.
HAND = [("A", "s1", "j1", 70), ("B", "s1", "j1", 50), ("A", "s2", "j1", 90),
        ("A", "s1", "j2", 60), ("B", "s2", "j2", 40), ("B", "s1", "j2", 50),
        ("A", "s2", "j3", 100)]


def test_z_is_per_annotator_then_segment_then_system_mean():
    agg = aggregate(make(HAND, scale="0-100"), "z-mean")
    table = agg.table()
    # segments: A s1 (0 + 1)/2, A s2 1 (j3 left out); B s1 (-1 + 0)/2, B s2 -1
    assert table.loc["A", "z"] == pytest.approx((0.5 + 1) / 2)
    assert table.loc["B", "z"] == pytest.approx((-0.5 - 1) / 2)
    # raw over the same ratings: A (65 + 90)/2, B (50 + 40)/2
    assert table.loc["A", "raw"] == pytest.approx(77.5) and table.loc["B", "raw"] == pytest.approx(45)
    assert table.loc["A", "segments"] == 2 and table.loc["A", "ratings"] == 3
    assert agg.skipped == {"ratings of annotators with a single rating (z undefined)": 1}


def test_raw_keeps_every_rating():
    table = aggregate(make(HAND), "raw").table()
    assert table.loc["A", "raw"] == pytest.approx((65 + 95) / 2)
    assert table.loc["B", "raw"] == pytest.approx(45)
    assert "z" not in table


def test_znorm_matches_pandas_groupby_std():
    rng = np.random.default_rng(3)
    judge = rng.integers(0, 20, 500)
    score = rng.normal(50, 15, 500).round()
    z, ok, skipped = znorm(score, judge)
    df = pd.DataFrame({"j": judge, "x": score})
    expected = (df.x - df.groupby("j").x.transform("mean")) / df.groupby("j").x.transform("std")
    assert ok.all() and not skipped
    np.testing.assert_allclose(z, expected.to_numpy(), rtol=1e-12)


def test_annotator_with_constant_scores_and_missing_ids_are_counted():
    rows = HAND + [("A", "s1", "j4", 80), ("B", "s2", "j4", 80), ("B", "s2", None, 30)]
    agg = aggregate(make(rows), "z-mean")
    assert agg.skipped == {
        "ratings without an annotator id (z needs one)": 1,
        "ratings of annotators with a single rating (z undefined)": 1,
        "ratings of annotators who gave one score throughout (s.d. 0, z undefined)": 2}
    assert np.isfinite(agg.value).all()


def test_z_without_any_annotator_is_an_error():
    rows = [(s, i, None, x) for s, i, _, x in HAND]
    with pytest.raises(InputError, match="z-normalisation needs annotator ids.*use --model raw"):
        aggregate(make(rows), "z-mean")


def test_rating_outside_the_declared_scale_is_an_error_naming_it():
    rows = HAND + [("B", "s2", "j1", 130)]
    with pytest.raises(InputError, match=r"1 rating\(s\) outside the declared scale 0 to 100 "
                                         r"\(e.g. system B, segment s2: 130\)"):
        aggregate(make(rows, scale="0-100"), "raw")
    with pytest.raises(InputError, match="outside the declared scale 0 to 100"):
        aggregate(make(rows), "esa")  # ESA is 0-100 whatever the file says
    assert aggregate(make(rows), "raw", scale=(0, 200)).table().loc["B", "raw"] > 45


def test_system_rated_on_one_segment_is_left_out_and_counted():
    rows = HAND + [("C", "s1", "j5", 10), ("C", "s1", "j5", 30)]
    result = rank_ratings(make(rows), "raw")
    assert list(result.table.index) == ["A", "B"]
    assert result.skipped == {"systems rated on fewer than 2 segments, left out: C (1 segment)": 1}
    assert np.isfinite(result.table.to_numpy(dtype=float)).all()


def test_human_references_left_out_of_the_ranking_but_not_of_z():
    rows = HAND + [("HUMAN.0", "s1", "j1", 95), ("HUMAN.0", "s2", "j2", 70)]
    kept = aggregate(make(rows), "z-mean")
    dropped = aggregate(make(rows), "z-mean", human=False)
    assert "HUMAN.0" in kept.systems and "HUMAN.0" not in dropped.systems
    assert dropped.notes[-1] == "left out as human references: HUMAN.0"
    # the annotators' means still include the human ratings
    a_kept = kept.table().loc["A", "z"]
    assert dropped.table().loc["A", "z"] == pytest.approx(a_kept)
    assert a_kept != pytest.approx(aggregate(make(HAND), "z-mean").table().loc["A", "z"])


def test_redup_copies_the_ratings_of_a_shared_output():
    dup = pd.DataFrame({"item": ["s2"], "system": ["C"], "copy_of": ["B"]})
    out = redup_ratings(make(HAND), dup)
    df = out.to_pandas()
    assert len(out) == len(HAND) + 1
    copied = df[df.system == "C"]
    assert copied[["item", "judge", "score"]].astype(str).values.tolist() == [["s2", "j2", "40.0"]]
    with pytest.raises(InputError, match="point to unrated outputs"):
        redup_ratings(make(HAND), pd.DataFrame({"item": ["s9"], "system": ["C"], "copy_of": ["B"]}))


def test_mqm_is_minus_weighted_errors_averaged_over_raters(fixture):
    ratings = humeval.read(fixture("mqm_small.ende.tsv")).ratings
    table = aggregate(ratings, "mqm").table()
    # sysA: seg 1 = -(5 + 0.1 + 1), seg 2 = 0; sysB: seg 1 = -25, seg 2 = -1 (HOTW-test row skipped)
    assert table.loc["sysA", "mqm"] == pytest.approx(-6.1 / 2)
    assert table.loc["sysB", "mqm"] == pytest.approx(-13)


def test_mqm_rater_average_per_segment():
    rows = [("A", "1", "r1", -5), ("A", "1", "r2", -1), ("A", "2", "r1", 0), ("B", "1", "r1", -2),
            ("B", "2", "r2", -2)]
    table = aggregate(make(rows), "mqm").table()
    assert table.loc["A", "mqm"] == pytest.approx(((-5 - 1) / 2 + 0) / 2)
    with pytest.raises(InputError, match="outside the declared scale -inf to 0"):
        aggregate(make(rows + [("B", "3", "r1", 2)]), "mqm")


def test_lower_is_better_scores_rank_lowest_first():
    rows = [("A", "1", "r", 1.0), ("A", "2", "r", 2.0), ("B", "1", "r", 3.0), ("B", "2", "r", 4.0)]
    result = rank_ratings(make(rows, higher_is_better=False), "raw", n_boot=20)
    assert list(result.table.index) == ["A", "B"]
    assert result.table.loc["A", "raw"] == pytest.approx(1.5)
    assert (result.table["lo"] <= result.table["raw"]).all() and (result.table["raw"] <= result.table["hi"]).all()


def test_esa_is_the_mean_of_segment_means_on_0_to_100():
    rows = [("A", "1", "r1", 90), ("A", "1", "r2", 70), ("A", "2", "r1", 100), ("B", "1", "r2", 40), ("B", "2", "r1", 60)]
    table = aggregate(make(rows), "esa").table()
    assert table.loc["A", "esa"] == pytest.approx((80 + 100) / 2) and table.loc["B", "esa"] == pytest.approx(50)
