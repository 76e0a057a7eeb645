"""HMEANT from semantic-frame annotations (Lo & Wu 2011, 2012): the annotation model and its
readers, the score, role weights (relative frequency or tuned to human judgments), and
inter-annotator agreement."""

from humeval.metrics.hmeant.agreement import alignment_agreement, score_agreement
from humeval.metrics.hmeant.model import Annotation, AnnotationSet, Frame, Role, Side, read_json, write_json
from humeval.metrics.hmeant.score import FrameStats, Weights, frame_statistics, hmeant, scores_for
from humeval.metrics.hmeant.weights import (TunedWeights, frequency_weights, kendall_tau, tune_weights, uniform_weights,
                                            weights_table)

__all__ = ["alignment_agreement", "score_agreement", "Annotation", "AnnotationSet", "Frame", "Role", "Side", "read_json",
           "write_json", "FrameStats", "Weights", "frame_statistics", "hmeant", "scores_for", "TunedWeights",
           "frequency_weights", "kendall_tau", "tune_weights", "uniform_weights", "weights_table", "read_wmt13"]


def __getattr__(name):
    """``read_wmt13`` lives in ``humeval.data.readers.hmeant`` (imported lazily: it imports this
    package's model)."""
    if name == "read_wmt13":
        from humeval.data.readers.hmeant import read_wmt13
        return read_wmt13
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
