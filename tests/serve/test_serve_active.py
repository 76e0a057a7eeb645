"""Active selection in the live server matches the simulation: a simulated crowd (Bradley–Terry
at known abilities with ties, ``humeval.active.environments.SimulatedPairs``' answers) judges
through the API what the server's TrueSkill strategy issues, and the Bradley–Terry fit of what it
collected correlates with the truth as well as ``active_study`` with the same strategy, budget,
batch and simulated annotators does."""

from __future__ import annotations

import contextlib
import json

import numpy as np
import pytest
from scipy import stats
from serve_helpers import api_login, write_campaign
from test_serve_flow import system_of

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from humeval.active.environments import SimulatedPairs  # noqa: E402
from humeval.active.strategies import TrueSkillActive, UniformPairs  # noqa: E402
from humeval.active.study import active_study  # noqa: E402
from humeval.experiments.planning import pair_outcomes  # noqa: E402
from humeval.ranking.bradley_terry import BradleyTerry  # noqa: E402
from humeval.serve import export  # noqa: E402
from humeval.serve.app import create_app  # noqa: E402
from humeval.serve.campaign import load_campaign  # noqa: E402

N_SYSTEMS, BUDGET, BATCH, TRIALS, TIE_RATE = 10, 240, 20, 3, 0.15
TRUTH = np.random.default_rng(7).normal(0.0, 1.0, N_SYSTEMS)


def served_spearman(folder, strategy: str, seed: int) -> float:
    path = write_campaign(folder, n_systems=N_SYSTEMS, n_items=50, strategy=strategy, annotators=("a1", "a2", "a3"),
                          extra=f"batch = {BATCH}\n").read_text()
    folder.joinpath("campaign.toml").write_text(path.replace("seed = 3", f"seed = {seed}"))
    campaign = load_campaign(folder / "campaign.toml")
    app = create_app(campaign, leaderboard=False)
    with contextlib.ExitStack() as stack:  # a client in a `with` keeps one event loop for all its requests
        crowd = []
        for name in ("a1", "a2", "a3"):
            client = stack.enter_context(TestClient(app))
            crowd.append((client, api_login(client, name)))
        rng = np.random.default_rng(seed)
        for j in range(BUDGET):
            client, headers = crowd[j % len(crowd)]
            task = client.get("/api/task").json()
            a, b = (np.array([system_of(t)]) for t in task["outputs"])
            outcome = int(pair_outcomes(TRUTH, a, b, TIE_RATE, rng)[0])
            response = client.post(f"/api/task/{task['task']}", json={"outcome": outcome}, headers=headers)
            assert response.status_code == 200
    comparisons = export.comparisons(app.state.server.db, campaign)
    assert len(comparisons) == BUDGET
    scores = BradleyTerry(l2=0.01).fit(comparisons).scores_.reindex(campaign.systems).to_numpy()
    return float(stats.spearmanr(scores, TRUTH).statistic)


def test_live_trueskill_matches_the_active_study(tmp_path):
    served = [served_spearman(tmp_path / f"t{trial}", "trueskill", trial) for trial in range(TRIALS)]
    curves = active_study(SimulatedPairs(TRUTH, TIE_RATE, systems=[f"sys{i}" for i in range(N_SYSTEMS)]),
                          {"trueskill": TrueSkillActive(), "uniform": UniformPairs()}, budget=BUDGET, batch=BATCH,
                          trials=8, random_state=0)
    final = curves[curves["judgments"] == BUDGET].groupby("strategy")["spearman"]
    study, spread = final.mean()["trueskill"], final.std()["trueskill"]
    print(f"\nSpearman with the truth after {BUDGET} judgments: served TrueSkill {np.mean(served):.3f} "
          f"({', '.join(f'{s:.3f}' for s in served)}); active_study TrueSkill {study:.3f} (sd {spread:.3f}), "
          f"uniform {final.mean()['uniform']:.3f}")
    # the same quality: the served mean within two standard errors of the study's trial spread
    assert abs(np.mean(served) - study) < 2 * spread / np.sqrt(TRIALS) + 0.02
    assert np.mean(served) > 0.7


