"""The ESA reader: WMT24's headerless Appraise export and a CSV with a header."""

from pathlib import Path

import pytest

from humeval.data.readers import guess_format, read
from humeval.errors import InputError
from humeval.ratings import rank_ratings
from humeval.ratings.quality import annotator_qc

FIXTURE = Path(__file__).parent.parent / "fixtures" / "esa_wmt24_small.csv"


def triples(ratings):
    df = ratings.to_pandas()
    return sorted(zip(df.track, df.judge, df.system, df.item, df.kind, df.score))


def test_wmt24_export_is_guessed_and_filtered_as_wmt24_does():
    assert guess_format(FIXTURE) == ("esa", "WMT24's 12-field ESA rows")
    judgments = read(FIXTURE)
    assert triples(judgments.ratings) == [
        ("en-de", "annC", "sysX", "docd:1", "SYSTEM", 77.0), ("en-de", "annC", "sysZ", "docd:1", "SYSTEM", 66.0),
        ("en-ja", "annA", "sysX", "doc1:1", "SYSTEM", 90.0), ("en-ja", "annA", "sysX", "doc1:2", "SYSTEM", 70.0),
        ("en-ja", "annA", "sysY", "doc1:1", "SYSTEM", 60.0), ("en-ja", "annA", "sysY", "doc1:2", "SYSTEM", 50.0),
        ("en-ja", "annB", "sysX", "doc1:1", "SYSTEM", 95.0),  # annB's later score (85 at t=201, 95 at t=203)
        ("en-ja", "annB", "sysY", "doc1:1", "SYSTEM", 40.0)]
    report = judgments.report
    assert report.rows == 13 and report.skipped == {
        "tutorial rows (as WMT24)": 1,
        "quality-control rows of type BAD (controls=True keeps them)": 1,
        "rows of incomplete filler documents (#incomplete, left out as WMT24)": 1,
        "earlier scores of an output the annotator scored again (the latest is kept, as WMT24)": 1,
        "rows without a score": 1}
    assert "error spans: 1 major, 1 minor" in report.notes
    assert any("not a JSON list" in n and "line 10" in n for n in report.notes)
    assert judgments.ratings.criteria == ("ESA",) and judgments.ratings.scale == "0-100"


def test_controls_keep_bad_rows_as_degraded_references():
    ratings = read(FIXTURE, controls=True).ratings
    assert ("en-ja", "annA", "sysX", "doc1:1", "BAD_REF", 20.0) in triples(ratings)  # the item of its original
    qc = annotator_qc(ratings)
    assert qc.table.loc["annA", "bad-ref pairs"] == 1 and qc.table.loc["annA", "mean drop"] == 70.0
    assert qc.table.loc["annB", "flag"] == "no pairs"


def test_esa_ranks_by_the_raw_mean():
    ja = read(FIXTURE, format="esa").ratings
    ja = ja.take(ja.track == ja.tracks.index("en-ja")).compact()
    table = rank_ratings(ja, model="esa").table
    # segment means then system means: sysX (mean(90, 95), 70) -> 81.25; sysY (mean(60, 40), 50) -> 50
    assert table.index.tolist() == ["sysX", "sysY"]
    assert table["esa"].tolist() == pytest.approx([81.25, 50.0])


def test_csv_with_a_header(tmp_path):
    path = tmp_path / "esa.csv"
    path.write_text('system,segment_id,annotator,score,error_spans,lp\n'
                    'A,1,x,80,"[{""severity"": ""minor""}]",en-de\n'
                    'B,1,x,30,"[{""severity"": ""major""}, {""severity"": ""major""}]",en-de\n'
                    'A,2,y,,[],en-de\n', encoding="utf-8")
    assert guess_format(path) == ("esa", "the header")
    judgments = read(path)
    assert triples(judgments.ratings) == [("en-de", "x", "A", "1", "SYSTEM", 80.0),
                                          ("en-de", "x", "B", "1", "SYSTEM", 30.0)]
    assert judgments.report.skipped == {"rows without a score": 1}
    assert "error spans: 2 major, 1 minor" in judgments.report.notes


