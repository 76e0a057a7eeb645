"""Models that never refuse real data: the prior, components, all-ties data, flags; the
estimator protocol's helpers (pair_cells, clone, spawn_seeds, bootstrap_scores)."""

import pickle

import choix
import numpy as np
import pytest
from conftest import two_groups_comparisons as two_groups
from scipy.optimize import brentq
from scipy.special import expit

from humeval.data import Comparisons
from humeval.errors import DisconnectedError, InputError
from humeval.experiments import bootstrap
from humeval.ranking import MODELS, BradleyTerry, Davidson, IRTGaussian, MinimumFeedbackArc, Ranker, RaoKupper
from humeval.ranking.base import clone, components, pair_cells, pair_counts, spawn_seeds, tolerant_ranks


def never_loses(seed=1):
    """A beats everyone it meets (10 wins each against B, C, D); B, C, D are mixed."""
    rng = np.random.default_rng(seed)
    rows = [(0, o, 1) for o in (1, 2, 3) for _ in range(10)]
    for _ in range(90):
        x, y = rng.choice([1, 2, 3], 2, replace=False)
        rows.append((x, y, int(rng.integers(0, 3))))
    a, b, outcome = map(np.array, zip(*rows))
    return Comparisons(a=a, b=b, outcome=outcome, systems=("A", "B", "C", "D"))


def instance(name):
    model = MODELS[name]()
    if "random_state" in model.get_params():
        model.set_params(random_state=0)
    if "iterations" in model.get_params():
        model.set_params(iterations=60, burn_in=20)
    return model


# -- errors survive pickling ----------------------------------------------------------------------

