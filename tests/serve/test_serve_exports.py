"""Exports that hold everything: the organiser's board and ``humeval rank`` on the exports give the
same table for a campaign with every task type (pairwise, k-way ranking, DA, ESA, MQM-lite), and
the ``judgments`` export keeps every answer, controls (with pass/fail), spans and times."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from serve_helpers import api_login, write_campaign
from test_serve_flow import prefer_lower, system_of

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from humeval.cli import cli  # noqa: E402
from humeval.data import read  # noqa: E402
from humeval.serve.app import create_app  # noqa: E402
from humeval.serve.campaign import load_campaign  # noqa: E402

EVERY_TASK = ("pairwise", "ranking", "da", "esa", "mqm")


def answer(task) -> dict:
    """``prefer_lower``, with one minor ESA span on the first word of sys3's outputs, and MQM errors by system."""
    out = prefer_lower(task)
    if task["type"] == "mqm":  # sys0 … sys3: no error, a minor one, a major one, both
        s = system_of(task["outputs"][0])
        return {"errors": [{"start_i": 0, "end_i": 4, "severity": "minor", "category": "Fluency"}] * (s in (1, 3)) +
                [{"start_i": 5, "end_i": 10, "severity": "major", "category": "Accuracy"}] * (s >= 2)}
    if task["type"] == "esa" and system_of(task["outputs"][0]) == 3:
        out = {**out, "spans": [{"start_i": 0, "end_i": 4, "severity": "minor"}]}
    return out


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    folder = tmp_path_factory.mktemp("every-task")
    campaign = load_campaign(write_campaign(folder, tasks=EVERY_TASK, extra="k = 3\n", bad_reference=0.1,
                                            repeat=0.1))
    client = TestClient(create_app(campaign, leaderboard=False))
    for name in ("alice", "bob"):
        worker = TestClient(client.app)
        headers = api_login(worker, name)
        for _ in range(40):
            task = worker.get("/api/task").json()
            response = worker.post(f"/api/task/{task['task']}", json=answer(task), headers=headers)
            assert response.status_code == 200, response.text
    api_login(client, "olga")
    return campaign, client, folder


def download(client, folder, name):
    response = client.get(f"/organiser/export/{name}")
    assert response.status_code == 200, response.text
    path = folder / name
    path.write_bytes(response.content)
    return path


def kinds(server) -> pd.Series:
    return pd.DataFrame([dict(r) for r in server.db.query(
        "SELECT t.type, t.kind FROM judgments j JOIN tasks t ON t.id = j.task_id")]).value_counts()


@pytest.mark.parametrize("ext", ["csv", "parquet"])
def test_board_and_rank_on_the_comparisons_export_give_the_same_table(campaign, ext):
    campaign, client, folder = campaign
    counts = kinds(client.app.state.server)
    assert all(counts.get((t, "SYSTEM"), 0) > 0 for t in EVERY_TASK)
    path = download(client, folder, f"comparisons.{ext}")
    back = read(path).comparisons
    # every pairwise answer and the C(3, 2) = 3 comparisons of every 3-way ranking, one group each
    assert len(back) == counts[("pairwise", "SYSTEM")] + 3 * counts[("ranking", "SYSTEM")]
    assert len(np.unique(back.group)) == counts[("pairwise", "SYSTEM")] + counts[("ranking", "SYSTEM")]
    board = client.get("/api/leaderboard").json()
    assert board["comparisons"] == len(back)
    out = folder / f"table-{ext}.csv"
    result = CliRunner().invoke(cli, ["rank", str(path), "-m", "bt", "--bootstrap", str(campaign.bootstrap),
                                      "--random-state", str(campaign.seed), "--out", str(out)])
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out).set_index("system")
    shown = pd.DataFrame(board["pairwise"]).set_index("system")
    assert list(table.index) == list(shown.index) == ["sys0", "sys1", "sys2", "sys3"]
    for column in ("score", "lower", "upper", "rank_lo", "rank_hi", "cluster"):
        np.testing.assert_allclose(table[column], shown[column], rtol=1e-9, err_msg=column)


