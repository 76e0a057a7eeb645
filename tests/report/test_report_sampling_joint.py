"""``humeval report`` with --reweight, --provisional/--siblings/--families and --joint: each
table holds the numbers of the ``humeval rank`` command it names (run here), and the sampling
line the pair counts counted by hand."""

import json
import shlex

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.simulate.joint import simulate_two_protocols

SYSTEMS = ("gpt-x-0314", "gpt-x-0613", "gpt-x-1106", "claude-y", "llama-z")


@pytest.fixture(scope="module")
def uneven(tmp_path_factory):
    """Five systems, abilities 1.0 … −0.6; the pair (gpt-x-0314, llama-z) met 400 times, every
    other pair 40 times: 400 + 9 × 40 = 760 comparisons."""
    rng = np.random.default_rng(5)
    theta = dict(zip(SYSTEMS, (1.0, 0.6, 0.3, 0.0, -0.6)))
    rows = []
    for i, a in enumerate(SYSTEMS):
        for b in SYSTEMS[i + 1:]:
            n = 400 if (a, b) == ("gpt-x-0314", "llama-z") else 40
            p = 1 / (1 + np.exp(-(theta[a] - theta[b])))
            rows += [(a, b, "model_a" if rng.random() < p else "model_b") for _ in range(n)]
    path = tmp_path_factory.mktemp("uneven") / "battles.csv"
    pd.DataFrame(rows, columns=["model_a", "model_b", "winner"]).to_csv(path, index=False)
    return path


