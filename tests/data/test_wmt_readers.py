"""WMT07/08, WMT15/16, DA per-annotator and DA segment files, on fixtures laid out as the real files.

Layouts: WMT15/16 per-pair CSVs as in mjpost/wmt15 data/collapsed/wmt15.deu-eng.csv and
cfedermann/wmt16 data/wmt16.*.csv (written by their xml2csv.py through Python's csv module, so
CRLF); WMT07/08 as statmt.org/wmt08/results.html describes the judgments CSV ("System judgments
(up to 5)"); DA per-annotator as wmt-conference/wmt21-news-systems humaneval/newstest2021-toen/
ad-csen-good-stnd.csv (space-separated header, tab-separated rows) and facebook-wikipedia-2021/
ad-good-raw.csv (rows mixing tabs and spaces); DA segment files as WMT17–19 DA-seglevel.csv
(``LP DATA SYSTEM SID HUMAN``) and WMT20–21 ad-seg-scores-xx-yy.csv (``SYS SID RAW.SCR Z.SCR N``).
"""

import pytest

import humeval
from humeval.data.readers import guess_format, read_wmt_csv, read_wmt_da, read_wmt_da_seg, read_wmt_legacy

WMT15_HEADER = "srclang,trglang,srcIndex,segmentId,judgeID,system1Id,system1rank,system2Id,system2rank,rankingID"
P = "newstest2015.{}.de-en.txt"
# rankingID 2 and 4 of wmt15.deu-eng.csv (collapsed): five displayed outputs each, the pairs of them
RANKING_2 = [("uedin-jhu-phrase.4102", 1), ("online-F.0", 4), ("online-E.0", 2), ("online-A.0", 1),
             ("Illinois.4085+uedin-syntax.4027", 3)]
RANKING_4 = [("Neural-MT.4097+online-E.0", 1), ("dfki-experimental.4060", 5), ("online-C.4166", 2),
             ("online-A.0", 4), ("Illinois.4085+KIT.4017+online-B.0+online-F.0+RWTH.4023+uedin-jhu-phrase.4102"
                                 "+uedin-syntax.4027", 3)]


def wmt15_rows(ranking, number, item, judge):
    name = lambda s: "+".join(P.format(x) for x in s.split("+"))
    return [f"deu,eng,{item},{item},{judge},{name(a)},{ra},{name(b)},{rb},{number}"
            for i, (a, ra) in enumerate(ranking) for (b, rb) in ranking[i + 1:]]


@pytest.fixture
def wmt15(tmp_path):
    lines = [WMT15_HEADER] + wmt15_rows(RANKING_2, 2, 1286, "judge1") + wmt15_rows(RANKING_4, 4, 1766, "judge2")
    path = tmp_path / "wmt15.deu-eng.csv"
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode())
    return path


def test_wmt15_collapsed_rankings_are_put_back_together(wmt15):
    j = humeval.read(wmt15)
    assert guess_format(wmt15)[0] == "wmt-csv" and j.report.rows == 20 and len(j.rankings) == 2
    assert "blank lines" not in j.report.skipped
    # ranking 2: 6 systems, C(6,2) = 15 pairs, 1 of the shared output skipped; ranking 4: 12 systems,
    # 66 pairs, C(2,2) + C(7,2) = 22 shared skipped
    assert len(j.comparisons) == 14 + 44 and j.report.skipped["pairs of systems that shared one output"] == 23
    assert int((j.comparisons.outcome == 0).sum()) == 1  # uedin-jhu-phrase = online-A in ranking 2
    assert j.rankings.tracks == ("deu-eng",) and P.format("RWTH.4023") in j.rankings.systems
    assert j.rankings.to_pandas().groupby("id").output.nunique().tolist() == [5, 5]


def test_keep_shared_outputs_makes_ties(wmt15):
    j = read_wmt_csv(wmt15, keep_shared_outputs=True)
    # ties: uedin-jhu-phrase = online-A, plus every shared pair: 1 + C(2,2) + C(7,2)
    assert len(j.comparisons) == 15 + 66 and int((j.comparisons.outcome == 0).sum()) == 1 + 1 + 1 + 21
    assert "pairs of systems that shared one output" not in j.report.skipped
    back = j.expand(keep_shared_outputs=False)  # the Judgments method re-expands and recounts
    assert len(back.comparisons) == 58 and back.report.skipped["pairs of systems that shared one output"] == 23


