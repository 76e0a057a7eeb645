"""Meta-evaluation: how well automatic metrics agree with human judgments."""

from humeval.metaeval.correlation import (bootstrap_interval, kendall, kendall_like, ndcg, pairwise_accuracy, pearson,
                                          permutation_test, rank_consistency, spearman, weighted_pearson,
                                          williams_test)
from humeval.data.readers.mtme import EvalSet, read_mtme
from humeval.data.readers.wmt_metrics import read_da_scores, read_metric_scores

__all__ = ["EvalSet", "read_mtme", "bootstrap_interval", "kendall", "kendall_like", "ndcg", "pairwise_accuracy", "pearson", "permutation_test",
           "rank_consistency", "read_da_scores", "read_metric_scores", "spearman", "weighted_pearson", "williams_test"]
