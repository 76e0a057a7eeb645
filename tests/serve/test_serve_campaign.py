"""The campaign file: what ``humeval serve --check`` accepts and how it refuses the rest (one line
naming the file and the fix, exit code 2, never a traceback); passwords stored only as scrypt."""

from __future__ import annotations

import hashlib
import json

import pytest
from click.testing import CliRunner
from serve_helpers import write_campaign

from humeval.cli import cli
from humeval.errors import InputError
from humeval.serve.auth import hash_password, parse_hash, verify_password
from humeval.serve.campaign import load_campaign


def test_a_campaign_loads_with_its_texts_and_hashed_passwords(tmp_path):
    campaign = load_campaign(write_campaign(tmp_path, tasks=("pairwise", "da"), strategy="bt-order", n_items=5,
                                            plain_passwords=True))
    assert campaign.systems == ("sys0", "sys1", "sys2", "sys3") and campaign.items == ("1", "2", "3", "4", "5")
    assert campaign.outputs["sys2"][4] == "sys2 says4 segment4 here4 now4" and campaign.reference[0] == "reference 0"
    assert campaign.tasks == ("pairwise", "da") and campaign.strategy == "bt-order"
    assert campaign.database == tmp_path / "campaign.sqlite"
    assert [(a.name, a.role) for a in campaign.accounts] == [("alice", "annotator"), ("bob", "annotator"),
                                                             ("olga", "organiser")]
    assert all(a.password_hash.startswith("scrypt$16384$8$1$") for a in campaign.accounts)


def test_scrypt_hash_matches_hashlib_and_rejects_a_wrong_password():
    hashed = hash_password("s3cret password")
    n, r, p, salt, digest = parse_hash(hashed)
    assert digest == hashlib.scrypt(b"s3cret password", salt=salt, n=n, r=r, p=p, dklen=32)
    assert verify_password("s3cret password", hashed) and not verify_password("s3cret passwore", hashed)
    assert not verify_password("x", "plain-text") and parse_hash("scrypt$3$8$1$00$00") is None  # N not a power of 2