def test_every_error_class_pickles_whole():
    import importlib
    import pkgutil

    import humeval
    from humeval.cli.common import UserError
    from humeval.experiments.parallel import ExecutionError
    from humeval.metrics.meteor.alignment import _TooManyStates
    from humeval.ranking.base import FitWarning, MaterialisedWarning
    from humeval.ranking.bradley_terry import SeparationWarning
    from humeval.ranking.grm import _CapReached
    from humeval.serve.hardening import Throttled
    from humeval.serve.tasks import Refused
    samples = [InputError("data.csv", 7, "a rank of 9 in a 5-way ranking", "ranks run 1..5"),
               InputError("data.csv", None, "empty file"), DisconnectedError([["A", "B"], ["C"]]),
               UserError("bad option"), _TooManyStates("too many"), ExecutionError("dask is not installed"),
               MaterialisedWarning("3 rows became 6"), FitWarning("a fit"), SeparationWarning("len separates"),
               _CapReached(), Throttled(3.2), Refused(409, "this task was answered already")]
    for error in samples:
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is type(error) and str(back) == str(error) and vars(back) == vars(error)
    back = pickle.loads(pickle.dumps(samples[0]))
    assert (back.path, back.line, back.problem, back.fix) == ("data.csv", 7, "a rank of 9 in a 5-way ranking",
                                                              "ranks run 1..5")
    assert pickle.loads(pickle.dumps(samples[2])).components == [["A", "B"], ["C"]]
    assert pickle.loads(pickle.dumps(samples[-1])).status == 409
    # every exception class humeval defines is in the list above (a new one must be added)
    found = set()
    for info in pkgutil.walk_packages(humeval.__path__, "humeval."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        found |= {v for v in vars(module).values() if isinstance(v, type) and issubclass(v, BaseException)
                  and v.__module__.startswith("humeval")}
    assert found == {type(e) for e in samples}


# -- the prior -------------------------------------------------------------------------------------

def test_prior_is_a_map_estimate_by_hand():
    # A 2.5 : B 1.5 in four comparisons (a tie counts half); θ_A = d/2 = −θ_B; the MAP stationarity
    # condition 2.5 − 4σ(d) − λ d/2 = 0
    c = Comparisons(a=[0, 0, 0, 1], b=[1, 1, 1, 0], outcome=[1, 1, 0, 1], systems=("A", "B"))
    for l2 in (0.01, 0.5, 3.0):
        s = BradleyTerry(l2=l2).fit(c).scores_
        d = brentq(lambda d: 2.5 - 4 * expit(d) - l2 * d / 2, -10, 10)
        assert s["A"] - s["B"] == pytest.approx(d, abs=1e-9) and s.sum() == pytest.approx(0, abs=1e-12)
    assert d < np.log(2.5 / 1.5)  # the prior shrinks toward the mean


def test_never_losing_system_is_finite_first_and_uncertain():
    c = never_loses()
    for cls in (BradleyTerry, Davidson, RaoKupper):
        with pytest.raises(DisconnectedError, match="never beat each other both ways"):
            cls(l2=0).fit(c)
        model = cls().fit(c)
        s = model.scores_
        assert np.isfinite(s).all() and s.idxmax() == "A" and s["A"] > s.drop("A").max() + 2
        table = model.ranking()
        assert table.loc["A", "note"] == "never lost" and table.loc["A", "rank"] == 1
        assert (table.drop("A")["note"] == "").all() and "component" not in table
    # BT by hand: with all A's games against B, C, D won, A's stationarity condition is
    # Σ_o 10 (1 − σ(θ_A − θ_o)) = λ θ_A (the prior's pull balances the wins' push), λ = 1 by default
    model = BradleyTerry().fit(c)
    theta = model.scores_.to_numpy()
    assert model.l2 == 1.0
    assert (10 * (1 - expit(theta[0] - theta[1:]))).sum() == pytest.approx(theta[0], rel=1e-6)
    # its standard error (Laplace) is wide: the likelihood is flat where A sits (twice the others'
    # with λ = 1; the weaker the prior, the wider: at λ = 0.01 over 2.5 times)
    std = model.scores_std_
    assert std["A"] > 1.8 * std.drop("A").max() and model.ranking().loc["A", "std"] == std["A"]
    weak = BradleyTerry(l2=0.01).fit(c).scores_std_
    assert weak["A"] > 2.5 * weak.drop("A").max() and weak["A"] > std["A"]
    # the bootstrap cannot show it (no resample has A lose): its interval is finite but narrow
    result = bootstrap(model, c, n=300, random_state=0).table()
    assert np.isfinite(result[["lower", "upper"]].to_numpy()).all() and (result["lower"]["A"] > result["upper"].drop("A")).all()


def test_prior_effect_vanishes_with_data_and_l2_to_zero_equals_choix():
    rng = np.random.default_rng(5)
    theta = rng.normal(0, 1, 6)
    theta -= theta.mean()
    gaps = []
    for size in (300, 30_000):
        a = rng.integers(0, 6, size)
        b = (a + rng.integers(1, 6, size)) % 6
        wins = rng.random(size) < expit(theta[a] - theta[b])
        c = Comparisons(a=a, b=b, outcome=np.where(wins, 1, 2), systems=tuple("ABCDEF"))
        prior, mle = BradleyTerry().fit(c).scores_.to_numpy(), BradleyTerry(l2=0).fit(c).scores_.to_numpy()
        gaps.append(np.abs(prior - mle).max())
        tiny = BradleyTerry(l2=1e-12).fit(c).scores_.to_numpy()
        data = [(x, y) if w else (y, x) for x, y, w in zip(a, b, wins)]
        expected = choix.ilsr_pairwise(6, data, alpha=0.0, tol=1e-12, max_iter=10_000)
        np.testing.assert_allclose(tiny, expected - expected.mean(), atol=1e-6)
    # the prior's pull is O(λ θ / information): a hundred times the data, about a hundredth of the shift
    assert 0.02 < gaps[0] < 0.15 and gaps[1] < gaps[0] / 30


def test_negative_l2_is_refused():
    with pytest.raises(ValueError, match="prior precision"):
        BradleyTerry(l2=-1).fit(never_loses())


# -- components, flags, all ties: every model ----------------------------------------------------

@pytest.mark.parametrize("name", list(MODELS))
def test_every_model_reports_a_disconnected_graph(name):
    model = instance(name).fit(two_groups())
    assert model.groups() == [["A", "B", "C"], ["D", "E", "F"]]
    table = model.ranking()
    assert table["component"].to_dict() == {"A": 1, "B": 1, "C": 1, "D": 2, "E": 2, "F": 2}
    assert np.isfinite(model.scores_.to_numpy()).all()


@pytest.mark.parametrize("name", list(MODELS))
def test_all_ties_rank_everyone_first(name):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 5, 80)
    c = Comparisons(a=a, b=(a + rng.integers(1, 5, 80)) % 5, outcome=np.zeros(80, dtype=int), systems=tuple("ABCDE"))
    table = instance(name).fit(c).ranking()
    assert table["rank"].tolist() == [1] * 5 and (table["note"] == "only ties").all()


