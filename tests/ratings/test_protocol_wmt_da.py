"""The ``wmt-da-toen`` protocol: WMT's to-English DA ranking (2019–2022), on a hand-computed
fixture and, when ../shared is there, against the official WMT22 cs-en, de-en and ja-en files."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.data import read
from humeval.data.readers.wmt_da import read_segment_scores, read_worker_stats, worker_stats_beside
from humeval.data.tables import Ratings
from humeval.errors import InputError
from humeval.ratings import protocols
from humeval.ratings.clusters import clusters, wins
from humeval.ratings.protocols import PROTOCOLS, Protocol, rank_segments, register, run, worker_table
from conftest import FIXTURES, shared_file

SMALL = FIXTURES / "wmt_da_toen"
PAIRS = {"cs-en": "csen", "de-en": "deen", "ja-en": "jaen"}


def cli_run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


# ------------------------------------------------------------------ the hand-computed fixture
# Three workers rate five rows each, controls included (tests/fixtures/wmt_da_toen/ad-csen-raw.csv):
#   W1: A.1/1 SYSTEM 60, A.1/1 REPEAT 40, B.2/1 SYSTEM 50, B.2/1 BAD_REF 40, A.1/1 REF 60 → mean 50, sd 10
#   W2: A.1/2 SYSTEM 90, B.2/2 SYSTEM 50, B.2/2 REPEAT 70, A.1/2 BAD_REF 50, B.2/2 REF 90 → mean 70, sd 20
#   W3: C.3/1 SYSTEM 20, C.3/2 SYSTEM 30, A.1/3 SYSTEM 40, A.1/3 BAD_REF 20, C.3/1 REF 40 → mean 30, sd 10
# (sd over all five rows: the squared deviations sum to 4·sd²). Segments (SYSTEM + REPEAT):
#   A.1: 1 → z (1 − 1)/2 = 0, raw 50; 2 → z 1, raw 90; 3 → z 1, raw 40      system z 2/3, raw 60
#   B.2: 1 → z 0, raw 50; 2 → z (−1 + 0)/2 = −0.5, raw 60                   system z −0.25, raw 55
#   C.3: 1 → z −1, raw 20; 2 → z 0, raw 30                                  system z −0.5, raw 25
# Rank-sum A.1 {0, 1, 1} over B.2 {0, −0.5}: U = ½ + 1 + 2·2 = 5.5 of n₁n₂ = 6; ties {0, 0}, {1, 1}:
# Σ(t³ − t) = 12, σ² = 6/12 · (6 − 12/20) = 2.7, z = (5.5 − 3 − 0.5)/√2.7, p = 1 − Φ(z) = 0.111771.
EXPECTED = pd.DataFrame({"raw": [60.0, 55.0, 25.0], "z": [2 / 3, -0.25, -0.5]}, index=["A.1", "B.2", "C.3"])
P_A_OVER_B = 0.5 * math.erfc(2 / math.sqrt(2.7) / math.sqrt(2))


def small(name, controls=True):
    return read(SMALL / name, controls=controls).ratings


def test_raw_file_standardised_over_all_rows_with_repeats_in_segments():
    result = run("wmt-da-toen", small("ad-csen-raw.csv"))["cs-en"]
    assert result.protocol == "wmt-da-toen"
    assert list(result.table.index) == ["A.1", "B.2", "C.3"]
    assert np.allclose(result.table[["raw", "z"]], EXPECTED, atol=1e-12)
    assert result.table["segments"].tolist() == [3, 2, 2] and result.table["ratings"].tolist() == [4, 3, 2]
    seg = result.segments.set_index(["system", "item"])
    assert seg.loc[("A.1", "1"), "z"] == pytest.approx(0.0, abs=1e-12) and seg.loc[("A.1", "1"), "n"] == 2
    assert seg.loc[("B.2", "2"), "z"] == pytest.approx(-0.5) and seg.loc[("B.2", "2"), "raw"] == pytest.approx(60)
    assert result.pvalues.loc["A.1", "B.2"] == pytest.approx(P_A_OVER_B, rel=1e-12)
    assert P_A_OVER_B == pytest.approx(0.111771, abs=1e-6)
    assert result.table["wins"].tolist() == [0, 0, 0] and result.table["cluster"].tolist() == [1, 1, 1]
    assert result.skipped == {"BAD_REF rows: in each annotator's mean and sd, not in segment scores": 3,
                              "REF rows: in each annotator's mean and sd, not in segment scores": 3}


def test_worker_mean_and_sd_include_the_controls():
    ratings = small("ad-csen-raw.csv")
    table = worker_table(ratings, ratings.score, np.ones(len(ratings), dtype=bool))
    assert table["mean"].tolist() == [50, 70, 30] and np.allclose(table["sd"], [10, 20, 10])
    stats = read_worker_stats(SMALL / "ad-csen-trk-mean-sd.txt")
    result = run("wmt-da-toen", ratings, worker_stats=stats)["cs-en"]
    assert any("max |Δmean| = 0.0e+00, max |Δsd| = 0.0e+00" in n for n in result.notes)


def test_z_file_is_not_standardised_again_and_raw_needs_the_worker_stats():
    ratings = small("ad-csen-good-stnd.csv")
    assert ratings.scale == "z"
    without = run("wmt-da-toen", ratings)["cs-en"]
    assert "raw" not in without.table and np.allclose(without.table["z"], EXPECTED["z"])
    assert any(n.startswith("raw means unavailable") for n in without.notes)
    stats = read_worker_stats(SMALL / "ad-csen-trk-mean-sd.txt")
    with_stats = run("wmt-da-toen", ratings, worker_stats=stats)["cs-en"]
    assert np.allclose(with_stats.table[["raw", "z"]], EXPECTED, atol=1e-12)
    assert worker_stats_beside(SMALL / "ad-csen-good-stnd.csv") == SMALL / "ad-csen-trk-mean-sd.txt"


def test_default_model_keeps_a_z_file_as_given():
    """Before: the default z-mean standardised WMT's z-scores again and called their mean raw."""
    from humeval.ratings import rank_tracks
    result = rank_tracks(small("ad-csen-good-stnd.csv", controls=False))["cs-en"]
    # SYSTEM rows only: A.1 z {1, 1, 1}; B.2 {0, −1}; C.3 {−1, 0}
    assert "raw" not in result.table and result.table["z"].tolist() == [1.0, -0.5, -0.5]
    assert any("not standardised again" in n for n in result.notes)


