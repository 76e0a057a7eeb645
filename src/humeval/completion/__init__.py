"""Matrix completion of missing human ratings, and what it does to decisions (Wisniewski 2013)."""

from humeval.completion.evaluation import completion_error, decision_study, per_judge_curve
from humeval.completion.completers import (AdditiveBaseline, Completer, GlobalMean, ItemMean, JudgeMean, NuclearNorm,
                                           RatingMatrix, SoftImpute)

__all__ = ["completion_error", "decision_study", "per_judge_curve", "AdditiveBaseline", "Completer", "GlobalMean", "ItemMean", "JudgeMean", "NuclearNorm", "RatingMatrix",
           "SoftImpute"]
