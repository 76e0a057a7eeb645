"""Regression tests of the fuzz findings of issue 16, one outcome each (readers and tables)."""

import codecs
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import humeval
from humeval.cli import cli
from humeval.data import Comparisons, Rankings
from humeval.data.builders import RankingRows, parse_rank
from humeval.data.describe import describe
from humeval.data.judgments import Judgments, ReadReport
from humeval.data.readers import read_appraise, read_mlqe_da, read_mqm_avg, read_pairwise, read_ratings
from test_reader_errors import error_of, write

DA_HEADER = "index\toriginal\ttranslation\tscores\tmean\tz_scores\tz_mean\tmodel_scores\n"


# -- integer codes that used to overflow --------------------------------------------------------

def test_more_than_127_outputs_in_one_ranking():
    rows = RankingRows()
    rows.add("t", "1", "j", [f"s{i:03d}" for i in range(200)], list(range(1, 201)))
    rankings = rows.build()
    assert rankings.output[0, 199] == 199 and rankings.rank[0, 199] == 200
    comparisons = rankings.expand()
    assert len(comparisons) == 200 * 199 // 2 and (comparisons.outcome == 1).all()  # lower position ranked better


def test_ranks_above_32767_and_beyond_int32():
    assert parse_rank("40000", "f", 2, "rank") == 40000
    rows = RankingRows()
    rows.add("t", "1", "j", ["A", "B"], [40000, 39999])
    r = rows.build()
    assert r.rank.tolist() == [[40000, 39999]] and r.expand().outcome.tolist() == [2]
    with pytest.raises(humeval.InputError, match="rank is '99999999999', expected a rank"):
        parse_rank("99999999999", "f", 2, "rank")


def test_more_than_32767_tracks(tmp_path):
    n = 33_000
    lines = "".join(f"t{i},A,B,1\n" for i in range(n))
    j = read_pairwise(write(tmp_path, "p.csv", "track,system_a,system_b,outcome\n" + lines))
    c = j.comparisons
    assert len(c.tracks) == n and c.track.max() == n - 1 and c.tracks[c.track[-1]] == f"t{n - 1}"
    t = Comparisons(a=[0], b=[1], outcome=[0], track=[40_000], systems=("A", "B"),
                    tracks=tuple(str(i) for i in range(40_001)))
    assert int(t.track[0]) == 40_000


def test_table_refuses_codes_that_do_not_fit():
    with pytest.raises(ValueError, match="column 'outcome' holds 300, outside the range -128..127 of int8"):
        Comparisons(a=np.array([0]), b=np.array([1]), outcome=np.array([300]), systems=("A", "B"))


# -- outcomes and columns of JSONL / Parquet ----------------------------------------------------

def test_parquet_float_outcomes(tmp_path):
    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"system_a": ["A", "A", "B", "C"], "system_b": ["B", "C", "C", "A"],
                             "outcome": [1.0, float("nan"), 2.0, None]}), path)
    j = read_pairwise(path)
    assert j.comparisons.outcome.tolist() == [1, 2]
    assert j.report.skipped == {"rows without an outcome": 2} and j.report.examples["rows without an outcome"] == [2, 4]
    assert "skipped 2 rows without an outcome (e.g. row 2, 4)" in str(j.report)
    pq.write_table(pa.table({"system_a": ["A", "B"], "system_b": ["B", "C"], "outcome": [1.0, 0.5]}), path)
    e = error_of(read_pairwise, path)
    assert e.line is None and e.problem == "outcome 0.5 is not a whole number (row 2)"
    pq.write_table(pa.table({"system_a": ["A", "B"], "system_b": ["B", "C"], "outcome": [float("inf"), 1.0]}), path)
    assert error_of(read_pairwise, path).problem == "outcome inf is not a whole number (row 1)"


