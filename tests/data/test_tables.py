import numpy as np
import pandas as pd
import pytest

from humeval.data import Comparisons, PostEdits, Rankings, Ratings, encode


def small_comparisons():
    return Comparisons(a=[0, 1, 2, 0], b=[1, 2, 0, 2], outcome=[1, 0, 2, 1], item=[0, 0, 1, 1],
                       judge=[0, 1, 1, -1], track=[0, 0, 1, 1], systems=("A", "B", "C"),
                       items=("s1", "s2"), judges=("j1", "j2"), tracks=("de-en", "fr-en"))


def test_encode_sorts_labels_and_marks_missing():
    (a, b), labels = encode(["x", "b", None], ["b", "", "z"])
    assert labels == ("b", "x", "z")
    assert a.tolist() == [1, 0, -1] and b.tolist() == [0, -1, 2]
    (c,), labels = encode([39.0, 7.0, float("nan")])
    assert labels == ("7", "39") and c.tolist() == [1, 0, -1]


def test_columns_defaults_and_validation():
    c = Comparisons(a=[0], b=[1], outcome=[2], systems=("A", "B"))
    assert c.item.tolist() == [-1] and c.group.dtype == np.int32 and c.outcome.dtype == np.int8
    with pytest.raises(ValueError, match="codes outside"):
        Comparisons(a=[0], b=[2], outcome=[1], systems=("A", "B"))
    with pytest.raises(TypeError, match="needs the columns"):
        Comparisons(a=[0], outcome=[1], systems=("A", "B"))
    with pytest.raises(ValueError, match="shape"):
        Comparisons(a=[0, 1], b=[1], outcome=[1, 1], systems=("A", "B"))


def test_bytes_per_comparison():
    # 39 bytes a comparison (a, b, item, judge, group, track, category: int32; weight: float64;
    # outcome, judge_kind: int8; bothbad: bool): 10 million comparisons take 390 MB, well under 1 GB
    c = Comparisons(a=np.zeros(1000), b=np.ones(1000), outcome=np.zeros(1000), systems=("A", "B"))
    assert c.nbytes / len(c) == 7 * 4 + 8 + 1 + 1 + 1


def test_take_by_track_compact_and_concat():
    c = small_comparisons()
    parts = c.by_track()
    assert list(parts) == ["de-en", "fr-en"]
    fr = parts["fr-en"]
    assert len(fr) == 2 and fr.systems == ("A", "C") and fr.a.tolist() == [1, 0] and fr.b.tolist() == [0, 1]
    assert fr.judges == ("j2",) and fr.judge.tolist() == [0, -1]
    sub = c.take([3])
    assert sub.systems == c.systems and sub.outcome.tolist() == [1]
    back = Comparisons.concat([parts["de-en"], fr])
    assert back.systems == ("A", "B", "C")
    np.testing.assert_array_equal(np.array(back.systems)[back.a], np.array(c.systems)[c.a])
    np.testing.assert_array_equal(back.outcome, c.outcome)


def test_pandas_round_trip_and_repr():
    c = small_comparisons()
    df = c.to_pandas()
    assert df["a"].tolist() == ["A", "B", "C", "A"] and pd.isna(df["judge"].iloc[3])
    back = Comparisons.from_pandas(df)
    for name in ("a", "b", "outcome", "item", "judge", "track"):
        np.testing.assert_array_equal(getattr(back, name), getattr(c, name))
    assert repr(c) == "Comparisons(4 comparisons, 3 systems, 2 items, 2 judges, 2 tracks, ties 25.0%)"


def test_tally_counts_wins_ties_losses():
    t = small_comparisons().tally()
    # A: beats B (row 0), loses to C (row 2: b=0 preferred? outcome 2 means b=A preferred)
    assert t.loc["A"].tolist()[:4] == [3, 3, 0, 0]
    assert t.loc["B"].tolist()[:4] == [2, 0, 1, 1]
    assert t.loc["C"].tolist()[:4] == [3, 0, 1, 2]
    assert np.isnan(t.loc["B", "win_share"]) is np.False_ and t.loc["B", "win_share"] == 0.0


