import json

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import shared_file

from humeval.cli import cli
from humeval.data.readers.hmeant import read_wmt13
from humeval.errors import InputError
from humeval.metrics.hmeant import (Annotation, Frame, Role, Side, Weights, alignment_agreement,
                                    frame_statistics, frequency_weights, hmeant, read_json, score_agreement,
                                    tune_weights, uniform_weights, weights_table, write_json)
from humeval.simulate.hmeant import simulate_hmeant


def example(annotator="a1", system="S"):
    """Two frames; roles full, partial, missing (TEMPORAL) and unaligned (LOCATIVE)."""
    ref = Side(10, [Frame("R1", (1,), [Role("R1a", "AGENT", (0,)), Role("R1p", "PATIENT", (2, 3)), Role("R1t", "TEMPORAL", (4,))]),
                    Frame("R2", (6,), [Role("R2a", "AGENT", (5,)), Role("R2l", "LOCATIVE", (7, 8))])])
    out = Side(8, [Frame("H1", (1,), [Role("H1a", "AGENT", (0,)), Role("H1p", "PATIENT", (2, 3))]),
                   Frame("H2", (5,), [Role("H2a", "AGENT", (4,)), Role("H2l", "LOCATIVE", (6,))])])
    return Annotation("item1", system, annotator, ref, out, [("R1", "H1", "full"), ("R2", "H2", "partial")],
                      [("R1a", "H1a", "full"), ("R1p", "H1p", "partial"), ("R2a", "H2a", "full")], "en")


WEIGHTS = Weights(1.0, {"AGENT": 1.0, "PATIENT": 0.5, "TEMPORAL": 0.5, "LOCATIVE": 0.25}, 0.5)


def test_hand_worked_example():
    """Frame 1: A = 1 + 1 + 0.5·0.5 = 2.25; p = 2.25/2.5 = 0.9, r = 2.25/3 = 0.75; m = 4/8, r = 5/10.
    Frame 2 (predicate partial): A = 0.5 + 1 = 1.5; p = r = 1.5/2.25; m = 3/8, r = 4/10.
    P = (0.5·0.9 + 0.375·2/3)/0.875 = 0.8; R = (0.5·0.75 + 0.4·2/3)/0.9."""
    row = hmeant([example()], WEIGHTS).iloc[0]
    recall = (0.5 * 0.75 + 0.4 * 2 / 3) / 0.9
    assert row.precision == pytest.approx(0.8)
    assert row.recall == pytest.approx(recall)
    assert row.hmeant == pytest.approx(2 * 0.8 * recall / (0.8 + recall))


def test_scale_invariance_and_empty_outputs():
    a = hmeant([example()], WEIGHTS).hmeant.iloc[0]
    scaled = Weights(3.0, {k: 3 * v for k, v in WEIGHTS.roles.items()}, 0.5)
    assert hmeant([example()], scaled).hmeant.iloc[0] == pytest.approx(a)
    empty = Annotation("i", "S", "a", Side(3, []), Side(3, []))
    scores = hmeant([empty, example()], WEIGHTS)
    assert np.isnan(scores.hmeant.iloc[0]) and scores.attrs["skipped"]["outputs with no frame on either side"] == 1


def test_frequency_weights_count_predicates_and_roles():
    refs = [Annotation("i", None, "a", example().reference)]
    w = frequency_weights(refs)  # 2 predicates, AGENT 2, PATIENT 1, TEMPORAL 1, LOCATIVE 1: 7 in all
    assert w.pred == pytest.approx(2 / 7) and w.roles == pytest.approx({"AGENT": 2 / 7, "PATIENT": 1 / 7, "TEMPORAL": 1 / 7,
                                                                          "LOCATIVE": 1 / 7})
    table = weights_table(w, uniform_weights(["AGENT", "LOCATIVE", "PATIENT", "TEMPORAL"]), ["AGENT", "LOCATIVE", "PATIENT", "TEMPORAL"])
    assert table.loc["predicate", "deviation"] == pytest.approx(2 / 7 - 1 / 5)