@pytest.mark.parametrize("cls", [BradleyTerry, Davidson, RaoKupper])
def test_all_ties_give_equal_finite_scores_and_a_bounded_tie_parameter(cls):
    c = Comparisons(a=[0, 1, 2, 0], b=[1, 2, 0, 2], outcome=[0, 0, 0, 0], systems=("A", "B", "C"))
    model = cls().fit(c)
    assert np.abs(model.scores_.to_numpy()).max() < 1e-12
    p = model.predict_proba(["A"], ["B"])[0]
    assert p[1] == pytest.approx(p[2]) and p[0] > 0.99 and np.isclose(p.sum(), 1)


def test_feedback_arc_shares_ranks_only_where_the_data_do_not_order():
    # A beat B and C; B and C won once each against the other (no net wins): B, C share rank 2
    c = Comparisons(a=[0, 0, 1, 1], b=[1, 2, 2, 2], outcome=[1, 1, 1, 2], systems=("A", "B", "C"))
    model = MinimumFeedbackArc().fit(c)
    assert model.cost_ == 0 and model.ranking()["rank"].to_dict() == {"A": 1, "B": 2, "C": 2}
    # a net win keeps the strict order: B beat C twice, once back
    c = Comparisons(a=[0, 0, 1, 1, 1], b=[1, 2, 2, 2, 2], outcome=[1, 1, 1, 2, 1], systems=("A", "B", "C"))
    assert MinimumFeedbackArc().fit(c).ranking()["rank"].to_dict() == {"A": 1, "B": 2, "C": 3}


def test_notes_by_hand():
    c = Comparisons(a=[0, 0, 2, 1], b=[1, 2, 1, 2], outcome=[1, 1, 0, 0], systems=("A", "B", "C", "D"))
    notes = BradleyTerry().fit(c).notes().to_dict()
    # A won twice; B lost once and tied twice; C lost, tied; D never compared
    assert notes == {"A": "never lost", "B": "never won", "C": "never won", "D": "no comparisons"}


def test_tolerant_ranks():
    assert tolerant_ranks(np.array([1.0, 1.0 + 1e-13, 0.5, np.nan, 0.5 - 1e-3])).tolist()[:3] == [1, 1, 3]
    assert np.isnan(tolerant_ranks(np.array([np.nan, 2.0]))[0])


# -- one pair count ----------------------------------------------------------------------------------

def test_pair_cells_by_hand():
    c = Comparisons(a=[1, 0, 1, 2, 2], b=[0, 1, 0, 2, 0], outcome=[2, 1, 0, 1, 2], systems=("A", "B", "C"))
    a, b, counts, row_cell = pair_cells(c)
    assert list(zip(a.tolist(), b.tolist())) == [(0, 1), (1, 0), (2, 0)]
    assert counts.tolist() == [[0, 1, 0], [1, 0, 1], [0, 0, 1]]
    assert row_cell.tolist() == [1, 0, 1, -1, 2]  # the self-comparison C–C is left out
    dense = pair_counts(c)
    assert dense[1, 0].tolist() == [1, 0, 1] and dense[2, 2].sum() == 0 and dense.sum() == 4
    assert components(c).tolist() == [1, 1, 1]
    lone = Comparisons(a=[0], b=[1], outcome=[1], systems=("A", "B", "C"))
    assert components(lone).tolist() == [1, 1, 2]


# -- one clone, one seeding policy -------------------------------------------------------------------

class Noisy(Ranker):
    """A sampled 'model' whose scores are its random_state's first draws."""

    def __init__(self, random_state=None):
        self.random_state = random_state

    def _fit(self, comparisons):
        self.scores_ = self._series(np.random.default_rng(self.random_state).normal(size=len(self.systems_)))


