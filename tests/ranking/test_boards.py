"""Both-bad policies counted by hand, and per-category boards with rank changes checked by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from humeval.data.tables import Comparisons
from humeval.ranking import make_model
from humeval.ranking.boards import ANCHOR, OVERALL, both_bad, leaderboards, one_track, tally


def small_arena() -> Comparisons:
    """A, B, C: A beats B, B beats C, A ties C, B–C and A–B both-bad ties (weights 1, 2, 1, 1, 3)."""
    return Comparisons(a=[0, 1, 0, 1, 0], b=[1, 2, 2, 2, 1], outcome=[1, 1, 0, 0, 0],
                       bothbad=[False, False, False, True, True], weight=[1, 2, 1, 1, 3],
                       judge=[0, 1, 0, 1, 2], judges=("j1", "j2", "j3"), systems=("A", "B", "C"))


def test_tally_keeps_both_bad_ties_apart():
    t = tally(small_arena())
    assert t["ties"].tolist() == [2, 2, 2]  # A: A~C, A~B(bb); B: B~C(bb), A~B(bb); C: A~C, B~C(bb)
    assert t["bothbad"].tolist() == [1, 2, 1]
    assert t["wins"].tolist() == [1, 1, 0] and t["losses"].tolist() == [0, 1, 1]


def test_policy_tie_leaves_the_table_and_says_so():
    c, note = both_bad(small_arena(), "tie")
    assert len(c) == 5 and c.bothbad.sum() == 2
    # weights count (1 + 3 of 1 + 1 + 3): a weight k is k battles
    assert note == "4 of 5 ties (by weight) are both-bad ('tie (bothbad)'): counted as ties (--both-bad tie)"


def test_policy_drop_removes_both_bad_ties_only():
    c, note = both_bad(small_arena(), "drop")
    assert c.a.tolist() == [0, 1, 0] and c.b.tolist() == [1, 2, 2] and c.outcome.tolist() == [1, 1, 0]
    assert c.weight.tolist() == [1, 2, 1] and "left out" in note


def test_policy_loss_makes_two_losses_against_the_anchor():
    c, note = both_bad(small_arena(), "loss")
    assert c.systems == ("A", "B", "C", ANCHOR)
    # three plain comparisons, then (anchor, a) of the two both-bad rows (B, A), then (anchor, b) of them (C, B)
    assert c.a.tolist() == [0, 1, 0, 3, 3, 3, 3]
    assert c.b.tolist() == [1, 2, 2, 1, 0, 2, 1]
    assert c.outcome.tolist() == [1, 1, 0, 1, 1, 1, 1]
    assert c.weight.tolist() == [1, 2, 1, 1, 3, 1, 3]
    assert c.judge.tolist() == [0, 1, 0, 1, 2, 1, 2]
    assert not c.bothbad.any()
    t = c.tally()
    # by hand: the anchor wins 4 comparisons; B loses to A once and to the anchor twice
    assert t.loc[ANCHOR, "wins"] == 4 and t.loc[ANCHOR, "losses"] == 0
    assert (t.loc["B", "wins"], t.loc["B", "losses"], t.loc["B", "ties"]) == (1, 3, 0)
    assert (t.loc["A", "wins"], t.loc["A", "losses"], t.loc["A", "ties"]) == (1, 1, 1)
    assert "anchor '(both bad)'" in note


def test_policy_loss_keeps_covariate_width_and_zeroes_the_anchor_rows():
    c = small_arena()
    c = Comparisons(**{k: getattr(c, k) for k in ("a", "b", "outcome", "bothbad", "weight")}, systems=c.systems,
                    covariates=np.arange(10, dtype=float).reshape(5, 2), covariate_names=("len", "bold"))
    out, _ = both_bad(c, "loss")
    assert out.covariate_names == ("len", "bold")
    np.testing.assert_array_equal(out.covariates[:3], [[0, 1], [2, 3], [4, 5]])
    assert not out.covariates[3:].any()


def test_policies_refuse_nonsense():
    with pytest.raises(ValueError, match="unknown both-bad policy 'win'"):
        both_bad(small_arena(), "win")
    named = Comparisons(a=[0], b=[1], outcome=[0], bothbad=[True], systems=(ANCHOR, "x"))
    with pytest.raises(ValueError, match="a system is named"):
        both_bad(named, "loss")
    plain = Comparisons(a=[0], b=[1], outcome=[0], systems=("x", "y"))
    assert both_bad(plain, "loss") == (plain, "")


def category_campaign() -> Comparisons:
    """Category x: C beats A 3×, C beats B 3×, A beats B 3× (x ranks C, A, B). Category y: A beats
    B, B beats C and A beats C 10× each (y ranks A, B, C). Overall: A (20–3), B (10–13), C (6–20)."""
    rows = [(2, 0, 0)] * 3 + [(2, 1, 0)] * 3 + [(0, 1, 0)] * 3 + [(0, 1, 1)] * 10 + [(1, 2, 1)] * 10 \
        + [(0, 2, 1)] * 10
    a, b, cat = (np.array(x) for x in zip(*rows))
    return Comparisons(a=a, b=b, outcome=np.ones(len(a), dtype=np.int8), category=cat, categories=("x", "y"),
                       systems=("A", "B", "C"))


def test_boards_rank_change_by_hand():
    long, notes = leaderboards(make_model("bt", 0), category_campaign(), "category")
    ranks = long.pivot(index="system", columns="board", values="rank")
    assert ranks[OVERALL].to_dict() == {"A": 1, "B": 2, "C": 3}
    assert ranks["x"].to_dict() == {"A": 2, "B": 3, "C": 1}
    assert ranks["y"].to_dict() == {"A": 1, "B": 2, "C": 3}
    change = long.pivot(index="system", columns="board", values="rank_change")
    assert change["x"].to_dict() == {"A": -1, "B": -1, "C": 2}
    assert (change["y"] == 0).all() and (change[OVERALL] == 0).all()
    played = long.pivot(index="system", columns="board", values="comparisons")
    assert played["x"].to_dict() == {"A": 6, "B": 6, "C": 6} and played[OVERALL].to_dict() == {"A": 26, "B": 26,
                                                                                               "C": 26}
    assert list(long.columns[:6]) == ["board", "system", "rank", "overall_rank", "rank_change", "comparisons"]
    assert list(long["board"].unique()) == [OVERALL, "x", "y"] and notes == []


def test_boards_use_the_given_table_and_say_what_is_left_out():
    c = category_campaign()
    c = Comparisons(**{k: getattr(c, k) for k in ("a", "b", "outcome")}, systems=c.systems,
                    category=np.where(np.arange(len(c)) < 3, 0, np.where(np.arange(len(c)) < 9, -1, 1)),
                    categories=("x", "y"))

    def scores_only(fitted, part):  # a table without ranks: the board ranks by score
        return fitted.ranking()[["score"]].assign(lower=lambda d: d.score - 1, upper=lambda d: d.score + 1)

    long, notes = leaderboards(make_model("bt", 0), c, "category", table=scores_only)
    assert {"lower", "upper"} <= set(long.columns)
    assert long.loc[long.board == "x", "system"].tolist() == ["C", "A"]  # x: only C beats A
    assert notes == ["6 comparisons have no category: they count on the overall board only"]


def test_boards_by_judge_and_by_track():
    c = category_campaign()
    judge = np.arange(len(c)) % 2
    track = (np.arange(len(c)) >= 9).astype(int)
    c = Comparisons(**{k: getattr(c, k) for k in ("a", "b", "outcome")}, systems=c.systems, judge=judge,
                    judges=("j1", "j2"), track=track, tracks=("t1", "t2"))
    long, _ = leaderboards(make_model("bt", 0), one_track(c), "judge")
    assert list(long["board"].unique()) == [OVERALL, "j1", "j2"]
    with pytest.raises(ValueError, match="fit one track at a time"):  # judges' boards are drawn per track
        leaderboards(make_model("bt", 0), c, "judge")
    long, _ = leaderboards(make_model("bt", 0), c, "track")  # the overall board pools the tracks
    ranks = long.pivot(index="system", columns="board", values="rank")
    assert ranks["t1"].to_dict() == {"A": 2, "B": 3, "C": 1} and ranks[OVERALL].to_dict() == {"A": 1, "B": 2, "C": 3}
    assert (one_track(c).track == -1).all() and len(one_track(c)) == len(c)
    with pytest.raises(ValueError, match="boards split by one of"):
        leaderboards(make_model("bt", 0), c, "language")


def test_a_board_of_one_system_pair_is_kept_and_weights_count():
    c = Comparisons(a=[0, 0, 1], b=[1, 2, 2], outcome=[1, 1, 1], weight=[2.0, 1.0, 0.5], category=[0, 1, 1],
                    categories=("p", "q"), systems=("A", "B", "C"))
    long, _ = leaderboards(make_model("bt", 0), c, "category")
    p = long[long.board == "p"].set_index("system")
    assert p["comparisons"].to_dict() == {"A": 2.0, "B": 2.0}
    overall = long[long.board == OVERALL].set_index("system")
    assert overall["comparisons"].to_dict() == {"A": 3.0, "B": 2.5, "C": 1.5}


def test_dropping_the_anchor_keeps_what_was_resampled():
    from humeval.experiments.bootstrap import BootstrapResult
    from humeval.ranking.boards import drop_system
    result = BootstrapResult(("(both bad)", "A", "B"), pd.Series([2.0, 0.5, -0.5], index=["(both bad)", "A", "B"]),
                             np.array([[2.0, 0.4, -0.4], [1.9, 0.6, -0.6]]), "comparison", 0.95, resampled="ranking")
    out = drop_system(result, "(both bad)")
    assert out.systems == ("A", "B") and out.samples.tolist() == [[0.4, -0.4], [0.6, -0.6]]
    assert out.resampled == "ranking" and out.estimate.to_dict() == {"A": 0.5, "B": -0.5}
