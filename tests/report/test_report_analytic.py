"""The report's analytic-versus-bootstrap check (``humeval.report.analytic``) on simulated
battles whose judges have their own tastes (judge-level random effects, σ = 0.5 per system):
the sandwich clustered by judge matches a bootstrap that resamples judges, Fisher is as narrow
as the comparison bootstrap, and the note names the clustering."""

import numpy as np

from humeval.data.tables import Comparisons
from humeval.experiments import bootstrap
from humeval.ranking.bradley_terry import BradleyTerry
from humeval.report.analytic import cluster_column, compare_intervals, disagreement_note
from humeval.simulate.battles import simulate_battles


def _fit(sigma_judge, n_judges=40):
    c = simulate_battles(n_systems=6, n_battles=30_000, beta=0.0, n_judges=n_judges, sigma_judge=sigma_judge,
                         random_state=5).comparisons
    return c, BradleyTerry(covariates=False).fit(c)


def test_clustered_judges_widen_the_sandwich_and_the_note_says_why():
    c, model = _fit(0.5)
    boot = bootstrap(model, c, n=400, random_state=1).table()
    table, clusters, disagree = compare_intervals(model, c, boot)
    assert clusters == "judge"
    fisher = table["fisher/boot width"].to_numpy()
    np.testing.assert_allclose(fisher, 1.0, atol=0.2)  # both treat comparisons as independent
    sandwich_width = (table["sandwich upper"] - table["sandwich lower"]).to_numpy()
    assert np.all(sandwich_width > 1.4 * (table["fisher upper"] - table["fisher lower"]).to_numpy())
    by_judge = bootstrap(model, c, n=400, by="judge", random_state=1).table().reindex(table.index)
    np.testing.assert_allclose(sandwich_width, (by_judge["upper"] - by_judge["lower"]).to_numpy(), rtol=0.25)
    assert set(table.attrs["sandwich_off"]) == set(table.index)
    note = disagreement_note(table, clusters, disagree)
    assert "share a judge are correlated" in note and "--resample judge" in note


def test_independent_judgments_agree():
    c, model = _fit(0.0, n_judges=1000)  # many small clusters: the sandwich's own noise is small
    boot = bootstrap(model, c, n=400, random_state=1).table()
    table, clusters, disagree = compare_intervals(model, c, boot)
    np.testing.assert_allclose(table[["fisher/boot width", "sandwich/boot width"]].to_numpy(), 1.0, atol=0.2)
    assert table.attrs["sandwich_off"] == [s for s in disagree if s in table.attrs["sandwich_off"]]
    assert not any(np.abs(table["sandwich/boot width"] - 1) > 0.25)
    note = disagreement_note(table, clusters, disagree)
    assert "share a judge are correlated" not in note


def test_cluster_column_falls_back_to_rankings_then_comparisons():
    """Judges when there are at least 10 of them, else rankings when there are 10, else none: a
    cluster-robust covariance (or a bootstrap) from fewer units is unreliable."""
    n = 24
    a, b, outcome = np.arange(n) % 3, (np.arange(n) + 1) % 3, np.arange(n) % 3
    systems = ("x", "y", "z")
    judges = tuple(f"j{k}" for k in range(12))
    ten = np.arange(n) % 10
    assert cluster_column(Comparisons(a=a, b=b, outcome=outcome, judge=ten, systems=systems,
                                      judges=judges)) == "judge"
    nine = np.arange(n) % 9  # nine judges: too few; the rankings (12 of them) are enough
    assert cluster_column(Comparisons(a=a, b=b, outcome=outcome, judge=nine, group=np.arange(n) // 2,
                                      systems=systems, judges=judges)) == "group"
    assert cluster_column(Comparisons(a=a, b=b, outcome=outcome, judge=nine, group=np.arange(n) // 3,
                                      systems=systems, judges=judges)) is None  # 8 rankings
    assert cluster_column(Comparisons(a=a, b=b, outcome=outcome, systems=systems)) is None
