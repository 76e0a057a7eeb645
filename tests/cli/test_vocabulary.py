"""One CLI vocabulary (issue 29, item 6): the bootstrap unit is --resample for comparisons and
ratings alike, sandwich clustering is --cluster-by (beside --clusters, which draws WMT's cluster
rules), leaving references out is --exclude-reference as in agreement and judges; the old
spellings (--by, --cluster, --no-human; metric's --resamples, now --test-resamples as in rank) still work, say their new name, and appear in no help;
options that do not apply to the file's kind of judgments or to the model are refused by name;
``rank --help`` lists its options under headings."""

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.cli.ranking import PAIRWISE_ONLY, RANK_SECTIONS
from humeval.cli.ratings import RATINGS_ONLY

ROOT = Path(__file__).resolve().parents[2]
OLD = ("--by", "--cluster", "--no-human", "--resamples")


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture(scope="module")
def pairs(tmp_path_factory):
    path = tmp_path_factory.mktemp("vocabulary") / "pilot.csv"
    result = run("simulate", path, "--design", "pairs", "--systems", "4", "--judges", "6", "--judgments", "400",
                 "--quiet")
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture(scope="module")
def ratings(tmp_path_factory):
    """Three systems and a human reference rated on four segments by two judges."""
    rows = ["item,system,judge,score"]
    scores = {"A": (80, 75, 90, 85), "B": (60, 65, 55, 70), "C": (40, 50, 45, 35), "HUMAN-ref": (95, 99, 97, 98)}
    for system, values in scores.items():
        for i, value in enumerate(values):
            rows += [f"s{i},{system},j1,{value}", f"s{i},{system},j2,{value - 5}"]
    path = tmp_path_factory.mktemp("vocabulary") / "ratings.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def table(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_resample_names_the_unit_and_by_still_works(pairs):
    new = run("rank", pairs, "-m", "bt", "--bootstrap", 30, "--resample", "judge", "--json")
    old = run("rank", pairs, "-m", "bt", "--bootstrap", 30, "--by", "judge", "--json")
    assert table(new) == table(old)
    assert "note: --by is now spelled --resample" in old.stderr and "note:" not in new.stderr
    by_comparison = table(run("rank", pairs, "-m", "bt", "--bootstrap", 30, "--json"))
    assert by_comparison != table(new)  # the unit changed the intervals: the option is read, not ignored


def test_cluster_by_names_the_sandwich_clusters_and_cluster_still_works(pairs):
    new = run("rank", pairs, "-m", "bt", "--intervals", "sandwich", "--cluster-by", "judge", "--json")
    old = run("rank", pairs, "-m", "bt", "--intervals", "sandwich", "--cluster", "judge", "--json")
    plain = run("rank", pairs, "-m", "bt", "--intervals", "sandwich", "--json")
    assert table(new) == table(old) != table(plain)
    assert "note: --cluster is now spelled --cluster-by" in old.stderr


def test_exclude_reference_on_ratings_and_no_human_still_works(ratings):
    new = table(run("rank", ratings, "--exclude-reference", "--json"))
    old = table(run("rank", ratings, "--no-human", "--json"))
    kept = table(run("rank", ratings, "--json"))
    assert new == old
    systems = {row["system"] for row in next(iter(new.values()))["table"]}
    assert systems == {"A", "B", "C"}
    assert "HUMAN-ref" in {row["system"] for row in next(iter(kept.values()))["table"]}


