"""Meta-evaluation: how well automatic metrics agree with human judgments."""

from humeval.data.readers.mtme import EvalSet, locate, read_mtme
from humeval.data.readers.wmt_metrics import read_da_scores, read_metric_scores
from humeval.metaeval.correlation import (
                                          bootstrap_interval,
                                          kendall,
                                          kendall_like,
                                          ndcg,
                                          pairwise_accuracy,
                                          pearson,
                                          permutation_test,
                                          rank_consistency,
                                          spearman,
                                          weighted_pearson,
                                          williams_test,
)
from humeval.metaeval.grouped import correlation, to_matrix
from humeval.metaeval.significance import MetricSignificance, assign_ranks, compare_metrics
from humeval.metaeval.systems import PairedResult, mean_statistics, paired_test
from humeval.metaeval.table import outlier_systems
from humeval.metaeval.ties import pairwise_confidence_error, soft_pairwise_accuracy, tie_calibrated_accuracy

__all__ = ["EvalSet", "MetricSignificance", "PairedResult", "assign_ranks", "bootstrap_interval", "compare_metrics",
           "correlation", "kendall", "kendall_like", "locate", "mean_statistics", "ndcg", "outlier_systems", "paired_test",
           "pairwise_accuracy", "pairwise_confidence_error", "pearson", "permutation_test", "rank_consistency",
           "read_da_scores", "read_metric_scores", "read_mtme", "soft_pairwise_accuracy", "spearman",
           "tie_calibrated_accuracy",
           "to_matrix", "weighted_pearson", "williams_test"]
