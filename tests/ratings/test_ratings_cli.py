"""``humeval rank`` on ratings files: the WMT-style table, outputs, and one-line errors."""

import json

import numpy as np
import pandas as pd
from click.testing import CliRunner

from humeval.cli import cli


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def da_file(tmp_path, extra=()):
    """Three systems of clearly different quality, 30 segments, 6 annotators with their own bias."""
    rng = np.random.default_rng(0)
    rows = []
    for i in range(30):
        for s, quality in (("good", 80), ("mid", 60), ("bad", 30)):
            for j in rng.choice(6, 2, replace=False):
                rows.append((f"seg{i}", s, f"ann{j}", float(np.clip(quality + 5 * j + rng.normal(0, 8), 0, 100))))
    rows += list(extra)
    path = tmp_path / "da.csv"
    pd.DataFrame(rows, columns=["item", "system", "judge", "score"]).to_csv(path, index=False)
    return path


def test_rank_ratings_prints_wmt_table_and_writes_outputs(tmp_path):
    path = da_file(tmp_path)
    result = run("rank", path, "--bootstrap", 50, "--out", tmp_path / "r.csv", "--heatmap", tmp_path / "h.png",
                 "--plot", tmp_path / "p.png")
    assert result.exit_code == 0, result.output
    assert "z-mean (180 ratings), clusters by wilcoxon" in result.output
    assert "one-sided Wilcoxon rank-sum on segment scores (WMT)" in result.output
    table = pd.read_csv(tmp_path / "r.csv")
    assert table["system"].tolist() == ["good", "mid", "bad"] and table["cluster"].tolist() == [1, 2, 3]
    assert {"segments", "ratings", "raw", "z", "lo", "hi", "wins", "cluster", "track"} <= set(table.columns)
    assert (tmp_path / "h.png").stat().st_size > 1000 and (tmp_path / "p.png").exists()


def test_rank_ratings_json_with_paired_test_and_correction(tmp_path):
    result = run("rank", da_file(tmp_path), "--model", "raw", "--significance", "permutation",
                 "--correction", "holm", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    (track,) = data.values()
    assert track["model"] == "raw" and track["test"] == "permutation"
    assert [r["system"] for r in track["table"]] == ["good", "mid", "bad"]
    assert track["pvalues"][0]["mid"] < 0.05 and track["pvalues"][2]["good"] == 1
    assert any("Holm" in n for n in track["notes"])


def test_rank_ratings_errors_are_one_line(tmp_path):
    path = da_file(tmp_path, extra=[("seg0", "good", "ann0", 140.0)])
    result = run("rank", path, "--scale", "0,100")
    assert result.exit_code == 2 and "outside the declared scale 0 to 100" in result.output
    assert "system good, segment seg0: 140" in result.output and "Traceback" not in result.output
    result = run("rank", da_file(tmp_path), "--model", "bt")
    assert result.exit_code == 2 and "'bt' ranks comparisons; for ratings choose one of" in result.output


def test_rank_mqm_file_defaults_to_mqm(fixture):
    result = run("rank", fixture("mqm_avg_small.tsv"), "--json")
    assert result.exit_code == 0, result.output
    (track,) = json.loads(result.output).values()
    assert track["model"] == "mqm"


def test_rank_counts_a_system_rated_on_one_segment(tmp_path):
    path = da_file(tmp_path, extra=[("seg0", "lonely", "ann0", 50.0)])
    result = run("rank", path, "--model", "raw")
    assert result.exit_code == 0, result.output
    assert "skipped 1 systems rated on fewer than 2 segments, left out: lonely (1 segment)" in result.output
