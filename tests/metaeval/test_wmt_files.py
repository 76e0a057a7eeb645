import json

import numpy as np
import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.errors import InputError
from humeval.metaeval import read_da_scores, read_metric_scores, williams_test


@pytest.fixture
def files(tmp_path):
    (tmp_path / "BLEU.sys.score").write_text(
        "BLEU\tde-en\tnewstest2020\tnewstest2020\tA\t30\n" "BLEU\tde-en\tnewstest2020\tnewstest2020\tB\t20\n"
        "BLEU\tde-en\tnewstest2020\tnewstest2020\tC\t25\n" "BLEU\tde-en\tnewstest2020\tnewstestB2020\tA\t99\n")
    (tmp_path / "chrF.seg.score").write_text(
        "chrF\tde-en\tnewstest2020\tnewstest2020\tA\td1\t1\t0.8\n" "chrF\tde-en\tnewstest2020\tnewstest2020\tB\td1\t1\t0.4\n"
        "chrF\tde-en\tnewstest2020\tnewstest2020\tA\td1\t2\t0.6\n" "chrF\tde-en\tnewstest2020\tnewstest2020\tB\td1\t2\t0.7\n")
    (tmp_path / "sys.csv").write_text("RAW.SCR Z.SCR N SYS N.ALL\n80 0.3 10 A 12\n60 -0.2 10 B 12\n70 0.1 10 C 12\n")
    (tmp_path / "seg.csv").write_text("SYS SID RAW.SCR Z.SCR N\nA 1 90 1.0 1\nB 1 50 -1.0 1\nA 2 60 0.0 2\nB 2 70 0.5 1\n")
    (tmp_path / "details.txt").write_text("1\tnewstest2020\tde-en\td1\t1\n2\tnewstest2020\tde-en\td1\t2\n")
    return tmp_path


def test_readers(files):
    name, level, scores = read_metric_scores(files / "BLEU.sys.score")
    assert (name, level, scores.to_dict()) == ("BLEU", "sys", {"A": 30.0, "B": 20.0, "C": 25.0})  # first refset
    assert read_metric_scores(files / "BLEU.sys.score", refset="newstestB2020")[2].to_dict() == {"A": 99.0}
    name, level, seg = read_metric_scores(files / "chrF.seg.score")
    assert level == "seg" and seg[("d1:2", "B")] == 0.7
    level, human = read_da_scores(files / "seg.csv", files / "details.txt")
    assert level == "seg" and human[("d1:1", "A")] == 1.0
    with pytest.raises(InputError, match="details"):
        read_da_scores(files / "seg.csv")


def test_correlate_command(files):
    result = CliRunner().invoke(cli, ["metric", "correlate", str(files / "BLEU.sys.score"), str(files / "chrF.seg.score"),
                                      "--human", str(files / "sys.csv"), "--json"])
    data = json.loads(result.output)
    row = data["metrics"][0]
    assert data["level"] == "sys" and row["n"] == 3 and data["skipped"] == ["chrF.seg.score (seg level)"]
    # BLEU (30, 20, 25) against Z (0.3, −0.2, 0.1): dx = (5, −5, 0), dy = (7, −8, 1)/30:
    # Σ dx·dy = 2.5, Σ dx² = 50, Σ dy² = 114/900 -> r = 2.5/√(50·114/900) = 2.5·√(3/19)
    assert row["pearson"] == pytest.approx(2.5 * np.sqrt(3 / 19), abs=1e-9)
    assert row["pairwise accuracy"] == 1.0
    seg = CliRunner().invoke(cli, ["metric", "correlate", str(files / "chrF.seg.score"), "--human", str(files / "seg.csv"),
                                   "--details", str(files / "details.txt"), "--json"])
    srow = json.loads(seg.output)["metrics"][0]
    # segments d1:1 and d1:2 of A and B: chrF (0.8, 0.4, 0.6, 0.7), Z (1.0, −1.0, 0.0, 0.5) = 5·chrF − 3
    assert srow["n"] == 4 and srow["pearson"] == pytest.approx(1.0, abs=1e-9)
    no_details = CliRunner().invoke(cli, ["metric", "correlate", str(files / "chrF.seg.score"), "--human", str(files / "seg.csv"),
                                          "--json"])
    assert no_details.exit_code == 2 and "details" in no_details.output


