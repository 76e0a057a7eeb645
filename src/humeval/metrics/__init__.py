"""Automatic metrics: sacrebleu baselines and HTER (METEOR-NEXT-style matching comes next)."""

from humeval.metrics.baselines import MetricScores, bleu, chrf, hter, ter

__all__ = ["MetricScores", "bleu", "chrf", "hter", "ter"]