def test_segment_file_comparison_names_the_rows_without_judgments():
    stats = read_worker_stats(SMALL / "ad-csen-trk-mean-sd.txt")
    official = read_segment_scores(SMALL / "ad-seg-scores-cs-en.csv")
    result = run("wmt-da-toen", small("ad-csen-good-stnd.csv"), worker_stats=stats, segment_scores=official)["cs-en"]
    # the file adds B.2/3 with RAW.SCR = Z.SCR = 0: B.2's official z = (0 − 0.5 + 0)/3, raw (50 + 60 + 0)/3
    assert result.table.loc["B.2", "official z"] == pytest.approx(-1 / 6)
    assert result.table.loc["B.2", "official raw"] == pytest.approx(110 / 3)
    assert result.table.loc["A.1", "official z"] == pytest.approx(2 / 3)
    assert any("1 rows with no judgment in this file (1 of them RAW.SCR = Z.SCR = 0; B.2 1)" in n for n in result.notes)
    assert any("7 of our 7 segment rows found in it" in n for n in result.notes)


def test_segment_file_of_another_pair_is_refused(tmp_path):
    """Before: another pair's file was joined on the systems both happen to share and its means
    printed as 'official z' beside ours."""
    other = tmp_path / "ad-seg-scores-de-en.csv"
    other.write_text("SYS SID RAW.SCR Z.SCR N \nA.1 1 50 0 2 \nA.1 2 90 1 1 \nD.4 1 20 -1 1 \n")
    with pytest.raises(InputError, match=r"lacks 2 of their 3 systems \(B.2, C.3\) and 5 of their 7 \(system, "
                                         r"segment\) keys") as error:
        run("wmt-da-toen", small("ad-csen-good-stnd.csv"), segment_scores=read_segment_scores(other))
    assert error.value.path == str(other) and "same language pair" in error.value.fix
    # one key of 7 missing is more than 1 %: refused too; all 7 present (the fixture's own file) passes
    one_short = tmp_path / "ad-seg-scores-cs-en.csv"
    one_short.write_text("".join(line for line in (SMALL / "ad-seg-scores-cs-en.csv").read_text().splitlines(True)
                                 if not line.startswith("C.3 2 ")))
    with pytest.raises(InputError, match=r"lacks 0 of their 3 systems and 1 of their 7"):
        run("wmt-da-toen", small("ad-csen-good-stnd.csv"), segment_scores=read_segment_scores(one_short))
    result = cli_run("rank", SMALL / "ad-csen-good-stnd.csv", "--protocol", "wmt-da-toen", "--segment-scores", other)
    assert result.exit_code == 2 and str(other) in result.output and "official z" not in result.output


