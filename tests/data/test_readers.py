import gzip
import shutil

import numpy as np
import pandas as pd
import pytest

import humeval
from humeval.data.readers import guess_format, read_mqm, read_pairwise, read_ratings, read_wmt_legacy


def named(c, column):
    return np.array(getattr(c, {"a": "systems", "b": "systems", "system": "systems"}[column]))[getattr(c, column)]


def test_wmt_csv_rankings_and_expansion(fixture):
    j = humeval.read(fixture("wmt10_small.csv"))
    assert j.report.format == "wmt-csv" and j.report.rows == 3
    assert j.report.notes == ["format wmt-csv guessed from the header"]
    assert j.report.skipped == {"pairs with an unset rank": 4}
    r = j.rankings
    assert r.tracks == ("French-English", "German-English") and r.items == ("1", "2")
    assert r.rank.tolist()[1] == [3, 1, -1, 2, 2]
    per_track = {name: part.expand(return_skipped=True) for name, part in r.by_track().items()}
    fr, fr_skipped = per_track["French-English"]
    assert len(fr) == 16 and int((fr.outcome == 0).sum()) == 2 and fr_skipped == {"pairs with an unset rank": 4}
    de, de_skipped = per_track["German-English"]
    assert len(de) == 10 and set(de.outcome.tolist()) == {2} and de_skipped == {}
    # second ranking: _ref (rank 1) beats cmu and kit (rank 2), which tie
    second = fr.take(fr.group == 1)
    pairs = {(a, b): int(o) for a, b, o in zip(named(second, "a"), named(second, "b"), second.outcome)}
    assert pairs == {("bbn", "_ref"): 2, ("bbn", "cmu"): 2, ("bbn", "kit"): 2, ("_ref", "cmu"): 1,
                     ("_ref", "kit"): 1, ("cmu", "kit"): 0}


def test_wmt09_legacy_all_row_types(fixture):
    j = read_wmt_legacy(fixture("wmt09_small.tsv"), score_names=("adequacy", "fluency"))
    assert j.report.rows == 5
    assert j.report.skipped == {"rows of type CONSTITUENT (not a ranking, score or edit)": 1,
                                "pairs with an unset rank": 2}
    assert j.rankings.rank.tolist() == [[1, 2, 2, 3, 5], [2, 1, -1, -1, -1]]
    assert len(j.comparisons) == 11 and int((j.comparisons.outcome == 0).sum()) == 1
    df = j.ratings.to_pandas()
    got = {(s, c): v for s, c, v in zip(df.system, df.criterion, df.score)}
    assert got == {("sysA", "adequacy"): 4, ("sysA", "fluency"): 3, ("sysB", "adequacy"): 2, ("sysB", "fluency"): 5}
    assert j.post_edits.post_edit.tolist() == ['He said "no" and left.']  # quotes survive: quoting is off
    assert j.post_edits.editors == ("ann1",)


def test_wmt08_comma_layout(fixture):
    j = humeval.read(fixture("wmt08_small.csv"))
    assert j.report.format == "wmt-legacy" and j.rankings.tracks == ("Europarl English-French",)
    assert len(j.comparisons) == 6 and j.report.skipped["pairs with an unset rank"] == 4
    assert sorted(j.ratings.criteria) == ["SCORE_A", "SCORE_B"] and len(j.ratings) == 4


def test_appraise_collapsed_outputs(fixture, tmp_path):
    j = humeval.read(fixture("appraise_small.xml"))
    assert j.rankings.tracks == ("deu-eng", "eng-ces") and j.rankings.judges == ("alice", "bob")
    assert j.report.skipped == {"pairs with an unset rank": 5, "pairs of systems that shared one output": 1}
    de = j.comparisons.by_track()["deu-eng"]
    pairs = {(a.split(".")[1], b.split(".")[1]): int(o) for a, b, o in zip(named(de, "a"), named(de, "b"), de.outcome)}
    assert len(pairs) == 9 and ("uedin", "kit") not in pairs and ("kit", "uedin") not in pairs
    assert pairs[("online-E", "uedin")] == 2 and pairs[("online-E", "kit")] == 2 and pairs[("online-B", "rwth")] == 0
    gz = tmp_path / "export.xml.gz"
    with open(fixture("appraise_small.xml"), "rb") as src, gzip.open(gz, "wb") as dst:
        shutil.copyfileobj(src, dst)
    assert len(humeval.read(gz).comparisons) == 12