def test_old_spellings_are_listed_nowhere():
    help_text = run("rank", "--help").output
    reference = (ROOT / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")
    for old in OLD:
        for text in (help_text, reference):
            assert f"{old} " not in text and f"{old}," not in text and f"{old}\n" not in text, old
    assert "--resample" in help_text and "--cluster-by" in help_text and "--exclude-reference" in help_text


@pytest.mark.parametrize("option, value", [("--significance", "permutation"), ("--correction", "holm"),
                                           ("--test-resamples", "50"), ("--scale", "0,100"),
                                           ("--exclude-reference", None), ("--heldout", None), ("--variant", "final")])
def test_ratings_options_are_refused_on_comparisons(pairs, option, value):
    result = run("rank", pairs, "-m", "bt", option, *([value] if value else []))
    assert result.exit_code == 2 and option in result.output and "on comparisons" in result.output, result.output
    assert option in RATINGS_ONLY.values()


@pytest.mark.parametrize("args, option", [
    (["--chains", "2"], "--chains"), (["--order", "random"], "--order"), (["--l2", "2"], "--l2"),
    (["--standardize"], "--standardize"), (["--both-bad", "drop"], "--both-bad"),
    (["--keep-shared-outputs"], "--keep-shared-outputs"), (["--reweight", "pairs"], "--reweight"),
    (["--provisional", "3"], "--provisional"),
])
def test_pairwise_options_are_refused_on_ratings(ratings, args, option):
    result = run("rank", ratings, *args)
    assert result.exit_code == 2 and option in result.output and "on ratings" in result.output, result.output
    assert option in PAIRWISE_ONLY.values()


def test_jobs_on_ratings_is_said_to_do_nothing(ratings):
    """--jobs is harmless (no number changes) but the ratings bootstrap runs in one process: a warning."""
    plain = run("rank", ratings, "--bootstrap", 20)
    jobs = run("rank", ratings, "--bootstrap", 20, "--jobs", 2)
    assert jobs.exit_code == 0 and "--jobs does nothing on ratings" in jobs.output, jobs.output
    assert "--jobs does nothing" not in plain.output


def test_units_are_checked_against_the_kind_of_judgments(pairs, ratings):
    both = run("rank", pairs, "-m", "bt", "--bootstrap", 10, "--resample", "both")
    assert both.exit_code == 2 and "'both' (segments and judges at once) is for ratings" in both.output
    wrong = run("rank", ratings, "--bootstrap", 10, "--resample", "comparison")
    assert wrong.exit_code == 2 and "ratings resample segment, judge or both" in wrong.output
    category = run("rank", ratings, "--category", "x")  # the arena columns: the reader names them
    assert category.exit_code == 2 and "option category does not apply to format ratings" in category.output
    sandwich = run("rank", ratings, "--intervals", "sandwich")
    assert sandwich.exit_code == 2 and "ratings get bootstrap intervals" in sandwich.output
    by_judge = table(run("rank", ratings, "--bootstrap", 30, "--resample", "judge", "--json"))
    by_segment = table(run("rank", ratings, "--bootstrap", 30, "--json"))
    assert by_judge != by_segment  # the ratings bootstrap reads the shared option


def test_l2_is_refused_for_a_model_without_a_prior(pairs):
    result = run("rank", pairs, "-m", "trueskill", "--l2", "2")
    assert result.exit_code == 2 and "trueskill has no Gaussian prior" in result.output and "bt" in result.output
    assert run("rank", pairs, "-m", "bt,trueskill", "--l2", "2").exit_code == 0  # bt has one


def test_rank_help_is_grouped_by_what_the_options_are_for():
    command = cli.get_command(None, "rank")
    names = {p.name for p in command.params if isinstance(p, click.Option) and not p.hidden}
    placed = [n for group in RANK_SECTIONS.values() for n in group]
    assert sorted(placed) == sorted(set(placed)), "an option in two sections"
    assert set(placed) == names  # every option under a heading, no heading naming a missing one
    help_text = run("rank", "--help").output
    headings = [help_text.index(f"\n{title}:\n") for title in RANK_SECTIONS]
    assert headings == sorted(headings) and "Other options:" not in help_text
    model, resampling, output = (help_text.index(h) for h in ("Model and procedure:", "Intervals and resampling:",
                                                               "Output:"))
    assert model < help_text.index("  --chains") < resampling < help_text.index("  --resample") < output \
        < help_text.index("  --heatmap")


def test_signatures_name_the_new_spellings_and_read_the_old(pairs):
    from humeval import signature
    result = run("rank", pairs, "-m", "bt", "--intervals", "sandwich", "--cluster-by", "judge")
    made = result.output.strip().splitlines()[-1].removeprefix("signature: ")
    assert "cluster-by:judge" in made and "|boot:0@comparison|" in made
    command = cli.get_command(None, "rank")
    old = made.replace("cluster-by:judge", "cluster:judge")  # a signature made before the rename
    for text in (made, old):
        params = signature.options(command, text, pairs)
        assert params["cluster"] == "judge" and params["resample"] is None  # None: the default unit
    judged = run("rank", pairs, "-m", "bt", "--bootstrap", 20, "--resample", "judge").output
    line = judged.strip().splitlines()[-1]
    assert "|boot:20@judge|" in line and signature.options(command, line.split(" ", 1)[1], pairs)["resample"] == "judge"


def test_test_resamples_is_one_name_in_rank_and_metric(tmp_path, monkeypatch):
    """The resamples of a significance test are --test-resamples in rank (ratings), metric correlate
    and metric compare; metric's old --resamples still works and says so."""
    monkeypatch.syspath_prepend(str(ROOT / "tests" / "metaeval"))
    from test_metaeval_cli import make_mtme  # the mt-metrics-eval layout fixture
    make_mtme(tmp_path)
    path = tmp_path / "wmt-like/metric-scores/de-en/Good-metric-refA.seg.score"
    args = ["metric", "compare", "--scores", path, "--baseline", "sysA", "--test", "ar", "--json"]
    new, old = run(*args, "--test-resamples", 300), run(*args, "--resamples", 300)
    assert table(new) == table(old) != table(run(*args, "--test-resamples", 50))
    assert "note: --resamples is now spelled --test-resamples" in old.stderr
    for command in (["metric", "compare"], ["metric", "correlate"], ["rank"]):
        help_text = run(*command, "--help").output
        assert "--test-resamples" in help_text and "--resamples " not in help_text


def test_model_is_dash_m_in_every_command_that_takes_one():
    for command in (["rank"], ["compare-models"], ["report"], ["plan"], ["ppi"]):
        help_text = run(*command, "--help").output
        assert "-m, --model" in help_text, command


@pytest.mark.parametrize("command", [["rank"], ["compare-models", "--sizes", "50", "--trials", "1"], ["plan"]])
def test_l2_without_a_prior_is_refused_wherever_it_is_an_option(pairs, command):
    result = run(command[0], pairs, *command[1:], "-m", "trueskill", "--l2", "2")
    assert result.exit_code == 2 and "trueskill has no Gaussian prior: it applies to bt" in result.output, \
        result.output


def test_report_refuses_l2_for_models_without_a_prior(pairs, tmp_path):
    result = run("report", pairs, "-o", tmp_path / "r.html", "-m", "trueskill,irt-gaussian", "--l2", "2")
    assert result.exit_code == 2 and "trueskill, irt-gaussian have no Gaussian prior" in result.output, result.output


def test_the_python_verbs_take_the_new_and_the_old_names(pairs):
    import humeval
    new = humeval.rank(pairs, model="bt", bootstrap=20, resample="judge")
    old = humeval.rank(pairs, model="bt", bootstrap=20, by="judge")
    assert new.table.equals(old.table) and new.options["resample"] == "judge"