def test_segment_file_as_input_counts_its_ratings_and_says_what_it_is(tmp_path):
    """Before: 'ratings' counted the file's rows, and the notes spoke of annotators, of
    *-good-stnd.csv and of raw means unavailable on a file that has RAW.SCR."""
    result = cli_run("rank", SMALL / "ad-seg-scores-cs-en.csv", "--protocol", "wmt-da-toen", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)["cs-en"]
    table = {row["system"]: row for row in data["table"]}
    # N: A.1 2 + 1 + 1, B.2 1 + 2 + 1 (its zero row), C.3 1 + 1; RAW.SCR means (B.2: (50 + 60 + 0)/3)
    assert {s: (r["segments"], r["ratings"]) for s, r in table.items()} == {"A.1": (3, 4), "B.2": (3, 4), "C.3": (2, 2)}
    assert table["B.2"]["raw"] == pytest.approx(110 / 3) and table["B.2"]["z"] == pytest.approx(-1 / 6)
    notes = " ".join(data["notes"])
    assert "ratings = the sum of its N" in notes and "1 segments have RAW.SCR = Z.SCR = 0" in notes
    for wrong in ("raw means unavailable", "good-stnd.csv): used as given", "each annotator is standardised",
                  "segment score = mean of the SYSTEM and REPEAT"):
        assert wrong not in notes
    printed = cli_run("rank", SMALL / "ad-seg-scores-cs-en.csv", "--protocol", "wmt-da-toen").output
    assert "cs-en: wmt-da-toen (10 ratings)" in printed
    refused = cli_run("rank", SMALL / "ad-seg-scores-cs-en.csv", "--protocol", "wmt-da-toen",
                      "--worker-stats", SMALL / "ad-csen-trk-mean-sd.txt")
    assert refused.exit_code == 2 and "segment scores without annotators" in refused.output
    # WMT17–19's layout has no RAW.SCR and no N: no raw column, and the table counts segments
    graham = tmp_path / "DA-seglevel.csv"
    graham.write_text("LP DATA SYSTEM SID HUMAN\ncs-en newstest2019 A.1 1 0.5\ncs-en newstest2019 A.1 2 1.5\n"
                      "cs-en newstest2019 B.2 1 -0.5\ncs-en newstest2019 B.2 2 0.0\n")
    result = cli_run("rank", graham, "--protocol", "wmt-da-toen", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)["cs-en"]
    assert [(r["system"], r["segments"], r["z"]) for r in data["table"]] == [("A.1", 2, 1.0), ("B.2", 2, -0.25)]
    assert "ratings" not in data["table"][0] and "raw" not in data["table"][0]
    assert any("no raw score or count of ratings per segment" in n for n in data["notes"])
    assert "cs-en: wmt-da-toen (4 segments)" in cli_run("rank", graham, "--protocol", "wmt-da-toen").output


