"""``humeval metric correlate`` against WMT20's published system-level figures (de-en) and the
outlier rule and reference choice those figures depend on."""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.metaeval import kendall_like, outlier_systems, read_metric_scores
from humeval.metaeval.table import darr_comparisons

# WMT-Metrics-task/wmt20-metrics, commit 62ae7dd6068c05389bf735323d9dc37717acb9b0, results/tables/, de-en column
# (the LaTeX tables of Mathur et al. 2020), rounded there to 3 decimals. Pearson r with the DA z-scores of the
# 12 MT systems (Human-A/B/P left out) and of the 9 left after the 3 outliers.
PEARSON_ALL = {  # tbl-DA-Pearson-MTall-exclhuman-toen.tex
    "BERT-base-L2": 0.997, "BERT-large-L2": 0.990, "BLEU": 0.985, "BLEURT": 0.996, "BLEURT-extended": 0.985,
    "CharacTER": 0.998, "chrF": 0.997, "chrF++": 0.997, "COMET": 0.998, "COMET-2R": 0.998, "COMET-HTER": 0.995,
    "COMET-MQM": 0.991, "COMET-QE": 0.939, "COMET-Rank": 0.964, "EED": 0.997, "esim": 0.998, "mBERT-L2": 0.995,
    "MEE": 0.995, "OpenKiwi-Bert": 0.989, "OpenKiwi-XLMR": 0.995, "parbleu": 0.986, "parchrf++": 0.998,
    "paresim-1": 0.998, "prism": 0.998, "sentBLEU": 0.978, "TER": 0.993, "YiSi-0": 0.998, "YiSi-1": 0.998,
    "YiSi-2": 0.988}
PEARSON_NO_OUTLIERS = {  # tbl-DA-Pearson-MTexcloutl-exclhuman-toen.tex
    "BERT-base-L2": 0.791, "BERT-large-L2": 0.800, "BLEU": 0.778, "BLEURT": 0.770, "BLEURT-extended": 0.818,
    "CharacTER": 0.687, "chrF": 0.687, "chrF++": 0.699, "COMET": 0.773, "COMET-2R": 0.772, "COMET-HTER": 0.767,
    "COMET-MQM": 0.684, "COMET-QE": 0.805, "COMET-Rank": 0.757, "EED": 0.752, "esim": 0.808, "mBERT-L2": 0.824,
    "MEE": 0.712, "OpenKiwi-Bert": 0.741, "OpenKiwi-XLMR": 0.701, "parbleu": 0.838, "parchrf++": 0.708,
    "paresim-1": 0.835, "prism": 0.775, "sentBLEU": 0.786, "TER": 0.766, "YiSi-0": 0.786, "YiSi-1": 0.783,
    "YiSi-2": 0.404}
KENDALL_ALL = {  # tbl-DA-Kendall-MTall-exclhuman-toen.tex (pandas' Kendall τ-b)
    "BERT-base-L2": 0.848, "BERT-large-L2": 0.848, "BLEU": 0.697, "BLEURT": 0.788, "BLEURT-extended": 0.848,
    "CharacTER": 0.758, "chrF": 0.727, "chrF++": 0.697, "COMET": 0.758, "COMET-2R": 0.788, "COMET-HTER": 0.788,
    "COMET-MQM": 0.727, "COMET-QE": 0.788, "COMET-Rank": 0.727, "EED": 0.727, "esim": 0.848, "mBERT-L2": 0.818,
    "MEE": 0.697, "OpenKiwi-Bert": 0.667, "OpenKiwi-XLMR": 0.636, "parbleu": 0.779, "parchrf++": 0.727,
    "paresim-1": 0.879, "prism": 0.727, "sentBLEU": 0.758, "TER": 0.788, "YiSi-0": 0.758, "YiSi-1": 0.758,
    "YiSi-2": 0.515}
ROUNDING = 5e-4 + 1e-9  # the tables' 3 decimals
# results/output/seglevel_allsys/RR-newstest2020-deen-seg-nohy-cor.csv (same commit): DArr Kendall-like τ, 4 digits,
# on 16,584 pairs (human translations left out)
DARR_TAU = {"chrF": 0.4379, "TER": 0.3554, "YiSi-2": 0.413}


def test_outlier_systems_by_hand():
    """median 2.5, |h − median| = 2.5 1.5 .5 .5 1.5 97.5, MAD = 1.5, × 1.4826 = 2.2239: F is 97.5 / 2.2239
    = 43.8 scaled MADs out, A 2.5 / 2.2239 = 1.12; at threshold 1.1 A is out too, at 1.2 it is not."""
    h = pd.Series([0.0, 1, 2, 3, 4, 100], index=list("ABCDEF"))
    assert outlier_systems(h) == ["F"]
    assert outlier_systems(h, threshold=1.1) == ["A", "F"]
    assert outlier_systems(h, threshold=1.2) == ["F"]
    assert outlier_systems(pd.Series([1.0, 1, 1, 5], index=list("ABCD"))) == []  # MAD = 0: no scale, no outliers