@pytest.mark.parametrize("edit, problem", [
    (lambda t: t.replace('strategy = "uniform"', 'strategy = "clever"'), "unknown strategy 'clever'"),
    (lambda t: t.replace('tasks = ["pairwise"]', 'tasks = ["pairwise", "essay"]'), "tasks = "),
    (lambda t: t.replace('tasks = ["pairwise"]', 'tasks = ["pairwise"]\nwmt = 1'), "unknown key wmt"),
    (lambda t: t.replace('strategy = "uniform"', 'strategy = "wmt"'), "tasks has no \"ranking\""),
    (lambda t: t.replace('track = "deu-eng"', 'track = "german"'), "track = 'german'"),
    (lambda t: t.replace('strategy = "uniform"', 'strategy = "grm"'), "baseline = one of the systems"),
    (lambda t: t.replace('strategy = "uniform"', 'strategy = "grm"\nbaseline = "sys9"'), "got 'sys9'"),
    (lambda t: t.replace('strategy = "uniform"', 'baseline = "sys1"'), "only used by strategy"),
    (lambda t: t.replace("bad_reference = 0.0", "bad_reference = 0.6").replace("repeat = 0.0", "repeat = 0.5"), "quality shares"),
    (lambda t: t.replace('role = "organiser"', 'role = "boss"'), "role = 'boss'"),
    (lambda t: t.replace('name = "bob"', 'name = "alice"'), "empty or repeated"),
    (lambda t: t.replace('password = "correct horse battery"', 'password = "short"', 1), "shorter than 8"),
    (lambda t: t.replace('"systems/sys3.txt"', '"systems/missing.txt"'), "does not exist"),
    (lambda t: t.replace("seed = 3", "seed = three"), "not valid TOML"),
    (lambda t: t.replace("seed = 3", "seed = true"), "seed = True is not a whole number"),
])
def test_bad_campaign_files_are_refused_naming_the_problem(tmp_path, edit, problem):
    path = write_campaign(tmp_path, plain_passwords=True)
    path.write_text(edit(path.read_text()))
    with pytest.raises(InputError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        load_campaign(path)
    result = CliRunner().invoke(cli, ["serve", "--check", str(path)])
    assert result.exit_code == 2 and str(path) in result.output and "Traceback" not in result.output


def test_misaligned_files_are_refused(tmp_path):
    path = write_campaign(tmp_path)
    (tmp_path / "systems" / "sys1.txt").write_text("one line\n")
    with pytest.raises(InputError, match="sys1 has 1 lines but the source has 12"):
        load_campaign(path)


def test_check_and_demo_from_the_command_line(tmp_path):
    runner = CliRunner()
    demo = runner.invoke(cli, ["serve", "--demo", str(tmp_path / "demo")])
    assert demo.exit_code == 0, demo.output
    check = runner.invoke(cli, ["serve", "--check", str(tmp_path / "demo" / "campaign.toml")])
    assert check.exit_code == 0 and "16 segments, 4 systems" in check.output and "campaign file OK" in check.output
    assert not (tmp_path / "demo" / "demo.sqlite").exists()  # --check starts nothing
    as_json = runner.invoke(cli, ["serve", "--check", "--json", str(tmp_path / "demo" / "campaign.toml")])
    assert json.loads(as_json.output)["systems"] == ["Lumen", "Kestrel", "Tern", "Babble"]
    missing = runner.invoke(cli, ["serve"])
    assert missing.exit_code == 2 and "--demo DIR" in missing.output
    port = runner.invoke(cli, ["serve", "--port", "70000", str(tmp_path / "demo" / "campaign.toml")])
    assert port.exit_code == 2 and "70000" in port.output


def test_hash_password_prints_a_hash_the_campaign_accepts(tmp_path):
    result = CliRunner().invoke(cli, ["serve", "--hash-password"], input="a long pass phrase\na long pass phrase\n")
    assert result.exit_code == 0, result.output
    hashed = result.output.strip().splitlines()[-1]
    assert verify_password("a long pass phrase", hashed) and not verify_password("a long pass phrasE", hashed)
    path = write_campaign(tmp_path, plain_passwords=True)
    path.write_text(path.read_text().replace('password = "correct horse battery"', f'password_hash = "{hashed}"', 1))
    assert load_campaign(path).accounts[0].password_hash == hashed


def test_check_counts_take_their_number(tmp_path):
    """Issue 27: "1 organisers"."""
    path = write_campaign(tmp_path)
    result = CliRunner().invoke(cli, ["serve", "--check", str(path)])
    text = " ".join(result.output.split())
    assert "12 segments, 4 systems" in text and "2 annotators, 1 organiser, database" in text


def test_the_demo_has_every_task_type_and_a_good_judge_ranks_its_systems_in_their_known_order(tmp_path):
    """The demo's systems are written to be Lumen > Kestrel > Tern > Babble: a judge who prefers
    the better-known system (and scores by it) gets that order on the organiser's board."""
    from starlette.testclient import TestClient

    from humeval.serve import export
    from humeval.serve.app import create_app
    from humeval.serve.demo import PASSWORD, SYSTEMS, write_demo
    campaign = load_campaign(write_demo(tmp_path / "demo", bootstrap=20))
    assert campaign.tasks == ("pairwise", "ranking", "da", "esa", "mqm") and campaign.contrastive == 2
    assert campaign.document_scores  # DA by document; contrastive ESA stays side by side
    assert len(campaign.tutorial) == 2 and len(campaign.checks) == 2 and campaign.completion.code == "DEMO-7Q2K"
    assert len(set(campaign.documents)) == 4 and len(campaign.ai_spans) == 19  # Tern 8, Kestrel 5, Babble 5, Lumen 1
    app = create_app(campaign, leaderboard=False)
    quality = {s: q for q, s in enumerate(SYSTEMS)}  # 0 best
    kinds, codes, documents = set(), [], {}
    for name in ("ann1", "ann2", "ann3"):
        client = TestClient(app)
        response = client.post("/api/login", json={"name": name, "password": PASSWORD})
        headers = {"X-CSRF-Token": response.json()["csrf"]}
        while (task := client.get("/api/task")).status_code == 200:
            task = task.json()
            kinds.add(task["type"])
            system = [next((s for s in SYSTEMS if text in SYSTEMS[s]), None) for text in task["outputs"]]
            q = [quality.get(s, 1.5) for s in system]  # a control's text is no system's: middling
            if task["type"] == "pairwise":
                answer = {"outcome": 1 if q[0] < q[1] else 2 if q[1] < q[0] else 0}
            elif task["type"] == "ranking":
                answer = {"ranks": [sorted(q).index(x) + 1 for x in q]}
            elif task["type"] == "mqm":
                answer = {"errors": []}
            elif task.get("document_score"):  # the whole document, one system's segments
                assert task["type"] == "da" and len(set(system)) == 1 and len(q) == 4
                answer = {"score": 80 - 20 * q[0]}
                documents[(task["document"], system[0])] = answer["score"]
            elif len(q) > 1:  # contrastive ESA
                answer = {"outputs": [{"score": 90 - 25 * x, "spans": []} for x in q]}
            else:
                answer = {"score": 90 - 25 * q[0], "spans": []}
            posted = client.post(f"/api/task/{task['task']}", json=answer, headers=headers)
            assert posted.status_code == 200, (task, posted.text)
        codes.append(task.json()["completion_code"])
    assert kinds == {"pairwise", "ranking", "da", "esa", "mqm"}
    board = app.state.server.board.refresh()
    for key in ("pairwise", "da", "esa"):
        table = board[key]
        order = list(table.index if table.index.name == "system" else table["system"])
        assert order == list(SYSTEMS), (key, order)
    assert len(export.export_frame(app.state.server.db, campaign, "judgments")) == 3 * 102  # 100 + 2 tutorial each
    scored = export.export_frame(app.state.server.db, campaign, "documents")
    assert documents and {(i, s): v for i, s, v in zip(scored["item"], scored["system"], scored["score"])} == documents
    assert set(codes) <= {"DEMO-7Q2K", "DEMO-CHECK"}