def test_wmt15_cr_cr_lf_and_case(wmt15, tmp_path):
    twice = tmp_path / "crcrlf.csv"
    twice.write_bytes(wmt15.read_bytes().replace(b"\r\n", b"\r\r\n").replace(b"judgeID", b"JUDGEID"))
    j = read_wmt_csv(twice)
    assert j.report.skipped == read_wmt_csv(wmt15).report.skipped and len(j.comparisons) == 58


def test_wmt15_self_comparisons_and_conflicts(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text(WMT15_HEADER + "\ndeu,eng,1,1,j,A,1,A,1,7\ndeu,eng,1,1,j,A,1,B,2,7\n"
                    "deu,eng,2,2,j,A,1,B,2,8\ndeu,eng,2,2,j,A,3,C,2,8\n")
    j = read_wmt_csv(path)
    assert j.report.skipped == {"rows pairing a system with itself": 1,
                                "rankings whose rows give one system two different ranks": 1}
    assert j.report.examples["rows pairing a system with itself"] == [2]
    assert len(j.comparisons) == 1 and j.comparisons.winner.tolist() == [j.comparisons.systems.index("A")]


def test_wmt10_layout_self_comparison_is_counted(fixture, tmp_path):
    text = fixture("wmt10_small.csv").read_text().replace("1,bbn,2,uedin,3,jhu,4,cmu,5,kit,1,2,2,4,5",
                                                          "1,bbn,2,bbn,3,jhu,4,cmu,5,kit,1,2,2,4,5")
    (tmp_path / "w.csv").write_text(text)
    j = read_wmt_csv(tmp_path / "w.csv")
    assert j.report.skipped["pairs comparing a system with itself"] == 1
    assert len(j.comparisons) == len(humeval.read(fixture("wmt10_small.csv")).comparisons) - 1


WMT08_HEADER = ",".join(["TASK", "TYPE", "ITEM_ID", "ANNOTATOR_ID", "TIME"]
                        + [f"{c}" for k in range(5) for c in (f"SYSTEM_{k}", f"SCORE_{k}_A", f"SCORE_{k}_B")])
WMT08_ROWS = ("WMT08 Czech-English News Commentary,RANK,12,7,45,cu-bojar,2,,uedin,1,,pct,3,\n"
              "WMT08 Czech-English News Commentary,RANK,13,7,30,cu-bojar,-,,uedin,1,,pct,1,,cu-tectomt,2,\n"
              "WMT07 Czech-English News Commentary,NIST,14,9,50,cu-bojar,4,-,uedin,3,2\n")


@pytest.mark.parametrize("header", [True, False])
def test_wmt08_short_rows_and_dashes(tmp_path, header):
    path = tmp_path / "wmt08.csv"
    path.write_text((WMT08_HEADER + "\n" if header else "") + WMT08_ROWS)
    j = humeval.read(path)
    assert j.report.format == "wmt-legacy" and j.report.rows == 3
    # item 12: uedin > cu-bojar, cu-bojar > pct, uedin > pct; item 13: cu-bojar unset (3 pairs
    # skipped), uedin = pct, uedin > cu-tectomt, pct > cu-tectomt
    assert len(j.comparisons) == 6 and int((j.comparisons.outcome == 0).sum()) == 1
    assert j.report.skipped == {"pairs with an unset rank": 3, "NIST scores missing (written '-')": 1}
    wins = j.comparisons.tally()["wins"]
    assert wins.to_dict() == {"cu-bojar": 1, "cu-tectomt": 0, "pct": 1, "uedin": 3}
    assert sorted(j.ratings.score.tolist()) == [2.0, 3.0, 4.0]  # the "-" score is missing
    assert any("no header line" in n for n in j.report.notes) is not header


def test_delimiter_is_named(tmp_path):
    semi = tmp_path / "semi.csv"
    semi.write_text(WMT15_HEADER.replace(",", ";") + "\ndeu;eng;1;1;j;A;1;B;2;1\n")
    with pytest.raises(humeval.InputError, match="looks semicolon-delimited"):
        read_wmt_csv(semi)
    with pytest.raises(humeval.InputError, match="wrong delimiter"):
        read_wmt_legacy(semi)
    with pytest.raises(humeval.InputError, match=r"looks semicolon-delimited \(a wrong delimiter\?\)"):
        humeval.read(semi)
    tabbed = tmp_path / "da.csv"
    tabbed.write_text("SYS,SID,RAW.SCR,Z.SCR,N\nA,1,90,1.0,1\n")
    with pytest.raises(humeval.InputError, match="looks comma-delimited"):
        read_wmt_da_seg(tabbed)


DA_HEADER = "HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time\n"
DA_ROWS = ["3IKD\tM0013\tcs\ten\tad\t4\tFacebook-AI.7\t1000039\tSYSTEM\t177\t0.62\t931.0",
           "3IKD\tM0013\tcs\ten\tad\t4\tOnline-A.5\t1000606\tSYSTEM\t249\t-0.67\t931.0",
           "3IKD\tM0013\tcs\ten\tad\t4\tOnline-B.0\t1000167\tREPEAT\t690\t-0.64\t931.0",
           "3IKD\tM0013\tcs\ten\tad\t4\tOnline-B.0\t1000167\tREF\t691\t0.62\t931.0",
           "3IKD\tM0013\tcs\ten\tad\t4\tOnline-B.0\t1000167\tBAD_REF\t697\t-1.96\t931.0",
           "3JMN\tM1396\tcs\ten\tad\t5\tOnline-A.5\t1000708\tSYSTEM\t177\t0.43\t515.0"]


def test_da_per_annotator(tmp_path):
    path = tmp_path / "ad-csen-good-stnd.csv"
    path.write_text(DA_HEADER + "\n".join(DA_ROWS) + "\n")
    j = humeval.read(path)
    assert j.report.format == "wmt-da" and j.report.rows == 6
    r = j.ratings
    assert len(r) == 3 and r.scale == "z" and r.tracks == ("cs-en",) and r.judges == ("M0013", "M1396")
    assert r.kinds == ("SYSTEM",) and r.to_pandas().groupby("system", observed=True).score.sum().round(2).to_dict() \
        == {"Facebook-AI.7": 0.62, "Online-A.5": -0.24}
    assert sorted(j.report.skipped.values()) == [1, 1, 1] and any("BAD_REF" in k for k in j.report.skipped)
    every = read_wmt_da(path, controls=True).ratings
    kinds = every.to_pandas().kind.value_counts().to_dict()
    assert kinds == {"SYSTEM": 3, "REPEAT": 1, "REF": 1, "BAD_REF": 1}


def test_da_per_annotator_mixed_separators_and_bad_scores(tmp_path):
    # ad-good-raw.csv of facebook-wikipedia-2021: tab-separated header, cells split by tabs and spaces
    path = tmp_path / "ad-good-raw.csv"
    path.write_text(DA_HEADER.replace(" ", "\t")
                    + 'NA\tevaluator3\thi\tbn ad NA\t"Online-G.7" NA SYSTEM\thi-bn-0-46-1001558.1_1\t30\t0\n'
                    + 'NA\tevaluator3\thi\tbn ad NA\t"TRANSSION.3" NA SYSTEM\thi-bn-0-74-1002251.1_1\t100\t0\n')
    r = read_wmt_da(path).ratings
    assert r.systems == ("Online-G.7", "TRANSSION.3") and r.scale == "0-100" and r.tracks == ("hi-bn",)
    path.write_text(DA_HEADER + DA_ROWS[0] + "\n" + DA_ROWS[1].replace("-0.67", "x") + "\n")
    with pytest.raises(humeval.InputError, match=r"ad-good-raw.csv:3: score is 'x'"):
        read_wmt_da(path)
    path.write_text(DA_HEADER + DA_ROWS[0] + "\n" + DA_ROWS[1].replace("\t931.0", "") + "\n")
    with pytest.raises(humeval.InputError, match=r":3: 11 fields, expected 12"):
        read_wmt_da(path)


def test_da_segment_files(tmp_path):
    graham = tmp_path / "DA-seglevel.csv"
    graham.write_text("LP DATA SYSTEM SID HUMAN\ncs-en newstest2017 online-A.0 1 0.25\n"
                      "cs-en newstest2017 uedin-nmt.4955+PJATK.4760 1 -0.5\n"
                      "de-en newstest2017 online-A.0 1 1.5\ncs-en newstest2017 online-A.0 1 9.0\n")
    j = humeval.read(graham)
    assert j.report.format == "wmt-da-seg"
    df = j.ratings.to_pandas()
    assert df.groupby(["track", "system"], observed=True).score.sum().to_dict() == {
        ("cs-en", "PJATK.4760"): -0.5, ("cs-en", "online-A.0"): 0.25, ("cs-en", "uedin-nmt.4955"): -0.5,
        ("de-en", "online-A.0"): 1.5}
    assert j.report.skipped == {"repeated (track, system, segment) scores (the first is kept)": 1}
    assert j.report.examples["repeated (track, system, segment) scores (the first is kept)"] == [5]
    ad = tmp_path / "ad-seg-scores-de-en.csv"
    ad.write_text("SYS SID RAW.SCR Z.SCR N \nOPPO.1360 571 100 1.78044500258912 1 \nOPPO.1360 572 75 -0.25823279254007 2 \n")
    r = humeval.read(ad).ratings
    assert r.tracks == ("de-en",) and r.score.tolist() == [1.78044500258912, -0.25823279254007] and r.scale == "z"
    assert read_wmt_da_seg(ad, score_column="RAW.SCR").ratings.score.tolist() == [100.0, 75.0]
    ad.write_text("SYS SID RAW.SCR Z.SCR N\nOPPO.1360 571 100 inf 1\n")
    with pytest.raises(humeval.InputError, match=r":2: Z.SCR is 'inf'"):
        read_wmt_da_seg(ad)


def test_wmt08_header_without_system_0(tmp_path):
    path = tmp_path / "w.csv"  # found by the fuzz run: slots numbered from 1
    path.write_text(WMT08_HEADER.replace("SYSTEM_0,SCORE_0_A,SCORE_0_B,", "") + "\nWMT08 News,RANK,12,7,45,cu,2,,uedin,1,\n")
    j = read_wmt_legacy(path)
    assert len(j.comparisons) == 1 and j.comparisons.tally()["wins"].to_dict() == {"cu": 0, "uedin": 1}


def test_rank_beyond_int16_is_an_input_error(tmp_path):
    path = tmp_path / "w.csv"  # found by the fuzz run: 99999999999 overflowed the int16 rank column
    path.write_text(WMT08_HEADER + "\nWMT08 News,RANK,12,7,45,cu,99999999999,,uedin,1,\n")
    with pytest.raises(humeval.InputError, match=r"w.csv:2: SCORE_0_A is '99999999999', expected a rank 1, 2, …"):
        read_wmt_legacy(path)


def test_rankings_too_wide_for_the_output_column(tmp_path, monkeypatch):
    from humeval.data.readers import wmt_csv
    monkeypatch.setattr(wmt_csv, "MAX_OUTPUTS", 3)  # the output column's limit, made small
    path = tmp_path / "w.csv"
    path.write_text(WMT15_HEADER + "\na,b,1,1,j,S,1,T,2,1\na,b,1,1,j,U,1,V,2,1\na,b,2,2,j,A,1,B,2,2\n")
    j = read_wmt_csv(path)
    assert len(j.rankings) == 1 and j.report.skipped == {"rankings of more than 3 outputs (not supported)": 1}
    path.write_text(WMT15_HEADER + "\na,b,1,1,j,S,1,T,2,1\na,b,1,1,j,U,1,V,2,1\n")
    with pytest.raises(humeval.InputError, match=r"no rankings \(all skipped: rankings of more than 3"):
        read_wmt_csv(path)


def test_rank_keep_shared_outputs_option(wmt15, fixture):
    import json

    from click.testing import CliRunner

    from humeval.cli import cli
    from humeval.ranking import make_model
    runner = CliRunner()
    scores = {}
    for flag in ([], ["--keep-shared-outputs"]):
        result = runner.invoke(cli, ["rank", str(wmt15), "-m", "orig-wmt", "--json", *flag])
        assert result.exit_code == 0, result.output
        scores[bool(flag)] = {r["system"]: r["score"] for r in json.loads(result.output)["deu-eng"]}
    for keep in (False, True):  # the command fits the comparisons the reader option gives
        fit = make_model("orig-wmt").fit(read_wmt_csv(wmt15, keep_shared_outputs=keep).comparisons)
        assert scores[keep] == pytest.approx(fit.scores_.to_dict(), abs=1e-6)
    assert scores[True] != pytest.approx(scores[False], abs=1e-3)
    wrong = runner.invoke(cli, ["rank", str(fixture("arena_small.csv")), "--keep-shared-outputs"])
    assert wrong.exit_code == 2 and "applies to rankings" in wrong.output


@pytest.mark.parametrize("name, text", [("wmt08.csv", WMT08_HEADER + "\n" + WMT08_ROWS),
                                        ("ad-csen-good-stnd.csv", DA_HEADER + "\n".join(DA_ROWS) + "\n"),
                                        ("DA-seglevel.csv", "LP DATA SYSTEM SID HUMAN\ncs-en nt A 1 0.25\ncs-en nt B 1 -0.5\n")])
def test_cr_cr_lf_is_one_line_end(tmp_path, name, text):
    plain, doubled = tmp_path / name, tmp_path / f"x{name}"
    plain.write_text(text)
    doubled.write_bytes(text.replace("\n", "\r\r\n").encode())
    a, b = humeval.read(plain), humeval.read(doubled)
    assert a.report.rows == b.report.rows and b.report.skipped == a.report.skipped
    assert "blank lines" not in b.report.skipped


def test_da_segment_items_of_several_test_sets(tmp_path):
    path = tmp_path / "DA-seglevel.csv"
    path.write_text("LP DATA SYSTEM SID HUMAN\nen-de newstest2017 A 1 0.5\nen-de newstestB2017 A 1 -0.5\n")
    j = read_wmt_da_seg(path)
    assert j.ratings.items == ("newstest2017:1", "newstestB2017:1") and not j.report.skipped


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "good"])
def test_wmt07_nist_score_must_be_a_finite_number(tmp_path, value):
    path = tmp_path / "w.csv"
    path.write_text(WMT08_HEADER + f"\nWMT07 News,NIST,14,9,50,cu-bojar,4,{value},uedin,3,2\n")
    with pytest.raises(humeval.InputError, match=f"w.csv:2: SCORE_0_B is '{value}', expected a number or empty"):
        read_wmt_legacy(path)