def test_z_ratings_without_annotators_but_repeated_segments_are_averaged_not_taken_as_a_segment_file():
    df = pd.DataFrame({"system": ["A", "A", "A", "B", "B"], "item": ["1", "1", "2", "1", "2"],
                       "score": [1.0, 0.0, 1.0, 0.0, -1.0], "track": "cs-en"})
    result = run("wmt-da-toen", Ratings.from_pandas(df, scale="z"))["cs-en"]
    assert result.table.loc["A", "z"] == pytest.approx(0.75) and result.table.loc["A", "ratings"] == 3
    assert not any("segment scores (no annotators)" in n or "each annotator is standardised" in n
                   for n in result.notes)
    single = run("wmt-da-toen", Ratings.from_pandas(df.drop(index=1), scale="z"))["cs-en"]
    assert any("segment scores (no annotators)" in n for n in single.notes) and "ratings" not in single.table


def test_wins_rule_against_all_below_on_hand_matrices():
    # S1 beats S4; S2 beats S3, S4: WINS = 1, 2, 0, 0 → boundary after S2 (2 wins, 2 below) and S4
    s = np.zeros((4, 4), dtype=bool)
    s[0, 3] = s[1, 2] = s[1, 3] = True
    assert wins(s).tolist() == [1, 2, 0, 0]
    assert clusters(s, rule="wins").tolist() == [1, 1, 2, 2]
    assert clusters(s, rule="all-below").tolist() == [1, 1, 1, 1]  # S1 does not beat S3
    # a win over a system above counts: S3 beats S1 → WINS(S3) = 1 = systems below it
    s[2, 0] = True
    assert clusters(s, rule="wins").tolist() == [1, 1, 2, 3]


def test_register_a_plain_function_as_a_protocol():
    def organiser(ratings, source="ratings", shift=0.0):
        result = rank_segments(pd.DataFrame({"system": ["x", "x", "y", "y"], "item": ["1", "2", "1", "2"],
                                             "raw": [1.0, 2.0, 0.0, 0.0], "z": [1.0 + shift, 2.0, 0.0, 0.0],
                                             "n": [1, 1, 1, 1]}))
        return result
    try:
        register(Protocol("test-organiser", "a test procedure", ("one step",), "here", organiser, options=("shift",)))
        result = run("test-organiser", small("ad-csen-raw.csv"), shift=1.0)["cs-en"]
        assert result.protocol == "test-organiser" and result.table.loc["x", "z"] == pytest.approx(2.0)
        with pytest.raises(ValueError, match="takes no option worker_stats"):
            run("test-organiser", small("ad-csen-raw.csv"), worker_stats=None)
    finally:
        PROTOCOLS.pop("test-organiser", None)
    with pytest.raises(ValueError, match="unknown protocol 'nope'"):
        protocols.get("nope")


def test_a_protocol_with_versions_declares_them_with_its_variant_option():
    from humeval.ratings import esa_wmt24, wmt_da_appraise
    assert PROTOCOLS["wmt24-esa"].variants == esa_wmt24.VARIANTS
    assert PROTOCOLS["wmt-da-appraise"].variants == wmt_da_appraise.VARIANTS
    assert [p.name for p in PROTOCOLS.values() if p.variants] == [
        p.name for p in PROTOCOLS.values() if "variant" in p.options]
    for declared in ({"options": ("variant",)}, {"variants": ("a", "b")}):
        with pytest.raises(ValueError, match="a 'variant' option needs its variants named"):
            Protocol("half-declared", "a test procedure", ("one step",), "here", lambda r, **k: r, **declared)


def test_worker_stats_file_errors(tmp_path):
    bad = tmp_path / "ad-xxen-trk-mean-sd.txt"
    bad.write_text('[1] "M1"\n[1] 61.0\n')
    with pytest.raises(InputError, match="not three per worker"):
        read_worker_stats(bad)
    bad.write_text('[1] "M1"\n[1] 61.0\n[1] abc\n')
    with pytest.raises(InputError, match="sd is 'abc'"):
        read_worker_stats(bad)