def test_live_grm_strategy_judges_against_the_baseline(tmp_path):
    """``strategy = "grm"``: every pairwise task pits a system against the baseline; after the first
    batch a GRM is fitted and ``GRMUncertainty`` chooses; its abilities find the truth's order."""
    from humeval.ranking.grm import GRM
    truth = np.array([0.0, 1.5, 0.5, -0.5, -1.5])  # sys0 is the baseline
    text = write_campaign(tmp_path, n_systems=5, n_items=30, strategy="grm", annotators=("a1", "a2"),
                          extra='baseline = "sys0"\nbatch = 40\n').read_text()
    campaign = load_campaign(tmp_path / "campaign.toml")
    assert campaign.baseline == "sys0" and 'strategy = "grm"' in text
    app = create_app(campaign, leaderboard=False)
    rng = np.random.default_rng(5)
    with TestClient(app) as c1, TestClient(app) as c2:
        crowd = [(c1, api_login(c1, "a1")), (c2, api_login(c2, "a2"))]
        for j in range(200):
            client, headers = crowd[j % 2]
            task = client.get("/api/task").json()
            a, b = (np.array([system_of(t)]) for t in task["outputs"])
            assert 0 in (a[0], b[0])
            outcome = int(pair_outcomes(truth, a, b, TIE_RATE, rng)[0])
            assert client.post(f"/api/task/{task['task']}", json={"outcome": outcome}, headers=headers).status_code == 200
    issuer = app.state.server.issuer
    assert issuer.refit_idle.wait(60)  # the refit thread has finished
    # requests for a refit that arrive while one runs are coalesced, so how many of the 5 batches got their
    # own refit depends on the machine's speed (2 on a loaded one): at least one, never more than the batches
    assert issuer.grm_model is not None and 1 <= issuer.refits <= 200 // 40
    comparisons = export.comparisons(app.state.server.db, campaign)
    scores = GRM(baseline="sys0").fit(comparisons).scores_.reindex(["sys1", "sys2", "sys3", "sys4"]).to_numpy()
    assert list(np.argsort(-scores)) == [0, 1, 2, 3]


def test_grm_refit_runs_off_the_request_path(tmp_path, monkeypatch):
    """While a GRM refit is under way (held at an event), annotators still get tasks and their
    answers are acknowledged; the refit then finishes and its model chooses the next batch."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from humeval.ranking import grm as grm_module
    from test_serve_stopping import judge
    fitting, release = threading.Event(), threading.Event()
    real_fit = grm_module.GRM.fit

    def held_fit(self, *args, **kwargs):
        fitting.set()
        assert release.wait(60)
        return real_fit(self, *args, **kwargs)

    monkeypatch.setattr(grm_module.GRM, "fit", held_fit)
    write_campaign(tmp_path, n_systems=4, n_items=30, strategy="grm", annotators=("alice", "bob"),
                   extra='baseline = "sys0"\nbatch = 10\n')
    server = create_app(load_campaign(tmp_path / "campaign.toml"), leaderboard=False).state.server
    rng = np.random.default_rng(2)
    try:
        with ThreadPoolExecutor(1) as pool:  # a worker thread: a refit on the request path fails the test, not hangs it
            pool.submit(judge, server, "alice", 10, rng).result(timeout=60)
            assert not fitting.is_set() and server.issuer.refits == 0  # no fit before a batch was answered
            pool.submit(judge, server, "alice", 1, rng).result(timeout=60)  # its task emptied the queue: refit asked
            assert fitting.wait(60)
            pool.submit(judge, server, "bob", 9, rng).result(timeout=60)  # judged while the refit is held
            assert not release.is_set() and server.issuer.grm_model is None and server.issuer.refits == 0
    finally:
        release.set()
    assert server.issuer.refit_idle.wait(60)
    assert server.issuer.refits == 1 and server.issuer.grm_model is not None
    assert server.db.one("SELECT COUNT(*) FROM judgments")[0] == 20
    task = server.issuer.current(server.db.one("SELECT id FROM accounts WHERE name = 'bob'")[0])
    assert 0 in json.loads(task["systems"])  # the next batch (chosen by the new fit) still pits against sys0
    server.issuer.close()
