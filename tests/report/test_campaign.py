import json
import shlex

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.data.export import write, pairwise_frame
from humeval.data.judgments import Judgments, ReadReport
from humeval.report import build_report, to_html, to_json, to_markdown
from humeval.report.campaign import command, perplexity_gaps, perplexity_verdict, report_settings
from humeval.report.render import number
from humeval.simulate import simulate_competition

MODELS = "bt,davidson,independent-pairs"


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    sim = simulate_competition(n_systems=6, n_items=150, n_judges=8, n_judgments=400, design="rankings",
                               random_judges=0.25, random_state=3)
    path = tmp_path_factory.mktemp("campaign") / "campaign.csv"
    write(pairwise_frame(sim.comparisons), path)
    return path


@pytest.fixture(scope="module")
def report_json(campaign, tmp_path_factory):
    out = tmp_path_factory.mktemp("out") / "r.json"
    result = CliRunner().invoke(cli, ["report", str(campaign), "-o", str(out), "--model", MODELS, "--bootstrap", "60",
                                      "--trials", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())


def table(report, title_part):
    for section in report["sections"]:
        for t in section["tables"]:
            if title_part in t["title"]:
                return t
    raise KeyError(title_part)


def cli_json(*args):
    result = CliRunner().invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_report_tables_equal_the_cli_commands(campaign, report_json):
    """A sample of tables against the commands each names: perplexity, ranking, agreement, judges."""
    curve = table(report_json, "Mean test perplexity")
    assert "--min-test" in curve["command"]
    args = shlex.split(curve["command"])[2:]
    mean = {row["model"]: row for row in cli_json("compare-models", *args)["mean_perplexity"]}
    largest = args[args.index("--sizes") + 1].split(",")[-1]
    assert int(largest) < 3200  # the training part is smaller: the curve stops at its size
    for row in curve["rows"]:
        assert row[largest] == pytest.approx(mean[row["model"]][largest], rel=1e-12)
    ranking = table(report_json, "bootstrap resamples")
    chosen = ranking["command"].split("--model ")[1].split()[0]
    assert chosen == curve["rows"][0]["model"]  # the recommended model is the best by perplexity
    wmt = cli_json("rank", str(campaign), "--model", chosen, "--bootstrap", "60", "--random-state", "0")
    (rows,) = wmt.values()
    by_system = {r["system"]: r for r in rows}
    for row in ranking["rows"]:
        assert row["score"] == pytest.approx(by_system[row["system"]]["score"])
        assert row["lower"] == pytest.approx(by_system[row["system"]]["lower"])
        assert row["cluster"] == by_system[row["system"]]["cluster"]
    agreement = cli_json("agreement", str(campaign))
    (records,) = agreement.values()
    shown = table(report_json, "agreement")["rows"]
    assert [r["kappa"] for r in shown] == pytest.approx([r["kappa"] for r in records])
    judges = cli_json("judges", str(campaign))
    assert [r["judge"] for r in table(report_json, "Judge quality")["rows"]] == [r["judge"] for r in judges["judges"]][:25]


def test_html_is_self_contained_with_figures(campaign):
    sim = simulate_competition(n_systems=5, n_items=80, n_judges=6, n_judgments=200, design="rankings", random_state=1)
    judgments = Judgments(ReadReport("sim", "simulation"), rankings=sim.rankings, comparisons=sim.comparisons)
    steps = []
    report = build_report(judgments, "sim", ("bt", "independent-pairs"), n_boot=30, trials=1, progress=steps.append)
    page = to_html(report)
    assert page.count("<img src='data:image/png;base64,") == 3  # learning curves, scores, heatmap
    assert "http://" not in page and "https://" not in page and "<script" not in page
    assert "Hopkins" in page and "Same numbers: <code>humeval rank sim" in page
    assert steps[0] == "describing the data" and any("bootstrap" in s for s in steps)
    md = to_markdown(report)
    assert md.startswith("# humeval report: sim") and "| model |" in md
    data = json.loads(to_json(report))
    assert [s["title"] for s in data["sections"]][:2] == ["The data", "Which model to trust: held-out perplexity"]


def test_settings_follow_the_data():
    small = simulate_competition(n_systems=4, n_judgments=300, design="pairs", random_state=0).comparisons
    assert report_settings(small)["min_test"] == 100
    big = simulate_competition(n_systems=4, n_judgments=4000, design="pairs", random_state=0).comparisons
    assert report_settings(big)["min_test"] == 2000


def test_report_errors(tmp_path, campaign):
    bad = CliRunner().invoke(cli, ["report", str(campaign), "-o", str(tmp_path / "r.html"), "--model", "bojar"])
    assert bad.exit_code == 2 and "perplexity" in bad.output
    bad = CliRunner().invoke(cli, ["report", str(campaign), "-o", str(tmp_path / "r.html"), "--metric-scores", str(campaign)])
    assert bad.exit_code == 2 and "--human" in bad.output


def test_demo_writes_the_report(tmp_path):
    out = tmp_path / "demo.md"
    result = CliRunner().invoke(cli, ["demo", "--judgments", "150", "--systems", "5", "--report", str(out)])
    assert result.exit_code == 0, result.output
    assert "flagged" in result.output and str(out.resolve()) in result.output.replace("\n", "")
    data = tmp_path / "demo.judgments.csv"
    assert out.read_text().startswith(f"# humeval report: {data}")
    assert f"Same numbers: `humeval info {data}`" in out.read_text()
    assert "simulated (rankings, seed 0)" in out.read_text()  # the simulation is named in the data notes
    # the terminal ranking and the report's ranking use one model, and the terminal says which (issue 27)
    as_json = CliRunner().invoke(cli, ["demo", "--judgments", "150", "--systems", "5", "--report",
                                       str(tmp_path / "d.json"), "--json"])
    model = json.loads(as_json.stdout)["model"]
    report = json.loads((tmp_path / "d.json").read_text())
    assert any(s.startswith(f"simulated: ") and "clusters" in s for s in report["summary"])
    ranking = [s["title"] for s in report["sections"] if s["title"].endswith(": ranking")]
    tables = [t["title"] for s in report["sections"] for t in s["tables"] if s["title"] in ranking]
    assert tables and tables[0].startswith(f"simulated: {model} with 1,000 bootstrap resamples")
    # the terminal says whether the report singled that model out, as the report's summary does
    recommended = any(line.startswith("Recommended model:") for line in report["summary"])
    assert any(line.startswith("No model recommended") or line.startswith("No model is recommended")
               for line in report["summary"]) is not recommended
    said = " ".join(result.output.split())
    assert f"simulated: systems by {model} (the report's {'model' if recommended else 'ranking model, not a'}" in said
    # and the report's bootstrap rank ranges and clusters, so close systems are not shown as ordered
    standings = json.loads(as_json.stdout)["standings"]["simulated"]
    table = next(t for s in report["sections"] for t in s["tables"] if s["title"] in ranking)
    assert {r["system"]: (r["rank"], r["cluster"]) for r in standings} == {
        r["system"]: (r["rank"], r["cluster"]) for r in table["rows"]}


def test_demo_report_commands_print_the_same_numbers(tmp_path, monkeypatch):
    """The demo's report names commands on the simulated file written beside it; run them all."""
    runner = CliRunner()
    monkeypatch.chdir(tmp_path)  # the report names its data file relative to here
    result = runner.invoke(cli, ["demo", "--judgments", "300", "--systems", "6", "--items", "150",
                                 "--report", "r.json", "--quiet"])
    assert result.exit_code == 0, result.output
    report = json.loads(open("r.json").read())
    commands = [t["command"] for s in report["sections"] for t in s["tables"]]
    assert commands and all(shlex.split(c)[2] == "r.judgments.csv" for c in commands)

    def run(title_part):
        args = shlex.split(table(report, title_part)["command"])
        assert args[0] == "humeval"
        ran = runner.invoke(cli, [*args[1:], "--json"])
        assert ran.exit_code == 0, ran.output
        return json.loads(ran.output)

    info = run("comparisons")
    assert info["comparisons"][0]["comparisons"] == table(report, "comparisons")["rows"][0]["comparisons"]
    curve = table(report, "Mean test perplexity")
    mean = {row["model"]: row for row in run("Mean test perplexity")["mean_perplexity"]}
    words = shlex.split(curve["command"])
    largest = words[words.index("--sizes") + 1].split(",")[-1]
    assert int(largest) < 3200  # the training part is smaller: the curve stops at its size
    for row in curve["rows"]:
        assert row[largest] == pytest.approx(mean[row["model"]][largest], rel=1e-12)
    (rows,) = run("bootstrap resamples").values()
    shown = table(report, "bootstrap resamples")["rows"]
    assert rows[0]["system"] == shown[0]["system"]  # the top system
    assert [r["score"] for r in rows] == pytest.approx([r["score"] for r in shown])
    (ranks,) = run("rank by every model").values()
    # the command's rows also carry its reproducibility signature, which the report's table does not
    assert {r["system"]: {k: v for k, v in r.items() if k != "signature"} for r in ranks} == \
        {r["system"]: r for r in table(report, "rank by every model")["rows"]}
    assert [r["judge"] for r in run("Judge quality")["judges"]][:25] == \
        [r["judge"] for r in table(report, "Judge quality")["rows"]]
    (agreement,) = run("agreement").values()
    assert [r["kappa"] for r in agreement] == pytest.approx([r["kappa"] for r in table(report, "agreement")["rows"]])


def test_commands_repeat_the_reading_options():
    assert command("rank", "my file.csv", "--model", "bt", read_args=["--format", "pairwise"], tracks=["cs-en"]) == \
        "humeval rank 'my file.csv' --model bt --format pairwise --track cs-en"


def learning_curve_table(differences: dict[str, list[float]]) -> pd.DataFrame:
    """A learning-curve table at size 3200 for model "best" (2.5, 2.502, 2.498 per trial, split
    over two tracks ±0.01) and models trailing it by the given per-trial differences."""
    base = [2.5, 2.502, 2.498]
    rows = []
    for model, diff in {"best": [0.0, 0.0, 0.0], **differences}.items():
        for trial, (b, d) in enumerate(zip(base, diff)):
            for track, offset in (("x", -0.01), ("y", 0.01)):
                rows.append({"model": model, "size": 3200, "trial": trial, "track": track, "perplexity": b + d + offset})
                rows.append({"model": model, "size": 400, "trial": trial, "track": track, "perplexity": 9.0})
    return pd.DataFrame(rows)


def test_a_gap_within_the_trial_spread_is_indistinguishable():
    curve = learning_curve_table({"close": [0.0006, -0.0004, 0.0016], "far": [0.05, 0.06, 0.055]})
    gaps = perplexity_gaps(curve, 3200)
    assert list(gaps.index) == ["best", "close", "far"]
    assert gaps.loc["close", "gap"] == pytest.approx(0.0006)
    assert gaps.loc["close", "spread"] == pytest.approx(np.std([0.0006, -0.0004, 0.0016], ddof=1))  # 0.001
    assert gaps.loc["far", "gap"] == pytest.approx(0.055) and gaps.loc["far", "spread"] == pytest.approx(0.005)
    assert gaps["indistinguishable"].tolist() == [True, True, False]
    verdict = perplexity_verdict(gaps)
    assert verdict.startswith("best and close are indistinguishable") and "0.0006 is within" in verdict
    assert "far" not in verdict
    # the same gap in every trial (spread 0.0002 < gap 0.0006) is a real difference
    steady = perplexity_verdict(perplexity_gaps(learning_curve_table({"steady": [0.0004, 0.0006, 0.0008]}), 3200))
    assert steady == ("best predicts held-out judgments best (2.500); the runner-up steady (2.501) is 0.0006 behind, "
                      "beyond the spread of the per-trial differences (0.0002 over 3 trials)")
    one = perplexity_verdict(perplexity_gaps(learning_curve_table({"far": [0.05, 0.06, 0.055]}).query("trial == 0"),
                                             3200))
    assert "one trial gives no spread" in one


def test_numbers_are_written_one_way():
    assert [number(2.47951, "decimal"), number(0.14775, "percent"), number(1.15920, "score"), number(-0.0755868),
            number(12345.6), number(20000), number(float("nan")), number(3.5e-4, "p"), number(1e-7, "p")] == \
        ["2.480", "14.8%", "1.16", "-0.0756", "12,346", "20,000", "–", "0.00035", "< 0.0001"]


def test_report_tables_use_one_precision(campaign, tmp_path):
    out = tmp_path / "r.md"
    result = CliRunner().invoke(cli, ["report", str(campaign), "-o", str(out), "--model", MODELS, "--bootstrap", "30",
                                      "--trials", "2", "--quiet"])
    assert result.exit_code == 0, result.output
    md = out.read_text()
    lines = md.splitlines()
    perplexity = lines[next(i for i, line in enumerate(lines) if line.startswith("| model | 400 | ")) + 2]
    assert all(len(cell.split(".")[1]) == 3 for cell in perplexity.strip("| ").split(" | ")[1:])
    data = lines[lines.index("| track | systems | judges | items | comparisons | ties | tie rate | pairs skipped |") + 2]
    assert data.split(" | ")[6].endswith("%")  # the tie rate as a percentage
    kappa_row = next(line for line in lines if line.startswith("| simulated / rankings / inter"))
    assert all(len(c.split(".")[1]) == 3 for c in kappa_row.strip("| ").split(" | ")[1:4])  # P(A), P(E), kappa


def test_report_commands_carry_the_reading_options(campaign, tmp_path):
    out = tmp_path / "r.json"
    result = CliRunner().invoke(cli, ["report", str(campaign), "--format", "pairwise", "--track", "simulated", "-o",
                                      str(out), "--model", "bt,davidson", "--bootstrap", "30", "--trials", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert table(report, "comparisons")["command"] == f"humeval info {campaign} --format pairwise --track simulated"
    assert table(report, "bootstrap resamples")["command"].endswith("--format pairwise --track simulated")
    # one trial has no spread, but the test set does: a gap within its noise recommends no model (issue 27)
    assert report["summary"][0].startswith("No model is recommended over the others: davidson and bt are indistinguishable")


def test_report_metric_table_has_the_clusters(tmp_path, campaign):
    """The metrics table carries WMT's significance clusters (rank) and wins, equal to what the
    command it names prints (``metric correlate --significance permutation --test-resamples 200``)."""
    systems = [f"sys{k}" for k in range(8)]
    human = np.linspace(-1, 1, len(systems))
    rng = np.random.default_rng(0)
    files = []
    for name, noise in (("Good", 0.02), ("Fair", 0.4), ("Poor", 3.0)):
        values = human + rng.normal(0, noise, len(systems))
        files.append(tmp_path / f"{name}.sys.score")
        files[-1].write_text("".join(f"{name}\tde-en\tt\tt\t{s}\t{v}\n" for s, v in zip(systems, values)))
    (tmp_path / "sys.csv").write_text("RAW.SCR Z.SCR N SYS N.ALL\n"
                                      + "".join(f"0 {h} 1 {s} 1\n" for s, h in zip(systems, human)))
    out = tmp_path / "r.json"
    result = CliRunner().invoke(cli, ["report", str(campaign), "-o", str(out), "--model", "bt", "--bootstrap", "20",
                                      "--trials", "1", "--quiet", "--human", str(tmp_path / "sys.csv"),
                                      *[a for f in files for a in ("--metric-scores", str(f))]])
    assert result.exit_code == 0, result.output
    shown = table(json.loads(out.read_text()), "correlation with sys.csv")
    assert shown["command"].endswith("--significance permutation --test-resamples 200 --random-state 0")
    printed = {r["metric"]: r for r in cli_json(*shlex.split(shown["command"])[1:])["metrics"]}
    assert [r["metric"] for r in shown["rows"]] == list(printed)  # same order: best first
    for row in shown["rows"]:
        assert (row["rank"], row["wins"]) == (printed[row["metric"]]["rank"], printed[row["metric"]]["wins"])
        assert row["pearson"] == pytest.approx(printed[row["metric"]]["pearson"])
    assert [r["rank"] for r in shown["rows"]][0] == 1 and max(r["rank"] for r in shown["rows"]) > 1


def test_the_headline_names_the_best_system_not_the_reference():
    from humeval.report.campaign import headline
    assert headline(["_ref", "onlineB", "cu-zeman"]) == "onlineB the best of 2 systems, below the human reference _ref"
    assert headline(["onlineB", "Human", "cu-zeman"]) == "onlineB first of 3"
    assert headline(["sys01", "sys02"]) == "sys01 first of 2"


def test_a_gap_within_the_test_sets_noise_is_not_recommended():
    """Issue 27: a steady 0.0006 gap over three trials passed the trial test; paired over the test
    comparisons it is within noise, so the verdict calls the models indistinguishable."""
    from humeval.report.verdict import paired_verdict, verdict_lines
    rng = np.random.default_rng(0)
    n = 2000
    best = rng.exponential(1.3, n)  # per-comparison losses in bits
    losses = pd.DataFrame({"best": best, "steady": best + 0.0004 + rng.normal(0, 0.05, n),
                           "far": best + 0.2 + rng.normal(0, 0.05, n), "track": "x", "unit": np.arange(n) // 10})
    paired = paired_verdict(losses, "best")
    d = losses["steady"] - losses["best"]
    # the clustered SE by hand: G/(G − 1) Σ_g (Σ_{i∈g} (d_i − d̄))² / n², G = 200 units of 10
    sums = (d - d.mean()).groupby(losses["unit"]).sum()
    se = np.sqrt(200 / 199 * (sums ** 2).sum()) / n
    assert paired.loc["steady", "bits"] == pytest.approx(d.mean()) and paired.loc["steady", "se"] == pytest.approx(se)
    assert paired.loc["steady", "low"] == pytest.approx(d.mean() - 1.959964 * se, rel=1e-6)
    assert paired["distinguishable"].tolist() == [False, False, True]
    lines = verdict_lines(paired)
    assert lines[1].startswith("steady: indistinguishable from best (") and lines[2].startswith(
        "far: distinguishable from best (0.2")
    gaps = perplexity_gaps(learning_curve_table({"steady": [0.0004, 0.0006, 0.0008]}), 3200)
    text = perplexity_verdict(gaps, paired.loc[["best", "steady"]])
    assert text.startswith("best and steady are indistinguishable by held-out perplexity (2.500 vs 2.501: paired over "
                           "2,000 test comparisons") and "which holds 0" in text


def test_a_report_on_two_comparisons_says_it_cannot_choose_a_model(tmp_path):
    # issue 27's fuzz corpus: `report` on a 2-row file reached the "bug" line (a learning curve on
    # a held-out set of one comparison)
    data = tmp_path / "two.csv"
    data.write_text("model_a,model_b,winner\nA,B,model_a\nB,C,model_b\n")
    result = CliRunner().invoke(cli, ["report", str(data), "-o", str(tmp_path / "r.json"), "--bootstrap", "20"])
    assert result.exit_code == 0 and "bug in humeval" not in result.output, result.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert any("too few judgments to choose a model: the smallest track holds 2 comparisons" in line
               for line in report["summary"])
