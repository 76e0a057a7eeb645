"""Rankings and preference models, one module per family; ``base`` holds the estimator protocol."""

from humeval.ranking.base import Estimator, PreferenceModel, Ranker, clone, spawn_seeds
from humeval.ranking.bradley_terry import BradleyTerry, Davidson, DisconnectedError, RaoKupper
from humeval.ranking.crowd_bt import CrowdBT
from humeval.ranking.grm import GRM
from humeval.ranking.feedback_arc import MinimumFeedbackArc
from humeval.ranking.heuristics import Bojar, ExpectedWins, MonteCarloPlayoffs, MostProbableRanking, OrigWMT
from humeval.ranking.irt import IRTCategorical, IRTGaussian
from humeval.ranking.joint import JointModel
from humeval.ranking.plackett_luce import PlackettLuce
from humeval.ranking.preference import AdjustedUniform, IndependentPairs, IndependentStudents, Uniform
from humeval.ranking.thurstone import Thurstone
from humeval.ranking.trueskill import Elo, TrueSkill
from humeval.ranking.two_stage import TwoStage

from humeval.ranking.registry import GROUPS, REGISTRY, Tags, expand, make_model, tags

MODELS = {name: cls for name, (cls, _) in REGISTRY.items()}  # CLI name → class (the registry's)
HOPKINS_MAY = GROUPS["hopkins-may"].names
PREFERENCE_MODELS = GROUPS["preference"].names
HEURISTICS = GROUPS["heuristics"].names
DEFAULT_MODELS = GROUPS["default"].names


__all__ = ["DEFAULT_MODELS", "GROUPS", "HEURISTICS", "HOPKINS_MAY", "MODELS", "PREFERENCE_MODELS", "REGISTRY", "Tags",
           "expand", "make_model", "tags", "AdjustedUniform", "Bojar",
           "BradleyTerry", "CrowdBT", "GRM", "Davidson", "DisconnectedError", "Elo", "Estimator", "ExpectedWins", "RaoKupper",
           "TrueSkill", "clone", "spawn_seeds",
           "IRTCategorical", "IRTGaussian", "IndependentPairs", "JointModel", "IndependentStudents", "MinimumFeedbackArc",
           "MonteCarloPlayoffs", "MostProbableRanking",
           "OrigWMT", "PlackettLuce", "PreferenceModel", "Ranker", "Thurstone", "TwoStage", "Uniform"]
