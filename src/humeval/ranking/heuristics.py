"""Ranking heuristics of the WMT campaigns, as reviewed by Hopkins & May (2013, §2).

All count over the pairwise comparisons of one track, ties included where the formula says.
"""

from __future__ import annotations

import numpy as np

from humeval.data.tables import Comparisons
from humeval.ranking.base import Ranker, pair_counts, symmetric_counts


class _CountHeuristic(Ranker):
    fast_bootstrap = True  # counting: refits take microseconds

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