def test_correlate_intervals_and_williams(tmp_path):
    systems = ["A", "B", "C", "D", "E", "F"]
    human, bleu_, ter_ = [0.3, -0.2, 0.1, 0.5, -0.4, 0.0], [30, 20, 25, 33, 15, 21], [0.2, 0.1, 0.3, 0.3, 0.4, 0.1]
    for name, values in (("BLEU", bleu_), ("TER", ter_)):
        (tmp_path / f"{name}.sys.score").write_text("".join(f"{name}\tde-en\tt\tt\t{s}\t{v}\n" for s, v in zip(systems, values)))
    (tmp_path / "sys.csv").write_text("RAW.SCR Z.SCR N SYS N.ALL\n" + "".join(f"0 {h} 1 {s} 1\n" for s, h in zip(systems, human)))
    result = CliRunner().invoke(cli, ["metric", "correlate", str(tmp_path / "BLEU.sys.score"), str(tmp_path / "TER.sys.score"),
                                      "--human", str(tmp_path / "sys.csv"), "--bootstrap", "200", "--json"])
    rows = {r["metric"]: r for r in json.loads(result.output)["metrics"]}
    assert rows["BLEU"]["r 95% low"] <= rows["BLEU"]["pearson"] <= rows["BLEU"]["r 95% high"]
    r12, r13, r23 = (np.corrcoef(x, y)[0, 1] for x, y in ((human, bleu_), (human, ter_), (bleu_, ter_)))
    assert (rows["BLEU"]["pearson"], rows["TER"]["pearson"]) == (pytest.approx(r12, abs=1e-9), pytest.approx(r13, abs=1e-9))
    # Williams' t (its formula checked by hand in test_correlation) on these r: t = 4.03 with 3 df
    expected = williams_test(r12, r13, r23, 6)[1]
    assert rows["TER"]["p (BLEU > this)"] == pytest.approx(expected, abs=1e-9) and expected == pytest.approx(0.0137, abs=1e-4)
    assert rows["BLEU"]["p (BLEU > this)"] is None  # no test of a metric against itself


@pytest.mark.parametrize("name, text, message", [
    ("BLEU.sys.score", "BLEU\tde-en\tt\tr\tA\t30\nBLEU\tde-en\tt\tr\tA\t31\n", r"BLEU.sys.score:2: a second score for 'A' \(the first is on line 1\)"),
    ("BLEU.sys.score", "BLEU\tde-en\tt\tr\tA\t30\nBLEU\tde-en\tt\tr\tB\tthirty\n", r":2: the score is 'thirty'"),
    ("BLEU.sys.score", "BLEU\tde-en\tt\tr\tA\t30\nBLEU\tde-en\tt\tr\tB\tnan\n", r":2: the score is missing"),
    ("BLEU.sys.score", "BLEU\tde-en\tt\tr\tA\t30\nBLEU\tde-en\tt\tB\t20\n", r":2: 5 tab-separated fields, expected 6"),
    ("BLEU.sys.score", "BLEU,de-en,t,r,A,30\n", "looks comma-delimited"),
    ("chrF.seg.score", "chrF\tde-en\tt\tr\tA\td\t1\t0.8\nchrF\tde-en\tt\tr\tA\td\t1\t0.7\n", r":2: a second score for \('d:1', 'A'\)"),
])
def test_metric_file_errors(tmp_path, name, text, message):
    (tmp_path / name).write_text(text)
    with pytest.raises(InputError, match=message):
        read_metric_scores(tmp_path / name)


def test_da_file_errors(files):
    (files / "dup.csv").write_text("RAW.SCR Z.SCR N SYS N.ALL\n80 0.3 10 A 12\n60 -0.2 10 A 12\n")
    with pytest.raises(InputError, match=r"dup.csv:3: a second score for 'A' \(the first is on line 2\)"):
        read_da_scores(files / "dup.csv")
    (files / "bad.csv").write_text("SYS SID RAW.SCR Z.SCR N\nA 1 90 high 1\n")
    with pytest.raises(InputError, match=r"bad.csv:2: Z.SCR is 'high'"):
        read_da_scores(files / "bad.csv", files / "details.txt")
    (files / "unknown.csv").write_text("SYS SID RAW.SCR Z.SCR N\nA 9 90 1.0 1\n")
    with pytest.raises(InputError, match=r"segment id 9 of unknown.csv \(line 2\) is not in it"):
        read_da_scores(files / "unknown.csv", files / "details.txt")
    (files / "details2.txt").write_text("1\tnewstest2020\tde-en\td1\n")
    with pytest.raises(InputError, match=r"details2.txt:1: 4 tab-separated fields, expected 5"):
        read_da_scores(files / "seg.csv", files / "details2.txt")


def test_pce_needs_segment_scores(files):
    result = CliRunner().invoke(cli, ["metric", "correlate", str(files / "BLEU.sys.score"), "--human",
                                      str(files / "sys.csv"), "--pce"])
    assert result.exit_code != 0 and "pairwise confidence error needs segment-level scores" in result.output
