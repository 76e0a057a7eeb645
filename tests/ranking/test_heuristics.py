import numpy as np
import pytest
from helpers import HAND, brute_force_cost, comparisons, random_tournament

from humeval.ranking import Bojar, ExpectedWins, MinimumFeedbackArc, OrigWMT
from humeval.ranking.base import pair_counts, symmetric_counts


def test_hand_counts():
    # A: 3 wins, 1 loss, 1 tie; B: 1 win, 2 losses, 3 ties; C: 0 wins, 1 loss, 2 ties
    c = comparisons(HAND)
    assert OrigWMT().fit(c).scores_.tolist() == pytest.approx([4 / 5, 4 / 6, 2 / 3])
    assert Bojar().fit(c).scores_.tolist() == pytest.approx([3 / 4, 1 / 3, 0.0])
    # Expected wins: A: mean(2/3 vs B, 1/1 vs C); B: 1/3 vs A (all ties with C: left out); C: 0/1 vs A
    assert ExpectedWins().fit(c).scores_.tolist() == pytest.approx([(2 / 3 + 1) / 2, 1 / 3, 0.0])


def test_bojars_duplicate_argument():
    # Hopkins & May §2: A and B equally good (a third each of wins, losses, ties): ORIGWMT = 2/3 for both.
    base = [("A", "B", 1), ("A", "B", 2), ("A", "B", 0)]
    assert OrigWMT().fit(comparisons(base, ("A", "B"))).scores_.tolist() == pytest.approx([2 / 3, 2 / 3])
    # Duplicate B as C, which always ties with B: ORIGWMT(B) rises to 5/6, BOJAR(B) stays 1/2.
    dup = base + [("A", "C", 1), ("A", "C", 2), ("A", "C", 0)] + [("B", "C", 0)] * 3
    c = comparisons(dup)
    assert OrigWMT().fit(c).scores_["B"] == pytest.approx(5 / 6)
    assert OrigWMT().fit(c).scores_["A"] == pytest.approx(2 / 3)
    assert Bojar().fit(c).scores_["B"] == pytest.approx(1 / 2)


def test_symmetric_counts_negate_the_reverse_order():
    s = symmetric_counts(pair_counts(comparisons(HAND)))
    assert s[0, 1].tolist() == [1, 2, 1]  # A vs B: 1 tie, 2 A wins, 1 B win
    assert s[1, 0].tolist() == [1, 1, 2]


def test_feedback_arc_is_exact():
    rng = np.random.default_rng(0)
    for n in (3, 5, 7):
        c = random_tournament(n, rng)
        model = MinimumFeedbackArc().fit(c)
        s = symmetric_counts(pair_counts(c))
        w = np.maximum(s[:, :, 1] - s[:, :, 2], 0)
        np.fill_diagonal(w, 0)
        assert model.cost_ == pytest.approx(brute_force_cost(w))
        assert model.method_.startswith("exact")
        # scores n − position along the order, a run without net wins between its members sharing one
        along = model.scores_[list(model.order_)].to_numpy()
        position = [c.systems.index(x) for x in model.order_]
        assert along[0] == n and (np.diff(along) <= 0).all()
        for p in range(1, n):
            same = along[p] == along[p - 1]
            assert same == (along[p] != n - p)
            if same:
                assert w[position[p], position[p - 1]] == w[position[p - 1], position[p]] == 0


def test_feedback_arc_heuristic_beyond_the_limit():
    rng = np.random.default_rng(1)
    c = random_tournament(7, rng)
    exact = MinimumFeedbackArc().fit(c)
    heuristic = MinimumFeedbackArc(exact_limit=4).fit(c)
    assert heuristic.method_.startswith("heuristic") and heuristic.cost_ >= exact.cost_
    # a consistent tournament (s0 > s1 > … beats everyone below it) is solved to cost 0
    names = tuple(f"s{i}" for i in range(8))
    order = [(names[i], names[j], 1) for i in range(8) for j in range(i + 1, 8)]
    chain = MinimumFeedbackArc(exact_limit=4).fit(comparisons(order, names))
    assert chain.cost_ == 0 and chain.order_ == names


def test_ranking_table_and_protocol():
    model = Bojar().fit(comparisons(HAND))
    table = model.ranking()
    assert table.index.tolist() == ["A", "B", "C"] and table["rank"].tolist() == [1, 2, 3]
    assert model.get_params() == {} and repr(MinimumFeedbackArc(exact_limit=5)) == "MinimumFeedbackArc(exact_limit=5)"
    with pytest.raises(ValueError, match="no parameter"):
        MinimumFeedbackArc().set_params(limit=3)
