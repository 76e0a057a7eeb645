"""Readers of WMT25's human-evaluation JSONL, Pearmut's annotation logs and Appraise's segment-level CSV
export, on small fixtures written after the layouts the tools' own code writes (see each module's doc)."""

from pathlib import Path

import pytest

from humeval.data.readers import guess_format, read
from humeval.errors import InputError

FIXTURES = Path(__file__).parent.parent / "fixtures"


def rows(judgments, *columns):
    df = judgments.ratings.to_pandas()
    table = [tuple(None if v != v else v for v in row) for row in df[list(columns)].itertuples(index=False)]
    return sorted(table, key=lambda row: tuple("" if v is None else str(v) for v in row))


def test_wmt25_jsonl_waves_and_skips():
    path = FIXTURES / "wmt25_humeval_small.jsonl"
    assert guess_format(path)[0] == "wmt25-jsonl"
    judgments = read(path)
    assert rows(judgments, "track", "judge", "system", "item", "score") == [
        ("en-cs_CZ", None, "sysB", "en-cs_CZ_#_speech_#_doc2_#_0", 75.0),  # an older draft's dict, annotator unknown
        ("en-cs_CZ", "en-cs_#_annotator1", "refA", "en-cs_CZ_#_news_#_doc1_#_0", 95.0),
        ("en-cs_CZ", "en-cs_#_annotator1", "sysA", "en-cs_CZ_#_news_#_doc1_#_0", 90.0),  # wave 1
        ("en-cs_CZ", "en-cs_#_annotator1", "sysB", "en-cs_CZ_#_news_#_doc1_#_0", 60.0),
        ("en-cs_CZ", "en-cs_#_annotator2", "sysA", "en-cs_CZ_#_news_#_doc1_#_0", 80.0),  # wave 2
        ("en-cs_CZ", "en-cs_#_annotator3", "sysA", "en-cs_CZ_#_speech_#_doc2_#_0", 70.0)]
    assert judgments.report.skipped == {"system outputs a wave did not rate (score NaN or null)": 2,
                                        "segments nobody annotated (scores {})": 1, "tutorial segments": 1}
    notes = judgments.report.notes
    assert "error spans: 1 major, 1 minor" in notes and any("1 error spans have no position" in n for n in notes)
    assert judgments.ratings.criteria == ("ESA",) and judgments.ratings.scale == "0-100"
    assert read(path, criterion="MQM").ratings.criteria == ("MQM",)