def test_jsonl_float_outcomes(tmp_path):
    rows = [{"system_a": "A", "system_b": "B", "outcome": 1.0}, {"system_a": "B", "system_b": "C", "outcome": 2.0}]
    path = write(tmp_path, "p.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    assert read_pairwise(path).comparisons.outcome.tolist() == [1, 2]  # 1.0 is exactly 1
    rows[1]["outcome"] = 1.5
    e = error_of(read_pairwise, write(tmp_path, "q.jsonl", "".join(json.dumps(r) + "\n" for r in rows)))
    assert (e.line, e.problem) == (2, "outcome 1.5 is not a whole number")


def test_list_columns(tmp_path):
    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"system_a": ["A", "B"], "system_b": ["B", "C"], "outcome": [[1], [2, 0]]}), path)
    assert "column 'outcome' holds list<element: int64> values (lists or records)" in error_of(read_pairwise, path).problem
    e = error_of(read_pairwise, write(tmp_path, "l.jsonl", '{"system_a": ["A"], "system_b": "B", "outcome": 1}\n'))
    assert "column 'system_a' holds list" in e.problem
    pq.write_table(pa.table({"item": ["1"], "system": ["A"], "score": [[70.0]]}), path)
    assert "column 'score' holds list" in error_of(read_ratings, path).problem


def test_partial_column_mapping_keeps_the_defaults(tmp_path, fixture):
    text = fixture("arena_small.csv").read_text().replace("winner", "result")
    path = write(tmp_path, "a.csv", text)
    j = read_pairwise(path, columns={"outcome": "result"})
    assert j.comparisons.systems == ("claude", "gpt", "llama") and j.comparisons.items == ("q1", "q2", "q3")
    assert len(j.comparisons.judges) == 3  # judge and question_id still come from the arena layout
    e = error_of(read_pairwise, path, columns={"outcome": "result", "winner": "x"})
    assert e.problem == "columns= has unknown key(s) 'winner'" and "a, b, outcome, item, judge, track, group" in e.fix
    e = error_of(read_pairwise, path, columns={"outcome": "nope"})
    assert e.problem.startswith("columns= names outcome=nope, not in the file")
    ratings = write(tmp_path, "r.csv", "item,system,value\n1,A,70\n")
    assert read_ratings(ratings, columns={"score": "value"}).ratings.score.tolist() == [70.0]
    e = error_of(read_ratings, ratings, columns={"score": "value", "rater": "judge"})
    assert e.problem == "columns= has unknown key(s) 'rater'" and "criterion" in e.fix
    assert "judge=rater, not in the file" in error_of(read_ratings, ratings, columns={"judge": "rater"}).problem


def test_outcome_codes(tmp_path):
    path = write(tmp_path, "a.csv", "model_a,model_b,winner\nA,B,draw\nA,B,model_a\n")
    assert read_pairwise(path, outcomes={"draw": 0}).comparisons.outcome.tolist() == [0, 1]  # defaults kept
    e = error_of(read_pairwise, path, outcomes={"draw": 3})
    assert e.problem == "outcomes= maps 'draw' to '3'" and "0 (tie), 1 (a wins) and 2 (b wins)" in e.fix
    result = CliRunner().invoke(cli, ["info", str(path), "--outcomes", "draw=5"])
    assert result.exit_code == 2 and "--outcomes: draw=5: the codes are 0 (tie), 1 (a wins) and 2 (b wins)" in result.output


# -- empty results, empty names, self-comparisons ----------------------------------------------

def test_every_row_skipped_is_an_error_with_the_counts(tmp_path):
    path = write(tmp_path, "a.csv", "model_a,model_b,winner\nA,B,\nA,A,tie\n,B,tie\n")
    e = error_of(humeval.read, path)
    assert e.problem == ("no judgments left after skipping 1 rows without an outcome; 1 rows without both system "
                         "names; 1 rows comparing a system with itself (3 rows read as pairwise (csv))")
    result = CliRunner().invoke(cli, ["info", str(path)])
    assert result.exit_code == 2 and "no judgments left after skipping" in result.output
    e = error_of(humeval.read, write(tmp_path, "r.csv", "item,system,score\n1,A,\n2,B,NaN\n"))
    assert e.problem.startswith("no judgments left after skipping 2 rows without a score (empty or NaN)")
    e = error_of(humeval.read, write(tmp_path, "m.tsv", "system mqm_avg_score seg_id\nA None 1\n"))
    assert e.problem.startswith("no judgments left after skipping 1 segments not rated (None)")


