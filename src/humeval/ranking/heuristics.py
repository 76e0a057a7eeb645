"""Ranking heuristics of the WMT campaigns, as reviewed by Hopkins & May (2013, §2).

All count over the pairwise comparisons of one track, ties included where the formula says.
"""

from __future__ import annotations

import numpy as np

from humeval.data.tables import Comparisons
from humeval.ranking.base import Ranker, pair_counts, symmetric_counts
from humeval.ranking.feedback_arc import MinimumFeedbackArc


class _CountHeuristic(Ranker):
    fast_bootstrap = True  # counting: refits take microseconds
    weighted = True  # counts by weight (pair_counts)

    def _fit(self, comparisons: Comparisons) -> None:
        s = symmetric_counts(pair_counts(comparisons))  # self-comparisons left out: they tell nothing
        self.counts_ = s
        wins, losses, ties = s[:, :, 1].sum(1), s[:, :, 2].sum(1), s[:, :, 0].sum(1)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.scores_ = self._series(self._score(s, wins, losses, ties))


class OrigWMT(_CountHeuristic):
    """ORIGWMT(s) = (win(s) + tie(s)) / (win(s) + tie(s) + loss(s)) — WMT's ranking until 2011."""

    def __init__(self):
        pass

    def _score(self, s, wins, losses, ties):
        return (wins + ties) / (wins + ties + losses)


class Bojar(_CountHeuristic):
    """BOJAR(s) = win(s) / (win(s) + loss(s)) — ties ignored (Bojar et al. 2011)."""

    def __init__(self):
        pass

    def _score(self, s, wins, losses, ties):
        return wins / (wins + losses)


class ExpectedWins(_CountHeuristic):
    """Expected Wins (WMT12/13): for each system s, the mean over opponents o of s's share of
    the non-tied comparisons between them, win(s, o) / (win(s, o) + win(o, s)).

    Opponents s never met in a non-tied comparison are left out of the mean.
    """

    def __init__(self):
        pass

    def _score(self, s, wins, losses, ties):
        decided = s[:, :, 1] + s[:, :, 2]
        met = decided > 0
        share = np.divide(s[:, :, 1], decided, out=np.zeros_like(decided), where=met)
        return share.sum(axis=1) / met.sum(axis=1)


class MostProbableRanking(MinimumFeedbackArc):
    """Most Probable Ranking (WMT12, Callison-Burch et al. 2012 §3; Hopkins & May 2013 §2): the
    order maximising Π_{i above j} p(i, j), with p(i, j) = win(i, j) / (win(i, j) + win(j, i))
    estimated from counts (ties ignored; pairs never decided leave a constant factor out).

    Each decided pair contributes exactly one of p(i, j), p(j, i) to any order, so maximising the
    product is a minimum feedback arc problem (``MinimumFeedbackArc``, same exact DP over subsets
    up to ``exact_limit`` systems, 20 by default, and the same local search beyond — a local
    optimum, ``method_`` says which) with the weight of ranking i below j
    w(i, j) = max(0, ln(win(i, j) / win(j, i))). A pair won every time by one side
    (p = 1, infinite log-odds) weighs M = 1 + the sum of all finite weights: the order first
    reverses as few unanimous pairs as it can, then maximises the product over the rest.
    ``log_probability_`` is ln Π p of the chosen order (−inf when it reverses a unanimous pair);
    ``scores_`` are n − position, runs the data do not order sharing a score (as in
    ``MinimumFeedbackArc``).
    """

    def _weights(self, s: np.ndarray) -> np.ndarray:
        wins = s[:, :, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            log_odds = np.log(wins) - np.log(wins.T)
        w = np.where(wins > wins.T, log_odds, 0.0)
        finite = np.isfinite(w)
        w[~finite] = 1.0 + w[finite].sum()
        np.fill_diagonal(w, 0.0)
        self._wins = wins
        return w

    def _fit(self, comparisons: Comparisons) -> None:
        super()._fit(comparisons)
        index = {name: i for i, name in enumerate(self.systems_)}
        order = [index[name] for name in self.order_]
        wins = self._wins
        decided = wins + wins.T
        with np.errstate(divide="ignore", invalid="ignore"):
            log_p = np.where(decided > 0, np.log(wins) - np.log(decided), 0.0)
        np.fill_diagonal(log_p, 0.0)
        # pairs (higher, lower) along the order: the upper triangle of the reordered matrix
        self.log_probability_ = float(np.triu(log_p[np.ix_(order, order)], 1).sum())
        del self._wins


class MonteCarloPlayoffs(Ranker):
    """Monte Carlo Playoffs (WMT12, Callison-Burch et al. 2012 §3; Hopkins & May 2013 §2).

    ``rounds`` round-robin playoffs: in each, every pair of systems that was ever compared plays
    one game whose result is one of their judgments drawn uniformly at random (either order of
    presentation); the winner scores 1, a tie ½ each (``ties="half"``) or is not a game
    (``ties="ignore"``: the draw is among their decided judgments only). A system's score is its
    mean points per game over all rounds, which converges, as ``rounds`` grows, to the mean over
    its opponents o of (win(s, o) + ½ tie(s, o)) / n(s, o) (or win / (win + loss)). Seeded by
    ``random_state``. A system with no games scores NaN.
    """

    def __init__(self, rounds: int = 1000, ties: str = "half", random_state=None):
        self.rounds = rounds
        self.ties = ties
        self.random_state = random_state

    weighted = True  # counts by weight (pair_counts)

    def _fit(self, comparisons: Comparisons) -> None:
        if self.ties not in ("half", "ignore"):
            raise ValueError(f"ties must be 'half' or 'ignore', not {self.ties!r}")
        if int(self.rounds) < 1:
            raise ValueError(f"rounds must be at least 1, not {self.rounds!r}")
        rng = np.random.default_rng(self.random_state)
        s = symmetric_counts(pair_counts(comparisons))
        n = len(s)
        points, games = np.zeros(n), np.zeros(n)
        i, j = np.nonzero(np.triu(s.sum(axis=2), 1))
        for x, y in zip(i, j):  # one pair at a time: all its rounds drawn at once
            tie, win, loss = s[x, y]
            if self.ties == "ignore":
                tie = 0.0
            total = tie + win + loss
            if total == 0:
                continue
            # a multinomial draw of the rounds' results: how many won by x, by y, tied
            won, lost, tied = rng.multinomial(int(self.rounds), [win / total, loss / total, tie / total])
            points[x] += won + tied / 2
            points[y] += lost + tied / 2
            games[[x, y]] += self.rounds
        with np.errstate(invalid="ignore", divide="ignore"):
            self.scores_ = self._series(points / games)
