"""Nonsense option values end in a clear click error: exit 2, the option named, never the
catch-all "bug in humeval" line — and before any work is done."""


import click
import pytest
from click.testing import CliRunner
from conftest import command_tree

from humeval.cli import cli
from humeval.cli.common import OutputPath

FIXTURES = "tests/fixtures"
PAIRS = f"{FIXTURES}/wmt10_small.csv"
RATINGS = f"{FIXTURES}/mqm_small.ende.tsv"
MT, PE = f"{FIXTURES}/mlqe_pe_small.mt", f"{FIXTURES}/mlqe_pe_small.pe"
MISSING_DIR = "no-such-directory/out"


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


# (arguments, the option the message must name)
CASES = [
    # rank
    (["rank", PAIRS, "--bootstrap", "-1"], "--bootstrap"),
    (["rank", PAIRS, "--bootstrap", "1"], "--bootstrap"),
    (["rank", PAIRS, "--bootstrap", "many"], "--bootstrap"),
    (["rank", PAIRS, "--bootstrap", "10", "--confidence", "0"], "--confidence"),
    (["rank", PAIRS, "--bootstrap", "10", "--confidence", "1"], "--confidence"),
    (["rank", PAIRS, "--bootstrap", "10", "--confidence", "95"], "--confidence"),
    (["rank", PAIRS, "--jobs", "-1"], "--jobs"),
    (["rank", PAIRS, "--random-state", "-1"], "--random-state"),
    (["rank", PAIRS, "--clusters"], "--clusters"),
    (["rank", PAIRS, "--resample", "ranking"], "--resample"),
    (["rank", PAIRS, "--confidence", "0.9"], "--confidence"),
    (["rank", PAIRS, "-m", "bojar", "--heatmap", "h.png"], "--heatmap"),
    (["rank", PAIRS, "-m", "bt,elo", "--plot", "p.png"], "--plot"),
    (["rank", PAIRS, "-m", "bt,elo", "--heatmap", "p.png"], "--heatmap"),
    (["rank", PAIRS, "--out", f"{MISSING_DIR}.csv"], "--out"),
    (["rank", PAIRS, "--out", "table.xlsx"], "--out"),
    (["rank", PAIRS, "--plot", "plot.txt"], "--plot"),
    (["rank", PAIRS, "--heatmap", f"{MISSING_DIR}.png"], "--heatmap"),
    (["rank", PAIRS, "--model", ","], "--model"),
    (["rank", PAIRS, "--columns", "winner=w,a=x,b=y,outcome=z"], "--columns"),
    (["rank", PAIRS, "--columns", "a="], "--columns"),
    (["rank", PAIRS, "--columns", "a=x,a=y"], "--columns"),
    (["rank", PAIRS, "--outcomes", "L=3"], "--outcomes"),
    (["rank", PAIRS, "--outcomes", "L=first"], "--outcomes"),
    (["rank", PAIRS, "--encoding", "klingon"], "--encoding"),
    (["rank", PAIRS, "--drop-judges", "no-such-list.txt"], "--drop-judges"),
    (["rank", PAIRS, "--salt", "s"], "--salt"),
    # compare-models
    (["compare-models", PAIRS, "--sizes", ""], "--sizes"),
    (["compare-models", PAIRS, "--sizes", "0,100"], "--sizes"),
    (["compare-models", PAIRS, "--sizes", "100,,200"], "--sizes"),
    (["compare-models", PAIRS, "--sizes", "100,x"], "--sizes"),
    (["compare-models", PAIRS, "--sizes", "100,100"], "--sizes"),
    (["compare-models", PAIRS, "--trials", "0"], "--trials"),
    (["compare-models", PAIRS, "-m", "bt", "--tune-on", "x", "--grid", "l2"], "--grid"),
    (["compare-models", PAIRS, "-m", "bt", "--tune-on", "x", "--grid", "l2=a,1"], "--grid"),
    (["compare-models", PAIRS, "-m", "bt", "--tune-on", "x", "--grid", "l2=1,inf"], "--grid"),
    (["compare-models", PAIRS, "-m", "bt", "--tune-on", "x", "--grid", "l2=1,1"], "--grid"),
    (["compare-models", PAIRS, "-m", "bt", "--tune-on", "x"], "--grid"),
    (["compare-models", PAIRS, "--min-test", "0"], "--min-test"),
    (["compare-models", PAIRS, "--plot", f"{MISSING_DIR}.png"], "--plot"),
    (["compare-models", PAIRS, "--out", "curves.txt"], "--out"),
    # report
    (["report", PAIRS, "-o", "r.html", "--bootstrap", "0"], "--bootstrap"),
    (["report", PAIRS, "-o", "r.html", "--bootstrap", "1"], "--bootstrap"),
    (["report", PAIRS, "-o", "r.html", "--trials", "0"], "--trials"),
    (["report", PAIRS, "-o", f"{MISSING_DIR}.html"], "--out"),
    (["report", PAIRS, "-o", "report.txt"], "--out"),
    (["report", PAIRS, "-o", "report.md", "--report-format", "html"], "--report-format"),
    (["report", PAIRS, "-o", "r.html", "--human", PAIRS], "--human"),
    (["report", PAIRS, "-o", "r.html", "--model", ""], "--model"),
    (["report", PAIRS, "-o", "r.html", "--salt", "s"], "--salt"),
    # simulate and demo
    (["simulate", "s.csv", "--systems", "1"], "--systems"),
    (["simulate", "s.csv", "--systems", "3"], "--systems"),
    (["simulate", "s.csv", "--items", "0"], "--items"),
    (["simulate", "s.csv", "--judges", "0"], "--judges"),
    (["simulate", "s.csv", "--judgments", "0"], "--judgments"),
    (["simulate", "s.csv", "--random-judges", "1.5"], "--random-judges"),
    (["simulate", "s.csv", "--random-judges", "-0.1"], "--random-judges"),
    (["simulate", "s.csv", "--random-state", "-1"], "--random-state"),
    (["simulate", "s.csv", "--random-judges", "nan"], "--random-judges"),
    (["rank", PAIRS, "--bootstrap", "10", "--confidence", "nan"], "--confidence"),
    (["complete", RATINGS, "--holdout", "nan"], "--holdout"),
    (["grm", "study", PAIRS, "--noise", "0.1,nan"], "--noise"),
    (["grm", "fit", PAIRS, "--theta-range", "nan,1"], "--theta-range"),
    (["active-study", "--spread", "inf"], "--spread"),
    (["active-study", "--ties", "nan"], "--ties"),
    (["simulate", f"{MISSING_DIR}.csv"], "OUTPUT"),
    (["simulate", "s.xlsx"], "OUTPUT"),
    (["simulate", "s.csv", "--truth", "t.txt"], "--truth"),
    (["demo", PAIRS, "--systems", "5"], "--systems"),
    (["demo", "--columns", "a=x"], "--columns"),
    (["demo", "--report", "r.txt"], "--report"),
    (["demo", "--no-report", "--report", "r.html"], "--report"),
    (["demo", "--jobs", "-2"], "--jobs"),
    # convert, info, judges, agreement
    (["convert", PAIRS, f"{MISSING_DIR}.csv"], "OUTPUT"),
    (["convert", PAIRS, "out.xlsx"], "OUTPUT"),
    (["convert", PAIRS, PAIRS], "OUTPUT"),
    (["convert", PAIRS, "out.csv", "--salt", "s"], "--salt"),
    (["info", PAIRS, "--format", "excel"], "--format"),
    (["judges", PAIRS, "--min-pairs", "0"], "--min-pairs"),
    (["judges", PAIRS, "--drop-list", f"{MISSING_DIR}.txt"], "--drop-list"),
    (["judges", PAIRS, "--salt", "s"], "--salt"),
    (["agreement", PAIRS, "--expected", "perfect"], "--expected"),
    (["agreement", RATINGS, "--drop-ties"], "--drop-ties"),
    (["judges", RATINGS, "--expected", "wmt"], "--expected"),
    # complete
    (["complete", RATINGS, "--holdout", "0"], "--holdout"),
    (["complete", RATINGS, "--holdout", "1"], "--holdout"),
    (["complete", RATINGS, "--trials", "0"], "--trials"),
    (["complete", RATINGS, "--decisions", "--common", "0"], "--common"),
    (["complete", RATINGS, "--common", "3"], "--common"),
    (["complete", RATINGS, "--plot", "d.png"], "--plot"),
    (["complete", RATINGS, "--out", f"{MISSING_DIR}.csv"], "--out"),
    # grm
    (["grm", "fit", PAIRS, "--segments", "0"], "--segments"),
    (["grm", "fit", PAIRS, "--theta-range", "1"], "--theta-range"),
    (["grm", "fit", PAIRS, "--theta-range", "1,-1"], "--theta-range"),
    (["grm", "fit", PAIRS, "--theta-range", "a,b"], "--theta-range"),
    (["grm", "fit", PAIRS, "--icc", f"{MISSING_DIR}.png"], "--icc"),
    (["grm", "fit", PAIRS, "--icc", "icc.png"], "--icc"),  # two tracks would overwrite one file
    (["grm", "fit", PAIRS, "--out", "grm.txt"], "--out"),
    (["grm", "study", PAIRS, "--budgets", "0"], "--budgets"),
    (["grm", "study", PAIRS, "--budgets", "many"], "--budgets"),
    (["grm", "study", PAIRS, "--trials", "0"], "--trials"),
    (["grm", "study", PAIRS, "--noise", "1"], "--noise"),
    (["grm", "study", PAIRS, "--noise", "-0.1"], "--noise"),
    (["grm", "study", PAIRS, "--noise", "a"], "--noise"),
    (["grm", "study", PAIRS, "--gold-resamples", "0"], "--gold-resamples"),
    (["grm", "study", PAIRS, "--baselines", ""], "--baselines"),
    # metric
    (["metric", "score", "--hyp", MT, "--ref", PE, "--tokenize", "words"], "--tokenize"),
    (["metric", "score", "--hyp", MT, "--ref", PE, "--preset", "best"], "--preset"),
    (["metric", "score", "--hyp", MT, "--ref", PE, "--matchers", "exact,magic"], "--matchers"),
    (["metric", "score", "--hyp", MT, "--ref", PE, "--language", "klingon"], "--language"),
    (["metric", "score", "--hyp", MT, "--ref", PE, "--metrics", ","], "--metrics"),
    (["metric", "score", "--hyp", MT, "--ref", PE, "--out", "s.txt"], "--out"),
    (["metric", "score", "--hyp", MT, "--ref", PE, "--metrics", "bleu", "--preset", "universal"], "--preset"),
    (["metric", "score", "--hyp", MT, "--ref", PE, "--metrics", "meteor", "--wordnet", "no-such-dir"], "--wordnet"),
    (["metric", "score", "--hyp", MT, "--ref", PE, "--metrics", "meteor", "--matchers", "exact,paraphrase"],
     "--paraphrase"),
    (["metric", "hter", MT, "--out", f"{MISSING_DIR}.csv"], "--out"),
    (["metric", "correlate", PAIRS, "--human", PAIRS, "--bootstrap", "1"], "--bootstrap"),
    (["metric", "correlate", PAIRS, "--human", PAIRS, "--bootstrap", "9", "--confidence", "2"], "--confidence"),
    (["metric", "correlate", PAIRS, "--human", PAIRS, "--confidence", "0.9"], "--confidence"),
    (["metric", "correlate", PAIRS, "--human", PAIRS, "--random-state", "-1"], "--random-state"),
    (["metric", "tune", "--data", f"x={MT},{PE},{PE}", "--alpha", "0:1:0"], "--alpha"),
    (["metric", "tune", "--data", f"x={MT},{PE},{PE}", "--alpha", "1:0:0.1"], "--alpha"),
    (["metric", "tune", "--data", f"x={MT},{PE},{PE}", "--alpha", "2"], "--alpha"),
    (["metric", "tune", "--data", f"x={MT},{PE},{PE}", "--beta", "-1,1"], "--beta"),
    (["metric", "tune", "--data", f"x={MT},{PE},{PE}", "--weights", "x"], "--weights"),
    (["metric", "tune", "--data", f"x={MT},{PE},{PE}", "--out", "t.txt"], "--out"),
    (["metric", "tune", "--data", f"x={MT},{PE},{FIXTURES}/mlqe_pe_small.hter", "--human-column", "z_mean",
      "--alpha", "0.5", "--beta", "1", "--gamma", "0.5", "--weights", "0", "--matchers", "exact"], "--human-column"),
    # hmeant
    (["hmeant", FIXTURES, "--out", "h.xlsx"], "--out"),
    (["hmeant", FIXTURES, "--salt", "s"], "--salt"),
    # plan and active-study
    (["plan", PAIRS, "--budget", "0"], "--budget"),
    (["plan", PAIRS, "--budget", "1000,lots"], "--budget"),
    (["plan", PAIRS, "--simulations", "0"], "--simulations"),
    (["plan", PAIRS, "--jobs", "-1"], "--jobs"),
    (["plan", PAIRS, "--model", "glicko"], "--model"),
    (["plan", PAIRS, "--model", "all"], "--model"),
    (["plan", PAIRS, "--plot", f"{MISSING_DIR}.png"], "--plot"),
    (["active-study", "--budget", "0"], "--budget"),
    (["active-study", "--batch", "0"], "--batch"),
    (["active-study", "--checkpoint", "0"], "--checkpoint"),
    (["active-study", "--trials", "0"], "--trials"),
    (["active-study", "--systems", "1"], "--systems"),
    (["active-study", "--spread", "0"], "--spread"),
    (["active-study", "--ties", "1"], "--ties"),
    (["active-study", "--budget", "100", "--batch", "500"], "--batch"),
    (["active-study", "--strategies", ","], "--strategies"),
    (["active-study", PAIRS, "--systems", "5"], "--systems"),
    (["active-study", "--design", "baseline", "--strategies", "uniform"], "--strategies"),
    (["active-study", PAIRS, "--design", "baseline"], "--design"),
]


