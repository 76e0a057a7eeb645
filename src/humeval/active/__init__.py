"""Active elicitation: strategies that choose the next judgments, environments that answer them
(simulated or resampled real data), and the study of how many judgments each needs."""

from humeval.active.environments import RealJudgments, SimulatedBaseline, SimulatedPairs
from humeval.active.strategies import (STRATEGIES, BTUncertainty, GRMUncertainty, PairState, RandomRankings, Strategy, TrueSkillActive,
                                       UniformPairs, make_strategy)
from humeval.active.study import BASELINE_STRATEGIES, active_study, baseline_study, informative_pairs, savings

__all__ = ["RealJudgments", "SimulatedBaseline", "SimulatedPairs", "STRATEGIES", "BTUncertainty", "GRMUncertainty", "PairState",
           "RandomRankings", "Strategy", "TrueSkillActive", "UniformPairs", "make_strategy", "BASELINE_STRATEGIES", "active_study",
           "baseline_study", "informative_pairs", "savings"]
