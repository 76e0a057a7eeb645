"""`humeval ppi`: files with a judge_kind column (battles, ratings), WMT DA with a metric as the judge,
and the errors when the two kinds of judge cannot be combined."""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humeval import read
from humeval.cli import cli
from humeval.experiments.ppi import ppi_bradley_terry
from humeval.simulate.judged import battles_frame, judged_battles, judged_ratings
from conftest import partly_judged_battles


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _battles_file(path, seed=0):
    truth, h, j = judged_battles(n_human=200, n_judge=1500, random_state=seed)
    battles_frame(h, j).to_csv(path, index=False)
    return h, j


def test_battles_file_with_judge_kind(tmp_path):
    path = tmp_path / "battles.csv"
    h, j = _battles_file(path)
    c = read(path).comparisons
    assert set(c.judge_kinds) == {"human", "llm-judge"}
    result = run("ppi", path, "--json")
    assert result.exit_code == 0, result.output
    got = json.loads(result.output)
    want = ppi_bradley_terry(h, j)["ppi"]
    assert got["lambda"] == pytest.approx(want.lam, abs=1e-9)
    assert got["n"] == 200 and got["N"] == 1500
    scores = {row["system"]: row["ppi_score"] for row in got["systems"]}
    assert scores == pytest.approx(want.scores.to_dict(), abs=1e-9)
    text = run("ppi", path).output
    assert "combined" in text and "human battles alone" in text and "not for conclusions" in text


def test_ratings_file_with_judge_kind(tmp_path):
    truth, h, j = judged_ratings(n_items=200, random_state=0)
    frames = [s.rename("score").reset_index().assign(judge_kind=k) for s, k in ((h, "human"), (j, "chrF"))]
    path = tmp_path / "ratings.csv"
    pd.concat(frames).to_csv(path, index=False)
    result = run("ppi", path, "--format", "ratings", "--json")
    assert result.exit_code == 0, result.output
    rows = {r["system"]: r for r in json.loads(result.output)}
    assert set(rows) == set(truth.index)
    assert all(r["ppi_lo"] < r["ppi"] < r["ppi_hi"] for r in rows.values())
    result = run("ppi", path, "--format", "ratings", "--audit")
    assert result.exit_code == 2 and "humeval metric correlate" in result.output


def test_errors_name_the_problem(tmp_path):
    path = tmp_path / "battles.csv"
    _battles_file(path)
    df = pd.read_csv(path)
    df.drop(columns="judge_kind").to_csv(tmp_path / "plain.csv", index=False)
    result = run("ppi", tmp_path / "plain.csv")
    assert result.exit_code == 2 and "no judge_kind column" in result.output
    moved = df.copy()
    moved.loc[moved.judge_kind != "human", "question_id"] = "other-" + moved.question_id.astype(str)
    moved.to_csv(tmp_path / "apart.csv", index=False)
    result = run("ppi", tmp_path / "apart.csv")
    assert result.exit_code == 2 and "share no battle" in result.output
    two = pd.concat([df, df[df.judge_kind != "human"].assign(judge_kind="other")])
    two.to_csv(tmp_path / "two.csv", index=False)
    result = run("ppi", tmp_path / "two.csv")
    assert result.exit_code == 2 and "several automatic judges" in result.output
    assert run("ppi", tmp_path / "two.csv", "--judge", "other").exit_code == 0
    assert run("ppi").exit_code == 2