def test_json_round_trip_and_errors(tmp_path):
    path = tmp_path / "a.json"
    write_json([example(), Annotation("item1", None, "a1", example().reference)], path)
    back = read_json(path)
    assert len(back.outputs()) == 1 and len(back.references()) == 1
    assert hmeant(back, WEIGHTS).hmeant.iloc[0] == pytest.approx(hmeant([example()], WEIGHTS).hmeant.iloc[0])
    data = json.loads(path.read_text())
    data["annotations"][0]["frame_alignments"].append({"reference": "R1", "output": "H2", "type": "undefined"})
    path.write_text(json.dumps(data))
    assert read_json(path).skipped == {"frame alignments of type 'undefined'": 1}
    path.write_text('{"annotations": [{"item": "x", "reference": {"frames": [{"id": 1}]}}]}')
    with pytest.raises(InputError, match="malformed frame"):
        read_json(path)
    path.write_text("[1, 2")
    with pytest.raises(InputError, match="not valid JSON"):
        read_json(path)


def write_tables(directory):
    tables = {
        "sentences": "id\tlanguage\tsegment\tnumber\tversion\tlength\n0\ten\t01\t01\t00\t4\n1\ten\t01\t01\t01\t4\n",
        "sentences_text": "id\tlanguage\tsegment\tnumber\tversion\ttext\n0\ten\t01\t01\t00\tthe cat sat down\n1\ten\t01\t01\t01\tthe cat sits down\n",
        "annotations": "id\tsentence_id\tannotator\tref_id\n0\t0\tann\tNULL\n1\t1\tann\tNULL\n2\t1\tann\t1\n",
        "actions": "id\tannotation_id\ttokens\n0\t0\t2\n1\t1\t2\n2\t2\t2\n",
        "slots": "id\taction_id\ttype\ttokens\n0\t0\tAGENT\t0,1\n1\t1\tAGENT\t0,1\n2\t1\tMANNER\t3\n3\t2\tAGENT\t0,1\n",
        "action_aligns": "id\tref_action_id\thypo_action_id\ttype\n0\t1\t2\tpartial\n",
        "slot_aligns": "id\tref_slot_id\thypo_slot_id\ttype\n0\t1\t3\tfull\n1\t2\t3\tundefined\n",
    }
    for name, text in tables.items():
        (directory / name).write_text(text)


def test_wmt13_reader(tmp_path):
    write_tables(tmp_path)
    s = read_wmt13(tmp_path)
    assert len(s.references()) == 1 and s.skipped == {"role alignments of type 'undefined'": 1}
    (a,) = s.outputs()
    assert (a.item, a.system, a.annotator) == ("en-01-01", "phrase-based", "ann")
    assert [r.type for r in a.reference.frames[0].roles] == ["AGENT", "MANNER"] and a.output.text == "the cat sits down"
    assert a.frame_links == [("1", "2", "partial")] and a.role_links == [("1", "3", "full")]
    # w = 1: frame A = 0.5 + 1 = 1.5; p = 1.5/2, m = 3/4 of 3/4; r = 1.5/3 (MANNER missing)
    row = hmeant(s, uniform_weights(["AGENT", "MANNER"])).iloc[0]
    assert row.precision == pytest.approx(0.75) and row.recall == pytest.approx(0.5)
    (tmp_path / "slots").unlink()
    with pytest.raises(InputError, match="slots"):
        read_wmt13(tmp_path)


def test_supervised_search_recovers_planted_weights():
    planted = Weights(1.0, {"AGENT": 2.0, "PATIENT": 1.5, "MODAL": 0.25, "LOCATIVE": 0.5, "TEMPORAL": 0.0, "MANNER": 1.0}, 0.25)
    annotations, human = simulate_hmeant(planted, n_items=300, noise=0.005, random_state=1)
    stats = frame_statistics(annotations)
    tuned = tune_weights(stats, human, start=uniform_weights(stats.types))
    assert tuned.weights.roles == planted.roles and tuned.weights.partial == planted.partial
    assert tuned.tau > tuned.start_tau


