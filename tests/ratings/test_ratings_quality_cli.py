"""``humeval judges`` on ratings files: WMT's annotator quality control when the file has controls,
the drop list that feeds ``rank --drop-judges``, and generic judge quality otherwise."""

import json

import numpy as np
import pandas as pd
from click.testing import CliRunner

from humeval.cli import cli
from humeval.simulate.ratings import simulate_ratings

HEADER = "HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time"


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def campaign(tmp_path):
    """A simulated DA campaign written as a WMT per-annotator file; 4 of 20 annotators click at random."""
    sim = simulate_ratings(n_systems=4, n_items=15, n_judges=20, n_ratings=8000, bad_ref=0.1, repeat=0.05,
                           random_judges=0.2, random_state=1)
    df = sim.ratings.to_pandas()
    lines = [HEADER] + ["\t".join(["H", r.judge, "de", "en", "1", "1", r.system, "r", r.kind, r.item,
                                   f"{r.score:.0f}", "9"]) for r in df.itertuples()]
    path = tmp_path / "ad-good-raw.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, sorted(map(str, sim.truth.random_judges))


def test_judges_lists_failing_annotators_and_the_drop_list_feeds_rank(tmp_path):
    path, planted = campaign(tmp_path)
    drop = tmp_path / "failed.txt"
    result = run("judges", path, "--drop-list", drop, "--all")
    assert result.exit_code == 0, result.output
    assert "annotators: 16 pass, 4 fail, 0 no pairs" in result.output and "Wilcoxon signed-rank" in result.output
    assert sorted(drop.read_text().split()) == planted
    data = json.loads(run("judges", path, "--json").output)
    assert sorted(data["flagged"]) == planted
    ranked = run("rank", path, "--drop-judges", drop, "--json")
    assert ranked.exit_code == 0, ranked.output
    table = pd.DataFrame(json.loads(ranked.stdout)["de-en"]["table"])
    full = pd.DataFrame(json.loads(run("rank", path, "--json").stdout)["de-en"]["table"])
    judges = pd.DataFrame(data["judges"])
    gone = judges.loc[judges["flag"] == "fail", "ratings"].sum()
    assert gone > 1000 and table["ratings"].sum() == full["ratings"].sum() - gone  # the failing annotators' ratings


def test_no_controls_falls_back_to_generic_judge_quality(tmp_path):
    path, _ = campaign(tmp_path)
    result = run("judges", path, "--no-controls", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert "kappa" in pd.DataFrame(data["judges"]).columns
    refused = run("judges", path, "--no-controls", "--alpha", "0.01")
    assert refused.exit_code == 2 and "--alpha does nothing with --no-controls" in refused.output


def test_controls_asked_for_on_a_file_without_them_says_so(tmp_path):
    rng = np.random.default_rng(0)
    rows = [(f"s{i}", s, f"a{j}", float(rng.integers(0, 101))) for i in range(20) for s in "AB" for j in range(3)]
    path = tmp_path / "r.csv"
    pd.DataFrame(rows, columns=["item", "system", "judge", "score"]).to_csv(path, index=False)
    result = run("judges", path, "--controls")
    assert result.exit_code == 0, result.output
    assert "marks no degraded-reference (BAD_REF) or repeat items" in " ".join(result.stderr.split())  # wrapped
    assert "least reliable first" in " ".join(result.stdout.split())  # the title wraps with a long path


def test_alpha_is_checked():
    result = run("judges", "x.csv", "--alpha", "1.5")
    assert result.exit_code == 2 and "--alpha" in result.output


def test_report_on_a_da_campaign_has_the_controls_and_the_ratings_ranking(tmp_path):
    path, planted = campaign(tmp_path)
    out = tmp_path / "report.json"
    result = run("report", path, "-o", out, "--bootstrap", 50, "--quiet")
    assert result.exit_code == 0, result.output
    text = out.read_text()
    for title in ("Ratings: annotators and their quality controls", "Ratings: which model predicts unseen ratings best",
                  "de-en: ranking from ratings", "Ratings: completing missing ratings"):
        assert title in text
    assert "4 of 20 annotators with degraded-reference pairs fail WMT's quality control." in text
    assert all(judge in text for judge in planted)
