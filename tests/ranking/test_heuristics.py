import numpy as np
import pytest
from helpers import HAND, brute_force_cost, comparisons, random_tournament

from humeval.ranking import Bojar, ExpectedWins, MinimumFeedbackArc, MonteCarloPlayoffs, MostProbableRanking, OrigWMT
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


# -- WMT12's Most Probable Ranking and Monte Carlo Playoffs ----------------------------------------

def _brute_force_mpr(c):
    """The order maximising Π_{i above j} win(i, j) / (win(i, j) + win(j, i)), by enumeration."""
    import itertools
    wins = symmetric_counts(pair_counts(c))[:, :, 1]
    decided = wins + wins.T
    best, best_order = -np.inf, None
    for order in itertools.permutations(range(len(wins))):
        product = 1.0
        for x, hi in enumerate(order):
            for lo in order[x + 1:]:
                if decided[hi, lo]:
                    product *= wins[hi, lo] / decided[hi, lo]
        if product > best:
            best, best_order = product, order
    return best, best_order


def test_most_probable_ranking_by_hand():
    # A beat B 10:9, B beat C 10:8, C beat A 2:1 — a cycle; every cyclic order costs one net win
    # (feedback arc cannot choose), but the products differ:
    #   A,B,C: 10/19 · 1/3 · 10/18 = 0.0975;  B,C,A: 9/19 · 10/18 · 2/3 = 0.1754;  C,A,B: 2/3 · 8/18 · 10/19 = 0.1559
    rows = ([("A", "B", 1)] * 10 + [("A", "B", 2)] * 9 + [("B", "C", 1)] * 10 + [("C", "B", 1)] * 8
            + [("C", "A", 1)] * 2 + [("A", "C", 1)] + [("A", "B", 0)] * 3)
    model = MostProbableRanking().fit(comparisons(rows))
    assert model.order_ == ("B", "C", "A")
    assert model.log_probability_ == pytest.approx(np.log(9 / 19 * 10 / 18 * 2 / 3))
    assert model.ranking()["rank"].to_dict() == {"B": 1, "C": 2, "A": 3}
    assert MinimumFeedbackArc().fit(comparisons(rows)).cost_ == 1  # the cycle costs one net win either way


def test_most_probable_ranking_matches_enumeration():
    rng = np.random.default_rng(3)
    for n in (3, 4, 5, 6):
        c = random_tournament(n, rng)
        model = MostProbableRanking().fit(c)
        best, _ = _brute_force_mpr(c)
        assert model.log_probability_ == pytest.approx(np.log(best))
        assert model.method_.startswith("exact")
    # beyond exact_limit: the local search (a local optimum; here it finds the optimum)
    c = random_tournament(5, np.random.default_rng(4))
    approx = MostProbableRanking(exact_limit=3).fit(c)
    assert approx.method_.startswith("heuristic")
    assert approx.log_probability_ == pytest.approx(np.log(_brute_force_mpr(c)[0]))


def test_most_probable_ranking_with_unanimous_pairs():
    # A always beat B, B always beat C, C always beat A: every order reverses one unanimous pair
    # (product 0), and the order reverses no more than one; A beat D 3:1 puts D below A
    rows = [("A", "B", 1)] * 3 + [("B", "C", 1)] * 2 + [("C", "A", 1)] * 4 + [("D", "A", 1)] + [("A", "D", 1)] * 3
    model = MostProbableRanking().fit(comparisons(rows, tuple("ABCD")))
    assert model.log_probability_ == -np.inf
    order = model.order_
    reversed_unanimous = sum(order.index(x) > order.index(y) for x, y in (("A", "B"), ("B", "C"), ("C", "A")))
    assert reversed_unanimous == 1 and order.index("A") < order.index("D")
    # without the cycle the unanimous order is found and its probability is the product of the rest
    rows = [("A", "B", 1)] * 3 + [("B", "C", 1)] * 2 + [("A", "C", 1), ("C", "A", 1), ("A", "C", 1)]
    model = MostProbableRanking().fit(comparisons(rows))
    assert model.order_ == ("A", "B", "C") and model.log_probability_ == pytest.approx(np.log(2 / 3))


def test_mc_playoffs_by_hand():
    # A always beats B, B always beats C, A and C always tie: every round gives the same results,
    # A: (1 + ½)/2, B: (0 + 1)/2, C: (0 + ½)/2
    rows = [("A", "B", 1)] * 3 + [("C", "B", 2)] * 2 + [("A", "C", 0)] * 4
    model = MonteCarloPlayoffs(rounds=50, random_state=0).fit(comparisons(rows))
    assert model.scores_.tolist() == pytest.approx([0.75, 0.5, 0.25])
    # ties ignored: the A–C pair plays no games; A 1/1, B 1/2, C 0/1
    model = MonteCarloPlayoffs(rounds=50, ties="ignore", random_state=0).fit(comparisons(rows))
    assert model.scores_.tolist() == pytest.approx([1.0, 0.5, 0.0])


def test_mc_playoffs_converge_to_expected_points_and_are_seeded():
    c = comparisons(HAND)
    # expected points per game: A: (2.5/4 vs B + 1 vs C)/2; B: (1.5/4 + 1/2)/2; C: (0 + 1/2)/2
    expected = [(2.5 / 4 + 1) / 2, (1.5 / 4 + 0.5) / 2, 0.25]
    model = MonteCarloPlayoffs(rounds=200_000, random_state=1).fit(c)
    assert model.scores_.tolist() == pytest.approx(expected, abs=3e-3)
    few = [MonteCarloPlayoffs(rounds=20, random_state=5).fit(c).scores_.tolist() for _ in range(2)]
    assert few[0] == few[1] and few[0] != MonteCarloPlayoffs(rounds=20, random_state=6).fit(c).scores_.tolist()
    with pytest.raises(ValueError, match="ties must be"):
        MonteCarloPlayoffs(ties="drop").fit(c)
    with pytest.raises(ValueError, match="rounds must be"):
        MonteCarloPlayoffs(rounds=0).fit(c)
