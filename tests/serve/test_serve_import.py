"""``humeval serve --import FILE --into DIR``: campaigns built from Pearmut's campaign JSON,
Appraise's batches JSON and WMT's JSONL (small files written here in their layouts); what cannot
be carried over is counted in the report, and bad files are InputErrors naming the line."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.errors import InputError
from humeval.serve.campaign import load_campaign
from humeval.serve.manifest import import_manifest

PEARMUT = {
    "info": {"assignment": "task-based", "protocol": "ESA"},
    "campaign_id": "demo_ende",
    "data": [
        [[{"item_id": "tutorial_1", "src": "Der Hund bellt.", "tgt": {"A": "The dog barks."},
           "validation": {"A": {"score": [80, 100], "warning": "A is right: 80 or more."}}}],
         [{"item_id": "news1_#_0", "src": "Es regnet.", "tgt": {"A": "It rains.", "B": "It is raining."},
           "error_spans": {"A": [{"start_i": 3, "end_i": 8, "severity": "minor", "category": None}]}},
          {"item_id": "news1_#_1", "src": "Wir bleiben drinnen.", "tgt": {"A": "We stay inside.", "B": "We stay in."}}],
         [{"item_id": "silent_1", "src": "Die Sonne scheint.", "tgt": {"A": "Banana flies mountain cat."},
           "validation": {"A": {"score": [0, 15]}}}]],
        [[{"item_id": "news2_#_0", "src": "Guten Morgen.", "tgt": {"A": "Good morning.", "B": "Good tomorrow."}},
          {"item_id": "news2_#_1", "src": "Nur eins.", "tgt": {"A": "Only one."}}]],
    ],
}

APPRAISE = [{"items": [
    {"mqm": {"tutorial": {"instruction": "All correct: <u>100%</u>.", "score_target": 100}, "payload": []},
     "documentID": "ende-tutorial1", "itemType": "TGT", "sourceText": "Der Hund ist rausgerannt.",
     "targetText": "The dog ran outside.", "targetID": "ende-tutorial1", "itemID": 1000000},
    {"mqm": [], "documentID": "doc1", "itemType": "TGT", "sourceText": "Eins.", "targetText": "One.",
     "targetID": "sysA", "itemID": 1},
    {"mqm": {"payload": [{"start_i": 0, "end_i": 3, "severity": "major"}]}, "documentID": "doc1", "itemType": "TGT",
     "sourceText": "Eins.", "targetText": "Uno.", "targetID": "sysB", "itemID": 2},
    {"mqm": [], "documentID": "doc1#bad", "itemType": "BAD", "sourceText": "Eins.", "targetText": "Banane.",
     "targetID": "sysB", "itemID": 3},
    {"mqm": [], "documentID": "doc2", "itemType": "TGT", "sourceText": "Zwei.", "targetText": "Two.",
     "targetID": "sysA", "itemID": 4},
    {"mqm": [], "documentID": "doc2", "itemType": "TGT", "sourceText": "Zwei.", "targetText": "Deux.",
     "targetID": "sysB", "itemID": 5}],
    "task": {"batchNo": 1, "sourceLanguage": "deu", "targetLanguage": "eng"}}]

WMT = [{"doc_id": "en-de_#_news_#_doc7_#_0", "src_text": "Hello.", "tgt_text": {"s1": "Hallo.", "s2": "Servus."}},
       {"doc_id": "en-de_#_news_#_doc7_#_1", "src_text": "Bye.", "tgt_text": {"s1": "Tschüss.", "s2": "Ade."}},
       {"doc_id": "en-de_#_tutorial_#_t_#_0", "src_text": "X.", "tgt_text": {"s1": "X.", "s2": "Y."}},
       {"doc_id": "en-de_#_speech_#_v1_#_0", "src_text": "Yes.", "tgt_text": {"s1": "Ja.", "s2": None}}]


def write(tmp_path, name, value):
    path = tmp_path / name
    text = "".join(json.dumps(x) + "\n" for x in value) if name.endswith(".jsonl") else json.dumps(value, indent=2)
    path.write_text(text, encoding="utf-8")
    return path


def test_pearmut_tutorial_checks_documents_prefill_and_contrastive(tmp_path):
    path, report = import_manifest(write(tmp_path, "pearmut.json", PEARMUT), tmp_path / "out")
    campaign = load_campaign(path)
    assert campaign.source == ("Es regnet.", "Wir bleiben drinnen.", "Guten Morgen.")
    assert campaign.documents == ("news1", "news1", "news2") and campaign.systems == ("A", "B")
    assert campaign.outputs["B"] == ("It is raining.", "We stay in.", "Good tomorrow.")
    assert campaign.tasks == ("esa",) and campaign.contrastive == 2
    assert campaign.ai_spans == {(0, 0): [{"start_i": 3, "end_i": 8, "severity": "minor"}]}
    [tutorial] = campaign.tutorial
    assert (tutorial.outputs, tutorial.answer, tutorial.feedback) == (("The dog barks.",), [80, 100],
                                                                        "A is right: 80 or more.")
    [check] = campaign.checks
    assert check.answer == [0, 15] and check.loud is False and campaign.checks_share == 0.05
    assert report["left_out"] == {"segments without every system's output (humeval judges all 2 on each)": 1}
    assert len([a for a in campaign.accounts if a.role == "annotator"]) == 3


def test_appraise_batches_skip_their_controls_and_keep_tutorial_and_payload(tmp_path):
    path, report = import_manifest(write(tmp_path, "batches.json", APPRAISE), tmp_path / "out")
    campaign = load_campaign(path)
    assert campaign.track == "deu-eng" and campaign.tasks == ("esa",) and campaign.contrastive == 1
    assert campaign.outputs == {"sysA": ("One.", "Two."), "sysB": ("Uno.", "Deux.")}
    assert campaign.documents == ("doc1", "doc2")
    assert campaign.ai_spans == {(1, 0): [{"start_i": 0, "end_i": 3, "severity": "major"}]}
    assert campaign.tutorial[0].answer == [85, 100] and campaign.tutorial[0].feedback == "All correct: 100%."
    assert report["left_out"] == {"Appraise BAD control items (humeval makes its own controls)": 1}


def test_wmt_jsonl_through_the_command_line(tmp_path):
    source = write(tmp_path, "wmt.jsonl", WMT)
    result = CliRunner().invoke(cli, ["serve", "--import", str(source), "--into", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output + (result.stderr or "")
    assert "2 segments in 1 document, 2 systems, tasks esa" in result.output
    assert "1 WMT tutorial segments" in result.output and "1 WMT outputs that are null" in result.output
    assert "ann1 (password " in result.output
    campaign = load_campaign(tmp_path / "out" / "campaign.toml")
    assert campaign.track == "en-de" and campaign.documents == ("en-de_#_news_#_doc7",) * 2
    check = CliRunner().invoke(cli, ["serve", "--check", str(tmp_path / "out" / "campaign.toml")])
    assert check.exit_code == 0 and "campaign file OK" in check.output


def test_bad_files_name_the_line_and_the_fix(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(WMT[0]) + "\n" + '{"doc_id": "x_#_y", "src_text": "a"}\n')
    with pytest.raises(InputError) as error:
        import_manifest(bad, tmp_path / "out")
    assert error.value.line == 2 and "tgt_text" in error.value.problem and error.value.fix
    broken = dict(PEARMUT, data=[[[{"item_id": "check_9", "src": "s", "tgt": {"A": "a"},
                                    "validation": {"Z": {"score": [0, 5]}}}]]])
    with pytest.raises(InputError) as error:
        import_manifest(write(tmp_path, "p.json", broken), tmp_path / "out2")
    assert error.value.line is not None and "validation of 'Z'" in error.value.problem
    one = [{"doc_id": "a_#_b_#_c_#_0", "src_text": "s", "tgt_text": {"only": "t"}}]
    with pytest.raises(InputError, match="1 system"):
        import_manifest(write(tmp_path, "one.jsonl", one), tmp_path / "out3")
    result = CliRunner().invoke(cli, ["serve", "--import", str(bad)])
    assert result.exit_code != 0 and "needs --into" in (result.output + (result.stderr or ""))
