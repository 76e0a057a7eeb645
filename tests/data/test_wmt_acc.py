"""WMT10 acceptability judgments (data_ACC.csv) → Ratings, YES = 1, NO = 0, UNK counted and skipped."""

import numpy as np
import pytest

import humeval
from conftest import shared_file
from humeval.data.readers import guess_format, read_wmt_acc
from humeval.errors import InputError

HEADER = "srclang,trglang,srcIndex,documentId,segmentId,judgeId,systemNumber,systemId,editId,judgment\n"
ROWS = ("Czech,English,1773,doc/1,1,J1,43,rwth-combo,57,NO\n"
        "Czech,English,1773,doc/1,1,J2,43,rwth-combo,57,YES\n"
        "Czech,English,1774,doc/1,2,J1,7,cu-bojar,58,YES\n"
        "Czech,English,1775,doc/1,3,J1,7,cu-bojar,59,UNK\n"
        "\n"
        "German,English,9,doc/2,1,J3,7,cu-bojar,60,yes\n")


def test_reads_acceptability_as_ratings(tmp_path):
    path = tmp_path / "data_ACC.csv"
    path.write_text(HEADER + ROWS)
    assert guess_format(path)[0] == "wmt-acc"
    j = humeval.read(path)
    r = j.ratings.to_pandas()
    assert list(r["score"]) == [0.0, 1.0, 1.0, 1.0]
    assert list(r["system"]) == ["rwth-combo", "rwth-combo", "cu-bojar", "cu-bojar"]
    assert list(r["track"]) == ["Czech-English"] * 3 + ["German-English"]
    assert list(r["item"]) == ["1773", "1773", "1774", "9"] and set(r["criterion"]) == {"acceptability"}
    assert j.report.rows == 5
    assert j.report.skipped == {"judgments 'UNK' (neither YES nor NO)": 1, "blank lines": 1}
    assert j.report.examples["judgments 'UNK' (neither YES nor NO)"] == [5]
    # a system's mean score is its share of acceptable edits
    assert r.groupby("system")["score"].mean().to_dict() == {"cu-bojar": 1.0, "rwth-combo": 0.5}


def test_bad_rows_name_their_line(tmp_path):
    path = tmp_path / "acc.csv"
    path.write_text(HEADER + "Czech,English,1,d,1,J1,43,rwth-combo,57\n")
    with pytest.raises(InputError, match=r"acc.csv:2: 9 fields, expected 10"):
        read_wmt_acc(path)
    path.write_text(HEADER.replace(",judgment", ",verdict") + ROWS)
    with pytest.raises(InputError, match=r"acc.csv:1: not the WMT10 acceptability header: missing judgment"):
        read_wmt_acc(path)
    path.write_text(HEADER + "Czech,English,1,d,1,J1,43,rwth-combo,57,UNK\n")
    with pytest.raises(InputError, match="no judgments left after skipping 1 judgments .UNK."):
        humeval.read(path)


def test_real_wmt10_acceptability():
    j = humeval.read(shared_file("wmt10-rankings/wmt10/data_ACC.csv"))
    # README: NO 3838, YES 3025, UNK 42
    assert j.report.rows == 6905 and j.report.skipped == {"judgments 'UNK' (neither YES nor NO)": 42}
    assert len(j.ratings) == 3025 + 3838 and np.sum(j.ratings.score) == 3025
    assert len(j.ratings.tracks) == 8
