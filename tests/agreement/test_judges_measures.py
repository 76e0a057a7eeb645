"""What ``judge_quality`` and ``humeval judges`` may conclude: exact agreement only on labels, the
cut-off of the chance test stated, the repeated pairs behind self-consistency counted."""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humeval.agreement import flagged, judge_quality, not_applicable
from humeval.cli import cli
from humeval.data import Ratings
from conftest import shared_file


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def shared_items(scores: str = "z", n_items=30, n_judges=4, seed=0) -> Ratings:
    """Four careful judges score the same 30 outputs: quality (sd 15) plus their own noise (sd 5).
    ``z``: standardised per judge (continuous); ``slider``: whole numbers 0–100 (DA's slider);
    ``likert``: the quality cut into 1–5."""
    rng = np.random.default_rng(seed)
    quality = rng.normal(60, 15, n_items)
    rows = []
    for j in range(n_judges):
        raw = quality + rng.normal(0, 5, n_items)
        if scores == "z":
            value = (raw - raw.mean()) / raw.std()
        elif scores == "slider":
            value = np.clip(np.round(raw), 0, 100)
        else:
            value = np.digitize(quality, [45, 55, 65, 75]) + 1.0  # the same label from every judge
        rows += [(f"i{i}", "S", f"j{j}", float(v)) for i, v in enumerate(value)]
    return Ratings.from_pandas(pd.DataFrame(rows, columns=["item", "system", "judge", "score"]))


@pytest.mark.parametrize("scores", ["z", "slider"])
def test_exact_agreement_does_not_judge_continuous_scores(scores):
    """Before: every judge shared 90 pairs with P(A) ≈ 0 and was flagged 'chance'. Now: n/a, nobody flagged."""
    ratings = shared_items(scores)
    quality = judge_quality(ratings)
    assert quality["pairs"].tolist() == [90] * 4
    assert quality["flag"].tolist() == ["n/a"] * 4 and flagged(quality) == []
    assert quality[["agreement", "kappa", "consensus", "p (above chance)"]].isna().all().all()
    reason = not_applicable(ratings)
    assert "does not apply" in reason and "nobody is flagged" in reason and "--wmt-qc" in reason
    assert ("not all whole numbers" in reason) == (scores == "z")


def test_exact_agreement_still_judges_a_label_scale():
    """1–5 labels every judge gives alike: P(A) = 1 over the 90 pairs, kappa 1, no flag."""
    ratings = shared_items("likert")
    assert not_applicable(ratings) is None
    quality = judge_quality(ratings)
    assert quality["agreement"].tolist() == [1.0] * 4 and quality["kappa"].tolist() == pytest.approx([1.0] * 4)
    assert quality["flag"].tolist() == [""] * 4


def test_judges_command_says_exact_agreement_does_not_apply(tmp_path):
    path = tmp_path / "z.csv"
    shared_items("z").to_pandas().to_csv(path, index=False)
    result = run("judges", path)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "flags: 4 n/a" in text and "exact agreement does not apply to these scores" in text
    assert "chance" not in result.output.replace("p (above chance)", "")
    data = json.loads(run("judges", path, "--json").output)
    assert data["flagged"] == [] and "does not apply" in data["not applicable"]


def test_the_report_does_not_count_continuous_scorers_as_unreliable():
    """Before: 'N of N judges flagged as unreliable'. Now: none flagged, and the section says why."""
    from humeval.data.judgments import Judgments, ReadReport
    from humeval.report import build_report, to_markdown
    parts = [shared_items("z", seed=s).to_pandas().assign(system=name) for s, name in enumerate("ABC")]
    ratings = Ratings.from_pandas(pd.concat(parts, ignore_index=True))
    report = build_report(Judgments(ReadReport("z.csv", "ratings"), ratings=ratings), "z.csv", n_boot=20, trials=1)
    assert not any("flagged as unreliable" in s for s in report.summary), report.summary
    assert any(s.startswith("Judges: none flagged") for s in report.summary)
    md = to_markdown(report)
    assert "exact agreement does not apply to these scores" in md and "'n/a' = exact agreement does not apply" in md


