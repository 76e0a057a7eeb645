"""``check_model``'s checks on every registered model (``experiments.checks``; tiny data, seconds)."""

import pytest

from humeval.ranking import REGISTRY
from humeval.experiments.checks import CHECKS


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__.removeprefix("check_"))
@pytest.mark.parametrize("name", list(REGISTRY))
def test_conformance(name, check):
    check(name)


def test_the_checks_catch_a_wrong_declaration_and_a_wrong_bootstrap(monkeypatch):
    """The suite can fail: a tag that lies, and a fast bootstrap twice too wide, are caught."""
    import dataclasses

    import humeval.ranking.registry as registry
    from humeval.ranking import BradleyTerry
    from humeval.experiments.checks import check_bootstrap, check_covariates, check_declarations

    cls, declared = registry.REGISTRY["expected-wins"]
    monkeypatch.setitem(registry.REGISTRY, "expected-wins", (cls, dataclasses.replace(declared, prior=True)))
    with pytest.raises(AssertionError, match="prior tag"):
        check_declarations("expected-wins")
    monkeypatch.setitem(registry.REGISTRY, "expected-wins", (cls, dataclasses.replace(declared, covariates=True)))
    with pytest.raises(AssertionError, match="covariates tag"):
        check_covariates("expected-wins")
    original = BradleyTerry.bootstrap_scores

    def wide(self, *args, **kwargs):
        samples = original(self, *args, **kwargs)
        return 2 * samples - samples.mean(axis=0)
    monkeypatch.setattr(BradleyTerry, "bootstrap_scores", wide)
    with pytest.raises(AssertionError, match="bootstrap std"):
        check_bootstrap("bt")
