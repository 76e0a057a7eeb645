"""Ranking systems from absolute ratings (DA, ESA, MQM, Likert) as WMT does: aggregation,
bootstrap intervals, pairwise significance, clusters, and the head-to-head heatmap; models that borrow
strength across annotators and segments (mixed, ordinal) and a held-out test of which predicts best;
``protocols``: organisers' procedures by name (``protocols.run("wmt-da-toen", ratings)``)."""

from humeval.ratings.aggregate import MODELS, Aggregate, aggregate, redup_ratings, znorm
from humeval.ratings.bootstrap import Intervals, bootstrap_scores
from humeval.ratings.clusters import clusters, wins
from humeval.ratings.fitted import FITTED, rank_fitted, wald_pvalues
from humeval.ratings.heldout import PREDICTORS, HeldOut, compare_models
from humeval.ratings.mixed import MixedFit, fit_mixed
from humeval.ratings.ordinal import OrdinalFit, fit_ordinal
from humeval.ratings.rank import RatingsRanking, rank_ratings, rank_tracks
from humeval.ratings.significance import CORRECTIONS, TESTS, benjamini_hochberg, correct, holm, pvalues, rank_sum
from humeval.ratings import protocols  # noqa: E402  (named procedures: protocols.run(name, ratings))

__all__ = ["MODELS", "TESTS", "CORRECTIONS", "Aggregate", "aggregate", "redup_ratings", "znorm", "Intervals",
           "bootstrap_scores", "clusters", "wins", "RatingsRanking", "rank_ratings",
           "rank_tracks", "pvalues", "rank_sum", "correct", "holm", "benjamini_hochberg", "FITTED", "rank_fitted",
           "wald_pvalues", "PREDICTORS", "HeldOut", "compare_models", "MixedFit", "fit_mixed", "OrdinalFit",
           "fit_ordinal", "protocols"]
