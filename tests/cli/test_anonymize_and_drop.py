"""--anonymize leaves no worker id in any output; judges --drop-list feeds --drop-judges."""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import humeval
from humeval.cli import cli
from humeval.data.anonymize import pseudonym
from humeval.metrics.hmeant import write_json
from humeval.metrics.hmeant.weights import Weights
from humeval.simulate.hmeant import simulate_hmeant


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    """A simulated campaign (8 systems, 5-way rankings, 30 % of judges random) whose judges carry
    worker ids, with the planted random judges and the true abilities."""
    root = tmp_path_factory.mktemp("campaign")
    made = run("simulate", root / "sim.parquet", "--design", "rankings", "--systems", 8, "--items", 60,
               "--judgments", 1500, "--random-judges", 0.3, "--truth", root / "truth.csv", "--json")
    assert made.exit_code == 0, made.output
    df = pd.read_parquet(root / "sim.parquet")
    df["judge"] = df["judge"].str.replace("judge", "worker.A3X")
    df.to_csv(root / "named.csv", index=False)
    random = [j.replace("judge", "worker.A3X") for j in json.loads(made.stdout)["random_judges"]]
    return root, df, random


def ids_in(text: str, df) -> list[str]:
    return [j for j in df["judge"].unique() if j in text]


def test_anonymize_leaves_no_worker_id_in_reports(campaign, tmp_path):
    root, df, _ = campaign
    plain = run("report", root / "named.csv", "-o", tmp_path / "plain.json", "-m", "bt", "--bootstrap", 20,
                "--trials", 1, "-q")
    assert plain.exit_code == 0, plain.output
    assert ids_in((tmp_path / "plain.json").read_text(), df)  # the report does name judges
    for suffix in ("html", "md", "json"):
        out = tmp_path / f"shared.{suffix}"
        result = run("report", root / "named.csv", "-o", out, "-m", "bt", "--bootstrap", 20, "--trials", 1,
                     "--anonymize", "--salt", "s3cret")
        assert result.exit_code == 0, result.output
        text = out.read_text()
        assert ids_in(text + result.stdout + result.stderr, df) == [] and "worker" not in text
        assert pseudonym("worker.A3X01", "s3cret") in text


def test_anonymize_judges_and_crowd_bt(campaign, tmp_path):
    root, df, random = campaign
    result = run("judges", root / "named.csv", "--anonymize", "--salt", "s", "--json", "--drop-list", tmp_path / "d")
    assert result.exit_code == 0, result.output
    assert ids_in(result.stdout + (tmp_path / "d").read_text(), df) == []
    data = json.loads(result.stdout)
    assert sorted(data["flagged"]) == sorted(pseudonym(j, "s") for j in random)
    shown = run("rank", root / "named.csv", "-m", "crowd-bt", "--anonymize", "--salt", "s", "--out", tmp_path / "r.csv")
    assert shown.exit_code == 0, shown.output
    assert "judges flagged" in shown.stdout and pseudonym(random[0], "s") in shown.stdout
    assert ids_in(shown.stdout + (tmp_path / "r.csv").read_text(), df) == []
    as_json = run("rank", root / "named.csv", "-m", "crowd-bt", "--anonymize", "--salt", "s", "--json")
    assert as_json.exit_code == 0 and json.loads(as_json.stdout) and ids_in(as_json.stdout, df) == []
    plain = run("rank", root / "named.csv", "-m", "crowd-bt")
    assert ids_in(plain.stdout, df)  # without --anonymize Crowd-BT names the workers


def test_anonymize_hmeant_out(tmp_path):
    weights = Weights(1.0, {"AGENT": 2.0, "PATIENT": 1.0, "LOCATIVE": 0.5}, 0.5)
    annotations, _ = simulate_hmeant(weights, n_items=20, noise=0.01)
    for a in annotations.annotations:
        a.annotator = f"linguist-{a.annotator}"
    names = {a.annotator for a in annotations.annotations}
    write_json(annotations, tmp_path / "a.json")
    result = run("hmeant", tmp_path / "a.json", "--out", tmp_path / "h.csv", "--anonymize", "--salt", "x", "--json")
    assert result.exit_code == 0, result.output
    written = pd.read_csv(tmp_path / "h.csv")
    assert set(written.annotator) == {pseudonym(n, "x", "annotator") for n in names}
    text = (tmp_path / "h.csv").read_text() + result.stdout
    assert not any(n in text for n in names)
    plain = run("hmeant", tmp_path / "a.json", "--out", tmp_path / "p.csv")
    assert plain.exit_code == 0 and set(pd.read_csv(tmp_path / "p.csv").annotator) == names
    # the same numbers: pseudonyms change names, not scores
    assert np.allclose(np.sort(written.hmeant), np.sort(pd.read_csv(tmp_path / "p.csv").hmeant))


