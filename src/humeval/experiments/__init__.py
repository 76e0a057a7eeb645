"""The papers' experiments as reusable functions: splits, perplexity, learning curves."""

from humeval.experiments.bootstrap import BootstrapResult, bootstrap, rank_clusters, wmt_view
from humeval.experiments.perplexity import (ability_trials, crowd_vs_expert, hopkins_may_split, learning_curve,
                                            mean_curve, perplexity, track_curves)
from humeval.experiments.relative_ability import relative_ability
from humeval.experiments.tuning import Tuning, tune

__all__ = ["BootstrapResult", "bootstrap", "rank_clusters", "wmt_view", "ability_trials", "crowd_vs_expert", "hopkins_may_split", "learning_curve", "mean_curve", "perplexity", "track_curves", "relative_ability", "Tuning", "tune"]
