"""Graham et al.'s DA data set with post-edits (``graham-da``): sys.LP, human-post-edit.LP and
human-scores.LP.csv side by side; DA scores as Ratings, the outputs' post-edits as PostEdits, HTER
by hand."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

import humeval
from humeval.cli import cli
from humeval.data.readers import guess_format
from humeval.errors import InputError

MT = ["the cat sat", "a dog runs fast", "hello world"]
PE = ["the cat sat", "a dog runs", "hello there world"]
# TER = edits / post-edit words: 0/3; one deletion / 3; one insertion / 3
HTER = [0.0, 1 / 3, 1 / 3]
SCORES = "HIT N SID SYS SCR\nH0 15 1 uedin-nmt 80.5\nH0 16 2 uedin-nmt 40\nH1 15 3 uedin-nmt NA\n"


def write(folder, scores=SCORES, mt=MT, pe=PE, lp="de-en", scores_name=None):
    (folder / f"sys.{lp}").write_text("\n".join(mt) + "\n")
    (folder / f"human-post-edit.{lp}").write_text("\n".join(pe) + "\n")
    path = folder / (scores_name or f"human-scores.{lp}.csv")
    path.write_text(scores)
    return path


def test_scores_and_post_edits_of_one_pair(tmp_path):
    path = write(tmp_path)
    assert guess_format(path)[0] == "graham-da"
    assert guess_format(tmp_path / "sys.de-en")[0] == "graham-da"
    read = humeval.read(path)
    r = read.ratings.to_pandas()
    assert list(r.item) == ["1", "2"] and r.score.tolist() == [80.5, 40.0]
    assert set(r.system) == {"uedin-nmt"} and set(r.track) == {"de-en"} and read.ratings.scale == "0-100"
    assert read.report.skipped == {"rows without a score (NA)": 1}
    pe = read.post_edits.to_pandas()
    assert list(pe.item) == ["1", "2", "3"] and list(pe.hypothesis) == MT and list(pe.post_edit) == PE
    assert set(pe.system) == {"uedin-nmt"}
    assert any("15–16 judgments" in n for n in read.report.notes)


def test_metric_hter_on_the_data_set(tmp_path):
    write(tmp_path)
    out = CliRunner().invoke(cli, ["metric", "hter", str(tmp_path / "sys.de-en"), "--json"])
    assert out.exit_code == 0, out.output
    shown = json.loads(out.output[out.output.index("{"):])
    assert [(s["system"], s["count"]) for s in shown["systems"]] == [("uedin-nmt", 3)]
    assert shown["systems"][0]["mean"] == pytest.approx(np.mean(HTER), abs=1e-12)


def test_standardised_file_is_z(tmp_path):
    path = write(tmp_path, "HIT N SID SYS SCR\nH0 15 1 s -0.25\nH0 15 2 s 0.5\n",
                 scores_name="human-scores.de-en.csv")
    assert humeval.read(path).ratings.scale == "z"


@pytest.mark.parametrize("scores, mt, pe, problem", [
    ("HIT N SID SYS SCR\nH0 15 4 s 10\n", MT, PE, "beyond the 3 lines"),
    ("HIT N SYS SCR\nH0 15 s 10\n", MT, PE, "SID missing"),
    ("HIT N SID SYS SCR\nH0 15 x s 10\n", MT, PE, "not a line number"),
    ("HIT N SID SYS SCR\nH0 15 1 s ten\n", MT, PE, "SCR"),
    ("HIT N SID SYS SCR\nH0 15 1 s\n", MT, PE, "4 fields"),
    (SCORES, MT, PE[:2], "2 lines, but sys.de-en has 3"),
    ("HIT N SID SYS SCR\nH0 15 1 a 10\nH0 15 1 b 20\n", MT, PE, "scores name 2 systems"),
])
def test_bad_files_name_file_line_and_fix(tmp_path, scores, mt, pe, problem):
    path = write(tmp_path, scores, mt, pe)
    with pytest.raises(InputError) as error:
        humeval.read(path)
    assert problem in str(error.value)


def test_scores_without_the_text_files(tmp_path):
    path = tmp_path / "human-scores.en-de.csv"
    path.write_text("HIT,N,SID,SYS,SCR\nH0,15,7,online-B,55\n")
    read = humeval.read(path)
    assert read.post_edits is None and read.ratings.to_pandas().item.tolist() == ["7"]
    assert any("DA scores only" in n for n in read.report.notes)


def test_a_lone_output_file_is_refused(tmp_path):
    (tmp_path / "sys.de-en").write_text("a\n")
    with pytest.raises(InputError) as error:
        humeval.read(tmp_path / "sys.de-en")
    assert "human-post-edit.de-en" in str(error.value)


def test_other_names_are_not_guessed_as_the_data_set(tmp_path):
    from humeval.data.readers import graham_da
    assert not graham_da.looks_like(tmp_path / "sys.txt") and not graham_da.looks_like(tmp_path / "sys.json")