def test_describe_of_an_empty_table_is_empty():
    empty = Comparisons(a=np.zeros(0), b=np.zeros(0), outcome=np.zeros(0), systems=())
    summary = describe(Judgments(ReadReport("x", "pairwise"), comparisons=empty))
    assert summary["comparisons"].empty and summary["comparisons"].index.name == "track"


def test_rows_without_a_system_name_are_counted(tmp_path):
    j = read_pairwise(write(tmp_path, "a.csv", "model_a,model_b,winner\nA,B,tie\n  ,B,tie\nA,,tie\n"))
    assert len(j.comparisons) == 1 and j.report.skipped == {"rows without both system names": 2}
    assert j.report.examples["rows without both system names"] == [3, 4]
    j = read_ratings(write(tmp_path, "r.csv", "item,system,score\n1,A,70\n2,,50\n,B,40\n"))
    assert len(j.ratings) == 1 and j.report.skipped == {"rows without an item or system name": 2}


def test_ranked_output_without_a_system_name_is_counted():
    # slot 1 was ranked but names no system: its 2 pairs are counted; the empty slot 3 is not a judgment
    r = Rankings(system=[[0, -1, 1, -1]], rank=[[1, 2, 3, -1]], systems=("A", "B"))
    comparisons, skipped = r.expand(return_skipped=True)
    assert comparisons.outcome.tolist() == [1] and skipped == {"pairs with a ranked output of no system name": 2}


def test_appraise_self_comparisons_are_skipped_and_counted(tmp_path):
    xml = ('<set><HIT source-language="deu" target-language="eng"><ranking-task id="1">'
           '<ranking-result user="u"><translation system="A" rank="1"/><translation system="A" rank="2"/>'
           '<translation system="B" rank="3"/></ranking-result></ranking-task></HIT></set>')
    j = read_appraise(write(tmp_path, "a.xml", xml))
    c = j.comparisons
    assert [(c.systems[a], c.systems[b], o) for a, b, o in zip(c.a, c.b, c.outcome)] == [("A", "B", 1), ("A", "B", 1)]
    assert j.report.skipped == {"pairs comparing a system with itself": 1}


# -- scores -------------------------------------------------------------------------------------

@pytest.mark.parametrize("cell, problem", [
    ("[90, NaN]", "score nan in '[90, NaN]' is outside the DA scale 0–100"),
    ("[90, Infinity]", "score inf in '[90, Infinity]' is outside the DA scale 0–100"),
    ("[150]", "score 150 in '[150]' is outside the DA scale 0–100"),
    ("[-1, 50]", "score -1 in '[-1, 50]' is outside the DA scale 0–100"),
    ('"123"', "scores is '\"123\"', expected a list of numbers like [90, 75, 80]"),
    ("[true]", "scores is '[true]', expected a list of numbers like [90, 75, 80]"),
    ('["90"]', "scores is '[\"90\"]', expected a list of numbers like [90, 75, 80]"),
])
def test_mlqe_da_scores(tmp_path, cell, problem):
    path = write(tmp_path, "d.tsv", DA_HEADER + "0\ta\tb\t[90]\t1\t[1]\t1\t1\n" + f"1\ta\tb\t{cell}\t1\t[1]\t1\t1\n")
    e = error_of(read_mlqe_da, path)
    assert (e.line, e.problem) == (3, problem)


@pytest.mark.parametrize("score", ["nan", "inf", "-Infinity", "1e400"])
def test_mqm_avg_refuses_non_finite_scores(tmp_path, score):
    e = error_of(read_mqm_avg, write(tmp_path, "m.tsv", f"system mqm_avg_score seg_id\nA -1 1\nB {score} 1\n"))
    assert (e.line, e.problem) == (3, f"score '{score}' is not a finite number")


@pytest.mark.parametrize("score, shown", [("inf", "inf"), ("-Infinity", "-inf"), ("1e400", "inf")])
def test_ratings_refuse_infinite_scores(tmp_path, score, shown):
    e = error_of(read_ratings, write(tmp_path, "r.csv", f"item,system,score\n1,A,70\n1,B,{score}\n"))
    assert (e.line, e.problem) == (3, f"score is {shown}, expected a finite number")


