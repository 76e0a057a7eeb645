"""Active selection in the live server matches the simulation: a simulated crowd (Bradley–Terry
at known abilities with ties, ``humeval.active.environments.SimulatedPairs``' answers) judges
through the API what the server's TrueSkill strategy issues, and the Bradley–Terry fit of what it
collected correlates with the truth as well as ``active_study`` with the same strategy, budget,
batch and simulated annotators does."""

from __future__ import annotations

import contextlib

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
