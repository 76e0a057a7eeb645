"""HMEANT from semantic-frame annotations (Lo & Wu 2011, 2012): the annotation model and its
JSON format, the score, role weights (relative frequency or tuned to human judgments), and
inter-annotator agreement."""

from humeval.metrics.hmeant.agreement import alignment_agreement, score_agreement
from humeval.metrics.hmeant.crossval import cross_validate
from humeval.data.hmeant import Annotation, AnnotationSet, Frame, Role, Side, read_json, write_json
from humeval.metrics.hmeant.score import FrameStats, Weights, frame_statistics, hmeant, scores_for
from humeval.metrics.hmeant.weights import (TunedWeights, frequency_weights, kendall_tau, tune_weights, uniform_weights,
                                            weights_table)

__all__ = ["cross_validate", "alignment_agreement", "score_agreement", "Annotation", "AnnotationSet", "Frame", "Role", "Side", "read_json",
           "write_json", "FrameStats", "Weights", "frame_statistics", "hmeant", "scores_for", "TunedWeights",
           "frequency_weights", "kendall_tau", "tune_weights", "uniform_weights", "weights_table"]