def _report(args, tmp_path):
    out = tmp_path / "r.json"
    result = CliRunner().invoke(cli, ["report", *map(str, args), "-o", str(out), "--model", "bt", "--bootstrap", "60",
                                      "--trials", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())


def _table(report, words):
    for section in report["sections"]:
        for table in section["tables"]:
            if words in table["title"]:
                return section, table
    raise KeyError(words)


def _track(printed):
    (track,) = [k for k in printed if k not in ("(robustness)", "(protocols)", "(heldout)", "(warnings)")]
    return track


def _run(command):
    result = CliRunner().invoke(cli, [*shlex.split(command)[1:], "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_reweighting_and_siblings_in_the_report(uneven, tmp_path):
    report = _report([uneven, "--reweight", "pairs:50", "--provisional", "300", "--siblings", "3"], tmp_path)
    section, ranking = _table(report, "bootstrap resamples")
    assert "--reweight pairs:50" in ranking["command"]
    line = next(n for n in section["notes"] if n.startswith("sampling:"))
    # 10 pairs met of 10; counts 40 (×9) and 400: min 40, median 40, max 400 (gpt-x-0314 – llama-z)
    assert line == ("sampling: 10 of 10 pairs of systems met, comparisons per pair min 40, median 40, max 400 "
                    "(gpt-x-0314 – llama-z)")
    printed = _run(ranking["command"])
    track = _track(printed)
    cli_scores = {r["system"]: r["score"] for r in printed[track]}
    for row in ranking["rows"]:
        assert row["score"] == pytest.approx(cli_scores[row["system"]], abs=1e-6)
    assert any(n.startswith("reweighted: ") for n in section["notes"])
    _, trust = _table(report, "how sure is each rank")
    assert "--provisional 300 --siblings 3" in trust["command"]
    shown = {r["system"]: r for r in _run(trust["command"])[track]}
    for row in trust["rows"]:
        assert row["provisional"] == shown[row["system"]]["provisional"]
        assert row["family"] == shown[row["system"]]["family"]
        assert row["to flip"] == shown[row["system"]].get("to flip")
    flags = {r["system"]: r["provisional"] for r in trust["rows"]}
    # gpt-x-0314 and llama-z meet 400 + 3 × 40 = 520 times, the others 160 (< 300); gpt-x has 3 variants
    assert flags == {"gpt-x-0314": "siblings", "gpt-x-0613": "few comparisons, siblings",
                     "gpt-x-1106": "few comparisons, siblings", "claude-y": "few comparisons",
                     "llama-z": ""}
    assert {r["system"]: r["family"] for r in trust["rows"]}["gpt-x-0613"] == "gpt-x (3)"
    assert "provisional:" in trust["how"]


def test_the_unweighted_ranking_beside_when_the_orders_differ(tmp_path):
    """B beats C 30 of 40 times directly, but C beat A 390 of 400 times and B beat A 22 of 40:
    unweighted, C's 390 wins over A lift it above B (Bradley–Terry: C 1.05, B 0.58); each pair
    weighed alike (pairs:1: every pair counts as one in total), B's direct wins over C decide
    (B 0.44, C 0.33)."""
    rows = ([("B", "C", "model_a")] * 30 + [("B", "C", "model_b")] * 10
            + [("C", "A", "model_a")] * 390 + [("C", "A", "model_b")] * 10
            + [("B", "A", "model_a")] * 22 + [("B", "A", "model_b")] * 18)
    path = tmp_path / "b.csv"
    pd.DataFrame(rows, columns=["model_a", "model_b", "winner"]).to_csv(path, index=False)
    report = _report([path, "--reweight", "pairs:1"], tmp_path)
    section, beside = _table(report, "reweighted beside unweighted")
    frame = pd.DataFrame(beside["rows"]).set_index("system")
    assert frame["rank"].idxmin() == "B" and frame["unweighted rank"].idxmin() == "C"
    assert frame.loc["B", "score"] - frame.loc["C", "score"] == pytest.approx(0.439 - 0.330, abs=0.01)
    assert "--reweight" not in beside["command"]
    unweighted = {r["system"]: r["score"] for r in _run(beside["command"])["(no track)"]}
    for system, score in unweighted.items():
        assert frame.loc[system, "unweighted score"] == pytest.approx(score, abs=1e-6)
    assert any(n.startswith("reweighting moves") or "reweighting moves" in n for n in section["notes"])


def test_without_reweight_the_sampling_line_suggests_it(uneven, tmp_path):
    """400 against a median of 40: ten times, over the factor 2 at which the line names --reweight."""
    report = _report([uneven], tmp_path)
    section, _ = _table(report, "bootstrap resamples")
    line = next(n for n in section["notes"] if n.startswith("sampling:"))
    assert line.startswith("sampling: 10 of 10 pairs of systems met, comparisons per pair min 40, median 40, max 400")
    assert line.endswith("--reweight pairs weighs every pair alike")
    assert not any(n.startswith("reweighted: ") for n in section["notes"])


def test_propensity_and_families_without_siblings_are_refused(uneven, tmp_path):
    for extra, text in ((["--reweight", "propensity"], "propensity"), (["--families", str(uneven)], "--siblings")):
        result = CliRunner().invoke(cli, ["report", str(uneven), "-o", str(tmp_path / "x.json"), *extra])
        assert result.exit_code == 2 and text in result.output, result.output


def test_sampling_options_on_ratings_only_are_refused(tmp_path):
    ratings = tmp_path / "da.csv"
    pd.DataFrame({"item": ["s1", "s2"], "system": ["A", "B"], "judge": "j1", "score": [60.0, 40.0]}).to_csv(
        ratings, index=False)
    for extra in (["--reweight", "pairs"], ["--siblings", "2"], ["--joint", str(ratings)]):
        result = CliRunner().invoke(cli, ["report", str(ratings), "-o", str(tmp_path / "x.json"), *extra])
        assert result.exit_code == 2 and "ratings" in result.output and "comparisons" in result.output, result.output


def test_the_joint_model_in_the_report(tmp_path):
    sim = simulate_two_protocols(n_systems=5, n_comparisons=300, n_ratings=200, random_state=4)
    c, r = sim.comparisons, sim.ratings
    pairs = pd.DataFrame({"model_a": np.array(c.systems)[c.a], "model_b": np.array(c.systems)[c.b],
                          "winner": np.array(["tie", "model_a", "model_b"])[c.outcome]})
    ratings = pd.DataFrame({"item": [f"r{i}" for i in range(len(r))], "system": np.array(r.systems)[r.system],
                            "judge": "j1", "score": r.score, "criterion": "DA"})
    pairs.to_csv(tmp_path / "pairs.csv", index=False)
    ratings.to_csv(tmp_path / "da.csv", index=False)
    report = _report([tmp_path / "pairs.csv", "--joint", tmp_path / "da.csv"], tmp_path)
    section, ranking = _table(report, "joint ranking")
    _, heldout = _table(report, "does joining help")
    printed = _run(ranking["command"])
    track = _track(printed)
    cli_scores = {row["system"]: row["score"] for row in printed[track]}
    assert len(ranking["rows"]) == 5
    for row in ranking["rows"]:
        assert row["score"] == pytest.approx(cli_scores[row["system"]], abs=1e-6)
    cli_heldout = {row["protocol"]: row for row in printed["(heldout)"][track]}
    assert {row["protocol"] for row in heldout["rows"]} == {"comparisons", "DA"}
    for row in heldout["rows"]:
        assert row["gain"] == pytest.approx(cli_heldout[row["protocol"]]["gain"], abs=1e-9)
        assert row["heldout"] == cli_heldout[row["protocol"]]["heldout"]
    for row in heldout["rows"]:  # the verdict follows the gain and its standard error
        word = ("joining helps" if row["gain"] > 2 * row["gain se"] else
                "joining hurts" if row["gain"] < -2 * row["gain se"] else "no clear difference")
        assert any(f"{row['protocol']}: {word} (joint − alone" in line for line in report["summary"]), report["summary"]
        assert row["gain se"] == pytest.approx(cli_heldout[row["protocol"]]["gain se"], abs=1e-9)
    assert any("fewer than 200 comparisons" in n for n in section["notes"])  # 300 over 5 systems: weak


@pytest.mark.parametrize("ending", ["md", "html"])
def test_markdown_and_html_carry_the_same_numbers(uneven, tmp_path, ending):
    """The sampling line, the provisional flags and the JSON's numbers are in the other formats too."""
    report = _report([uneven, "--reweight", "pairs:50", "--provisional", "300"], tmp_path)
    out = tmp_path / f"r.{ending}"
    result = CliRunner().invoke(cli, ["report", str(uneven), "-o", str(out), "--model", "bt", "--bootstrap", "60",
                                      "--trials", "1", "--quiet", "--reweight", "pairs:50", "--provisional", "300"])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert ("sampling: 10 of 10 pairs of systems met, comparisons per pair min 40, median 40, max 400 "
            "(gpt-x-0314 – llama-z)") in text
    _, trust = _table(report, "how sure is each rank")
    assert "few comparisons" in text and "--reweight pairs:50 --provisional 300" in text
    for row in trust["rows"]:
        assert f"{row['score']:.3g}" in text  # the JSON's scores as the tables write them


def test_families_from_a_file(uneven, tmp_path):
    """--families names claude-y and llama-z one family: with --siblings 2 they are flagged, and
    the gpt-x variants, each its own family now (the file does not name them), are not."""
    families = tmp_path / "families.csv"
    families.write_text("system,family\nclaude-y,open\nllama-z,open\n")
    report = _report([uneven, "--siblings", "2", "--families", families], tmp_path)
    _, trust = _table(report, "how sure is each rank")
    rows = {r["system"]: (r["provisional"], r["family"]) for r in trust["rows"]}
    assert rows["claude-y"] == ("siblings", "open (2)") and rows["llama-z"] == ("siblings", "open (2)")
    assert rows["gpt-x-0613"] == ("", "gpt-x-0613 (1)")
    assert f"--siblings 2 --families {families}" in trust["command"] and "from --families" in trust["how"]


def test_ratings_of_other_systems_are_refused_not_read_as_a_verdict(uneven, tmp_path):
    """Ratings that name none of the compared systems: before, rank --joint ranked both groups on
    one board and printed gains of ±1e-8 "more than two 'gain se'" from 0 (the report's "joining
    hurts"); now rank refuses with an input error and the report says why there is no joint model.
    A rating of one compared system is enough to fit (the others are rated-only systems)."""
    ratings = tmp_path / "other.csv"
    pd.DataFrame({"item": [f"s{i}" for i in range(40)], "system": ["A", "B"] * 20, "score": np.arange(40.0),
                  "criterion": "DA"}).to_csv(ratings, index=False)
    result = CliRunner().invoke(cli, ["rank", str(uneven), "--joint", str(ratings)])
    assert result.exit_code != 0 and "this is a bug" not in result.output
    assert "none of the 5 compared systems (they rate A, B)" in result.output
    report = _report([uneven, "--joint", ratings], tmp_path)
    notes = [n for s in report["sections"] for n in s["notes"] if "no joint model" in n]
    assert notes and "none of the 5 compared systems" in notes[0]
    assert not any("joint scale" in line for line in report["summary"])
    pd.DataFrame({"item": [f"s{i}" for i in range(40)], "system": ["A", "claude-y"] * 20, "score": np.arange(40.0),
                  "criterion": "DA"}).to_csv(ratings, index=False)
    assert CliRunner().invoke(cli, ["rank", str(uneven), "--joint", str(ratings)]).exit_code == 0
