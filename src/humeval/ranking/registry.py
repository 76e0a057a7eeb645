"""The models by command-line name, each with its declared capabilities (``Tags``).

As scikit-learn's estimator tags, a model's tags say what it can do, so callers ask the tags
instead of probing attributes: whether it is a preference model (``predict_proba``, held-out
perplexity) or a heuristic (scores only), whether it fits weighted counts, how it bootstraps
(its own exact resampling of counts or compiled replays, or a refit per resample) and in which
unit, whether it has analytic (Fisher and sandwich) intervals, covariates, a Gaussian prior
(``--l2``), several chains, the orders it can play comparisons in, and the scale its scores are
on. The model groups (``preference``, ``hopkins-may``, ``heuristics``, ``all``, ``default``), the
CLI's ``--model`` help and the "unknown model" message are derived from ``REGISTRY``, so a model
registered here is everywhere; ``tests/ranking/test_conformance.py`` runs ``check_model`` on every
entry and checks each declaration against what the model does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from humeval.ranking.base import Ranker
from humeval.ranking.bradley_terry import BradleyTerry, Davidson, RaoKupper
from humeval.ranking.crowd_bt import CrowdBT
from humeval.ranking.feedback_arc import MinimumFeedbackArc
from humeval.ranking.heuristics import Bojar, ExpectedWins, MonteCarloPlayoffs, MostProbableRanking, OrigWMT
from humeval.ranking.irt import IRTCategorical, IRTGaussian
from humeval.ranking.joint import JointModel
from humeval.ranking.plackett_luce import PlackettLuce
from humeval.ranking.preference import AdjustedUniform, IndependentPairs, IndependentStudents, Uniform
from humeval.ranking.thurstone import Thurstone
from humeval.ranking.trueskill import Elo, TrueSkill


@dataclass(frozen=True)
class Tags:
    """What a model declares it can do (see the module doc).

    kind: "preference" (a distribution over tie / a preferred / b preferred: ``predict_proba``)
    or "heuristic" (scores only). scale: what its scores are ("log-odds", "Elo points", …);
    fitted_scale: a fit sets ``scale_``, the scale in words with its zero and parameters.
    weighted: fits weighted counts (a weight-k row counts as k rows) without copying rows.
    bootstrap: "exact" (its own ``bootstrap_scores``: counts resampled and refitted, compiled
    replays) or "refit" (refitted on resampled rows); quick_bootstrap: 1,000 resamples take
    seconds (the report bootstraps only such models); bootstrap_unit: what it resamples when asked
    for single comparisons ("comparison", or "ranking" for a model fitted on whole rankings).
    analytic: Fisher and sandwich covariances and intervals (``covariance``, ``intervals``,
    ``coefficients``); covariates: fits covariates jointly (style control); prior: a Gaussian
    prior of precision ``l2``; tie_parameter: a fitted tie parameter (``log_tie_``); std: sets
    ``scores_std_``; chains: several MCMC chains (``chains``, ``convergence()``); judges: a
    per-judge table (``judges()``); orders: the orders it plays comparisons in (``order``);
    variants: reconstructions named after a colon; hopkins_may: one of Hopkins & May's (2013)
    models; informative: ranks systems at all (the uniform baselines score every system alike);
    deterministic: the same data give the same fit whatever the seed; ratings: fits ratings of the
    same systems beside the comparisons (``fit(comparisons, ratings)``, ``ranking.joint``; left
    out of the group ``all``, since on comparisons alone it is Davidson again); default: position in the
    default model list of ``compare-models`` and ``report`` (0: not in it), with ``default_variant``.
    """

    kind: str
    scale: str
    fitted_scale: bool = False
    weighted: bool = False
    bootstrap: str = "refit"
    quick_bootstrap: bool = False
    bootstrap_unit: str = "comparison"
    analytic: bool = False
    covariates: bool = False
    prior: bool = False
    tie_parameter: bool = False
    std: bool = False
    chains: bool = False
    judges: bool = False
    orders: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    hopkins_may: bool = False
    informative: bool = True
    deterministic: bool = True
    ratings: bool = False
    default: int = 0
    default_variant: str | None = None

    @property
    def preference(self) -> bool:
        return self.kind == "preference"


def _declared(cls: type[Ranker], kind: str, scale: str, **tags) -> tuple[type[Ranker], Tags]:
    """A class and its tags; the bootstrap tags are read from the class's own attributes
    (``weighted``, ``fast_bootstrap``, ``bootstrap_unit``, an overridden ``bootstrap_scores``), so
    they cannot disagree with what ``experiments.bootstrap`` does."""
    own = cls.bootstrap_scores is not Ranker.bootstrap_scores
    return cls, Tags(kind, scale, weighted=cls.weighted, bootstrap="exact" if own else "refit",
                     quick_bootstrap=bool(cls.fast_bootstrap), bootstrap_unit=cls.bootstrap_unit or "comparison",
                     **tags)


_BT = dict(analytic=True, covariates=True, prior=True, std=True, fitted_scale=True)
REGISTRY: dict[str, tuple[type[Ranker], Tags]] = {
    "uniform": _declared(Uniform, "preference", "none (every system scores 0)", hopkins_may=True, informative=False),
    "adjusted-uniform": _declared(AdjustedUniform, "preference", "none (every system scores 0)", hopkins_may=True,
                                  informative=False),
    "independent-pairs": _declared(IndependentPairs, "preference", "mean P(preferred) over opponents",
                                   hopkins_may=True, default=7),
    "independent-students": _declared(IndependentStudents, "preference", "P(preferred) against an average system",
                                      hopkins_may=True, variants=("asymmetric", "arithmetic", "geometric"),
                                      default=6, default_variant="geometric"),
    "irt-gaussian": _declared(IRTGaussian, "preference", "posterior mean ability (N(0, 1) prior)", hopkins_may=True,
                              std=True, chains=True, deterministic=False, default=5),
    "irt-categorical": _declared(IRTCategorical, "preference", "posterior mean ability (N(0, 1) prior)",
                                 hopkins_may=True, std=True, chains=True, deterministic=False),
    "trueskill": _declared(TrueSkill, "preference", "TrueSkill μ", fitted_scale=True, std=True, orders=("data", "random", "active"),
                           deterministic=False, default=4),
    "bt": _declared(BradleyTerry, "preference", "log-odds", **_BT, default=1),
    "davidson": _declared(Davidson, "preference", "log-odds", **_BT, tie_parameter=True, default=2),
    "rao-kupper": _declared(RaoKupper, "preference", "log-odds", **_BT, tie_parameter=True, default=3),
    "thurstone": _declared(Thurstone, "preference", "probit units", **_BT),
    "joint": _declared(JointModel, "preference", "log-odds (Davidson), ratings mapped onto it per protocol",
                       fitted_scale=True, prior=True, tie_parameter=True, std=True, ratings=True),
    "elo": _declared(Elo, "preference", "Elo points", fitted_scale=True, orders=("data", "random"), deterministic=False),
    "crowd-bt": _declared(CrowdBT, "preference", "log-odds", fitted_scale=True, prior=True, judges=True),
    "plackett-luce": _declared(PlackettLuce, "preference", "log-worth (log-odds between two systems)", prior=True,
                               std=True),
    "orig-wmt": _declared(OrigWMT, "heuristic", "share of comparisons won or tied"),
    "bojar": _declared(Bojar, "heuristic", "share of non-tied comparisons won"),
    "expected-wins": _declared(ExpectedWins, "heuristic", "mean share of wins over opponents"),
    "feedback-arc": _declared(MinimumFeedbackArc, "heuristic", "position in the order (higher is better)"),
    "most-probable-ranking": _declared(MostProbableRanking, "heuristic", "position in the order (higher is better)"),
    "mc-playoffs": _declared(MonteCarloPlayoffs, "heuristic", "share of playoff games won", deterministic=False),
}


def tags(model) -> Tags:
    """The declared tags of a model (an instance or a class) or of a command-line name."""
    if isinstance(model, str):
        base = model.partition(":")[0]
        if base not in REGISTRY:
            raise ValueError(unknown_model(model))
        return REGISTRY[base][1]
    cls = model if isinstance(model, type) else type(model)
    for entry_cls, entry_tags in REGISTRY.values():
        if entry_cls is cls:
            return entry_tags
    raise ValueError(f"{cls.__name__} is not a registered model (ranking.registry.REGISTRY)")


def _names(where) -> tuple[str, ...]:
    """Command-line names (variants spelled out) of the entries whose tags satisfy ``where``."""
    return tuple(f"{name}:{v}" if v else name for name, (_, t) in REGISTRY.items() if where(t)
                 for v in (t.variants or (None,)))


def _defaults() -> tuple[str, ...]:
    chosen = sorted((t.default, name + (f":{t.default_variant}" if t.default_variant else ""))
                    for name, (_, t) in REGISTRY.items() if t.default)
    return tuple(name for _, name in chosen)


@dataclass(frozen=True)
class Group:
    names: tuple[str, ...]
    help: str = field(compare=False)


GROUPS: dict[str, Group] = {
    "preference": Group(_names(lambda t: t.preference), "every preference model"),
    "hopkins-may": Group(_names(lambda t: t.hopkins_may), "Hopkins & May's eight"),
    "heuristics": Group(_names(lambda t: not t.preference), "the WMT ranking heuristics"),
    "all": Group(_names(lambda t: t.informative and not t.ratings),
                 "every model that ranks: the uniform baselines and joint (davidson without ratings) left out"),
    "default": Group(_defaults(), "compare-models' and report's default list"),
}


def expand(names: str | tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Model names from a comma-separated list in which group names stand for their members
    (first occurrence kept, order kept)."""
    parts = names.split(",") if isinstance(names, str) else list(names)
    out: dict[str, None] = {}
    for part in (p.strip() for p in parts):
        if part:
            out.update(dict.fromkeys(GROUPS[part].names if part in GROUPS else (part,)))
    return tuple(out)