def test_wmt22_z_scores_flag_nobody_on_exact_agreement():
    """WMT22 de-en (z-scores of 151 kept workers): before, 29 of 29 assessable judges were 'chance'."""
    result = run("judges", shared_file("wmt22-da-toen/ad-deen-good-stnd.csv"), "--no-controls", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output[result.output.index("{"):])
    flags = pd.DataFrame(data["judges"])["flag"].value_counts().to_dict()
    assert flags == {"few pairs": 122, "n/a": 29} and data["flagged"] == []


HEADER = "HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time"


def wmt_file(tmp_path):
    """A WMT per-annotator DA file: four annotators, each scoring 20 segments of their own by three
    systems, plus a degraded copy and a repeat of system A's output on 5 of them (20 REPEAT rows)."""
    rng = np.random.default_rng(2)
    rows = []
    for k in range(4):
        for i in range(20):
            segment = str(20 * k + i)
            for system in "ABC":
                rows.append((f"a{k}", system, "SYSTEM", segment, rng.integers(30, 101)))
            if i < 5:
                rows += [(f"a{k}", "A", "BAD_REF", segment, rng.integers(0, 30)),
                         (f"a{k}", "A", "REPEAT", segment, rng.integers(30, 101))]
    lines = [HEADER] + ["\t".join(["H", judge, "de", "en", "ad", "1", system, "r", kind, segment, str(score), "9"])
                        for judge, system, kind, segment, score in rows]
    path = tmp_path / "campaign-da.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, 20


def test_repeats_left_out_as_controls_are_named_not_called_absent(tmp_path):
    """Before: self-consistency '-' and intra pairs 0 with no word of the file's REPEAT rows."""
    path, n = wmt_file(tmp_path)
    said = f"the file's {n:,} REPEAT rows (outputs shown again to the same annotator) are quality controls"
    judged = run("judges", path, "--no-controls")
    assert judged.exit_code == 0, judged.output
    assert said in " ".join(judged.output.split())
    data = json.loads(run("judges", path, "--no-controls", "--json").output)
    assert said in data["repeats"] and {j["repeat pairs"] for j in data["judges"]} == {0}
    agreed = run("agreement", path)
    assert agreed.exit_code == 0, agreed.output
    assert "intra: " + said in " ".join(agreed.output.split())
    # with the controls (the default) the repeats are paired per annotator, and nothing is said to be missing
    kept = run("judges", path, "--json")
    assert sum(j["repeat pairs"] for j in json.loads(kept.output)["judges"]) == n and said not in kept.output


def test_the_report_says_the_repeats_are_controls():
    """The report reads the controls but keeps them out of agreement: 'no item judged twice' is now
    followed by why, with the count."""
    from humeval.data.judgments import Judgments, ReadReport
    from humeval.report import build_report, to_markdown
    rng = np.random.default_rng(3)
    rows = [(f"s{i}", s, f"a{i % 4}", float(rng.integers(0, 101)), "SYSTEM") for i in range(40) for s in "ABC"]
    rows += [(f"s{i}", "A", f"a{i % 4}", float(rng.integers(0, 101)), "REPEAT") for i in range(12)]
    ratings = Ratings.from_pandas(pd.DataFrame(rows, columns=["item", "system", "judge", "score", "kind"]),
                                  scale="0-100")
    report = build_report(Judgments(ReadReport("r.csv", "ratings"), ratings=ratings), "r.csv", n_boot=20, trials=1)
    md = to_markdown(report)
    assert "no item was judged twice (by two judges or by one judge twice) among the judgments agreement uses " \
           "(the file's 12 REPEAT rows (outputs shown again to the same annotator) are quality controls" in md
