"""Progress callbacks and clean interruption of the long fits (Crowd-BT, Gibbs, GRM)."""

import pickle

import numpy as np
import pytest

from humeval.ranking import GRM, CrowdBT, IRTCategorical, IRTGaussian
from humeval.simulate import simulate_competition, simulate_grm


@pytest.fixture(scope="module")
def data():
    pairs = simulate_competition(n_systems=6, n_items=100, n_judgments=400, random_judges=0.2,
                                 random_state=3).comparisons
    against_base, _ = simulate_grm(n_comparisons=600, random_state=2)
    return pairs, against_base


MODELS = [
    ("gibbs-gaussian", lambda: IRTGaussian(iterations=30, burn_in=10, random_state=0), 30),
    ("gibbs-categorical", lambda: IRTCategorical(iterations=25, burn_in=5, random_state=0), 25),
    ("crowd-bt", lambda: CrowdBT(max_iter=200), 200),
    ("grm", lambda: GRM(baseline="base", max_iter=300), 300),
]


def _fit(model, data, **kw):
    pairs, against_base = data
    return model.fit(against_base if isinstance(model, GRM) else pairs, **kw)


@pytest.mark.parametrize("name,make,total", MODELS, ids=[m[0] for m in MODELS])
def test_progress_counts_up_to_the_total(data, name, make, total):
    calls = []
    model = _fit(make(), data, progress=lambda done, of: calls.append((done, of)))
    done = [d for d, _ in calls]
    assert {of for _, of in calls} == {total}
    assert done[-1] == total and len(done) >= 2
    assert all(later >= earlier for earlier, later in zip(done, done[1:]))
    assert done[0] == 1
    if name.startswith("gibbs"):
        assert done == list(range(1, total + 1))  # one call per sweep
    # the callback is not kept: the fitted model pickles and has the same result as without it
    assert not hasattr(model, "_progress")
    plain = _fit(make(), data)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).scores_, plain.scores_)


@pytest.mark.parametrize("name,make,total", MODELS, ids=[m[0] for m in MODELS])
def test_interrupt_leaves_the_model_unfitted(data, name, make, total):
    def stop(done, of):
        if done == 3:
            raise KeyboardInterrupt("stopped at step 3")

    model = _fit(make(), data)  # a previous fit must not survive an interrupted refit either
    assert hasattr(model, "scores_")
    with pytest.raises(KeyboardInterrupt, match="stopped at step 3"):
        _fit(model, data, progress=stop)
    assert not hasattr(model, "scores_") and not hasattr(model, "systems_")
    assert [n for n in vars(model)] == model._param_names()  # back to the constructed state
    with pytest.raises(RuntimeError, match="not fitted"):
        model.ranking()
    refit = _fit(model, data)  # and it can be fitted again
    np.testing.assert_array_equal(refit.scores_, _fit(make(), data).scores_)


def test_the_cli_hooks_a_progress_bar_into_long_fits(data):
    from humeval.cli.common import fit_shown
    from humeval.ranking import BradleyTerry
    seen = []

    class Spy(IRTGaussian):
        def fit(self, comparisons, progress=None):
            seen.append(progress)
            return super().fit(comparisons, progress=progress)

    pairs, _ = data
    shown = fit_shown(Spy(iterations=5, burn_in=1, random_state=0), pairs, "fitting")
    quiet = fit_shown(Spy(iterations=5, burn_in=1, random_state=0), pairs, "fitting", quiet=True)
    assert callable(seen[0]) and seen[1] is None
    np.testing.assert_array_equal(shown.scores_, quiet.scores_)
    assert hasattr(fit_shown(BradleyTerry(l2=0.01), pairs, "fitting"), "scores_")  # no progress: plain fit