def unknown_model(name: str) -> str:
    return (f"unknown model {name!r}; choose from {', '.join(REGISTRY)} or a group: "
            + "; ".join(f"{g} ({group.help})" for g, group in GROUPS.items()))


def model_help(what: str = "A model name") -> str:
    """The ``--model`` help text: names and groups from the registry."""
    return (f"{what}, several separated by commas, or a group: {', '.join(GROUPS)}. Models: {', '.join(REGISTRY)} "
            f"(independent-students takes :{'|:'.join(REGISTRY['independent-students'][1].variants)}).")


def make_model(name: str, random_state=None, l2: float | None = None):
    """A model from its command-line name: ``irt-gaussian``, ``independent-students:arithmetic``
    (a reconstruction after the colon), … Randomised models get ``random_state``; models with a
    Gaussian prior (tag ``prior``: the Bradley–Terry family, Crowd-BT, Plackett–Luce) get ``l2``
    as its precision when it is given (None keeps the model's default)."""
    base, _, variant = name.partition(":")
    if base not in REGISTRY:
        raise ValueError(unknown_model(name))
    cls, declared = REGISTRY[base]
    model = cls()
    if variant:
        if variant not in declared.variants:
            raise ValueError(f"model {base!r} takes no variant (':{variant}')" if not declared.variants else
                             f"model {base!r} has no variant {variant!r}; choose from {', '.join(declared.variants)}")
        model.set_params(reconstruction=variant)
    if "random_state" in model.get_params():
        model.set_params(random_state=random_state)
    if l2 is not None and declared.prior:
        model.set_params(l2=float(l2))
    return model


DEFAULT_MODELS = GROUPS["default"].names