def test_refset_default_is_the_test_sets_own(tmp_path):
    """WMT20's chrF++ file lists newstestM2020 first; the default is the reference named like the test set."""
    path = tmp_path / "chrF++.sys.score"
    path.write_text("".join(f"chrF++\tde-en\t{t}\t{r}\t{s}\t{v}\n" for t, r, s, v in [
        ("newstest2020", "newstestM2020", "A", 1.0), ("newstest2020", "newstestM2020", "B", 2.0),
        ("newstest2020", "newstest2020", "A", 3.0), ("newstest2020", "newstest2020", "B", 4.0)]))
    assert read_metric_scores(path)[2].tolist() == [3.0, 4.0]
    assert read_metric_scores(path, refset="newstestM2020")[2].tolist() == [1.0, 2.0]


def _files(tmp_path):
    """6 systems + a human one only the metric scores (as WMT20's Human-B.0) + one only the DA file has."""
    human = {"A": 0.1, "B": 0.2, "C": 0.15, "D": 0.3, "E": 0.25, "Z": -3.0, "HUMAN.0": 0.2}
    metric = {"A": 20.0, "B": 25.0, "C": 21.0, "D": 24.0, "E": 26.0, "Z": 1.0, "Human-B.0": 30.0}
    da = tmp_path / "ad-sys-scores.csv"
    da.write_text("RAW.SCR Z.SCR N SYS N.ALL\n" + "".join(f"70 {z} 100 {s} 120\n" for s, z in human.items()))
    scores = tmp_path / "m.sys.score"
    scores.write_text("".join(f"m\tde-en\tnewstest2020\tnewstest2020\t{s}\t{v}\n" for s, v in metric.items()))
    return human, metric, da, scores


def test_exclude_outliers_cli(tmp_path):
    human, metric, da, scores = _files(tmp_path)
    run = lambda *extra: CliRunner().invoke(cli, ["metric", "correlate", str(scores), "--human", str(da), "--json",
                                                  *extra])
    both = ["A", "B", "C", "D", "E", "Z"]
    for extra, kept in (((), both), (("--exclude-outliers",), both[:5])):
        result = run(*extra)
        assert result.exit_code == 0, result.output
        out = json.loads(result.output)
        row = out["metrics"][0]
        assert row["n"] == len(kept)
        assert row["pearson"] == pytest.approx(np.corrcoef([human[s] for s in kept], [metric[s] for s in kept])[0, 1])
        assert any("Z" in n and "outlier" in n for n in out["notes"])
        assert any("HUMAN.0" in n and "no metric score" in n for n in out["notes"])
        assert any("Human-B.0" in n and "no human score" in n for n in out["notes"])


def test_exclude_outliers_needs_system_level(tmp_path):
    seg = tmp_path / "seg.csv"
    seg.write_text("SYS SID RAW.SCR Z.SCR N\nA 1 70 0.1 1\nB 1 60 -0.1 1\n")
    details = tmp_path / "details.txt"
    details.write_text("1\tnewstest2020\tde-en\tdoc\t1\n")
    metric = tmp_path / "m.seg.score"
    metric.write_text("m\tde-en\tnewstest2020\tnewstest2020\tA\tdoc\t1\t0.5\nm\tde-en\tnewstest2020\tnewstest2020\t"
                      "B\tdoc\t1\t0.4\n")
    result = CliRunner().invoke(cli, ["metric", "correlate", str(metric), "--human", str(seg), "--details",
                                      str(details), "--exclude-outliers"])
    assert result.exit_code != 0
    assert "system-level rule" in result.output and "Traceback" not in result.output