def test_arena_csv_jsonl_parquet(fixture, tmp_path):
    j = humeval.read(fixture("arena_small.csv"))
    c = j.comparisons
    assert c.outcome.tolist() == [1, 0, 2, 0] and c.systems == ("claude", "gpt", "llama")
    assert named(c, "a").tolist() == ["gpt", "gpt", "claude", "llama"]
    assert c.items == ("q1", "q2", "q3") and c.judges == ("u1", "u2", "u3")
    assert j.report.skipped == {"rows without an outcome": 1, "rows comparing a system with itself": 1}
    assert j.report.examples == {"rows without an outcome": [7], "rows comparing a system with itself": [6]}
    jl = humeval.read(fixture("arena_small.jsonl")).comparisons
    assert jl.outcome.tolist() == [1, 2, 0]
    pq = tmp_path / "battles.parquet"
    pd.read_csv(fixture("arena_small.csv")).to_parquet(pq)
    assert humeval.read(pq).comparisons.outcome.tolist() == [1, 0, 2, 0]


def test_pairwise_column_mapping_and_outcome_labels(tmp_path):
    path = tmp_path / "prefs.tsv"
    path.write_text("left\tright\tpick\tseg\nX\tY\tL\t1\nY\tZ\tR\t2\nX\tZ\t=\t2\n")
    with pytest.raises(humeval.InputError, match="cannot tell which columns"):
        humeval.read(path, format="pairwise")
    j = read_pairwise(path, columns={"a": "left", "b": "right", "outcome": "pick", "item": "seg"},
                      outcomes={"L": 1, "R": 2, "=": 0})
    assert j.comparisons.outcome.tolist() == [1, 2, 0] and j.comparisons.items == ("1", "2")
    with pytest.raises(humeval.InputError, match="'='") as error:
        read_pairwise(path, columns={"a": "left", "b": "right", "outcome": "pick"}, outcomes={"L": 1, "R": 2})
    assert error.value.line == 4 and "'='" in error.value.problem