def test_worker_stats_that_give_fractional_raw_scores_are_refused(tmp_path):
    """Before: a wrong mean gave raw means off by the difference, silently."""
    wrong = tmp_path / "ad-csen-trk-mean-sd-no-refs.txt"
    wrong.write_text('[1] "W1"\n[1] 50\n[1] 10\n[1] "W2"\n[1] 70.4\n[1] 20\n[1] "W3"\n[1] 30\n[1] 10\n')
    with pytest.raises(InputError, match=r"not a whole number \(the 0–100 slider\) for 5 of 15 ratings, of 1 workers "
                                         r"\(e.g. W2; median distance 0.4, tolerance 1e-06\)") as error:
        run("wmt-da-toen", small("ad-csen-good-stnd.csv"), worker_stats=read_worker_stats(wrong))
    assert error.value.path == str(wrong)
    # an sd off by 2 %: W3's z of ±1 give 30 ± 10.2, its z of 0 stays 30 (4 of its 5 rows off)
    wrong.write_text('[1] "W1"\n[1] 50\n[1] 10\n[1] "W2"\n[1] 70\n[1] 20\n[1] "W3"\n[1] 30\n[1] 10.2\n')
    with pytest.raises(InputError, match=r"for 4 of 15 ratings, of 1 workers \(e.g. W3"):
        run("wmt-da-toen", small("ad-csen-good-stnd.csv"), worker_stats=read_worker_stats(wrong))
    result = cli_run("rank", SMALL / "ad-csen-good-stnd.csv", "--protocol", "wmt-da-toen", "--worker-stats", wrong)
    assert result.exit_code == 2 and "not *-no-refs.txt" in result.output


def test_missing_worker_in_stats_is_an_input_error(tmp_path):
    stats = read_worker_stats(SMALL / "ad-csen-trk-mean-sd.txt").drop(index="W2")
    with pytest.raises(InputError, match="1 worker\\(s\\) not in the worker-stats file \\(e.g. W2\\)"):
        run("wmt-da-toen", small("ad-csen-good-stnd.csv"), worker_stats=stats)


# ------------------------------------------------------------------ the command line

def test_rank_protocol_names_itself_and_finds_the_worker_stats():
    result = cli_run("rank", SMALL / "ad-csen-good-stnd.csv", "--protocol", "wmt-da-toen", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)["cs-en"]
    assert data["protocol"] == "wmt-da-toen"
    assert [r["raw"] for r in data["table"]] == [60.0, 55.0, 25.0]
    assert data["notes"][0].startswith("procedure: wmt-da-toen, as --protocol asked")
    assert "found beside the input" in data["notes"][1]
    assert data["pvalues"][0]["B.2"] == pytest.approx(P_A_OVER_B, rel=1e-12)  # not rounded to 10 digits
    printed = cli_run("rank", SMALL / "ad-csen-good-stnd.csv", "--protocol", "wmt-da-toen")
    assert "cs-en: wmt-da-toen (9 ratings)" in printed.output


def test_rank_without_protocol_says_which_procedure_and_what_the_reader_set_aside():
    result = cli_run("rank", SMALL / "ad-csen-good-stnd.csv")
    assert result.exit_code == 0, result.output
    assert "procedure: humeval (z-mean, the default for this file); no --protocol given" in result.output
    assert "--protocol wmt-da-toen runs the organisers' own procedure" in " ".join(result.output.split())
    assert "skipped 2 quality-control rows of type REPEAT" in result.output
    data = json.loads(cli_run("rank", SMALL / "ad-csen-good-stnd.csv", "--json").output)["cs-en"]
    assert data["protocol"] == "humeval" and data["read_skipped"]["quality-control rows of type BAD_REF "
                                                                  "(controls=True keeps them)"] == 3