def test_ratings_nan_is_a_counted_skip(tmp_path):
    j = read_ratings(write(tmp_path, "r.csv", "item,system,score\n1,A,70\n1,B,nan\n"))
    assert j.ratings.score.tolist() == [70.0] and j.report.skipped == {"rows without a score (empty or NaN)": 1}
    path = tmp_path / "r.parquet"
    pq.write_table(pa.table({"item": ["1", "2"], "system": ["A", "B"], "score": [70.0, float("-inf")]}), path)
    e = error_of(read_ratings, path)
    assert e.line is None and e.problem == "score is -inf, expected a finite number (row 2)"


@pytest.mark.parametrize("value, problem", [("nan", "HTER 'nan' is not a finite number ≥ 0"),
                                            ("inf", "HTER 'inf' is not a finite number ≥ 0"),
                                            ("-0.1", "HTER '-0.1' is not a finite number ≥ 0")])
def test_hter_must_be_finite(tmp_path, value, problem):
    for part, text in (("mt", "a\nb\n"), ("pe", "a\nb\n"), ("hter", f"0.5\n{value}\n")):
        write(tmp_path, f"x.{part}", text)
    e = error_of(humeval.read, tmp_path / "x.mt")
    assert e.path.endswith("x.hter") and (e.line, e.problem) == (2, problem)


def test_mlqe_pe_blank_last_line_and_crlf(tmp_path):
    write(tmp_path, "x.mt", "a\r\nb\r\n")
    write(tmp_path, "x.pe", "A\r\nB\r\n\r\n")  # a blank line at the end is no row
    write(tmp_path, "x.hter", "0.5\n0.25\n\n")
    p = humeval.read(tmp_path / "x.mt").post_edits
    assert p.hypothesis.tolist() == ["a", "b"] and p.post_edit.tolist() == ["A", "B"] and p.hter.tolist() == [0.5, 0.25]


# -- control characters, encodings --------------------------------------------------------------

def test_control_characters_are_escaped_and_headers_capped(tmp_path):
    e = error_of(humeval.read, write(tmp_path, "a.csv", "mod\x00el_a,model_b,\x1b[31mwinner\nA,B,1\n"))
    assert "mod\\x00el_a" in str(e) and "\\x1b[31mwinner" in str(e) and "\x00" not in str(e) and "\x1b" not in str(e)
    e = error_of(read_pairwise, write(tmp_path, "b.csv", "model_a,model_b,winner\nA,B,\x07x\n"))
    assert e.line == 2 and e.problem.startswith("outcome '\\x07x' is not one of")
    e = error_of(humeval.read, write(tmp_path, "c.csv", ",".join(f"column{i}" for i in range(200)) + "\n"))
    assert len(e.problem) < 300 and e.problem.endswith("…)")


ARENA = "question_id,model_a,model_b,winner\nq1,gpt,claude,model_a\nq2,claude,llama,tie\n"


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32", "utf-8-sig"])
def test_byte_order_marks_are_recognised(tmp_path, codec):
    data = ARENA.encode(codec)
    if codec == "utf-16-be":
        data = codecs.BOM_UTF16_BE + data
    j = humeval.read(write(tmp_path, "a.csv", data))
    assert j.comparisons.systems == ("claude", "gpt", "llama") and j.comparisons.outcome.tolist() == [1, 0]
    da = humeval.read(write(tmp_path, "d.eten.df.short.tsv", (DA_HEADER + "0\ta\tb\t[90, 80]\t1\t[1]\t1\t1\n").encode(codec)
                            if codec != "utf-16-be" else codecs.BOM_UTF16_BE + (DA_HEADER + "0\ta\tb\t[90, 80]\t1\t[1]\t1\t1\n").encode(codec)))
    assert da.ratings.score.tolist() == [90.0, 80.0]


