"""METEOR-NEXT tuned to WMT ranking judgments by rank consistency (Denkowski & Lavie 2010, §5.2),
from a rankings file joined to system outputs; checked against a hand count."""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import humeval
from humeval.agreement import resolve_conflicts
from humeval.cli import cli
from humeval.metaeval.correlation import rank_consistency
from humeval.metrics.meteor import Meteor
from humeval.metrics.tuning import consistency_set, ranking_segments, tune

REFS = ["the cat sat on the mat", "a quick brown fox jumps"]
# exact matches only: segment 1 orders A (perfect) > B (4 of 6 words) > C (none);
# segment 2 orders B (perfect) > C (3 words) > A (none)
OUTPUTS = {"A": ["the cat sat on the mat", "slow green turtles crawl"],
           "B": ["the cat sat on a rug", "a quick brown fox jumps"],
           "C": ["dogs run fast", "a quick red fox"]}
HEADER = ("srclang,trglang,srcIndex,documentId,segmentId,judgeId,system1Number,system1Id,system2Number,system2Id,"
          "system3Number,system3Id,system4Number,system4Id,system1rank,system2rank,system3rank,system4rank\n")
RANKINGS = HEADER + (
    # J1, segment 1: A > B > C, all three pairs agree with the metric; the reference pairs are left out
    "Czech,English,1,d,1,J1,1,A,2,B,3,C,4,_ref,2,3,4,1\n"
    # J1, segment 2: A > B and A > C (both against the metric), B = C (a tie: discarded)
    "Czech,English,2,d,2,J1,1,A,2,B,3,C,4,_ref,1,2,2,-1\n"
    # J2, segment 2: B > C > A, all three agree
    "Czech,English,2,d,2,J2,1,A,2,B,3,C,4,_ref,3,1,2,-1\n")
# hand count: 3 + 2 + 3 = 8 non-tied pairs without the reference, 3 + 0 + 3 = 6 preserved → 0.75


@pytest.fixture
def files(tmp_path):
    folder = tmp_path / "outputs"
    folder.mkdir()
    for system, lines in OUTPUTS.items():
        (folder / f"{system}.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "ref.txt").write_text("\n".join(REFS) + "\n")
    (tmp_path / "rnk.csv").write_text(RANKINGS)
    return tmp_path


def test_consistency_equals_the_hand_count(files):
    comparisons = humeval.read(files / "rnk.csv").comparisons
    segments = ranking_segments(comparisons, OUTPUTS, REFS)
    assert len(segments.pairs) == 8
    assert segments.left_out == {"ties (discarded, as the paper does)": 1, "comparisons with the reference": 3}
    scorer = Meteor(matchers=("exact",), tokenize="none")
    data = consistency_set("cz-en", segments, scorer.statistics(segments.hypotheses, segments.references))
    assert data.evaluate(scorer.params) == pytest.approx(6 / 8)
    # the same through the API's rank consistency on (item, system) scores
    scores = pd.Series(scorer(segments.hypotheses, segments.references).segment,
                       index=pd.MultiIndex.from_tuples(segments.keys))
    assert rank_consistency(comparisons, scores) == pytest.approx(6 / 8)
    # the grid search cannot do better than the humans allow, and reaches it (e.g. no penalty)
    assert tune(data, {"w_stem": [0], "w_synonym": [0], "w_paraphrase": [0]}).value == pytest.approx(6 / 8)


def test_conflicts_across_judges_become_ties(files):
    comparisons = humeval.read(files / "rnk.csv").comparisons
    resolved, n = resolve_conflicts(comparisons, across_judges=True)
    # segment 2: A–B (J1 A, J2 B) and A–C (J1 A, J2 C) conflict → 2 ties; B > C (J2) stays
    assert n == 2
    segments = ranking_segments(resolved, OUTPUTS, REFS)
    assert len(segments.pairs) == 4
    scorer = Meteor(matchers=("exact",), tokenize="none")
    data = consistency_set("cz-en", segments, scorer.statistics(segments.hypotheses, segments.references))
    assert data.evaluate(scorer.params) == pytest.approx(1.0)


def test_missing_outputs_and_segments_are_counted():
    c = humeval.data.tables.Comparisons.from_pandas(pd.DataFrame(
        {"a": ["A", "A", "A", "D"], "b": ["B", "B", "C", "A"], "outcome": [1, 1, 2, 1], "item": ["1", "3", "x", "2"]}))
    segments = ranking_segments(c, {"A": ["a"], "B": ["b", "b2"], "C": ["c", "c2"]}, ["r", "r2"])
    assert segments.pairs.tolist() == [[0, 1]] and segments.keys == [("1", "A"), ("1", "B")]
    assert segments.left_out == {
        "comparisons whose segment is not a line number 1..2 of the references": 2,
        "comparisons of a system without an output file": 1}
    segments = ranking_segments(c.take(np.array([0])), {"A": [], "B": ["b"]}, ["r"])
    assert segments.left_out == {"comparisons whose segment is beyond a system's output file": 1}
    with pytest.raises(ValueError, match="no comparison left to tune on"):
        consistency_set("x", segments, None)


def run(files, *extra):
    return CliRunner().invoke(cli, ["metric", "tune", "--objective", "consistency", "--matchers", "exact",
                                    "--tokenize", "none", "--weights", "0", "--json", *extra,
                                    "--data", f"cz={files / 'outputs'},{files / 'ref.txt'},{files / 'rnk.csv'}"])


def test_tune_command_with_rankings(files):
    result = run(files)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["objective"] == "consistency"
    assert data["table3"][0]["objective"] == pytest.approx(0.75)
    rows = {row["metric"]: row["cz"] for row in data["table4"]}
    assert rows["METEOR-NEXT tuned on cz"] == pytest.approx(0.75)
    assert data["left_out"]["cz"]["comparisons with the reference"] == 3
    tied = json.loads(run(files, "--conflicts", "tie-across-judges").output)
    assert tied["table3"][0]["objective"] == pytest.approx(1.0)
    assert tied["left_out"]["cz"]["conflicting pairs of judgments made ties (tie-across-judges)"] == 2
    own = json.loads(run(files, "--conflicts", "tie").output)  # no judge contradicts themself here
    assert own["table3"][0]["objective"] == pytest.approx(0.75)


def test_tune_command_refuses_what_does_not_fit(files):
    bad = CliRunner().invoke(cli, ["metric", "tune", "--conflicts", "tie", "--data", "a=h,r,y"])
    assert bad.exit_code == 2 and "--conflicts does nothing without --objective consistency" in bad.output
    empty = files / "none"
    empty.mkdir()
    bad = CliRunner().invoke(cli, ["metric", "tune", "--objective", "consistency", "--matchers", "exact",
                                   "--data", f"cz={empty},{files / 'ref.txt'},{files / 'rnk.csv'}"])
    assert bad.exit_code == 2 and "no file is named by a system of the rankings" in bad.output