def test_rank_protocol_refuses_options_it_fixes():
    result = cli_run("rank", SMALL / "ad-csen-raw.csv", "--protocol", "wmt-da-toen", "--significance", "permutation")
    assert result.exit_code == 2 and "--significance: the wmt-da-toen protocol fixes its own steps" in result.output
    result = cli_run("rank", SMALL / "ad-csen-raw.csv", "--protocol", "wmt-da")
    assert result.exit_code == 2 and "unknown protocol 'wmt-da'; choose one of" in result.output
    result = cli_run("rank", SMALL / "ad-csen-raw.csv", "--worker-stats", SMALL / "ad-csen-trk-mean-sd.txt")
    assert result.exit_code == 2 and "applies to --protocol wmt-da-toen" in result.output
    result = cli_run("rank", FIXTURES / "arena_small.csv", "--protocol", "wmt-da-toen", "-m", "bt")
    assert result.exit_code == 2 and "this file holds comparisons" in result.output


def test_paired_bootstrap_with_holm_raises_resamples_it_cannot_pass_with():
    from humeval.ratings import rank_ratings
    rng = np.random.default_rng(1)
    rows = [(f"s{i}", name, f"j{i % 5}", float(np.clip(q + rng.normal(0, 5), 0, 100)))
            for i in range(60) for name, q in (("a", 80), ("b", 60), ("c", 40), ("d", 20))]
    ratings = Ratings.from_pandas(pd.DataFrame(rows, columns=["item", "system", "judge", "score"]), scale="0-100")
    # 6 pairs: with 100 resamples Holm's smallest p is 6/101 ≥ 0.05, so nothing could be significant
    result = rank_ratings(ratings, model="raw", test="paired-bootstrap", correction="holm", n_resamples=100)
    assert any("100 resamples raised to 1,200" in n for n in result.notes)
    assert result.table["cluster"].tolist() == [1, 2, 3, 4]


# ------------------------------------------------------------------ WMT22 official files (../shared)

def official(pair):
    folder = shared_file("wmt22-da-toen/README.md").parent
    code = PAIRS[pair]
    ratings = read(folder / f"ad-{code}-good-stnd.csv", controls=True).ratings
    stats = read_worker_stats(folder / f"ad-{code}-trk-mean-sd.txt")
    segments = read_segment_scores(folder / f"ad-seg-scores-{pair}.csv")
    systems = pd.read_csv(folder / f"ad-sys-scores-{pair}.csv", sep=" ", index_col=False).set_index("SYS")
    lines = [line for line in (folder / f"adwilcox-{code}.csv").read_text().splitlines() if line.strip()]
    names = lines[0].split()
    p = pd.DataFrame([[float(c) for c in line.split()[1:]] for line in lines[1:]], index=names, columns=names)
    cl = pd.read_csv(folder / "clusters.csv", sep=" ")
    cl = cl[cl["SRC"] == pair[:2]].set_index("SYSTEM")
    return ratings, stats, segments, systems, p, cl


def partition(systems, starts):
    return sorted(sorted(s for s, c in zip(systems, starts) if c == k) for k in set(starts))


def check_pvalues(ours, theirs):
    """Upper-triangle cells < 0.05 to relative 1e-9 (0 where WMT printed 0); the 0.12 placeholders
    (p ≥ 0.05) stay ≥ 0.05. Returns the largest relative error."""
    worst = 0.0
    names = list(theirs.index)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            want, got = theirs.loc[a, b], ours.loc[a, b]
            if want < 0.05:
                if want == 0:
                    assert got < 1e-300
                else:
                    worst = max(worst, abs(got - want) / want)
            else:
                assert got >= 0.05, (a, b, got)
    assert worst < 1e-9
    return worst


@pytest.mark.parametrize("pair", PAIRS)
def test_wmt22_segments_equal_the_official_rows_that_have_judgments(pair):
    ratings, stats, segments, *_ = official(pair)
    result = run("wmt-da-toen", ratings, worker_stats=stats, segment_scores=segments)[pair]
    merged = result.segments.merge(segments, on=["system", "item"], suffixes=("", "_off"))
    assert len(merged) == len(result.segments)
    assert np.abs(merged["z"] - merged["z_off"]).max() < 1e-12
    assert np.abs(merged["raw"] - merged["raw_off"]).max() < 1e-9
    assert (merged["n"] == merged["n_off"]).all()
    phantom = len(segments) - len(merged)
    assert phantom == {"cs-en": 0, "de-en": 65, "ja-en": 67}[pair]
    if phantom:
        assert any(f"official segment file has {phantom} rows with no judgment" in n for n in result.notes)


