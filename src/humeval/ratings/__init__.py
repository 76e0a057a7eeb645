"""Ranking systems from absolute ratings (DA, ESA, MQM, Likert) as WMT does: aggregation,
bootstrap intervals, pairwise significance, clusters, and the head-to-head heatmap."""

from humeval.ratings.aggregate import MODELS, Aggregate, aggregate, redup_ratings, znorm
from humeval.ratings.bootstrap import Intervals, bootstrap_scores
from humeval.ratings.clusters import clusters, wins
from humeval.ratings.rank import RatingsRanking, rank_ratings, rank_tracks
from humeval.ratings.significance import CORRECTIONS, TESTS, benjamini_hochberg, correct, holm, pvalues, rank_sum

__all__ = ["MODELS", "TESTS", "CORRECTIONS", "Aggregate", "aggregate", "redup_ratings", "znorm", "Intervals",
           "bootstrap_scores", "clusters", "wins", "RatingsRanking", "rank_ratings",
           "rank_tracks", "pvalues", "rank_sum", "correct", "holm", "benjamini_hochberg"]