def test_board_and_rank_on_the_ratings_export_give_the_same_scores_and_clusters(campaign):
    campaign, client, folder = campaign
    path = download(client, folder, "ratings.csv")
    board = client.get("/api/leaderboard").json()
    out = folder / "ratings-table.csv"
    result = CliRunner().invoke(cli, ["rank", str(path), "-m", "z-mean", "--bootstrap", str(campaign.bootstrap),
                                      "--random-state", str(campaign.seed), "--out", str(out)])
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out)
    for criterion in ("DA", "ESA"):
        mine = table[table["track"] == f"{campaign.track} / {criterion}"].set_index("system")
        assert len(mine) == 4, table
        shown = pd.DataFrame(board[criterion.lower()]).set_index("system").loc[mine.index]
        np.testing.assert_allclose(mine["z"], shown["z"], rtol=1e-9)
        np.testing.assert_array_equal(mine["cluster"], shown["cluster"])
        # the judge scores sys0 … sys3 90, 70, 50, 30: raw means exact
        np.testing.assert_allclose(mine["raw"], [90, 70, 50, 30])


def test_judgments_export_holds_controls_spans_and_times(campaign):
    campaign, client, folder = campaign
    server = client.app.state.server
    counts = kinds(server)
    for ext in ("csv", "jsonl", "parquet"):
        df = read_any(download(client, folder, f"judgments.{ext}"))
        assert len(df) == counts.sum() == 80
        assert df.groupby(["type", "kind"]).size().sort_index().equals(counts.sort_index().rename(None)), ext
    controls = df[df["kind"] != "SYSTEM"]
    assert len(controls) and (df.loc[df["kind"] == "SYSTEM", "passed"].fillna("") == "").all()
    # the judge always prefers the intact output and answers a repeated pairwise/ranking task the same way
    crisp = controls[(controls["kind"] == "BAD_REF") | controls["type"].isin(["pairwise", "ranking"])]
    assert len(crisp) and (crisp["passed"] == "yes").all()
    assert (controls.loc[controls["kind"] == "REPEAT", "control_of"].astype(float) > 0).all()
    esa = df[(df["type"] == "esa") & (df["kind"] == "SYSTEM")]
    spans = [json.loads(a)["spans"] for a in esa["answer"]]
    on_sys3 = [json.loads(s)[0] == "sys3" for s in esa["systems"]]
    assert [bool(s) for s in spans] == on_sys3 and any(on_sys3)
    assert all(s == [{"start_i": 0, "end_i": 4, "severity": "minor"}] for s in spans if s)
    assert (df["seconds"] >= 0).all()
    assert (pd.to_datetime(df["submitted_at"]) >= pd.to_datetime(df["issued_at"])).all()
    assert pd.to_datetime(df["issued_at"]).dt.tz is not None


def read_any(path) -> pd.DataFrame:
    if path.suffix == ".parquet":
        return pd.read_parquet(path)
    if path.suffix == ".jsonl":
        return pd.read_json(path, lines=True, dtype=False)
    return pd.read_csv(path, keep_default_na=False, na_values=[""])



def test_board_and_rank_on_the_mqm_export_give_the_same_table(campaign):
    campaign, client, folder = campaign
    server = client.app.state.server
    again = server.db.one("SELECT COUNT(*) FROM (SELECT t.annotator_id FROM judgments j JOIN tasks t ON t.id = j.task_id "
                          "WHERE t.type = 'mqm' GROUP BY t.annotator_id, t.item_id, t.systems HAVING COUNT(*) > 1)")[0]
    assert again > 0  # an annotator rated an output twice: the export keeps both ratings (rater "name#2")
    path = download(client, folder, "mqm.tsv")
    back = read(path).ratings
    assert len(back) == kinds(server)[("mqm", "SYSTEM")]
    board = client.get("/api/leaderboard").json()
    out = folder / "mqm-table.csv"
    result = CliRunner().invoke(cli, ["rank", str(path), "--bootstrap", str(campaign.bootstrap),
                                      "--random-state", str(campaign.seed), "--out", str(out)])
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out).set_index("system")
    shown = pd.DataFrame(board["mqm"]).set_index("system")
    assert list(table.index) == list(shown.index) == ["sys0", "sys1", "sys2", "sys3"]
    np.testing.assert_array_equal(table["ratings"], shown["ratings"])
    for column in ("mqm", "lo", "hi", "cluster"):
        np.testing.assert_allclose(table[column], shown[column], rtol=1e-9, err_msg=column)
    # answer() marks 0, 1 minor, 1 major, 1 major + 1 minor error on sys0 … sys3: −(5·major + minor)
    np.testing.assert_allclose(table["mqm"], [0, -1, -5, -6])