@pytest.mark.parametrize("args, option", CASES,
                         ids=[" ".join("FILE" if FIXTURES in a else a for a in args) for args, _ in CASES])
def test_nonsense_is_refused_naming_the_option(args, option, tmp_path, monkeypatch):
    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    args = [str(root / a) if a.startswith(FIXTURES) and "=" not in a else a for a in args]
    args = [a.replace(f"={FIXTURES}", f"={root / FIXTURES}").replace(f",{FIXTURES}", f",{root / FIXTURES}")
            for a in args]
    monkeypatch.chdir(tmp_path)
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert option in result.output, result.output
    assert "bug in humeval" not in result.output and "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []  # refused before anything was written


def test_every_number_and_output_option_has_a_checking_type():
    """No bare int/float option (every count, share and seed has a range) and every output file
    option checks its directory and ending before the command runs."""
    outputs = {"--out", "--plot", "--heatmap", "--report", "--drop-list", "--truth", "--icc", "--information"}
    for name, command in command_tree(cli):
        for param in command.params:
            kind = type(param.type)
            assert kind not in (click.types.IntParamType, click.types.FloatParamType), (name, param.name)
            assert kind is not click.FloatRange, (name, param.name)  # lets nan through: use common.Real
            if set(param.opts) & outputs or param.name in ("output",):
                assert isinstance(param.type, OutputPath), (name, param.name)