def test_clone_and_spawn_seeds():
    model = IRTGaussian(random_state=3, iterations=10)
    assert clone(model).get_params() == model.get_params() and not hasattr(clone(model), "systems_")
    assert clone(model, random_state=5).random_state == 5 and clone(BradleyTerry(l2=0.5), random_state=5).l2 == 0.5
    seeds = spawn_seeds(7, 4)
    assert seeds == spawn_seeds(7, 4) and len(set(seeds)) == 4 and seeds != spawn_seeds(8, 4)
    rng = np.random.default_rng(0)
    first, second = spawn_seeds(rng, 3), spawn_seeds(rng, 3)
    assert first != second and first == spawn_seeds(np.random.default_rng(0), 3)


def test_bootstrap_refits_of_a_sampled_model_draw_their_own_seeds():
    c = two_groups(200)
    result = bootstrap(Noisy(random_state=1), c, n=6, random_state=0)
    assert len({tuple(row) for row in result.samples}) == 6  # six refits, six seeds
    again = bootstrap(Noisy(random_state=1), c, n=6, random_state=0)
    np.testing.assert_array_equal(result.samples, again.samples)
    assert not np.array_equal(bootstrap(Noisy(random_state=1), c, n=6, random_state=1).samples, result.samples)
    # the IRT sampler: each refit has its own Gibbs randomness, and all of it is reproducible
    irt = IRTGaussian(iterations=12, burn_in=2, random_state=4)
    small = c.take(np.arange(60))
    one, two = (bootstrap(irt, small, n=3, random_state=9).samples for _ in range(2))
    np.testing.assert_array_equal(one, two)


# -- the bootstrap protocol ----------------------------------------------------------------------

def test_fast_bootstrap_attribute():
    quick = {name for name, cls in MODELS.items() if cls.fast_bootstrap}
    assert quick == {"uniform", "adjusted-uniform", "independent-pairs", "independent-students", "trueskill", "bt",
                     "davidson", "rao-kupper", "thurstone", "elo", "orig-wmt", "bojar", "expected-wins"}


class Fixed(BradleyTerry):
    def bootstrap_scores(self, comparisons, unit, n, rng, progress=None):
        return np.tile(np.arange(len(self.systems_), dtype=float), (n, 1)) + (0 if unit is None else 100)


def test_bootstrap_uses_the_models_own_fast_path():
    c = two_groups(200)
    assert bootstrap(Fixed(), c, n=4).samples.tolist() == [[0, 1, 2, 3, 4, 5]] * 4
    assert bootstrap(Fixed(), c, n=2, by="judge").samples[0, 0] == 100
    with pytest.raises(ValueError, match="fitted on"):
        BradleyTerry().fit(c).bootstrap_scores(c.take(np.arange(3)), None, 3, np.random.default_rng(0))


def test_laplace_standard_errors_by_hand():
    # two systems, A won 70 of 100: d = θ_A − θ_B = ln(70/30), Var(d) = 1/(n p (1 − p)) = 1/21,
    # and on the sum-zero scale θ_A = d/2; anchored at B, θ_A = d; in Elo points × 400/ln 10
    c = Comparisons(a=[0] * 100, b=[1] * 100, outcome=[1] * 70 + [2] * 30, systems=("A", "B"))
    plain = BradleyTerry(l2=0).fit(c)
    assert plain.scores_std_.tolist() == pytest.approx([0.5 / np.sqrt(21)] * 2, rel=1e-6)
    anchored = BradleyTerry(l2=0, anchor="B", scale="elo").fit(c)
    assert anchored.scores_std_["A"] == pytest.approx(400 / np.log(10) / np.sqrt(21), rel=1e-6)
    assert anchored.scores_std_["B"] == pytest.approx(0, abs=1e-9)
    # with the prior: Var(d) = 1/(n p (1 − p) + λ/2) at the MAP's p
    prior = BradleyTerry(l2=0.5).fit(c)
    p = expit(prior.scores_["A"] - prior.scores_["B"])
    assert prior.scores_std_["A"] == pytest.approx(0.5 / np.sqrt(100 * p * (1 - p) + 0.25), rel=1e-6)