@pytest.mark.parametrize("pair", PAIRS)
def test_wmt22_system_scores_pvalues_and_clusters(pair):
    ratings, stats, segments, systems, p, cl = official(pair)
    ours = run("wmt-da-toen", ratings, worker_stats=stats)[pair]
    from_official = rank_segments(segments)  # WMT's segment rows, its zero rows included
    for result in (from_official,) + ((ours,) if pair == "cs-en" else ()):
        table = result.table
        assert np.abs(table["z"] - systems["Z.SCR"].reindex(table.index)).max() < 1e-9
        assert np.abs(table["raw"] - systems["RAW.SCR"].reindex(table.index)).max() < 1e-9
        assert list(table.index) == list(cl.index) == list(p.index)
        check_pvalues(result.pvalues, p)
        assert table["wins"].tolist() == cl["WINS"].tolist()
    for result in (ours, from_official):  # the partition is the official one with or without WMT's zero rows
        assert partition(result.table.index, result.table["cluster"]) == partition(cl.index, cl["CLUSTER_START"])
    if pair != "cs-en":  # our scores from the judgments alone: off by exactly WMT's zero rows
        phantom = segments.merge(ours.segments, on=["system", "item"], how="left", indicator=True)
        phantom = phantom[phantom["_merge"] == "left_only"]
        n = ours.table["segments"] + phantom.groupby("system").size().reindex(ours.table.index, fill_value=0)
        assert np.abs(ours.table["z"] * ours.table["segments"] / n
                      - systems["Z.SCR"].reindex(ours.table.index)).max() < 1e-9


@pytest.mark.parametrize("pair", PAIRS)
def test_wmt22_worker_mean_and_sd_over_all_rows_equal_trk_mean_sd(pair):
    ratings, stats, *_ = official(pair)
    df = ratings.to_pandas()
    judge = df["judge"].astype(str)
    raw = (df["score"] * judge.map(stats["sd"]).to_numpy() + judge.map(stats["mean"]).to_numpy()).to_numpy()
    assert np.abs(raw - np.round(raw)).max() < 1e-12  # the recovered raw scores are integers
    df["score"] = np.round(raw)
    raw_ratings = Ratings.from_pandas(df, scale="0-100")
    table = worker_table(raw_ratings, raw_ratings.score, np.ones(len(raw_ratings), dtype=bool))
    # R printed 7 significant digits: |Δ| ≤ half a unit of the 7th digit of values in 10–100 (5e-6)
    assert np.abs(table["mean"] - stats["mean"].reindex(table.index)).max() <= 5e-6 + 1e-12
    assert np.abs(table["sd"] - stats["sd"].reindex(table.index)).max() <= 5e-6 + 1e-12


def test_wmt22_segment_file_of_another_pair_is_refused():
    """The audit's command: cs-en judgments with de-en's segment file exited 0 and printed de-en's
    means as 'official z' (Online-W.2 −0.0228 beside its cs-en 0.133)."""
    folder = shared_file("wmt22-da-toen/README.md").parent
    result = cli_run("rank", folder / "ad-csen-good-stnd.csv", "--protocol", "wmt-da-toen",
                     "--segment-scores", folder / "ad-seg-scores-de-en.csv")
    assert result.exit_code == 2, result.output
    assert "ad-seg-scores-de-en.csv: its systems and segments do not match" in result.output
    assert "lacks 9 of their 12 systems" in result.output and "12,461 of their 16,008" in result.output
    assert "official z" not in result.output