def test_wmt25_malformed_lines(tmp_path):
    path = tmp_path / "wmt25.jsonl"
    path.write_text('{"doc_id": "en-de_DE_#_news_#_d_#_0", "scores": {"A": [{"score": 80}]}, "tgt_text": {}}\n'
                    '{"doc_id": "en-de_DE_#_news_#_d_#_1", "scores": {"A": [{"score": "eighty"}]}, "tgt_text": {}}\n',
                    encoding="utf-8")
    with pytest.raises(InputError, match=r"wmt25.jsonl:2: the score of A in wave 1 is eighty, expected a number"):
        read(path)
    path.write_text('{"doc_id": "en-de_DE_#_news_#_d_#_0", "scores": {"A": [{"score": 80}]}, "tgt_text": {}}\n'
                    '{"doc_id": "x", "scores": {"A": [{"score": 80}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"wmt25.jsonl:2: not valid JSON"):
        read(path, format="wmt25-jsonl")
    path.write_text('{"doc_id": "en-de_DE_#_news_#_d_#_0", "scores": {"A": 80}, "tgt_text": {}}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"wmt25.jsonl:1: the annotations of A are neither a list nor an object"):
        read(path)
    path.write_text('{"doc_id": 7, "scores": [], "tgt_text": {}}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"needs a doc_id string and a scores object"):
        read(path)


def test_pearmut_log_resets_replacements_and_tutorials():
    path = FIXTURES / "pearmut_log_small.jsonl"
    assert guess_format(path)[0] == "pearmut"
    judgments = read(path, protocol="ESA")
    assert rows(judgments, "judge", "system", "item", "score") == [
        ("alice", "A", "d1_#_0", 80.0), ("alice", "B", "d1_#_0", 60.0),  # the document's second item: skipped (null)
        ("bob", "A", "d1_#_0", 75.0), ("bob", "B", "d1_#_0", 65.0),  # after the reset, the later submission
        ("carol", "A", "1:0", 88.0), ("carol", "B", "1:0", 91.0)]  # an older one-item entry without item_id
    assert judgments.report.skipped == {
        "task resets (__RESET__ markers)": 1, "submissions voided by a later task reset": 1,
        "skipped items (annotation null)": 1, "earlier answers replaced by a later submission": 2,
        "tutorial, attention-check and form entries (item_i welcome_/random_/goodbye_)": 1}
    assert judgments.ratings.criteria == ("ESA",) and "error spans: 1 minor" in judgments.report.notes
    assert any("does not name the campaign's protocol" in n for n in read(path).report.notes)


def test_pearmut_dashboard_download_names_the_campaign():
    path = FIXTURES / "pearmut_annotations.json"
    assert guess_format(path) == ("pearmut", "the campaigns of Pearmut's annotations.json")
    judgments = read(path)
    assert rows(judgments, "track", "judge", "system", "score") == [
        ("wmt25_#_en-cs_CZ", "alice", "A", 80.0), ("wmt25_#_en-cs_CZ", "alice", "B", 60.0),
        ("wmt25_#_en-cs_CZ", "bob", "A", 10.0), ("wmt25_#_en-cs_CZ", "bob", "B", 20.0)]


def test_pearmut_malformed(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"user_id": "a", "item_i": 0, "annotation": [{"A": {"score": "high"}}]}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"log.jsonl:1: the score of A is high, expected a number"):
        read(path)
    path.write_text('{"user_id": "a", "item_i": 0, "annotation": [{"A": {"score": 5}}]}\n[1, 2]\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"log.jsonl:2: a line must be one Pearmut log entry"):
        read(path)
    path.write_text('{"user_id": "", "item_i": 0, "annotation": [{"A": {"score": 5}}]}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"log.jsonl:1: an entry without a user_id"):
        read(path)


def test_appraise_segment_export_and_its_controls():
    path = FIXTURES / "appraise_da_small.csv"
    assert guess_format(path) == ("appraise-csv", "Appraise's 9-field segment rows")
    judgments = read(path)
    assert rows(judgments, "track", "judge", "system", "item", "kind", "score") == [
        ("en-cs", "engces0101", "sysA", "1", "SYSTEM", 80.0), ("en-cs", "engces0101", "sysB", "1", "SYSTEM", 55.0),
        ("en-cs", "engces0102", "sysA", "1", "SYSTEM", 90.0)]
    assert judgments.report.skipped == {
        "quality-control rows of type BAD (controls=True keeps them)": 1,
        "quality-control rows of type CHK (controls=True keeps them)": 1,
        "quality-control rows of type REF (controls=True keeps them)": 1, "rows without a score": 1}
    kinds = rows(read(path, controls=True), "system", "item", "kind", "score")
    assert ("sysA", "2", "BAD_REF", 10.0) in kinds and ("sysA", "1", "REPEAT", 78.0) in kinds
    assert ("refA", "1", "REF", 95.0) in kinds and read(path).ratings.criteria == ("DA",)


def test_appraise_malformed(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("u1,sysA,1,TGT,eng,ces,80,1.0,2.0\nu1,sysA,2,TGT,eng,ces,80,1.0\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"scores.csv:2: 8 fields, expected 9"):
        read(path)
    path.write_text("u1,sysA,1,TGT,eng,ces,80,1.0,2.0\nu1,sysA,2,XYZ,eng,ces,80,1.0,2.0\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"scores.csv:2: item type XYZ, expected TGT, BAD, REF or CHK"):
        read(path, format="appraise-csv")
    path.write_text("u1,sysA,1,TGT,eng,ces,80,1.0,2.0\nu1,sysA,2,TGT,eng,ces,lots,1.0,2.0\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"scores.csv:2: score is 'lots'"):
        read(path)


def test_appraise_document_export_with_batch_info(tmp_path):
    # ExportSystemScoresToCSV --batch-info: the 12 ESA fields and batch_no, result_item_id
    path = tmp_path / "esa14.csv"
    path.write_text('u1,sysA,5,TGT,eng,deu,70,doc9,False,"[{""start_i"":0,""end_i"":2,""severity"":""minor""}]",'
                    '1.0,2.0,3,9911\n'
                    'u1,sysA,5,CHK,eng,deu,72,doc9,False,[],3.0,4.0,3,9912\n', encoding="utf-8")
    assert guess_format(path) == ("esa", "Appraise's 14-field ESA rows")
    judgments = read(path)
    assert rows(judgments, "track", "judge", "system", "item", "kind", "score") == [
        ("en-de", "u1", "sysA", "doc9:5", "SYSTEM", 70.0)]
    assert judgments.report.skipped == {"quality-control rows of type CHK (controls=True keeps them)": 1}
    assert ("doc9:5", "REPEAT", 72.0) in rows(read(path, controls=True), "item", "kind", "score")