def test_wmt20_de_en_hold_out_equals_the_library():
    """The coverage of the all-human means over repeated hold-outs is checked in
    tests/experiments/test_ppi.py; here the command must give the library's numbers."""
    from conftest import shared_file
    from humeval.data.readers.wmt_metrics import read_da_scores, read_metric_scores
    from humeval.experiments.ppi import hold_out, system_means
    root = shared_file("wmt20-metrics-de-en")
    result = run("ppi", "--da", root / "manual-evaluation/ad-seg-scores-de-en.csv",
                 "--details", root / "input/de-en.details.txt",
                 "--metric", root / "seg-level/chrF.seg.score.de-en.tsv", "--hold-out", "0.2", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert len(rows) == 12
    _, da = read_da_scores(root / "manual-evaluation/ad-seg-scores-de-en.csv", root / "input/de-en.details.txt")
    _, _, chrf = read_metric_scores(root / "seg-level/chrF.seg.score.de-en.tsv")
    shared = da.index.intersection(chrf.index)
    want = system_means(hold_out(da, chrf.loc[shared], 0.2, 0), chrf.loc[shared])
    full = da.groupby(level=[0, 1]).mean().loc[shared].groupby(level=1).mean()
    for r in rows:
        assert r["ppi"] == pytest.approx(want.at[r["system"], "ppi"], abs=1e-12)
        assert r["all_humans"] == pytest.approx(full[r["system"]], abs=1e-12)


def test_too_many_judge_kinds_is_an_input_error(tmp_path):
    path = tmp_path / "ratings.csv"
    pd.DataFrame({"item": range(200), "system": "A", "score": 1.0,
                  "judge_kind": [f"annotator{i}" for i in range(200)]}).to_csv(path, index=False)
    result = run("ppi", path, "--format", "ratings")
    assert result.exit_code == 2 and "judge_kind column holds 200" in result.output


def test_audit_prints_the_judges_biases(tmp_path):
    path = tmp_path / "battles.csv"
    h, j = _battles_file(path)
    df = pd.read_csv(path)
    df["length_diff"] = np.concatenate([h.covariates[:, 0], j.covariates[:, 0]])
    df.to_csv(path, index=False)
    result = run("ppi", path, "--audit", "--covariates", "length_diff")
    assert result.exit_code == 0, result.output
    assert "position bias: judge − humans" in result.output and "favours it" in result.output
    assert "length_diff: judge prefer the larger" in result.output
    assert run("ppi", path, "--audit", "--json").exit_code == 2
    assert run("ppi", path, "--covariates", "length_diff").exit_code == 2


def test_a_system_without_enough_human_scores_is_named(tmp_path):
    truth, h, j = judged_ratings(n_items=100, random_state=0)
    h = h[h.index.get_level_values("system") != "S4"]
    frames = [s.rename("score").reset_index().assign(judge_kind=k) for s, k in ((h, "human"), (j, "metric"))]
    path = tmp_path / "ratings.csv"
    pd.concat(frames).to_csv(path, index=False)
    result = run("ppi", path, "--format", "ratings")
    assert result.exit_code == 0, result.output
    assert "left out" in result.output and "S4" in result.output.split("left out")[1]


def test_a_judge_kind_column_survives_pooled_boards(tmp_path):
    """ranking.boards.one_track rebuilds the table from every column: judge_kind's labels come along."""
    from humeval.ranking.boards import one_track
    path = tmp_path / "battles.csv"
    _battles_file(path)
    pooled = one_track(read(path).comparisons)
    assert set(np.asarray(pooled.judge_kinds)[pooled.judge_kind]) == {"human", "llm-judge"}


def test_davidson_model_on_a_file_with_ties(tmp_path):
    from humeval.experiments.ppi import ppi_davidson
    truth, h, j = judged_battles(n_human=200, n_judge=1000, nu=0.8, random_state=0)
    frames = []
    for c, kind in ((h, "human"), (j, "llm-judge")):
        systems = np.asarray(c.systems)
        frames.append(pd.DataFrame({"model_a": systems[c.a], "model_b": systems[c.b],
                                    "winner": np.array(["tie", "model_a", "model_b"])[c.outcome],
                                    "question_id": np.asarray(c.items)[c.item], "judge_kind": kind}))
    path = tmp_path / "ties.csv"
    pd.concat(frames).to_csv(path, index=False)
    result = run("ppi", path, "--model", "davidson", "--json")
    assert result.exit_code == 0, result.output
    got = json.loads(result.output)
    want = ppi_davidson(h, j)["ppi"]
    assert got["nu"] == pytest.approx(want.extra["nu"], rel=1e-9)
    assert "tie parameter" in run("ppi", path, "--model", "davidson").output


def test_humans_alone_on_all_their_battles_beside_the_combined_estimate(tmp_path):
    """PPI++ sets aside the human battles the judge did not judge: with 2,000 human battles of
    which the judge judged 150, the combined intervals are wider than the humans' alone on all
    2,000 (widths scale as 1/sqrt(n): about sqrt(2000/150) = 3.7 times, less what 1,500 judge-only
    battles add), and the command says so instead of presenting the combined estimate as the best."""
    partly, frame = partly_judged_battles()
    path = tmp_path / "battles.csv"
    partly.to_csv(path, index=False)
    got = json.loads(run("ppi", path, "--json").output)
    assert got["n"] == 150 and got["all_human_n"] == 2000
    assert got["all_human_mean_width"] < got["combined_mean_width"] / 2
    text = run("ppi", path).output
    assert "1,850 human battles the judge did not judge are left out" in text
    assert "warning: the humans alone are the better estimate here" in text
    # when the judge judged every human battle there is nothing to compare
    frame.to_csv(path, index=False)
    got = json.loads(run("ppi", path, "--json").output)
    assert "all_human_n" not in got and "better estimate" not in run("ppi", path).output


def _ratings_with_human_only_units(path, judged=100, seed=0):
    """3 systems, 300 human-scored segments each, of which the judge (a noisy copy) also scored the
    first ``judged``; and 1,000 judge-only segments per system."""
    rng = np.random.default_rng(seed)
    rows = []
    for system, mu in (("A", 60), ("B", 50), ("C", 40)):
        for i in range(300):
            quality = mu + rng.normal(0, 15)
            rows.append((f"s{i}", system, quality + rng.normal(0, 5), "human"))
            if i < judged:
                rows.append((f"s{i}", system, quality + rng.normal(0, 5), "metric"))
        rows += [(f"s{i}", system, mu + rng.normal(0, 15), "metric") for i in range(300, 1300)]
    rows += [(f"s{i}", "D", 55 + rng.normal(0, 15), "human") for i in range(50)]  # the judge never scored D
    frame = pd.DataFrame(rows, columns=["item", "system", "score", "judge_kind"])
    frame.to_csv(path, index=False)
    return frame


def test_ratings_humans_alone_on_all_their_units_beside_the_combined_means(tmp_path):
    """PPI++ uses only the human-scored units the judge also scored: the other 200 per system were
    silently left out. Now they are counted, and each system's classical mean on all 300 of its
    human-scored units is given (hand: mean and 1.96 · sd / √300, ddof 0) with a warning when those
    intervals are narrower than the combined ones."""
    path = tmp_path / "ratings.csv"
    frame = _ratings_with_human_only_units(path, judged=20)
    got = {r["system"]: r for r in json.loads(run("ppi", path, "--json").output)}
    humans = frame[frame.judge_kind == "human"].groupby("system").score
    assert set(got) == {"A", "B", "C"}
    for system, scores in humans:
        if system == "D":
            continue
        row = got[system]
        assert row["n"] == 20 and row["all_human_n"] == 300
        assert row["all_human"] == pytest.approx(scores.mean(), abs=1e-9)
        assert row["width_all_human"] == pytest.approx(2 * 1.959964 * scores.std(ddof=0) / np.sqrt(300), rel=1e-5)
    text = " ".join(run("ppi", path).output.split())
    assert "840 human-scored units the judge did not score are left out." in text
    alone = np.mean([got[s]["width_all_human"] for s in got])  # A, B, C: D has no combined mean
    combined = np.mean([got[s]["width_ppi"] for s in got])
    assert alone < combined
    assert f"The humans alone on all their 900 units: mean interval width {alone:.3f}; combined {combined:.3f}." in text
    assert "warning: the humans alone are the better estimate here" in text
    assert "left out (the judge scored none of their units): D" in text  # D was silently dropped before
    # the judge scored every human-scored unit: nothing left out, nothing to compare
    _ratings_with_human_only_units(path, judged=300)
    got = json.loads(run("ppi", path, "--json").output)
    assert "all_human_n" not in got[0]
    assert "did not score" not in run("ppi", path).output


def test_too_few_human_units_for_normal_intervals_are_warned(tmp_path):
    """Two human-scored units per system: mean ± 1.96·s/√2 (s with ddof 0) covers a normal mean with
    probability 2·F_t1(1.96·√½) − 1 = 0.602 (Student's t, 1 degree of freedom), not 95 %: the
    command names the systems instead of printing their narrow intervals plainly; at 300 units it
    is silent (0.945)."""
    from scipy.stats import t

    from humeval.experiments.ppi import small_sample_coverage
    path = tmp_path / "ratings.csv"
    _ratings_with_human_only_units(path, judged=300)
    text = " ".join(run("ppi", path).output.split())
    assert "too few human-scored units" not in text
    rows = []
    rng = np.random.default_rng(3)
    for system, mu in (("A", 60), ("B", 50)):
        rows += [(f"s{i}", system, mu + rng.normal(0, 15), kind) for i in range(2) for kind in ("human", "metric")]
        rows += [(f"s{i}", system, mu + rng.normal(0, 15), "metric") for i in range(2, 200)]
    pd.DataFrame(rows, columns=["item", "system", "score", "judge_kind"]).to_csv(path, index=False)
    text = " ".join(run("ppi", path).output.split())
    assert "warning: too few human-scored units for normal intervals: A, B (n = 2, 2)" in text
    assert "cover only 60%, not 95%" in text
    assert 2 * t.cdf(1.959964 * np.sqrt(0.5), 1) - 1 == pytest.approx(0.6021, abs=1e-4)
    cover = small_sample_coverage(pd.DataFrame({"n": [2, 10, 25, 300]}, index=list("abcd")))
    assert cover.to_dict() == pytest.approx({"a": 0.6021, "b": 0.9041}, abs=1e-4)  # 25: 0.933 ≥ 0.93


def test_abilities_without_a_maximum_are_said_not_to_be_estimates(tmp_path):
    # 30 human battles on 6 systems 2 logits apart (seed 3): some system never lost to the humans, so
    # their abilities run off (they spread over 40 logits, with tight intervals around the runaway
    # values); the command says so, and --json lists which estimates ran off
    truth, h, j = judged_battles(n_human=30, n_judge=300, k=6, spread=2.0, random_state=3)
    path = tmp_path / "battles.csv"
    battles_frame(h, j).to_csv(path, index=False)
    result = run("ppi", path)
    assert result.exit_code == 0, result.output
    said = " ".join(result.stderr.split())
    assert "warning: the humans alone: the abilities have no finite maximum" in said and "not estimates" in said
    assert "the combined (PPI++) fit" not in said  # the judge's battles bound the combined fit
    # the judge's worth is measured against the humans' intervals: not given when they have none
    assert "worth in human battles is not given" in " ".join(result.stdout.split())
    got = json.loads(run("ppi", path, "--json").stdout)
    assert got["unbounded"] == ["human"] and got["effective_n"] is None
    fine = tmp_path / "fine.csv"
    _battles_file(fine)
    fine_got = json.loads(run("ppi", fine, "--json").stdout)
    assert fine_got["unbounded"] == [] and fine_got["effective_n"] > fine_got["n"] == 200