def test_a_file_of_z_scores_is_ranked_under_a_z_column_not_raw(tmp_path):
    # WMT20's ad-seg file holds z-scores (Z.SCR): the mean the ranking shows is a mean of z
    from humeval.ratings import rank_ratings

    ad = tmp_path / "ad-seg-scores-de-en.csv"
    rows = ["SYS SID RAW.SCR Z.SCR N "] + [f"{s} {i} 50 {z} 1 " for i in range(1, 4)
                                          for s, z in (("A", 0.5), ("B", -0.25))]
    ad.write_text("\n".join(rows) + "\n")
    ratings = read_wmt_da_seg(ad).ratings
    result = rank_ratings(ratings, model="raw")
    assert result.score == "z" and "raw" not in result.table.columns
    assert result.table["z"].tolist() == [0.5, -0.25]


def test_a_named_format_that_refuses_the_file_says_which_format_fits():
    """An audit read WMT24's ESA export with --format wmt-da and was told to save it space-delimited;
    WMT22's good-stnd file with -f ratings --delimiter tab got "12 fields, expected 1" with no word
    on its spaced header. Both errors now say what fits."""
    from pathlib import Path

    from humeval.errors import InputError
    fixtures = Path(__file__).parents[1] / "fixtures"
    with pytest.raises(InputError) as esa:
        humeval.read(fixtures / "esa_wmt24_small.csv", "wmt-da")
    assert esa.value.line == 1 and esa.value.fix.endswith("read it as the format its header fits: format='esa' (CLI: --format esa)")
    good = fixtures / "wmt_da_toen" / "ad-csen-good-stnd.csv"
    with pytest.raises(InputError) as spaced:
        humeval.read(good, "ratings", delimiter="tab")
    assert spaced.value.line == 2 and "names are separated by spaces and this row's fields by tabs" in spaced.value.fix
    assert spaced.value.fix.endswith("(CLI: --format wmt-da)")
    with pytest.raises(InputError) as right:  # the format the header fits: no hint to read it as itself
        humeval.read(good, "wmt-da", columns={"nope": "x"})
    assert "--format" not in (right.value.fix or "")
