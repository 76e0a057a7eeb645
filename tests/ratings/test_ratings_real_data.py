"""WMT20 DA and Google MQM from ../shared/data (skipped when absent): the official numbers."""

import numpy as np
import pandas as pd
import pytest

import humeval
from conftest import shared_file
from humeval.data.readers.wmt_da import read_wmt_da_seg
from humeval.ratings import rank_ratings, rank_tracks

WMT20 = "wmt20-metrics-de-en/manual-evaluation/"
# One-sided Wilcoxon p-values (row better than column) from WMT20's official adwilcox-deen.csv
# (WMT-Metrics-task/wmt20-metrics, manual-evaluation/DA), a few cells copied here.
ADWILCOX_DEEN = {
    ("Huoshan_Translate.789", "HUMAN.0"): 0.0127963813021995,
    ("Huoshan_Translate.789", "UEDIN.1066"): 0.0443549433727441,
    ("OPPO.1360", "PROMT_NMT.77"): 0.0349165150967809,
    ("Tohoku-AIP-NTT.1442", "Online-Z.1629"): 0.00368209095803785,
    ("UEDIN.1066", "Online-Z.1629"): 0.0454656896651885,
    ("Online-Z.1629", "zlabs-nlp.1153"): 4.06741630847854e-06,
    ("zlabs-nlp.1153", "yolo.1052"): 1.41549092430254e-131,
}


def wmt20_rankings(**options) -> dict:
    """The system ranking from the segment file's raw means and from its z means (the organisers' z)."""
    seg = shared_file(WMT20 + "ad-seg-scores-de-en.csv")
    return {name: rank_tracks(read_wmt_da_seg(seg, score_column=column).ratings, model="raw", **options)["de-en"]
            for name, column in (("de-en / raw", "RAW.SCR"), ("de-en / z", "Z.SCR"))}


@pytest.fixture(scope="module")
def wmt20():
    official = pd.read_csv(shared_file(WMT20 + "ad-sys-scores-de-en.csv"), sep=" ").set_index("SYS")
    return wmt20_rankings(), official


def test_wmt20_system_raw_and_z_equal_the_official_file(wmt20):
    results, official = wmt20
    raw, z = results["de-en / raw"].table, results["de-en / z"].table
    assert len(official) == 13 and set(raw.index) == set(official.index) == set(z.index)
    for system, row in official.iterrows():
        assert raw.loc[system, "raw"] == pytest.approx(row["RAW.SCR"], abs=1e-12)
        assert z.loc[system, "z"] == pytest.approx(row["Z.SCR"], abs=1e-12)  # the file's z, averaged
        assert z.loc[system, "segments"] == row["N"]


def test_wmt20_wilcoxon_equals_the_official_p_values_and_gives_three_clusters(wmt20):
    z = wmt20[0]["de-en / z"]
    for (a, b), expected in ADWILCOX_DEEN.items():
        assert z.pvalues.loc[a, b] == pytest.approx(expected, rel=1e-9)
    assert z.table["cluster"].tolist() == [1] * 10 + [2, 2, 3]
    assert list(z.table.index[-3:]) == ["WMTBiomedBaseline.387", "zlabs-nlp.1153", "yolo.1052"]


@pytest.mark.parametrize("name", ["newstest2020/ende/mqm_newstest2020_ende", "newstest2020/zhen/mqm_newstest2020_zhen",
                                  "newstest2021/ende/mqm_newstest2021_ende", "newstest2021/zhen/mqm_newstest2021_zhen"])
def test_google_mqm_system_score_is_the_mean_of_their_segment_averages(name):
    path = shared_file(f"mqm-google/{name}.avg_seg_scores.tsv")
    scores: dict[str, list[float]] = {}
    with open(path, encoding="utf-8") as f:
        next(f)
        for line in f:
            system, score, _ = line.split()
            if score != "None":
                scores.setdefault(system, []).append(float(score))
    result = rank_ratings(humeval.read(path).ratings, "mqm", test="permutation", n_resamples=200)
    assert set(result.table.index) == set(scores)
    for system, values in scores.items():
        assert result.table.loc[system, "mqm"] == pytest.approx(np.mean(values), rel=1e-13, abs=1e-15)
        assert result.table.loc[system, "segments"] == len(values)
    assert result.table["mqm"].is_monotonic_decreasing and result.table["cluster"].iloc[0] == 1


def test_wmt20_the_two_cluster_readings_differ(wmt20):
    z = wmt20_rankings(cluster_rule="above")["de-en / z"]
    # HUMAN.0 is significantly worse than both systems above it, so "above" opens cluster 2 there
    assert z.table["cluster"].tolist() == [1, 1] + [2] * 8 + [3, 3, 4]
