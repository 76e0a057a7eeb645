"""Malformed input: every error names the file, the line and what was expected."""

import pytest

import humeval
from humeval.data.readers import read_appraise, read_pairwise, read_wmt_csv

WMT_HEADER = ("srclang,trglang,srcIndex,documentId,segmentId,judgeId,system1Number,system1Id,system2Number,"
              "system2Id,system1rank,system2rank\n")


def write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return path


def error_of(call, *args, match: str = r"\S", **kw) -> humeval.InputError:
    """The InputError ``call`` raises (its callers check the fields); ``match`` any part of the message."""
    with pytest.raises(humeval.InputError, match=match) as caught:
        call(*args, **kw)
    return caught.value


def test_empty_file(tmp_path):
    path = write(tmp_path, "empty.csv", "")
    e = error_of(humeval.read, path)
    assert e.path == str(path) and e.line is None and "empty" in e.problem
    e = error_of(read_wmt_csv, write(tmp_path, "header_only.csv", WMT_HEADER))
    assert "no rankings" in e.problem


def test_missing_file(tmp_path):
    e = error_of(humeval.read, tmp_path / "nope.csv")
    assert "no such file" in str(e)


def test_wrong_header(tmp_path):
    path = write(tmp_path, "bad.csv", "srclang,trglang,srcIndex,judgeId,system1Id\nA,B,1,j,x\n")
    e = error_of(read_wmt_csv, path)
    assert e.line == 1 and "system1rank" in e.problem and e.fix


def test_unknown_format(tmp_path):
    e = error_of(humeval.read, write(tmp_path, "what.csv", "foo,bar\n1,2\n"))
    assert e.line == 1 and "cannot tell the format" in e.problem and "--format" in e.fix


def test_non_numeric_rank(tmp_path):
    path = write(tmp_path, "r.csv", WMT_HEADER + "Fr,En,1,d,1,j,1,A,2,B,1,2\nFr,En,2,d,2,j,1,A,2,B,1,two\n")
    e = error_of(read_wmt_csv, path)
    assert (e.line, e.path) == (3, str(path)) and "system2rank is 'two'" in e.problem
    assert str(e).startswith(f"{path}:3: ")


def test_zero_rank_and_wrong_field_count(tmp_path):
    e = error_of(read_wmt_csv, write(tmp_path, "z.csv", WMT_HEADER + "Fr,En,1,d,1,j,1,A,2,B,0,2\n"))
    assert e.line == 2 and "expected a rank" in e.problem
    e = error_of(read_wmt_csv, write(tmp_path, "n.csv", WMT_HEADER + "Fr,En,1,d,1,j,1,A,2,B,1,2\nFr,En,1,d,1,j,1,A,2,B,1\n"))
    assert e.line == 3 and "11 fields, expected 12" in e.problem


def test_bad_encoding_names_line_and_column(tmp_path):
    content = (WMT_HEADER + "Fr,En,1,d,1,j,1,A,2,B,1,2\n").encode() + "Fr,En,2,d,1,j,1,Ä,2,B,1,2\n".encode("latin-1")
    path = write(tmp_path, "latin.csv", content)
    e = error_of(read_wmt_csv, path)
    assert e.line == 3 and "not valid utf-8: byte 0xc4 at column 17" in e.problem and "encoding" in e.fix
    # ... and the fix works
    assert read_wmt_csv(path, encoding="latin-1").rankings.systems == ("A", "B", "Ä")


def test_pairwise_errors(tmp_path):
    e = error_of(read_pairwise, write(tmp_path, "p.csv", "model_a,model_b,winner\nA,B,model_a\nA,B\n"))
    assert e.line == 3 and "2 fields, expected 3" in e.problem
    e = error_of(read_pairwise, write(tmp_path, "w.csv", "model_a,model_b,winner\nA,B,model_a\nA,B,draw\n"))
    assert e.line == 3 and "outcome 'draw'" in e.problem and "outcomes=" in e.fix
    e = error_of(read_pairwise, write(tmp_path, "j.jsonl", '{"model_a": "A", "model_b": "B", "winner": "tie"}\n{"model_a": "A",\n'))
    assert e.line == 2 and "not valid JSON" in e.problem
    e = error_of(read_pairwise, write(tmp_path, "bad.parquet", b"not parquet"))
    assert "Parquet" in e.problem