def test_appraise_in_utf16(tmp_path, fixture):
    text = fixture("appraise_small.xml").read_text(encoding="utf-8")
    j = humeval.read(write(tmp_path, "a.xml", text.encode("utf-16")))
    assert len(j.rankings) == len(read_appraise(fixture("appraise_small.xml")).rankings)


def test_utf16_without_a_mark_says_encoding(tmp_path):
    path = write(tmp_path, "a.csv", ARENA.encode("utf-16-le"))
    e = error_of(humeval.read, path)
    assert e.line == 1 and "holds" in e.problem and "NUL" in e.problem and "--encoding" in e.fix
    e = error_of(read_pairwise, path)
    assert "the file is not utf-8" in e.problem
    assert humeval.read(path, encoding="utf-16-le").comparisons.outcome.tolist() == [1, 0]
    result = CliRunner().invoke(cli, ["info", str(path)])
    assert result.exit_code == 2 and "encoding" in result.output


def test_replacement_characters_in_the_header_say_encoding(tmp_path):
    e = error_of(humeval.read, write(tmp_path, "a.csv", "\ufffd\ufffd\ufffd,\ufffd\ufffd\n1,2\n"))
    assert e.line == 1 and "replacement" in e.problem and "encoding" in e.fix


# -- CRLF and short rows in every format of this module ------------------------------------------

FIXTURE_OF = {"pairwise": "arena_small.csv", "ratings": "ratings_long.csv", "mlqe-da": "mlqe_da_small.eten.df.short.tsv",
              "mqm": "mqm_small.ende.tsv", "mqm-avg": "mqm_avg_small.tsv", "wmt-edits": "wmt10_edits_small.tsv"}


@pytest.mark.parametrize("fmt", list(FIXTURE_OF))
def test_crlf_reads_like_lf(tmp_path, fixture, fmt):
    name = FIXTURE_OF[fmt]
    text = fixture(name).read_text(encoding="utf-8").replace("\r\n", "\n")
    (tmp_path / "lf").mkdir()
    lf = humeval.read(write(tmp_path / "lf", name, text), format=fmt)
    crlf = humeval.read(write(tmp_path, name, text.replace("\n", "\r\n")), format=fmt)
    for kind, table in lf.tables().items():
        assert getattr(crlf, kind).to_pandas().equals(table.to_pandas()), kind
    assert (crlf.report.rows, crlf.report.skipped) == (lf.report.rows, lf.report.skipped)


@pytest.mark.parametrize("fmt", list(FIXTURE_OF))
def test_short_row_names_its_line(tmp_path, fixture, fmt):
    """The second data row cut to two fields, in a CRLF file: an error naming line 3."""
    name = FIXTURE_OF[fmt]
    lines = fixture(name).read_text(encoding="utf-8").replace("\r\n", "\n").split("\n")
    delimiter = "\t" if "\t" in lines[0] else ","
    lines[2] = " ".join(lines[2].split()[:2]) if fmt == "mqm-avg" else delimiter.join(lines[2].split(delimiter)[:2])
    e = error_of(humeval.read, write(tmp_path, name, "\r\n".join(lines)), format=fmt)
    assert e.line == 3 and "fields" in e.problem


def test_info_prints_labels_as_text_not_markup(tmp_path):
    pairs = write(tmp_path, "t.csv", "track,system_a,system_b,outcome\n[/],A,B,1\n[bold]x,A,C,2\n")
    result = CliRunner().invoke(cli, ["info", str(pairs)])
    assert result.exit_code == 0 and "[/]" in result.output and "[bold]x" in result.output
    mqm = write(tmp_path, "m.tsv", "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
                "A\td\t1\t1\tr\ts\tt\tc\t[/]\nA\td\t1\t1\tr\ts\tt\tc\tMajor\n")
    result = CliRunner().invoke(cli, ["info", str(mqm)])
    assert result.exit_code == 0 and "skipped 1 row with severity '[/]' (e.g. line 2)" in result.output


