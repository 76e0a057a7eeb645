"""Active elicitation: strategies that choose the next judgments, environments that answer them
(simulated or resampled real data), and the study of how many judgments each needs.

The names below are imported on first use (PEP 562), so ``humeval.active.strategies`` alone (what
``humeval serve`` imports) loads neither the environments nor the study, nor the ranking and
experiments packages they need."""

from __future__ import annotations

import importlib

_LAZY = {"RealJudgments": "environments", "SimulatedBaseline": "environments", "SimulatedPairs": "environments",
         "STRATEGIES": "strategies", "BTUncertainty": "strategies", "GRMUncertainty": "strategies",
         "PairState": "strategies", "RandomRankings": "strategies", "Strategy": "strategies",
         "TrueSkillActive": "strategies", "UniformPairs": "strategies", "make_strategy": "strategies",
         "BASELINE_STRATEGIES": "study", "active_study": "study", "baseline_study": "study",
         "informative_pairs": "study", "savings": "study"}

__all__ = ["RealJudgments", "SimulatedBaseline", "SimulatedPairs", "STRATEGIES", "BTUncertainty", "GRMUncertainty", "PairState",
           "RandomRankings", "Strategy", "TrueSkillActive", "UniformPairs", "make_strategy", "BASELINE_STRATEGIES", "active_study",
           "baseline_study", "informative_pairs", "savings"]


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(f"humeval.active.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'humeval.active' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