@pytest.mark.parametrize("pair", PAIRS)
def test_wmt22_no_refs_worker_stats_are_refused(pair):
    """The audit's command: cs-en with ad-csen-trk-mean-sd-no-refs.txt exited 0 with raw scores off by
    −0.29 to −1.25 (Online-W.2 72.9 vs the official 74.0). Every rating's recovered raw score is then
    fractional (median distance 0.23–0.25); with the right file none is (max 2.2e-13)."""
    folder = shared_file("wmt22-da-toen/README.md").parent
    code = PAIRS[pair]
    result = cli_run("rank", folder / f"ad-{code}-good-stnd.csv", "--protocol", "wmt-da-toen",
                     "--worker-stats", folder / f"ad-{code}-trk-mean-sd-no-refs.txt")
    total = {"cs-en": 25070, "de-en": 26154, "ja-en": 35773}[pair]
    assert result.exit_code == 2, result.output
    assert f"for {total:,} of {total:,} ratings" in result.output and "not *-no-refs.txt" in result.output


@pytest.mark.parametrize("pair", PAIRS)
def test_wmt22_segment_file_as_input_gives_the_official_counts(pair):
    """The audit's command: the de-en segment file's 'ratings' said 1,799 for Lan-Bridge (its rows);
    WMT's N.ALL is 2,181, and the file's N sums to 21,006, not 17,204."""
    folder = shared_file("wmt22-da-toen/README.md").parent
    result = cli_run("rank", folder / f"ad-seg-scores-{pair}.csv", "--protocol", "wmt-da-toen", "--json")
    assert result.exit_code == 0, result.output
    table = pd.DataFrame(json.loads(result.output)[pair]["table"]).set_index("system")
    systems = pd.read_csv(folder / f"ad-sys-scores-{pair}.csv", sep=" ", index_col=False).set_index("SYS")
    assert (table["ratings"] == systems["N.ALL"].reindex(table.index)).all()
    assert (table["segments"] == systems["N"].reindex(table.index)).all()
    assert np.abs(table["raw"] - systems["RAW.SCR"].reindex(table.index)).max() < 1e-9
    assert np.abs(table["z"] - systems["Z.SCR"].reindex(table.index)).max() < 1e-9
    if pair == "de-en":
        assert table.loc["Lan-Bridge.1", "ratings"] == 2181 and table["ratings"].sum() == 21006


def test_the_segment_file_beside_the_input_is_compared_or_left_out_with_a_note(tmp_path):
    """The official segment file of the same pair is read from beside the input, as the worker
    statistics are (its 'official z' column); one that cannot be compared (here another pair's: one
    system only) is left out with a note instead of stopping a command the user gave no file to."""
    import shutil
    for name in ("ad-csen-good-stnd.csv", "ad-csen-trk-mean-sd.txt", "ad-seg-scores-cs-en.csv"):
        shutil.copy(SMALL / name, tmp_path / name)
    found = cli_run("rank", tmp_path / "ad-csen-good-stnd.csv", "--protocol", "wmt-da-toen", "--json")
    assert found.exit_code == 0, found.output
    data = json.loads(found.output)["cs-en"]
    assert any("found beside the input" in n and "ad-seg-scores-cs-en.csv" in n for n in data["notes"])
    assert {row["system"]: row["official z"] for row in data["table"]} == pytest.approx(
        {"A.1": 2 / 3, "B.2": -1 / 6, "C.3": -0.5})  # the fixture's Z.SCR per system, averaged by hand
    (tmp_path / "ad-seg-scores-cs-en.csv").write_text("SYS SID RAW.SCR Z.SCR N\nX.9 1 50 0 1\nX.9 2 60 1 1\n")
    other = cli_run("rank", tmp_path / "ad-csen-good-stnd.csv", "--protocol", "wmt-da-toen", "--json")
    assert other.exit_code == 0, other.output
    notes = json.loads(other.output)["cs-en"]["notes"]
    assert any(n.startswith(f"the segment file beside the input, {tmp_path / 'ad-seg-scores-cs-en.csv'}, is not "
                            "compared: its systems and segments do not match") for n in notes), notes
    named = cli_run("rank", tmp_path / "ad-csen-good-stnd.csv", "--protocol", "wmt-da-toen", "--segment-scores",
                    tmp_path / "ad-seg-scores-cs-en.csv")
    assert named.exit_code != 0 and "do not match" in " ".join(named.output.split())  # named: still refused