@pytest.mark.parametrize("interruption", [KeyboardInterrupt, BrokenPipeError])
def test_interruptions_exit_130_quietly(interruption, monkeypatch):
    """Ctrl-C or a closed pipe (``humeval info … | head``) ends with exit code 130 and no message,
    neither a traceback nor the catch-all bug line."""
    def interrupted(*args, **kwargs):
        raise interruption()

    monkeypatch.setattr("humeval.cli.data.describe", interrupted)
    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    result = run("info", root / PAIRS)
    assert result.exit_code == 130 and result.output == ""


def test_a_real_bug_still_gets_the_bug_line(monkeypatch):
    def broken(*args, **kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr("humeval.cli.data.describe", broken)
    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    result = run("info", root / PAIRS)
    assert result.exit_code == 2 and "ZeroDivisionError: division by zero — this is a bug in humeval" in result.output


def test_compare_models_without_segments_is_an_input_error(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("model_a,model_b,winner\nA,B,model_a\nB,A,model_b\nA,C,tie\nC,B,model_a\n")
    result = run("compare-models", path, "-m", "bt", "--sizes", 2)
    assert result.exit_code == 2 and "no comparison names its source segment" in result.output
    assert "bug in humeval" not in result.output


def test_output_check_messages(tmp_path):
    from humeval.cli.common import check_output
    with pytest.raises(click.BadParameter, match="does not exist: create it first"):
        check_output(tmp_path / "missing" / "x.csv", (".csv",), "--out")
    with pytest.raises(click.BadParameter, match=r"cannot write \.xlsx: name it with one of \.csv"):
        check_output(tmp_path / "x.xlsx", (".csv",), "--out")
    with pytest.raises(click.BadParameter, match="is a directory"):
        check_output(tmp_path, None, "--out")
    assert check_output(tmp_path / "x.CSV", (".csv",)) == tmp_path / "x.CSV"


def test_number_types_parse_what_they_should():
    from humeval.cli.common import Grid, Interval, Numbers, Real, Resamples, count
    assert Numbers(count(1)).convert(" 100, 200 ", None, None) == [100, 200]
    assert Numbers(click.FloatRange(0, 1, max_open=True), empty=True).convert("", None, None) == []
    assert Interval().convert("-1.5,2", None, None) == (-1.5, 2.0)
    assert Grid(0, 1).convert("0:1:0.25", None, None).tolist() == [0, 0.25, 0.5, 0.75, 1]
    assert Real(0, 1).convert("0.25", None, None) == 0.25
    with pytest.raises(click.BadParameter, match="not a finite number"):
        Real(min=0).convert("inf", None, None)
    assert Resamples().convert("0", None, None) == 0 and Resamples().convert("2", None, None) == 2
    with pytest.raises(click.BadParameter, match="at least 2"):
        Resamples(off=False).convert("0", None, None)


def test_dropping_every_judge_is_an_input_error(tmp_path):
    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    (tmp_path / "all.txt").write_text("ann\njdoe\n")
    result = run("rank", root / PAIRS, "--drop-judges", tmp_path / "all.txt")
    assert result.exit_code == 2 and "every judgment is by a judge listed in" in result.output
