"""The report's section for humans and automatic judges: present when the file's judge_kind names both
(battles and ratings), with the numbers of ``ppi``, the audit and the reliability diagram; absent
otherwise; a judge that shares nothing with the humans is a note, not a failure."""

import numpy as np
import pandas as pd
import pytest

from humeval.data import read
from humeval.experiments.ppi import ppi_bradley_terry, system_means
from humeval.report import build_report, to_markdown
from humeval.report.judges import judges_sections, split_kinds
from humeval.simulate.judged import battles_frame, judged_battles, judged_ratings
from conftest import partly_judged_battles


def _sections(judgments):
    summary, methods = [], []
    return judges_sections(judgments, "file.csv", summary, methods), summary, methods


def test_battles_section_has_ppis_numbers(tmp_path):
    _, h, j = judged_battles(n_human=200, n_judge=1200, random_state=1)
    path = tmp_path / "judged.csv"
    battles_frame(h, j).to_csv(path, index=False)
    judgments = read(path)
    sections, summary, methods = _sections(judgments)
    assert [s.title for s in sections] == ["Humans and llm-judge: prediction-powered estimates"]
    abilities = sections[0].tables[0].frame
    human_rows, judges = split_kinds(judgments.comparisons)
    want = ppi_bradley_terry(judgments.comparisons.take(human_rows), judgments.comparisons.take(judges[0][1]))["ppi"]
    assert abilities["combined"].to_dict() == pytest.approx(want.scores.to_dict(), abs=1e-9)
    assert any(f"worth {want.extra['effective_n']:,.0f} human battles alone" in line for line in summary)
    titles = [t.title for t in sections[0].tables]
    assert any("Rank sets" in t for t in titles) and any("audited against the humans" in t for t in titles)
    assert sections[0].figures[0].png[:4] == b"\x89PNG"
    assert "prediction-powered" in methods[0]


def test_ratings_section_has_the_ppi_means(tmp_path):
    _, h, j = judged_ratings(n_items=150, random_state=0)
    frames = [s.rename("score").reset_index().assign(judge_kind=k) for s, k in ((h, "human"), (j, "chrF"))]
    path = tmp_path / "ratings.csv"
    pd.concat(frames).to_csv(path, index=False)
    judgments = read(path, format="ratings")
    sections, summary, _ = _sections(judgments)
    shown = sections[0].tables[0].frame
    want = system_means(h, j)
    assert shown["combined"].to_dict() == pytest.approx(want["ppi"].to_dict(), abs=1e-9)
    assert "chrF" in summary[0]


def test_no_section_without_both_kinds_and_a_note_when_nothing_is_shared(tmp_path):
    _, h, j = judged_battles(n_human=100, n_judge=300, random_state=2)
    frame = battles_frame(h, j)
    path = tmp_path / "humans.csv"
    frame[frame.judge_kind == "human"].drop(columns="judge_kind").to_csv(path, index=False)
    assert _sections(read(path))[0] == []
    moved = frame.assign(question_id=np.where(frame.judge_kind == "human", "h-" + frame.question_id, frame.question_id))
    path = tmp_path / "apart.csv"
    moved.to_csv(path, index=False)
    sections, _, _ = _sections(read(path))
    assert "cannot be combined with the humans: the human and the automatic judgments share no battle" in \
        sections[0].notes[0]


def test_the_whole_report_carries_the_section(tmp_path):
    _, h, j = judged_battles(n_human=150, n_judge=600, random_state=3)
    path = tmp_path / "judged.csv"
    battles_frame(h, j).to_csv(path, index=False)
    report = build_report(read(path), str(path), models=("bt",), n_boot=20, trials=1)
    text = to_markdown(report)
    assert "## Humans and llm-judge: prediction-powered estimates" in text
    assert "humeval ppi" in text and "--judge llm-judge" in text


def test_tracks_pooled_are_said(tmp_path):
    _, h, j = judged_battles(n_human=200, n_judge=800, random_state=4)
    frame = battles_frame(h, j)
    frame["language"] = np.where(np.arange(len(frame)) % 2, "de-en", "fr-en")
    path = tmp_path / "judged.csv"
    frame.to_csv(path, index=False)
    judgments = read(path, columns={"track": "language"})
    assert len(judgments.comparisons.tracks) == 2
    sections, _, _ = _sections(judgments)
    assert any("pooled over 2 tracks (de-en, fr-en)" in n for n in sections[0].notes)


def test_human_judgments_the_judge_did_not_make_are_said_with_the_humans_alone(tmp_path):
    """The section's combined and human columns use only what both judged: the human battles (units)
    the judge did not judge are counted, the humans alone on all of them are given beside (rank sets
    and mean widths), with a warning when they are the better estimate, as ``humeval ppi`` says."""
    from humeval.experiments.ppi_ranks import ppi_rank_sets, rank_span
    path = tmp_path / "judged.csv"
    partly_judged_battles()[0].to_csv(path, index=False)
    judgments = read(path)
    sections, summary, _ = _sections(judgments)
    notes = " ".join(sections[0].notes)
    assert "1,850 human battles the judge did not judge are left out" in notes
    humans = judgments.comparisons.take(split_kinds(judgments.comparisons)[0])
    alone = ppi_bradley_terry(humans, humans, lam=0.0)["human"].intervals()
    assert f"The humans alone on all their 2,000 battles: mean interval width {(alone.hi - alone.lo).mean():.3f}" in notes
    assert any(line.startswith("warning: the humans alone are the better estimate") for line in summary)
    ranks = next(t.frame for t in sections[0].tables if t.title.startswith("Rank sets"))
    assert ranks["all humans ranks"].to_dict() == rank_span(ppi_rank_sets(humans, humans)["human"]).to_dict()
    # ratings: 280 of each system's 300 human-scored units not scored by the judge
    rng = np.random.default_rng(0)
    rows = []
    for system, mu in (("A", 60), ("B", 50), ("C", 40)):
        quality = mu + rng.normal(0, 15, 300)
        rows += [(f"s{i}", system, q + rng.normal(0, 5), "human") for i, q in enumerate(quality)]
        rows += [(f"s{i}", system, q + rng.normal(0, 5), "metric") for i, q in enumerate(quality[:20])]
        rows += [(f"s{i}", system, mu + rng.normal(0, 15), "metric") for i in range(300, 1300)]
    rows += [("s0", "D", 50.0, "human"), ("s1", "D", 40.0, "human")]  # a system the judge never scored
    table = pd.DataFrame(rows, columns=["item", "system", "score", "judge_kind"])
    path = tmp_path / "ratings.csv"
    table.to_csv(path, index=False)
    sections, summary, _ = _sections(read(path, format="ratings"))
    notes = " ".join(sections[0].notes)
    assert "840 human-scored units the judge did not score are left out" in notes
    assert "left out (the judge scored none of their units): D" in notes
    # 20 units per system shared with the judge: 2·F_t19(1.96·√(19/20)) − 1 = 0.929 < 0.93
    assert "Too few human-scored units for normal intervals: A, B, C" in notes and "cover only 93% (Student" in notes
    sd = table[(table.judge_kind == "human") & (table.system != "D")].groupby("system").score.std(ddof=0)
    width = float((2 * 1.959964 * sd / np.sqrt(300)).mean())
    assert f"The humans alone on all their 900 units: mean interval width {width:.3f}" in notes
    assert any(line.startswith("warning: the humans alone are the better estimate") for line in summary)