def test_bad_input_names_the_line(tmp_path):
    path = tmp_path / "esa.csv"
    path.write_text("system,segment_id,score,error_spans\nA,1,80,[]\nA,2,eighty,[]\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"esa.csv:3: score is 'eighty', expected a number from 0 to 100"):
        read(path)
    path.write_text("system,segment_id,score,error_spans\nA,1,80\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"esa.csv:2: 3 fields, expected 4"):
        read(path)
    path.write_text("system,annotator,error_spans\nA,x,[]\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"needs columns for item, score"):
        read(path, format="esa")


def test_spans_without_a_position_and_without_a_type_are_noted(tmp_path):
    path = tmp_path / "wave.csv"
    path.write_text(
        'a1,sysX,1,TGT,eng,ces,70,test-en-news_d,False,"[{""start_i"":""missing"",""end_i"":""missing"",'
        '""severity"":""minor"",""error_type"":null}, '
        '{""start_i"":3,""end_i"":5,""severity"":""undecided""}]",1.0,2.0\n'
        'a1,sysY,1,TGT,eng,ces,90,test-en-news_d,False,[],3.0,4.0\n', encoding="utf-8")
    notes = read(path).report.notes
    assert "error spans: 1 minor, 1 undecided" in notes
    assert any(n.startswith("1 error spans have no position") for n in notes)
    assert "1 error spans have no error_type key" in notes


def test_only_the_control_marks_leave_the_document_id(tmp_path):
    path = tmp_path / "wave.csv"
    path.write_text("a1,sysX,en-cs_CZ_#_news_#_d_#_3,TGT,eng,ces,70,en-cs_CZ_#_news_#_d,False,[],1.0,2.0\n"
                    "a1,sysX,en-cs_CZ_#_news_#_d_#_3,BAD,eng,ces,20,en-cs_CZ_#_news_#_d#bad,False,[],3.0,4.0\n",
                    encoding="utf-8")
    items = read(path, controls=True).ratings.to_pandas()["item"].tolist()
    assert items == ["en-cs_CZ_#_news_#_d:en-cs_CZ_#_news_#_d_#_3"] * 2  # WMT25-style ids keep their _#_


def test_annotator_mapping_makes_judges_persons(tmp_path):
    mapping = tmp_path / "annotator_mapping.json"
    mapping.write_text('{"Annotator01": ["annA", "annB"], "Annotator02": ["annC"]}', encoding="utf-8")
    ratings = read(FIXTURE, annotators=mapping).ratings
    by_person = sorted(zip(ratings.to_pandas().judge, ratings.to_pandas().system, ratings.to_pandas().score))
    # annB's re-rating is resolved per account first (95 kept), then both accounts become Annotator01
    assert by_person == [("Annotator01", "sysX", 70.0), ("Annotator01", "sysX", 90.0), ("Annotator01", "sysX", 95.0),
                         ("Annotator01", "sysY", 40.0), ("Annotator01", "sysY", 50.0), ("Annotator01", "sysY", 60.0),
                         ("Annotator02", "sysX", 77.0), ("Annotator02", "sysZ", 66.0)]
    assert set(ratings.judges) == {"Annotator01", "Annotator02"}
    with pytest.raises(InputError, match=r"small.csv:2: account annA is not in the annotator mapping \(2 accounts"):
        read(FIXTURE, annotators={"Annotator02": ["annC"]})
    with pytest.raises(InputError, match="not an object of person"):
        read(FIXTURE, annotators={"Annotator02": "annC"})
    mapping.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match="not JSON"):
        read(FIXTURE, annotators=mapping)


def test_wmt24_wave2_with_the_annotator_mapping():
    from conftest import shared_file
    judgments = read(shared_file("wmt24-esa/esa_generalMT2024_wave2.csv"),
                     annotators=shared_file("wmt24-esa/annotator_mapping.json"))
    assert len(judgments.ratings.judges) == 43  # the README: 203 accounts of 43 persons in wave 2
    assert "judges are the 43 persons of the annotator mapping (203 accounts)" in judgments.report.notes
    assert len(judgments.ratings) == 4767 + 3291 + 3877 + 3911 - 105  # plain TGT rows less 105 re-ratings
