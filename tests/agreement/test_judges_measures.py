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


def test_the_declared_scale_decides_whether_scores_are_labels():
    """A DA slider (0-100) whose judges used five values only is still continuous: exact agreement
    on it would count 0 and 100 as different as 49 and 50. The same values on a declared 1-5 scale,
    or without a declared scale, are labels."""
    from humeval.agreement.scales import declared_points, is_categorical, rating_agreement
    coarse = shared_items("likert")
    slider = Ratings.from_pandas(coarse.to_pandas(), scale="0-100")
    assert not is_categorical(slider.score, slider.scale) and is_categorical(coarse.score, coarse.scale)
    assert is_categorical(slider.score, "1-5") and is_categorical(slider.score, "1–7")
    assert not is_categorical(slider.score, "z") and not is_categorical(slider.score + 0.5, "1-5")
    assert declared_points("0–100").tolist() == list(range(101)) and declared_points("z") is None
    reason = not_applicable(slider)
    assert "5 distinct values, whole numbers on the declared scale 0-100" in reason
    assert judge_quality(slider)["flag"].tolist() == ["n/a"] * 4
    assert set(rating_agreement(slider)) == {"alpha (interval)", "intra (repeat correlation)"}
    assert "exact-match kappa" in rating_agreement(coarse)["inter"].method



def test_a_declared_scale_the_scores_leave_is_not_believed():
    """Scores 0-100 (40 distinct whole numbers) declared "1-5", a mislabelled file: the
    declaration made them labels (exact-match kappas on a slider); the scores seen decide, as
    ``scale_points`` does."""
    from humeval.agreement.scales import is_categorical
    scores = np.arange(0.0, 100.0, 2.5).round()
    assert not is_categorical(scores, "1-5") and not is_categorical(scores)
    assert is_categorical(np.array([1.0, 3, 5]), "1-5") and is_categorical(np.array([0.0, 1]), "0-1")

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


def wmt_file(tmp_path, name="campaign-da.csv", careless=()):
    """A WMT per-annotator DA file: four annotators, each scoring 20 segments of their own by three
    systems, plus a degraded copy and a repeat of system A's output on 5 of them (20 REPEAT rows).
    Careful annotators score the degraded copy below 30, under every original (5 of 5 drops: the
    signed-rank p is 2⁻⁵, a pass); ``careless`` ones score it 5 above the original (p = 1, a fail)."""
    rng = np.random.default_rng(2)
    rows = []
    for k in range(4):
        for i in range(20):
            segment = str(20 * k + i)
            scores = {system: int(rng.integers(30, 96)) for system in "ABC"}
            rows += [(f"a{k}", system, "SYSTEM", segment, score) for system, score in scores.items()]
            if i < 5:
                bad = scores["A"] + 5 if f"a{k}" in careless else int(rng.integers(0, 30))
                rows += [(f"a{k}", "A", "BAD_REF", segment, bad),
                         (f"a{k}", "A", "REPEAT", segment, int(rng.integers(30, 101)))]
    lines = [HEADER] + ["\t".join(["H", judge, "de", "en", "ad", "1", system, "r", kind, segment, str(score), "9"])
                        for judge, system, kind, segment, score in rows]
    path = tmp_path / name
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


KEPT = "this is WMT's kept-workers file: WMT's quality control already kept all 4 annotators in it"


def test_wmt_kept_workers_file_is_not_offered_for_dropping(tmp_path):
    """Before: "quality control as WMT runs it … 3 pass, 1 fail" on a file whose every worker WMT kept."""
    path, _ = wmt_file(tmp_path, "ad-deen-good-stnd.csv", careless=("a3",))
    result = run("judges", path)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "annotators: 3 pass, 1 fail, 0 no pairs" in text and "as WMT runs it" not in text
    assert "WMT's degraded-reference test recomputed on this file's rows" in text
    assert KEPT in text and "(1 fail here;" in text and "docs/validation.md" in text
    assert "WMT's MTurk to-English filter ran a one-sided paired t-test instead" in text
    assert "(WMT, Graham et al. 2017)" not in text
    assert json.loads(run("judges", path, "--json").output)["kept by WMT"] is True
    filtered = " ".join(run("judges", path, "--wmt-qc", "paired-t").output.split())
    assert "kept 3 of 4 annotators" in filtered and KEPT in filtered and "(1 dropped here;" in filtered
    # the same rows under another name: nothing claimed about WMT's decisions
    other, _ = wmt_file(tmp_path, "campaign-da.csv", careless=("a3",))
    plain = " ".join(run("judges", other).output.split())
    assert "annotators: 3 pass, 1 fail, 0 no pairs" in plain and "kept-workers" not in plain
    assert json.loads(run("judges", other, "--json").output)["kept by WMT"] is False