def test_wmt20_de_en_official_system_level():
    """All 29 de-en metrics of the slice: Pearson with all 12 MT systems and without WMT20's 3 outliers,
    and Kendall τ with all 12, equal WMT20's published tables to their 3 decimals."""
    from conftest import shared_file

    root = shared_file("wmt20-metrics-de-en")
    files = sorted(str(p) for p in (root / "sys-level").glob("*.tsv"))
    human = str(root / "manual-evaluation/ad-sys-scores-de-en.csv")
    for extra, official in (((), PEARSON_ALL), (("--exclude-outliers",), PEARSON_NO_OUTLIERS)):
        result = CliRunner().invoke(cli, ["metric", "correlate", *files, "--human", human, "--no-acc-eq",
                                          "--no-williams", "--json", *extra])
        assert result.exit_code == 0, result.output
        out = json.loads(result.output)
        rows = {r["metric"]: r for r in out["metrics"]}
        assert set(rows) == set(official)
        for name, r in official.items():
            assert rows[name]["n"] == (9 if extra else 12), name
            assert rows[name]["pearson"] == pytest.approx(r, abs=ROUNDING), name
            if not extra:
                assert rows[name]["kendall"] == pytest.approx(KENDALL_ALL[name], abs=ROUNDING), name
        outliers = "WMTBiomedBaseline.387, yolo.1052, zlabs-nlp.1153"
        assert any(outliers in n for n in out["notes"])


def test_darr_pairs_by_hand():
    """Item s1: A 90, B 70, C 64 → A > C (26 ≥ 25) only (A–B 20, B–C 6 too close); item s2: A 10, B 35
    → B > A (exactly 25 counts, as WMT20's ``diff < 25: skip``). A metric preferring A everywhere:
    concordant on s1, discordant on s2 → τ = 0; with C tied to A on s1 the tie counts as discordant: −1."""
    raw = pd.Series([90.0, 70, 64, 10, 35], index=pd.MultiIndex.from_tuples(
        [("s1", "A"), ("s1", "B"), ("s1", "C"), ("s2", "A"), ("s2", "B")], names=["item", "system"]))
    pairs = darr_comparisons(raw)
    df = pairs.to_pandas()
    assert sorted(zip(df["item"].astype(str), df["a"].astype(str), df["b"].astype(str))) == [("s1", "A", "C"),
                                                                                               ("s2", "B", "A")]
    metric = pd.Series([1.0, 0.5, 0.2, 1.0, 0.1], index=raw.index)
    assert kendall_like(pairs, metric) == pytest.approx(0.0)
    metric[("s1", "C")] = 1.0
    assert kendall_like(pairs, metric) == pytest.approx(-1.0)


def test_a_metric_missing_an_output_says_how_many_darr_pairs_its_tau_counts():
    """The same two pairs; a metric without a score for (s2, A) counts one pair, and says so (its τ
    was computed over fewer pairs than the note's count without a word)."""
    from humeval.metaeval.table import agreement_table
    raw = pd.Series([90.0, 70, 64, 10, 35], index=pd.MultiIndex.from_tuples(
        [("s1", "A"), ("s1", "B"), ("s1", "C"), ("s2", "A"), ("s2", "B")], names=["item", "system"]))
    full = pd.Series([1.0, 0.5, 0.2, 1.0, 0.1], index=raw.index)
    gappy = full.drop(("s2", "A"))
    table, notes = agreement_table("seg", raw, {"full": full, "gappy": gappy}, tie_accuracy=False, williams=False,
                                   darr=raw)
    rows = table.set_index("metric") if "metric" in table.columns else table
    assert rows.loc["full", "darr pairs"] == 2 and rows.loc["gappy", "darr pairs"] == 1
    assert rows.loc["full", "kendall_like"] == pytest.approx(0.0) and rows.loc["gappy", "kendall_like"] == 1.0
    assert "gappy: scores 1 of the 2 DArr pairs (its τ is over those; the others lack its score of one output)" in notes
    assert not any(n.startswith("full:") for n in notes)


def test_darr_needs_segment_scores(tmp_path):
    _, _, da, scores = _files(tmp_path)
    result = CliRunner().invoke(cli, ["metric", "correlate", str(scores), "--human", str(da), "--darr"])
    assert result.exit_code != 0
    assert "segment-level DA" in result.output and "Traceback" not in result.output


def test_wmt20_de_en_official_darr():
    """WMT20's DArr pairs are those of the segment DA file's raw scores (≥ 25 apart, MT systems only):
    the same 16,584 pairs and the same Kendall-like τ as the official output, to its 4 digits."""
    from conftest import shared_file

    root = shared_file("wmt20-metrics-de-en")
    files = sorted(str(p) for p in (root / "seg-level").glob("*.tsv"))
    result = CliRunner().invoke(cli, ["metric", "correlate", *files, "--human",
                                      str(root / "manual-evaluation/ad-seg-scores-de-en.csv"), "--details",
                                      str(root / "input/de-en.details.txt"), "--darr", "--no-acc-eq", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    rows = {r["metric"]: r["kendall_like"] for r in out["metrics"]}
    assert rows == pytest.approx(DARR_TAU, abs=5e-5 + 1e-9)
    assert any("16,584 pairs" in n for n in out["notes"])
