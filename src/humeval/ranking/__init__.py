"""Rankings and preference models, one module per family; ``base`` holds the estimator protocol."""

from humeval.ranking.base import Estimator, PreferenceModel, Ranker
from humeval.ranking.feedback_arc import MinimumFeedbackArc
from humeval.ranking.heuristics import Bojar, ExpectedWins, OrigWMT
from humeval.ranking.irt import IRTCategorical, IRTGaussian
from humeval.ranking.preference import AdjustedUniform, IndependentPairs, IndependentStudents, Uniform

MODELS = {
    "uniform": Uniform, "adjusted-uniform": AdjustedUniform, "independent-pairs": IndependentPairs,
    "independent-students": IndependentStudents, "irt-gaussian": IRTGaussian, "irt-categorical": IRTCategorical,
    "orig-wmt": OrigWMT, "bojar": Bojar, "expected-wins": ExpectedWins, "feedback-arc": MinimumFeedbackArc,
}
PREFERENCE_MODELS = ("uniform", "adjusted-uniform", "independent-pairs", "independent-students:asymmetric",
                     "independent-students:arithmetic", "independent-students:geometric", "irt-gaussian",
                     "irt-categorical")
HEURISTICS = ("orig-wmt", "bojar", "expected-wins", "feedback-arc")


def make_model(name: str, random_state=None):
    """A model from its command-line name: ``irt-gaussian``, ``independent-students:arithmetic``
    (a reconstruction after the colon), … Randomised models get ``random_state``."""
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
    return model

__all__ = ["HEURISTICS", "MODELS", "PREFERENCE_MODELS", "make_model", "AdjustedUniform", "Bojar", "Estimator", "ExpectedWins",
           "IRTCategorical", "IRTGaussian", "IndependentPairs", "IndependentStudents", "MinimumFeedbackArc",
           "OrigWMT", "PreferenceModel", "Ranker", "Uniform"]
