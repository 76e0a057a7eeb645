"""Rankings and preference models, one module per family; ``base`` holds the estimator protocol."""

from humeval.ranking.base import Estimator, PreferenceModel, Ranker, clone, spawn_seeds
from humeval.ranking.bradley_terry import BradleyTerry, Davidson, DisconnectedError, RaoKupper
from humeval.ranking.crowd_bt import CrowdBT
from humeval.ranking.grm import GRM
from humeval.ranking.feedback_arc import MinimumFeedbackArc
from humeval.ranking.heuristics import Bojar, ExpectedWins, MonteCarloPlayoffs, MostProbableRanking, OrigWMT
from humeval.ranking.irt import IRTCategorical, IRTGaussian
from humeval.ranking.plackett_luce import PlackettLuce
from humeval.ranking.preference import AdjustedUniform, IndependentPairs, IndependentStudents, Uniform
from humeval.ranking.trueskill import Elo, TrueSkill
from humeval.ranking.two_stage import TwoStage

MODELS = {
    "uniform": Uniform, "adjusted-uniform": AdjustedUniform, "independent-pairs": IndependentPairs,
    "independent-students": IndependentStudents, "irt-gaussian": IRTGaussian, "irt-categorical": IRTCategorical,
    "trueskill": TrueSkill, "bt": BradleyTerry, "davidson": Davidson, "rao-kupper": RaoKupper, "elo": Elo,
    "crowd-bt": CrowdBT,
    "plackett-luce": PlackettLuce,
    "orig-wmt": OrigWMT, "bojar": Bojar, "expected-wins": ExpectedWins, "feedback-arc": MinimumFeedbackArc,
    "most-probable-ranking": MostProbableRanking, "mc-playoffs": MonteCarloPlayoffs,
}
HOPKINS_MAY = ("uniform", "adjusted-uniform", "independent-pairs", "independent-students:asymmetric",
               "independent-students:arithmetic", "independent-students:geometric", "irt-gaussian",
               "irt-categorical")
PREFERENCE_MODELS = HOPKINS_MAY + ("trueskill", "bt", "davidson", "rao-kupper", "elo", "crowd-bt")
PREFERENCE_MODELS += ("plackett-luce",)
HEURISTICS = ("orig-wmt", "bojar", "expected-wins", "feedback-arc", "most-probable-ranking", "mc-playoffs")


def make_model(name: str, random_state=None, l2: float | None = None):
    """A model from its command-line name: ``irt-gaussian``, ``independent-students:arithmetic``
    (a reconstruction after the colon), … Randomised models get ``random_state``; models with a
    Gaussian prior on their abilities (the Bradley–Terry family, Crowd-BT) get ``l2`` as its
    precision when it is given (None keeps the model's default)."""
    base, _, variant = name.partition(":")
    if base not in MODELS:
        raise ValueError(f"unknown model {name!r}; choose from {', '.join(MODELS)}")
    model = MODELS[base]()
    if variant:
        if "reconstruction" not in model.get_params():
            raise ValueError(f"model {base!r} takes no variant (':{variant}')")
        model.set_params(reconstruction=variant)
    if "random_state" in model.get_params():
        model.set_params(random_state=random_state)
    if l2 is not None and "l2" in model.get_params():
        model.set_params(l2=float(l2))
    return model

__all__ = ["HEURISTICS", "HOPKINS_MAY", "MODELS", "PREFERENCE_MODELS", "make_model", "AdjustedUniform", "Bojar",
           "BradleyTerry", "CrowdBT", "GRM", "Davidson", "DisconnectedError", "Elo", "Estimator", "ExpectedWins", "RaoKupper",
           "TrueSkill", "clone", "spawn_seeds",
           "IRTCategorical", "IRTGaussian", "IndependentPairs", "IndependentStudents", "MinimumFeedbackArc",
           "MonteCarloPlayoffs", "MostProbableRanking",
           "OrigWMT", "PlackettLuce", "PreferenceModel", "Ranker", "TwoStage", "Uniform"]
