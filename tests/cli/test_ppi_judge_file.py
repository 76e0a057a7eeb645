"""`humeval ppi FILE --judge-file JUDGE`: the judge's labels in a file of their own, matched to the
humans' by item and system pair (``data.judge_files``): the same estimates as one file with a
judge_kind column, clear errors when the files cannot be combined, and WMT10's MTurk crowd as a cheap
judge of the experts' rankings (real data)."""

import json

import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.experiments.ppi import ppi_bradley_terry
from humeval.simulate.judged import battles_frame, judged_battles
from conftest import shared_file


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _files(tmp_path):
    _, h, j = judged_battles(n_human=200, n_judge=1500, random_state=0)
    frame = battles_frame(h, j)
    frame.to_csv(tmp_path / "both.csv", index=False)
    frame[frame.judge_kind == "human"].drop(columns="judge_kind").to_csv(tmp_path / "humans.csv", index=False)
    frame[frame.judge_kind != "human"].drop(columns="judge_kind").to_csv(tmp_path / "llm.csv", index=False)
    return h, j


def test_a_judge_file_gives_what_one_file_with_judge_kind_gives(tmp_path):
    h, j = _files(tmp_path)
    one = json.loads(run("ppi", tmp_path / "both.csv", "--json").output)
    two = run("ppi", tmp_path / "humans.csv", "--judge-file", tmp_path / "llm.csv", "--json")
    assert two.exit_code == 0, two.output
    two = json.loads(two.output)
    want = ppi_bradley_terry(h, j)["ppi"]
    assert two["lambda"] == pytest.approx(want.lam, abs=1e-9) and two["n"] == 200 and two["N"] == 1500
    assert [r["ppi_score"] for r in two["systems"]] == pytest.approx([r["ppi_score"] for r in one["systems"]],
                                                                        abs=1e-9)
    text = run("ppi", tmp_path / "humans.csv", "--judge-file", tmp_path / "llm.csv", "--judge", "gpt").output
    assert "humans and gpt" in text


def test_files_that_cannot_be_combined_are_input_errors(tmp_path):
    _files(tmp_path)
    lines = (tmp_path / "llm.csv").read_text().splitlines()
    (tmp_path / "other.csv").write_text("\n".join([lines[0]] + [l.replace(",q", ",other-q") for l in lines[1:]]))
    result = run("ppi", tmp_path / "humans.csv", "--judge-file", tmp_path / "other.csv")
    assert result.exit_code == 2 and "shares no item id" in result.output
    result = run("ppi", tmp_path / "humans.csv", "--judge-file", tmp_path / "llm.csv", "--judge", "human")
    assert result.exit_code == 2 and "is the humans' label" in result.output
    (tmp_path / "ratings.csv").write_text("item,system,score\nq1,S0,50\nq1,S1,60\n")
    result = run("ppi", tmp_path / "humans.csv", "--judge-file", tmp_path / "ratings.csv")
    assert result.exit_code == 2 and "holds no battles" in result.output


def test_wmt10_experts_with_the_mturk_crowd_as_the_judge():
    experts = shared_file("wmt10-rankings/wmt10/data_RNK.csv")
    crowd = shared_file("wmt10-rankings/wmt10/data_RNK-public.csv")
    result = run("ppi", experts, "--judge-file", crowd, "--judge", "mturk", "--track", "Spanish-English", "--json")
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)  # the reader's skips go to stderr
    # 3,005 expert battles (same srcIndex, same two systems) the crowd also ranked; 13,670 crowd-only
    # battles (pandas on the two CSVs: 1,995 shared (segment, pair) items in this track)
    assert got["n"] == 3005 and got["N"] == 13670
    assert 0 < got["lambda"] < 0.2  # a weak judge: 59 % agreement with the experts
    assert 1.0 < got["effective_n"] / got["n"] < 1.1
    for row in got["systems"]:  # never wider than the experts alone on the same battles
        assert row["ppi_hi"] - row["ppi_lo"] <= row["human_hi"] - row["human_lo"] + 1e-9
    # the figures docs/tutorials/humans-and-judges.md quotes
    assert got["lambda"] == pytest.approx(0.05, abs=0.005) and round(got["effective_n"]) == 3082
    # the experts alone on all 11,307 battles: half the combined width (0.100 against 0.189 half-widths)
    assert got["all_human_n"] == 11307
    assert got["all_human_mean_width"] / 2 == pytest.approx(0.100, abs=0.0015)
    assert got["combined_mean_width"] / 2 == pytest.approx(0.189, abs=0.0015)
    text = " ".join(run("ppi", experts, "--judge-file", crowd, "--judge", "mturk", "--track", "Spanish-English",
                        "--audit", "--rank-sets").stdout.split())
    for shown in ("agreement (share of matched battles) │ 0.592", "Cohen's kappa (bootstrap interval) │ 0.331",
                  "position bias: judge − humans │ 0.0351", "_ref │ -0.169", "λ = 0.22;",
                  "warning: the humans alone are the better estimate here",
                  # the experts alone on all 11,307 battles beside the rank sets on the 3,005 matched ones
                  "Mean rank set size: all humans 6.33, combined 9.27.",
                  "warning: the humans alone give the tighter rank sets here",
                  "The humans alone on all their 11,307 battles: mean interval width 0.200; combined 0.377."):
        assert shown in text, shown
    several = run("ppi", experts, "--judge-file", crowd)
    assert several.exit_code == 2 and "choose one with --track" in several.output