def hopkins_may_table1():
    # H&M 2013 Table 1: bbn 1, uedin 2, jhu 2, cmu 4, kit 5
    return Rankings(system=[[0, 1, 2, 3, 4]], rank=[[1, 2, 2, 4, 5]],
                    systems=("bbn", "uedin", "jhu", "cmu", "kit"), judges=("jdoe",), judge=[0])


def test_expand_reproduces_hopkins_may_table2():
    c = hopkins_may_table1().expand()
    names = np.array(c.systems)
    got = {}
    for a, b, o in zip(names[c.a], names[c.b], c.outcome):
        if a > b:  # the paper lists each pair in alphabetical order
            a, b, o = b, a, {0: 0, 1: 2, 2: 1}[o]
        got[(a, b)] = int(o)
    assert got == {("bbn", "cmu"): 1, ("bbn", "jhu"): 1, ("bbn", "kit"): 1, ("bbn", "uedin"): 1,
                   ("cmu", "jhu"): 2, ("cmu", "kit"): 1, ("cmu", "uedin"): 2, ("jhu", "kit"): 1,
                   ("jhu", "uedin"): 0, ("kit", "uedin"): 2}
    assert c.group.tolist() == [0] * 10 and c.judge.tolist() == [0] * 10


def test_expand_skips_unset_ranks_and_shared_outputs():
    r = Rankings(system=[[0, 1, 2, 3], [0, 1, -1, -1]], rank=[[1, 1, -1, 2], [2, 1, -1, -1]],
                 output=[[0, 0, 1, 2], [0, 1, 2, 3]], systems=("A", "B", "C", "D"))
    c, skipped = r.expand(return_skipped=True)
    # row 0: (A,B) shared an output; (A,C),(B,C),(C,D) unset; (A,D), (B,D) kept. row 1: (A,B) kept
    assert skipped == {"pairs with an unset rank": 3, "pairs of systems that shared one output": 1}
    assert list(zip(c.a.tolist(), c.b.tolist(), c.outcome.tolist(), c.group.tolist())) == \
        [(0, 3, 1, 0), (1, 3, 1, 0), (0, 1, 2, 1)]


def test_rankings_pandas_round_trip():
    r = hopkins_may_table1()
    df = r.to_pandas()
    assert df["system"].tolist() == ["bbn", "uedin", "jhu", "cmu", "kit"] and df["rank"].tolist() == [1, 2, 2, 4, 5]
    back = Rankings.from_pandas(df)
    np.testing.assert_array_equal(np.array(back.systems)[back.system], np.array(r.systems)[r.system])
    np.testing.assert_array_equal(back.expand().outcome, r.expand().outcome)


def test_ratings_and_post_edits_tables():
    r = Ratings.from_pandas(pd.DataFrame({"item": ["s1", "s2"], "system": ["A", "A"], "score": [70.0, 30.0]}),
                            scale="0-100")
    assert r.scale == "0-100" and r.higher_is_better and r.judge.tolist() == [-1, -1]
    assert repr(r) == "Ratings(2 scores, 2 items, 1 system, scale 0-100, mean 50)"
    p = PostEdits.from_pandas(pd.DataFrame({"item": ["1"], "hypothesis": ["a b"], "post_edit": ["a c"]}))
    assert p.hypothesis.tolist() == ["a b"] and np.isnan(p.hter[0]) and p.reference.tolist() == [None]
    both = Ratings.concat([r, r.take([0])])
    assert len(both) == 3 and both.scale == "0-100"


def test_comparisons_to_pandas_refuses_a_covariate_that_would_overwrite_a_column():
    c = Comparisons(a=[0], b=[1], outcome=[1], weight=[2.0], systems=("A", "B"), covariates=[[0.5]],
                    covariate_names=("weight",))
    with pytest.raises(ValueError, match=r"named like columns of the table: rename them"):
        c.to_pandas()
    df = c.to_pandas(covariates=False)
    assert df["weight"].tolist() == [2.0] and list(df.columns)[-1] == "category"