def test_the_report_on_a_kept_workers_file_does_not_count_wmt_failures(tmp_path):
    """Before: "1 of 4 annotators … fail WMT's quality control" and rank --drop-judges failed.txt offered."""
    import humeval
    from humeval.report import build_report, to_markdown
    path, _ = wmt_file(tmp_path, "ad-deen-good-stnd.csv", careless=("a3",))
    report = build_report(humeval.read(path, controls=True), str(path), n_boot=20, trials=1)
    assert not any("fail WMT's quality control" in s for s in report.summary), report.summary
    assert any("1 of 4 annotators fail the degraded-reference test recomputed on this file's rows, but WMT's "
               "quality control kept all 4" in s for s in report.summary), report.summary
    md = to_markdown(report)
    assert "--drop-judges failed.txt" not in md and "--drop-list failed.txt" not in md and KEPT in md
    # the judge-quality table's command prints that table, not the annotators' quality control
    table = next(t for s in report.sections for t in s.tables if t.title.startswith("Judge quality"))
    assert table.command.endswith("--no-controls")
    printed = run(*table.command.split()[1:], "--json")
    shown = pd.DataFrame(json.loads(printed.output)["judges"]).set_index("judge")[table.frame.columns].fillna(np.nan)
    pd.testing.assert_frame_equal(shown, table.frame, check_dtype=False, check_names=False)


def test_wmt22_kept_workers_qc_says_wmt_kept_them_all():
    path = shared_file("wmt22-da-toen/ad-deen-good-stnd.csv")
    text = " ".join(run("judges", path).output.split())
    assert "annotators: 78 pass, 73 fail, 0 no pairs" in text
    assert "WMT's quality control already kept all 151 annotators in it" in text and "(73 fail here;" in text


def test_repeat_pairs_count_what_self_consistency_rests_on():
    """Segment s1: j1 ranks A1 B2 C2, j2 A1 B1 C3, j1 again A1 B2 C3: j1's 3 repeated pairs agree on 2."""
    from humeval.data import Rankings
    comparisons = Rankings(system=[[0, 1, 2]] * 3, rank=[[1, 2, 2], [1, 1, 3], [1, 2, 3]], item=[0, 0, 0],
                           judge=[0, 1, 0], systems=("A", "B", "C"), items=("s1",), judges=("j1", "j2")).expand()
    q = judge_quality(comparisons, min_pairs=1)
    assert q.loc["j1", "repeat pairs"] == 3 and q.loc["j1", "self-consistency"] == pytest.approx(2 / 3)
    assert q.loc["j2", "repeat pairs"] == 0 and pd.isna(q.loc["j2", "self-consistency"])


def test_judges_states_the_cut_off_and_does_not_assert_chance(tmp_path):
    """README's tour: before, 'chance' at p 0.011 with no cut-off in sight, and 'flags per file (one track)'."""
    path = tmp_path / "campaign.parquet"
    assert run("simulate", path, "--random-judges", "0.3", "--quiet").exit_code == 0
    result = run("judges", path)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert ("cut-off: 'not above chance' when p (above chance) ≥ 0.01 (binomial test of P(A) > P(E), judges with "
            "≥ 20 pairs); 'outlier' when kappa < median − 3 MADs") in text
    assert "flags per file" not in text and " chance │" not in result.output
    quality = pd.DataFrame(json.loads(run("judges", path, "--json").output)["judges"])
    flagged_rows = quality[quality["flag"] == "not above chance"]
    assert len(flagged_rows) >= 6 and (flagged_rows["p (above chance)"] >= 0.01).all()
    assert (quality.loc[quality["flag"] == "", "p (above chance)"] < 0.01).all()
    assert "repeat pairs" in quality.columns and quality["repeat pairs"].sum() > 0
    assert "repeat pairs" in text