def test_bad_xml(tmp_path):
    path = write(tmp_path, "a.xml", '<set>\n<HIT source-language="deu" target-language="eng">\n<ranking-task id="1">\n'
                 '<ranking-result user="u">\n<translation system="A" rank="x"/>\n</ranking-result></ranking-task></HIT></set>\n')
    e = error_of(read_appraise, path)
    assert e.line == 5 and "rank in <translation> is 'x'" in e.problem
    e = error_of(read_appraise, write(tmp_path, "t.xml", "<set>\n<HIT>\n<ranking-task"))
    assert e.line == 3 and "not well-formed XML" in e.problem
    e = error_of(read_appraise, write(tmp_path, "none.xml", "<set><HIT></HIT></set>"))
    assert "no <ranking-result>" in e.problem


def test_bad_gzip(tmp_path):
    e = error_of(read_appraise, write(tmp_path, "a.xml.gz", b"plain text, not gzip"))
    assert "compressed" in e.problem


def test_bad_scores(tmp_path, fixture):
    e = error_of(humeval.read, write(tmp_path, "r.csv", "item,system,score\n1,A,70\n2,A,good\n"))
    assert e.line == 3 and "score is 'good'" in e.problem
    e = error_of(humeval.read, write(tmp_path, "d.tsv", "index\toriginal\ttranslation\tscores\tmean\tz_scores\tz_mean\tmodel_scores\n"
                                     "0\ta\tb\t[90, oops]\t1\t[1]\t1\t1\n"))
    assert e.line == 2 and "expected a list" in e.problem
    (tmp_path / "x.mt").write_text("a\nb\n")
    (tmp_path / "x.pe").write_text("a\n")
    e = error_of(humeval.read, tmp_path / "x.mt")
    assert e.path.endswith("x.pe") and "1 lines, but x.mt has 2" in e.problem


def test_legacy_rank_must_be_whole(fixture, tmp_path):
    text = fixture("wmt08_small.csv").read_text().replace("sysA,2,,", "sysA,2.5,,")
    e = error_of(humeval.read, write(tmp_path, "w.csv", text))
    assert e.line == 2 and "SCORE_0_A is '2.5'" in e.problem


@pytest.mark.parametrize("name, content", [
    ("battles.csv", "model_a,model_b,judge,result\nx,y,u1,model_a\ny,x,u2,tie\n"),
    ("battles.json", '[{"model_a": "x", "model_b": "y", "judge": "u1", "result": "model_a"}]'),
    ("battles.jsonl", '{"model_a": "x", "model_b": "y", "judge": "u1", "result": "model_a"}\n'),
])
def test_arena_battles_without_winner_name_the_missing_column(tmp_path, name, content):
    """model_a and model_b but no winner: the guess (and --format pairwise) names the outcome
    column it lacks and the two fixes, and the second fix reads the file."""
    path = write(tmp_path, name, content)
    for fmt in (None, "pairwise"):
        e = error_of(humeval.read, path, format=fmt,
                     match=r"looks like arena battles \(model_a, model_b\) but has no column 'winner' for the outcome")
        assert e.line == 1 and "result" in e.problem
        assert "add a column winner holding model_a, model_b, tie or tie (bothbad)" in e.fix
        assert "--columns outcome=COL" in e.fix
    assert humeval.read(path, columns={"outcome": "result"}).comparisons.outcome.tolist()[0] == 1


def test_own_layout_without_a_system_column_names_it(tmp_path):
    path = write(tmp_path, "own.csv", "system_a,outcome,item\nx,1,s1\n")
    e = error_of(humeval.read, path, match=r"humeval's pairwise layout \(system_a, outcome\) but has no column "
                                           r"'system_b' for the second system")
    assert "--columns b=COL" in e.fix


def test_the_cli_prints_the_missing_winner_column(tmp_path):
    from click.testing import CliRunner

    from humeval.cli import cli
    path = write(tmp_path, "battles.csv", "model_a,model_b,judge\nx,y,u1\n")
    result = CliRunner().invoke(cli, ["info", str(path)])
    assert result.exit_code != 0 and "bug" not in result.output
    assert "no column 'winner' for the outcome" in result.output and "--columns outcome=COL" in result.output


def test_a_bad_byte_deep_in_an_arrow_csv_is_located(tmp_path):
    # the CSV reader decodes only the header itself (arrow checks the rows' UTF-8); the error still names the line
    path = write(tmp_path, "bad.csv", b"model_a,model_b,winner\nA,B,model_a\nA,B\xc4x,tie\n")
    e = error_of(read_pairwise, path)
    assert e.line == 3 and "not valid utf-8: byte 0xc4 at column 4" in e.problem