def test_agreement():
    a, b = example("a1"), example("a2")
    b.role_links = [("R1a", "H1a", "full"), ("R2a", "H2a", "partial")]  # b: PATIENT unaligned, H2 AGENT partial
    table = alignment_agreement([a, b])
    assert table.loc["frame alignment", "units both marked"] == 2 and table.loc["frame alignment", "P(A)"] == 1.0
    assert table.loc["role alignment", "units both marked"] == 4 and table.loc["role alignment", "P(A)"] == 0.5
    assert table.attrs["predicate F1"] == 1.0
    scores = hmeant([a, b, example("a1", "T"), example("a2", "T")], WEIGHTS)
    # b on output S: frame 1 A = 1 + 1 (PATIENT unaligned) -> p = 2/2.5, r = 2/3; frame 2 A = 0.5 + 0.5
    # (AGENT partial) -> p = r = 1/2.25; P = (0.5·0.8 + 0.375/2.25)/0.875, R = (0.5·2/3 + 0.4/2.25)/0.9
    p, r = (0.5 * 0.8 + 0.375 / 2.25) / 0.875, (0.5 * 2 / 3 + 0.4 / 2.25) / 0.9
    b_score = 2 * p * r / (p + r)
    a_recall = (0.5 * 0.75 + 0.4 * 2 / 3) / 0.9  # a's, from test_hand_worked_example
    a_score = 2 * 0.8 * a_recall / (0.8 + a_recall)
    assert scores.hmeant.tolist() == pytest.approx([a_score, b_score, a_score, a_score])
    agreement = score_agreement(scores)
    # outputs S (a1 vs a2 differ) and T (identical annotations): mean |difference| = (|a − b| + 0)/2
    assert agreement["outputs"] == 2 and agreement["mean abs difference"] == pytest.approx((a_score - b_score) / 2)


