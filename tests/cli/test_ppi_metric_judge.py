"""`humeval ppi FILE --metric SCORES`: any ratings file a reader gives (MQM, ESA, DA tables) as the human
part and a segment-level metric as the judge, the metric in WMT's seg-score layout or a plain
system/segment/score table; on a small fixture and on the real MQM TED en-de file with chrF (humeval's
own metric code) against the human reference."""

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.experiments.ppi import system_means
from humeval.simulate.judged import judged_ratings
from conftest import shared_file
from test_examples import ted_chrf


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _fixture(tmp_path):
    """A ratings file of the humans (item, system, score) and the judge's scores of every unit in
    both layouts."""
    _, human, judge = judged_ratings(n_items=120, human_fraction=0.3, k=4, random_state=1)
    human.rename("score").reset_index().to_csv(tmp_path / "humans.csv", index=False)
    judge.rename("score").reset_index()[["system", "item", "score"]].rename(columns={"item": "segment"}).to_csv(
        tmp_path / "judge.tsv", sep="\t", index=False)
    with open(tmp_path / "judge.seg.score", "w") as f:  # WMT: METRIC LP TESTSET REFSET SYSTEM DOCID SEG SCORE
        for (item, system), v in judge.items():
            doc, seg = "d", item
            f.write(f"toy\tx-y\ttest\tref\t{system}\t{doc}\t{seg}\t{v}\n")
    return human, judge


def test_a_ratings_file_with_a_plain_or_wmt_metric_table(tmp_path):
    human, judge = _fixture(tmp_path)
    result = run("ppi", tmp_path / "humans.csv", "--metric", tmp_path / "judge.tsv", "--json")
    assert result.exit_code == 0, result.output
    got = {r["system"]: r for r in json.loads(result.stdout)}
    want = system_means(human, judge)
    for system, row in want.iterrows():
        assert got[system]["ppi"] == pytest.approx(row["ppi"], abs=1e-9)
        assert got[system]["width_ppi"] == pytest.approx(row["width_ppi"], abs=1e-9)
        assert got[system]["lam"] > 0.5  # the judge tracks the humans (its scale is 0.008 of theirs: λ rescales)
    # the WMT layout keys items "DOCID:SEG": the humans' items must be written alike to be matched
    h2 = human.rename(index=lambda i: f"d:{i}" if str(i).startswith("i") else i, level=0)
    h2.rename("score").reset_index().to_csv(tmp_path / "humans2.csv", index=False)
    wmt = run("ppi", tmp_path / "humans2.csv", "--metric", tmp_path / "judge.seg.score", "--json")
    assert wmt.exit_code == 0, wmt.output
    assert {r["system"]: r["ppi"] for r in json.loads(wmt.stdout)} == pytest.approx(
        {r["system"]: r["ppi"] for r in got.values()}, abs=1e-9)
    text = run("ppi", tmp_path / "humans.csv", "--metric", tmp_path / "judge.tsv").output
    assert "with judge as the judge" in " ".join(text.split()) and "the judge is worth" in text


def test_metric_judge_errors(tmp_path):
    human, judge = _fixture(tmp_path)
    (tmp_path / "sys.score").write_text("toy\tx-y\ttest\tref\tS0\t0.5\n")
    result = run("ppi", tmp_path / "humans.csv", "--metric", tmp_path / "sys.score")
    assert result.exit_code == 2 and "system-level scores cannot judge segments" in result.output
    (tmp_path / "bad.tsv").write_text("system\tdoc\tscore\nS0\t1\t0.5\n")
    result = run("ppi", tmp_path / "humans.csv", "--metric", tmp_path / "bad.tsv")
    assert result.exit_code == 2 and "missing column: segment" in result.output
    (tmp_path / "nan.tsv").write_text("system\tsegment\tscore\nS0\ti1\tnan\n")
    result = run("ppi", tmp_path / "humans.csv", "--metric", tmp_path / "nan.tsv")
    assert result.exit_code == 2 and "nan.tsv:2: the score is missing" in result.output
    # the judge scored only what the humans scored: nothing to add unless a campaign is replayed
    judge.loc[human.index].rename("score").reset_index()[["system", "item", "score"]].to_csv(
        tmp_path / "same.csv", index=False)
    result = run("ppi", tmp_path / "humans.csv", "--metric", tmp_path / "same.csv")
    assert result.exit_code == 2 and "--hold-out" in result.output
    assert run("ppi", tmp_path / "humans.csv", "--metric", tmp_path / "same.csv", "--hold-out", "0.5").exit_code == 0
    # a reference set the file does not have is named with the ones it has
    result = run("ppi", tmp_path / "humans.csv", "--metric", tmp_path / "judge.seg.score", "--refset", "newstest")
    assert result.exit_code == 2 and "no scores against the reference set 'newstest'" in result.output and \
        "choose one the file has: ref" in result.output
    # WMT's layout keys items DOCID:SEG: plain segment ids never meet them, and the error says how to fix it
    result = run("ppi", tmp_path / "humans.csv", "--metric", tmp_path / "judge.seg.score")
    assert result.exit_code == 2 and "(DOCID:SEG, e.g. d:" in result.output and "--da FILE with --details" in \
        result.output
    # a metric judging ratings is audited by the meta-evaluation, which the refusal names
    result = run("ppi", tmp_path / "humans.csv", "--metric", tmp_path / "judge.tsv", "--audit")
    assert result.exit_code == 2 and "humeval metric correlate" in result.output
    (tmp_path / "battles.csv").write_text("model_a,model_b,winner,question_id\nS0,S1,model_a,i1\n")
    result = run("ppi", tmp_path / "battles.csv", "--metric", tmp_path / "judge.tsv")
    assert result.exit_code == 2 and "holds no ratings" in result.output