def test_drop_list_feeds_drop_judges(campaign, tmp_path):
    root, _, random = campaign
    drop = tmp_path / "drop.txt"
    flagged = run("judges", root / "sim.parquet", "--drop-list", drop)
    assert flagged.exit_code == 0, flagged.output
    listed = drop.read_text().split("\n")[:-1]
    planted = [j.replace("worker.A3X", "judge") for j in random]
    assert sorted(listed) == sorted(planted) and len(listed) == 6
    c = humeval.read(root / "sim.parquet").comparisons
    theirs = int(np.isin(np.array(c.judges)[c.judge], listed).sum())
    kept = run("rank", root / "sim.parquet", "-m", "bt", "--drop-judges", drop, "--out", tmp_path / "kept.csv")
    assert kept.exit_code == 0, kept.output
    assert f"left out 6 of 6 listed judges ({theirs:,} comparisons)" in kept.stderr
    every = run("rank", root / "sim.parquet", "-m", "bt", "--out", tmp_path / "all.csv")
    truth = pd.read_csv(root / "truth.csv", index_col=0).iloc[:, 0]
    spread = {name: pd.read_csv(tmp_path / f"{name}.csv").set_index("system")["score"].std() for name in ("kept", "all")}
    # random answers pull Bradley-Terry scores towards 0; without them the scale is the truth's
    # (seed 0: sd 0.41 with every judge, 0.63 without the random ones, 0.60 true), and the order
    # is the true one (Spearman 0.976 with every judge, 1 without the random ones)
    assert every.exit_code == 0
    assert abs(spread["kept"] - truth.std()) < 0.05 and abs(spread["all"] - truth.std()) > 0.15
    rho = {name: pd.read_csv(tmp_path / f"{name}.csv").set_index("system")["score"]
           .corr(truth, method="spearman") for name in ("kept", "all")}
    assert rho["kept"] == pytest.approx(1.0) and rho["all"] == pytest.approx(1 - 6 * 2 / (8 * 63))


def test_drop_judges_on_report_and_compare_models_and_warnings(campaign, tmp_path):
    root, df, random = campaign
    drop = tmp_path / "drop.txt"
    drop.write_text("# flagged by hand\n" + "\n".join(random[:2]) + "\nnobody-here\n\n")
    n = int(df.judge.isin(random[:2]).sum())
    result = run("report", root / "named.csv", "-o", tmp_path / "r.md", "-m", "bt", "--bootstrap", 20,
                 "--trials", 1, "--drop-judges", drop)
    assert result.exit_code == 0, result.output
    assert f"left out 2 of 3 listed judges ({n:,} comparisons)" in result.stderr
    assert "warning" in result.stderr and "nobody-here" in result.stderr
    report = (tmp_path / "r.md").read_text()
    assert not any(j in report for j in random[:2]) and random[2] in report
    curves = run("compare-models", root / "named.csv", "-m", "uniform,bt", "--sizes", 100, "--trials", 1,
                 "--min-test", 100, "--drop-judges", drop)
    assert curves.exit_code == 0, curves.output
    assert f"({n:,} comparisons)" in curves.stderr
    # a pseudonymised list needs the same salt: then it matches
    (tmp_path / "p.txt").write_text(pseudonym(random[0], "k") + "\n")
    same = run("rank", root / "named.csv", "-m", "bojar", "--anonymize", "--salt", "k", "--drop-judges", tmp_path / "p.txt")
    assert "left out 1 of 1" in same.stderr
    other = run("rank", root / "named.csv", "-m", "bojar", "--drop-judges", tmp_path / "p.txt")
    assert "left out 0 of 1" in other.stderr and "same --anonymize --salt" in " ".join(other.stderr.split())


def test_drop_judges_names_judges_of_other_tracks(campaign, tmp_path):
    """Issue 27: a judge listed for dropping who judged only in another track is named as such,
    not as missing from the file; `judges` says its flags pool every track of the file."""
    root, df, random = campaign
    two = df.copy()
    two["track"] = np.where(two.judge.isin(random[:2]), "B", "A")
    two.to_csv(tmp_path / "two.csv", index=False)
    drop = tmp_path / "drop.txt"
    drop.write_text("\n".join(random[:3]) + "\nnobody-here\n")
    n = int(((two.track == "A") & two.judge.isin(random[2:3])).sum())
    result = run("rank", tmp_path / "two.csv", "-m", "bojar", "--track", "A", "--drop-judges", drop)
    assert result.exit_code == 0, result.output
    text = " ".join(result.stderr.split())
    assert f"left out 1 of 4 listed judges ({n:,} comparisons)" in text
    # without white space: the console wraps a long path (pytest's numbered temporary folders grow)
    assert (f"2 listed judges judged in {tmp_path / 'two.csv'} but not in --track A: {random[0]}, {random[1]}"
            .replace(" ", "") in "".join(text.split()))
    # only the judge the file lacks altogether is called missing
    assert "1 listed judge not in" in text and text.count("nobody-here") == 1
    # the same with pseudonyms: the whole file's people are pseudonymised with the same salt
    (tmp_path / "p.txt").write_text(pseudonym(random[0], "k") + "\n")
    same = run("rank", tmp_path / "two.csv", "-m", "bojar", "--track", "A", "--anonymize", "--salt", "k",
               "--drop-judges", tmp_path / "p.txt")
    assert "1 listed judge judged in" in " ".join(same.stderr.split()) and "warning" not in same.stderr
    pooled = run("judges", tmp_path / "two.csv")
    assert "flags per file: each judge's agreement pooled over all 2 tracks" in " ".join(pooled.stdout.split())
    within = run("judges", tmp_path / "two.csv", "--track", "A", "--json")
    assert json.loads(within.stdout)["scope"].startswith("flags per track: computed within --track A only")


def test_anonymize_without_salt_draws_a_random_one_and_says_so(campaign, tmp_path):
    root, df, _ = campaign
    seen = []
    for salt in ((), ("--salt", "")):
        result = run("judges", root / "named.csv", "--anonymize", *salt, "--json")
        assert result.exit_code == 0, result.output
        assert "drew a random secret salt" in result.stderr and "not reproducible" in " ".join(result.stderr.split())
        seen.append(set(json.loads(result.stdout)["flagged"]))
        assert ids_in(result.stdout, df) == []
        # the bare-id pseudonyms (SHA-256 of the id alone, recomputable by anyone) are not used
        unsalted = {pseudonym(j, "") for j in df.judge.unique()}
        assert not unsalted & set(result.stdout.split('"'))
    assert seen[0] and seen[0] != seen[1]  # six flagged judges, other pseudonyms each run