def test_numeric_outcomes(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text("system_a,system_b,outcome,group\nA,B,1,0\nB,C,2,0\nA,C,0,\n")
    c = humeval.read(path).comparisons
    assert c.outcome.tolist() == [1, 2, 0] and c.group.tolist() == [0, 0, -1]


def test_long_ratings(fixture):
    j = read_ratings(fixture("ratings_long.csv"), scale="0-100")
    r = j.ratings
    assert r.score.tolist() == [70, 55, 80, 40] and r.scale == "0-100" and r.criteria == ("DA",)
    assert j.report.skipped == {"rows without a score (empty or NaN)": 2}


def test_mlqe_da_and_post_edits(fixture):
    r = humeval.read(fixture("mlqe_da_small.eten.df.short.tsv")).ratings
    assert r.score.tolist() == [95, 100, 90, 40, 60] and r.items == ("0", "1") and r.item.tolist() == [0, 0, 0, 1, 1]
    assert r.tracks == ("et-en",) and r.judge.tolist() == [-1] * 5 and r.scale == "0-100"
    p = humeval.read(fixture("mlqe_pe_small.mt")).post_edits
    assert p.post_edit.tolist() == ["Hallo Welt !", 'Eine "zitierte" Zeile .']
    assert p.hypothesis.tolist() == ["Hallo Welt .", "Eine Zeile ."] and p.hter.tolist() == [0.333333, 0.25]


def test_mqm_weights(fixture):
    r = humeval.read(fixture("mqm_small.ende.tsv")).ratings
    got = {(s, i, j): v for s, i, j, v in zip(*(r.to_pandas()[c] for c in ("system", "item", "judge", "score")))}
    # Major 5 + Minor punctuation 0.1 + Minor 1; No-error 0; Major non-translation 25; Minor 1 (HOTW row skipped)
    assert got == pytest.approx({("sysA", "1", "rater1"): -6.1, ("sysA", "2", "rater1"): 0.0,
                                 ("sysB", "1", "rater2"): -25.0, ("sysB", "2", "rater2"): -1.0})
    assert r.tracks == ("en-de",)
    heavy = read_mqm(fixture("mqm_small.ende.tsv"), weights={"major": 10, "non_translation": 30}).ratings
    assert sorted(heavy.score.tolist()) == pytest.approx([-30.0, -11.1, -1.0, 0.0])
    avg = humeval.read(fixture("mqm_avg_small.tsv")).ratings
    assert avg.score.tolist() == [-6.1, 0.0, -1.0]


def test_wmt10_edits(fixture):
    j = humeval.read(fixture("wmt10_edits_small.tsv"))
    p = j.post_edits
    assert j.report.skipped == {"rows with action 'N/A' (no edit, no verdict)": 1}
    actions = np.array(p.actions)[p.action].tolist()
    assert actions == ["EDIT", "OK", "BAD"]
    assert p.post_edit.tolist() == ['The "edited" sentence.', "Fine as it is.", None]
    assert p.hypothesis.tolist() == [None, "Fine as it is.", "garbage output"]
    assert p.tracks == ("Spanish-English",)


@pytest.mark.parametrize("name, expected", [
    ("wmt10_small.csv", "wmt-csv"), ("wmt09_small.tsv", "wmt-legacy"), ("wmt08_small.csv", "wmt-legacy"),
    ("appraise_small.xml", "appraise-xml"), ("arena_small.csv", "pairwise"), ("arena_small.jsonl", "pairwise"),
    ("ratings_long.csv", "ratings"), ("mlqe_da_small.eten.df.short.tsv", "mlqe-da"), ("mlqe_pe_small.pe", "mlqe-pe"),
    ("mqm_small.ende.tsv", "mqm"), ("mqm_avg_small.tsv", "mqm-avg"), ("wmt10_edits_small.tsv", "wmt-edits")])
def test_guess_format(fixture, name, expected):
    assert guess_format(fixture(name))[0] == expected


def test_options_that_do_not_apply(fixture):
    with pytest.raises(humeval.InputError, match="option columns does not apply to format wmt-csv"):
        humeval.read(fixture("wmt10_small.csv"), columns={"a": "x"})
    with pytest.raises(humeval.InputError, match="unknown format"):
        humeval.read(fixture("wmt10_small.csv"), format="nope")


def test_tar_gz_with_one_file(fixture, tmp_path):
    import tarfile
    archive = tmp_path / "mqm.tsv.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(fixture("mqm_small.ende.tsv"), arcname="mqm_small.tsv")
    r = humeval.read(archive).ratings
    assert sorted(r.score.tolist()) == pytest.approx([-25.0, -6.1, -1.0, 0.0])
    two = tmp_path / "two.tsv.tar.gz"
    with tarfile.open(two, "w:gz") as tar:
        tar.add(fixture("mqm_small.ende.tsv"), arcname="a.tsv")
        tar.add(fixture("mqm_avg_small.tsv"), arcname="b.tsv")
    with pytest.raises(humeval.InputError, match="holds 2 files"):
        read_mqm(two)


def test_report_text(fixture):
    text = str(humeval.read(fixture("arena_small.csv")).report)
    assert text.splitlines()[1:] == ["  note: format pairwise guessed from the header",
                                     "  skipped 1 row without an outcome (e.g. line 7)",
                                     "  skipped 1 row comparing a system with itself (e.g. line 6)"]


def test_the_blank_label_characters_are_pythons_white_space():
    from humeval.data.readers._arrow import _WHITE_SPACE
    assert _WHITE_SPACE == "".join(chr(c) for c in range(0x110000) if chr(c).isspace())


def test_encode_arrow_codes_as_python_would():
    import pyarrow as pa
    from humeval.data.readers._arrow import encode_arrow
    a = pa.chunked_array([["b", "a", None, " ", "\x1f", "é"], ["z", "", "a"]])
    b = pa.chunked_array([pa.array(["c", "\u3000b", "a"]).dictionary_encode()])
    (ca, cb), labels = encode_arrow(a, b)
    assert labels == ("a", "b", "c", "z", "é", "\u3000b")  # sorted by code point; blank labels dropped
    assert ca.tolist() == [1, 0, -1, -1, -1, 4, 3, -1, 0] and cb.tolist() == [2, 5, 0]