def test_mqm_ted_with_chrf_as_the_judge(tmp_path):
    mqm = shared_file("mqm-google/ted/ende/mqm_ted_ende.tsv")
    ted_chrf(mqm, tmp_path / "chrf.tsv")
    result = run("ppi", mqm, "--metric", tmp_path / "chrf.tsv", "--hold-out", "0.2", "--json")
    assert result.exit_code == 0, result.output
    rows = pd.DataFrame(json.loads(result.stdout)).set_index("system")
    assert len(rows) == 13  # ref is the judge's reference: left out
    assert rows.n.sum() + rows.N.sum() == 13 * 529  # every MT output of the 529 segments
    assert rows.n.sum() == pytest.approx(0.2 * 13 * 529, rel=0.05)
    # chrF is a weak segment-level judge of MQM: small λ, the combined intervals at most as wide
    assert (rows.lam < 0.1).all() and (rows.width_ppi <= rows.width_human + 1e-12).all()
    assert 1.0 < rows.effective_n.sum() / rows.n.sum() < 1.1
    covered = ((rows.ppi_lo <= rows.all_humans) & (rows.all_humans <= rows.ppi_hi)).mean()
    assert covered >= 10 / 13
    text = run("ppi", mqm, "--metric", tmp_path / "chrf.tsv", "--hold-out", "0.2").output
    assert "left out (the judge scored none of their units): ref" in text


def test_wmt_da_segment_scores_as_file_point_to_da_and_details():
    """WMT20's DA segment scores number segments over the test set (SID); chrF's file keys them
    DOCID:SEG. Read as FILE they never meet: an input error pointing to --da/--details, which
    match them (8,652 shared units, as the tutorial's command without --hold-out)."""
    da = shared_file("wmt20-metrics-de-en/manual-evaluation/ad-seg-scores-de-en.csv")
    chrf = shared_file("wmt20-metrics-de-en/seg-level/chrF.seg.score.de-en.tsv")
    details = shared_file("wmt20-metrics-de-en/input/de-en.details.txt")
    result = run("ppi", da, "--metric", chrf)
    assert result.exit_code == 2 and "never meet" in result.output and "--da FILE with --details" in result.output
    result = run("ppi", "--da", da, "--details", details, "--metric", chrf, "--json")
    assert result.exit_code == 0, result.output
    assert sum(r["n"] for r in json.loads(result.stdout)) == 8652


def test_human_label_picks_the_human_rows_of_a_ratings_file(tmp_path):
    """A ratings file whose judge_kind says "expert" for the humans and "crowd" for other rows:
    with --human-label expert only the expert rows are the human part (the crowd's scores, 50
    points higher, would lift every mean), as split_judges reads battles."""
    human, judge = _fixture(tmp_path)
    frame = human.rename("score").reset_index()
    both = pd.concat([frame.assign(judge_kind="expert"), frame.assign(judge_kind="crowd", score=frame.score + 50)])
    both.to_csv(tmp_path / "mixed.csv", index=False)
    result = run("ppi", tmp_path / "mixed.csv", "--format", "ratings", "--metric", tmp_path / "judge.tsv",
                 "--human-label", "expert", "--json")
    assert result.exit_code == 0, result.output
    got = {r["system"]: r["ppi"] for r in json.loads(result.stdout)}
    assert got == pytest.approx(system_means(human, judge)["ppi"].to_dict(), abs=1e-9)