def test_mqm_and_edit_rows_without_a_system_are_counted(tmp_path):
    header = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
    j = humeval.read(write(tmp_path, "m.tsv", header + "A\td\t1\t1\tr\ts\tt\tc\tMajor\n\td\t1\t1\tr\ts\tt\tc\tMinor\n"
                           "A\td\t1\t \tr\ts\tt\tc\tMinor\n"))
    assert j.ratings.score.tolist() == [-5.0] and j.report.skipped == {"rows without a system or segment": 2}
    assert j.report.examples["rows without a system or segment"] == [3, 4]
    text = "\t".join(["editId", "srclang", "trglang", "srcIndex", "documentId", "segmentId", "editorId", "system1Number",
                      "system1Id", "system1actionVal", "system1actionStr", "system1edit"]) + "\n" + \
        "1\tes\ten\t10\td\t1\tE1\t6\tsysA\t1\tEDIT\tx\n2\tes\ten\t11\td\t2\tE1\t6\t\t1\tOK\ty\n"
    j = humeval.read(write(tmp_path, "e.tsv", text))
    assert len(j.post_edits) == 1 and j.report.skipped == {"rows without a system": 1}


def test_group_ids_must_be_whole_numbers(tmp_path):
    head = "system_a,system_b,outcome,group\n"
    assert read_pairwise(write(tmp_path, "g.csv", head + "A,B,1,7\nA,C,1,\nB,C,0,3.0\n")).comparisons.group.tolist() == \
        [7, -1, 3]
    e = error_of(read_pairwise, write(tmp_path, "h.csv", head + "A,B,1,7\nA,C,1,99999999999\n"))
    assert (e.line, e.problem) == (3, "group is '99999999999', expected a whole number")
    path = tmp_path / "g.parquet"
    pq.write_table(pa.table({"system_a": ["A", "B"], "system_b": ["B", "C"], "outcome": [1, 2], "group": [1.0, 2.5]}), path)
    assert error_of(read_pairwise, path).problem == "group is '2.5', expected a whole number (row 2)"


def test_json_lines_of_mixed_types_name_the_line(tmp_path):
    text = '{"model_a": "A", "model_b": "B", "winner": "tie"}\n\n{"model_a": 1, "model_b": "B", "winner": "tie"}\n'
    e = error_of(read_pairwise, write(tmp_path, "m.jsonl", text))
    assert (e.line, e.problem) == (3, "'model_a' is a number here but a string on line 1")


def test_arrow_messages_stay_on_one_line(tmp_path):
    path = write(tmp_path, "f.parquet", b"PAR1" + b"\x00" * 20 + b"PAR1")
    for call in (humeval.read, read_pairwise):
        e = error_of(call, path)
        assert e.problem.startswith("not a readable Parquet file (") and "\n" not in str(e)


def test_rankings_without_a_comparison_are_no_judgments(tmp_path):
    xml = ('<set><HIT source-language="deu" target-language="eng"><ranking-task id="1">'
           '<ranking-result user="u"><translation system="A" rank="1"/><translation system="A" rank="2"/>'
           '</ranking-result></ranking-task></HIT></set>')
    e = error_of(humeval.read, write(tmp_path, "a.xml", xml))
    assert e.problem == "no judgments left after skipping 1 pairs comparing a system with itself (1 rows read as appraise-xml)"


def test_unknown_encoding_is_named_before_guessing(tmp_path):
    path = write(tmp_path, "a.csv", ARENA)
    for call, kw in ((humeval.read, {}), (read_pairwise, {}), (humeval.read, {"format": "mqm-avg"})):
        for codec in ("klingon", "rot13"):  # rot13 is a codec, but not a text encoding
            e = error_of(call, path, encoding=codec, **kw)
            assert e.problem == f"unknown encoding '{codec}'" and "latin-1" in e.fix


def test_cli_partial_columns(tmp_path, fixture):
    path = write(tmp_path, "a.csv", fixture("arena_small.csv").read_text().replace("winner", "result"))
    result = CliRunner().invoke(cli, ["info", str(path), "--columns", "outcome=result", "--json"])
    assert result.exit_code == 0 and json.loads(result.output)["comparisons"][0]["comparisons"] == 4
    result = CliRunner().invoke(cli, ["info", str(path), "--columns", "outcome=result,winner=x"])
    assert result.exit_code == 2 and "--columns: unknown key winner; the keys are" in result.output