def test_hmeant_command(tmp_path):
    planted = Weights(1.0, {"AGENT": 2.0, "PATIENT": 1.0, "MODAL": 0.0, "LOCATIVE": 0.5, "TEMPORAL": 0.25, "MANNER": 1.0}, 0.5)
    annotations, human = simulate_hmeant(planted, n_items=60, noise=0.005)
    write_json(annotations, tmp_path / "sim.json")
    human.rename("score").reset_index().to_csv(tmp_path / "human.csv", index=False)
    result = CliRunner().invoke(cli, ["hmeant", str(tmp_path / "sim.json"), "--tune", str(tmp_path / "human.csv"), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    taus = {row["metric"]: row["kendall tau"] for row in data["table 3"]}
    assert taus["HMEANT (supervised weights, in-sample)"] >= taus["HMEANT (uniform weights)"]
    assert len(data["table 1"]) == 7 and {r["language system"] for r in data["systems"]} == {"system0", "system1", "system2"}
    plain = CliRunner().invoke(cli, ["hmeant", str(tmp_path / "sim.json"), "--weights", "uniform"])
    assert "none are invented" in plain.output
    (tmp_path / "w.json").write_text('{"pred": 1, "roles": {"AGENT": 2}}')
    own = CliRunner().invoke(cli, ["hmeant", str(tmp_path / "sim.json"), "--weights", str(tmp_path / "w.json"), "--json"])
    assert own.exit_code == 0, own.output
    own = json.loads(own.output)
    # predicate 1 and AGENT 2, normalised to 1/3 and 2/3; roles the file does not name weigh 0
    weights = {row["role"]: row["normalised"] for row in own["weights"]}
    assert weights == pytest.approx({"predicate": 1 / 3, "AGENT": 2 / 3, "LOCATIVE": 0, "MANNER": 0, "MODAL": 0,
                                     "PATIENT": 0, "TEMPORAL": 0})
    means = hmeant(annotations, Weights(1.0, {"AGENT": 2.0}, 0.5, default=0.0)).groupby("system").hmeant.mean()
    assert {r["language system"]: r["hmeant"] for r in own["systems"]} == pytest.approx(means.to_dict(), abs=1e-9)
    (tmp_path / "bad.csv").write_text("item,score\nx,1\n")
    bad = CliRunner().invoke(cli, ["hmeant", str(tmp_path / "sim.json"), "--tune", str(tmp_path / "bad.csv")])
    assert bad.exit_code == 2 and "item, system, score" in bad.output


def test_real_wmt13_annotations():
    s = read_wmt13(shared_file("hmeant-wmt13"))
    assert len(s.outputs()) == 1266 and len(s.references()) == 422
    assert s.skipped == {"frame alignments of type 'undefined'": 6, "frame alignments of type 'null'": 1,
                         "role alignments of type 'undefined'": 16}
    scores = hmeant(s, frequency_weights(s))
    assert scores.hmeant.max() <= 1 + 1e-12 and scores.hmeant.notna().sum() == 1227
    means = scores.groupby(["language", "system"]).hmeant.mean()
    assert means["de"].idxmax() == "syntax-based" and means["en"].idxmax() == "syntax-based"


@pytest.mark.parametrize("table, text, message", [
    ("sentences", "id\tlanguage\tsegment\tnumber\tversion\tlength\n", "sentences table has a header but no rows"),
    ("annotations", "", "the file is empty"),
    ("sentences", "id\tlanguage\tsegment\tnumber\tversion\tlength\n0\ten\t01\t01\t00\tfour\n", r"sentences:2: .*length 'four'"),
    ("actions", "id\tannotation_id\ttokens\n0\t0\t2\n0\t1\t2\n", r"actions:3: id '0' appears twice \(lines 2 and 3\)"),
    ("slots", "id\taction_id\ttype\ttokens\n0\t0\tAGENT\n", r"slots:2: 3 fields, expected 4"),
    ("slots", "id;action_id;type;tokens\n", "looks semicolon-delimited"),
    ("slots", "id\taction_id\ttype\ttokens\n0\t0\tAGENT\tx,1\n", r"slots:2: slot 0: token list 'x,1'"),
])
def test_wmt13_reader_errors(tmp_path, table, text, message):
    write_tables(tmp_path)
    (tmp_path / table).write_text(text)
    with pytest.raises(InputError, match=message):
        read_wmt13(tmp_path)


def test_wmt13_reader_latin1_and_truncated_tables(tmp_path):
    write_tables(tmp_path)
    (tmp_path / "sentences_text").write_bytes("id\tlanguage\tsegment\tnumber\tversion\ttext\n0\ten\t01\t01\t00\tthe café\n"
                                              .encode("latin-1"))
    with pytest.raises(InputError, match=r"sentences_text:2: not valid utf-8: byte 0xe9"):
        read_wmt13(tmp_path)
    assert read_wmt13(tmp_path, encoding="latin-1").references()[0].reference.text == "the café"
    write_tables(tmp_path)
    (tmp_path / "slots").write_text("id\taction_id\ttype\ttokens\n0\t0\tAGENT\t0,1\n")  # cut after its first row
    s = read_wmt13(tmp_path)
    # slot_aligns: 1 full link (slots 1 → 3, both cut off) and 1 undefined: the full one is counted, not lost
    assert s.skipped == {"role alignments of type 'undefined'": 1,
                         "role alignments naming unknown roles (is the slots table complete?)": 1}
    assert s.outputs()[0].role_links == []
    (tmp_path / "actions").write_text("id\tannotation_id\ttokens\n0\t0\t2\n1\t1\t2\n2\t2\t2\n3\t9\t4\n")
    (tmp_path / "action_aligns").write_text("id\tref_action_id\thypo_action_id\ttype\n0\t1\t2\tpartial\n1\t7\t2\tfull\n")
    s = read_wmt13(tmp_path)
    assert s.skipped["frames of unknown annotations"] == 1
    assert s.skipped["frame alignments naming unknown frames (is the actions table complete?)"] == 1
