"""``humeval metric correlate --average-by/--significance``, ``--mtme`` and ``humeval metric compare``."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.data.readers.mtme import locate, read_mtme
from humeval.errors import InputError
from humeval.metaeval.grouped import correlation
from humeval.metaeval.systems import mean_statistics, paired_test
from humeval.metaeval.ties import pairwise_confidence_error, soft_pairwise_accuracy, tie_calibrated_accuracy

FIXTURES = Path(__file__).parent.parent / "fixtures"


def make_mtme(root: Path, seed: int = 0) -> dict:
    """A test set in mt-metrics-eval's layout (wmt-like/de-en): 4 systems × 12 segments, MQM and
    DA (wmt-z) human scores, two metrics (one QE, "-src"), a doc-level file to skip."""
    rng = np.random.default_rng(seed)
    base = root / "wmt-like"
    for d in ("sources", "references", "system-outputs/de-en", "human-scores", "metric-scores/de-en", "documents"):
        (base / d).mkdir(parents=True)
    n, systems = 12, ["sysA", "sysB", "sysC", "refB"]
    (base / "sources/de-en.txt").write_text("".join(f"satz {i}\n" for i in range(n)))
    (base / "documents/de-en.docs").write_text("".join(f"news doc{i // 4}\n" for i in range(n)))
    (base / "references/de-en.refA.txt").write_text("".join(f"sentence {i}\n" for i in range(n)))
    human = rng.normal(size=(len(systems), n))
    good = human + rng.normal(0, 0.3, human.shape)
    poor = human + rng.normal(0, 2.0, human.shape)
    human[0, 3] = np.nan  # an unscored segment

    def block(matrix):
        return "".join(f"{s} {'None' if np.isnan(v) else round(v, 6)}\n" for s, row in zip(systems, matrix) for v in row)
    for k, s in enumerate(systems):
        (base / f"system-outputs/de-en/{s}.txt").write_text("".join(f"out {k} {i}\n" for i in range(n)))
    (base / "human-scores/de-en.mqm.seg.score").write_text(block(human))
    (base / "human-scores/de-en.wmt-z.seg.score").write_text(block(-human))
    (base / "human-scores/de-en.mqm.doc.score").write_text("sysA 1\n")
    (base / "metric-scores/de-en/Good-metric-refA.seg.score").write_text(block(good))
    (base / "metric-scores/de-en/Poor-src.seg.score").write_text(block(poor))
    return {"human": np.round(human, 6), "good": np.round(good, 6), "poor": np.round(poor, 6), "systems": systems}


def test_locate_and_documents(tmp_path):
    make_mtme(tmp_path)
    assert locate(tmp_path, "wmt-like/de-en") == (tmp_path / "wmt-like", "de-en")
    assert locate(tmp_path, "de-en") == (tmp_path / "wmt-like", "de-en")  # the only test set with de-en
    data = read_mtme(tmp_path, "de-en")
    assert data.documents[:5] == ["doc0", "doc0", "doc0", "doc0", "doc1"]
    assert set(data.metrics) == {("Good-metric", "refA", "seg"), ("Poor", "src", "seg")}
    with pytest.raises(InputError, match="no test sets with fr-en"):
        locate(tmp_path, "fr-en")


def test_correlate_mtme_matches_library(tmp_path):
    truth = make_mtme(tmp_path)
    result = CliRunner().invoke(cli, ["metric", "correlate", "--mtme", str(tmp_path / "wmt-like"), "--lp", "de-en",
                                      "--average-by", "item", "--significance", "bootstrap", "--statistic", "acc_eq",
                                      "--test-resamples", "200", "--spa", "--pce", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    rows = {r["metric"]: r for r in payload["metrics"]}
    assert payload["notes"][0] == "human scores: de-en.mqm.seg.score"  # MQM preferred over wmt-z
    for name, key in (("Good-metric", "good"), ("Poor", "poor")):
        assert rows[name]["pearson"] == pytest.approx(correlation(truth["human"], truth[key], "pearson", "item"))
        assert rows[name]["acc_eq"] == pytest.approx(tie_calibrated_accuracy(truth["human"], truth[key], "item")[0])
        assert rows[name]["spa"] == pytest.approx(soft_pairwise_accuracy(truth["human"], truth[key], 200, 0))
        assert rows[name]["pce"] == pytest.approx(pairwise_confidence_error(truth["human"], truth[key], 200, 0))
        assert rows[name]["pce"] == pytest.approx(1 - rows[name]["spa"])
    assert rows["Good-metric"]["rank"] == 1 and payload["metrics"][0]["metric"] == "Good-metric"
    assert payload["pvalues"][0]["Poor"] < 0.05  # Good-metric row: better than Poor


def test_correlate_option_checks(tmp_path):
    make_mtme(tmp_path)
    runner = CliRunner()
    result = runner.invoke(cli, ["metric", "correlate", "--mtme", str(tmp_path), "--lp", "de-en", "--human-name", "esa"])
    assert result.exit_code != 0 and "human scores here: mqm, wmt-z" in result.output
    result = runner.invoke(cli, ["metric", "correlate", "--mtme", str(tmp_path), "--lp", "de-en", "--resamples", "50"])
    assert result.exit_code != 0 and "--significance" in result.output
    result = runner.invoke(cli, ["metric", "correlate", "--mtme", str(tmp_path), "--lp", "de-en", "--level", "sys"])
    assert result.exit_code != 0 and "no sys-level human scores" in result.output
    result = runner.invoke(cli, ["metric", "correlate", "--mtme", str(tmp_path), "--lp", "de-en", "--alpha", "1.5"])
    assert result.exit_code == 2 and "--alpha" in result.output
    result = runner.invoke(cli, ["metric", "correlate", "--mtme", str(tmp_path)])
    assert result.exit_code != 0 and "--lp" in result.output


def test_compare_scores_file_matches_library(tmp_path):
    truth = make_mtme(tmp_path)
    path = tmp_path / "wmt-like/metric-scores/de-en/Good-metric-refA.seg.score"
    result = CliRunner().invoke(cli, ["metric", "compare", "--scores", str(path), "--baseline", "sysA",
                                      "--test", "ar", "--test-resamples", "500", "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["system"]: r for r in json.loads(result.output)["comparisons"]}
    assert set(rows) == {"sysB", "sysC", "refB"}
    k = truth["systems"].index("sysC")
    stats_a, score = mean_statistics(truth["good"][0])
    expected = paired_test(stats_a, mean_statistics(truth["good"][k])[0], score, "ar", 500, 12345)
    assert rows["sysC"]["p"] == pytest.approx(expected.p_value)
    assert rows["sysC"]["score"] == pytest.approx(truth["good"][k].mean())


def test_compare_texts(tmp_path):
    ref = ["the cat sat on the mat", "a dog ran fast", "the house is big", "red and blue"] * 5
    (tmp_path / "ref.txt").write_text("\n".join(ref) + "\n")
    (tmp_path / "base.txt").write_text("\n".join("the the the" for _ in ref) + "\n")
    (tmp_path / "good.txt").write_text("\n".join(ref) + "\n")
    result = CliRunner().invoke(cli, ["metric", "compare", "--baseline", str(tmp_path / "base.txt"), "--system",
                                      str(tmp_path / "good.txt"), "--ref", str(tmp_path / "ref.txt"), "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["comparisons"]
    assert [r["metric"] for r in rows] == ["bleu", "chrf", "ter"]
    assert rows[0]["score"] == pytest.approx(100.0) and all(r["significant"] for r in rows)
    (tmp_path / "short.txt").write_text("one line\n")
    result = CliRunner().invoke(cli, ["metric", "compare", "--baseline", str(tmp_path / "base.txt"), "--system",
                                      str(tmp_path / "short.txt"), "--ref", str(tmp_path / "ref.txt")])
    assert result.exit_code != 0 and "1 lines" in result.output
    result = CliRunner().invoke(cli, ["metric", "compare", "--baseline", "x"])
    assert result.exit_code != 0 and "exactly one of --ref" in result.output


def test_compare_ratings(tmp_path):
    rows = ["system,item,judge,score"]
    rng = np.random.default_rng(1)
    for i in range(40):
        for s, shift in (("A", 0), ("B", 15), ("C", 1)):
            for j in ("j1", "j2"):
                rows.append(f"{s},{i},{j},{min(100, max(0, 50 + shift + rng.normal(0, 10))):.1f}")
    (tmp_path / "da.csv").write_text("\n".join(rows) + "\n")
    result = CliRunner().invoke(cli, ["metric", "compare", "--ratings", str(tmp_path / "da.csv"), "--baseline", "A",
                                      "--json"])
    assert result.exit_code == 0, result.output
    out = {r["system"]: r for r in json.loads(result.output)["comparisons"]}
    assert out["B"]["p"] < 0.01 and out["C"]["p"] > 0.05
    assert out["B"]["Δ"] > 0


def test_wmt20_de_en_grouped_and_tie_calibrated():
    """The README's WMT20 de-en figures: the CLI's item- and system-averaged Pearson equal a pandas
    groupby; at system level (no ties) acc_eq at ε = 0 is Kocmi et al.'s pairwise accuracy."""
    from conftest import shared_file

    from humeval.metaeval import read_da_scores, read_metric_scores
    root = shared_file("wmt20-metrics-de-en")
    _, human = read_da_scores(root / "manual-evaluation/ad-seg-scores-de-en.csv", root / "input/de-en.details.txt")
    _, _, chrf = read_metric_scores(root / "seg-level/chrF.seg.score.de-en.tsv")
    df = pd.concat({"h": human, "m": chrf}, axis=1).dropna()
    for level, by in (("item", "item"), ("system", "system")):
        expected = df.groupby(level=by).apply(lambda g: g.h.corr(g.m) if len(g) > 2 else np.nan).mean()
        result = CliRunner().invoke(cli, ["metric", "correlate", str(root / "seg-level/chrF.seg.score.de-en.tsv"),
                                          "--human", str(root / "manual-evaluation/ad-seg-scores-de-en.csv"),
                                          "--details", str(root / "input/de-en.details.txt"),
                                          "--average-by", level, "--json"])
        assert result.exit_code == 0, result.output
        row = json.loads(result.output)["metrics"][0]
        assert row["pearson"] == pytest.approx(expected)
        assert row["pearson"] == pytest.approx({"item": 0.556, "system": 0.190}[level], abs=5e-4)
    sys_files = sorted(str(p) for p in (root / "sys-level").glob("*.tsv"))[:6]
    result = CliRunner().invoke(cli, ["metric", "correlate", *sys_files, "--human",
                                      str(root / "manual-evaluation/ad-sys-scores-de-en.csv"), "--json"])
    rows = json.loads(result.output)["metrics"]
    assert all(r["acc_eq"] == pytest.approx(r["pairwise accuracy"]) and r["ε"] == 0 for r in rows)
