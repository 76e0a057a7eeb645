"""No command writes over its input or over an existing file (``common.check_outputs``).

The commands and their output options are enumerated from the click tree, so a new command or
output option is covered without editing this file: each output is pointed at the command's
input (by name, through a symbolic link, by its absolute path) and at an existing file, and the
input or file must come out byte-identical with a clean refusal (exit 2, never the "bug" line)."""

import os
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from conftest import command_tree

from humeval.cli import cli
from humeval.cli.common import OutputPath

ROOT = Path(__file__).resolve().parents[2]
PAIRS = ROOT / "tests/fixtures/wmt10_small.csv"
CONTENT = PAIRS.read_bytes()


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def writers():
    """(command name, command, output parameter) of every output option of every command."""
    return [(name, command, param) for name, command in command_tree(cli)
            for param in command.params if isinstance(param.type, OutputPath)]


WRITERS = writers()
IDS = [f"{name} {param.opts[0] if isinstance(param, click.Option) else param.name.upper()}"
       for name, _, param in WRITERS]


def suffix_of(param) -> str:
    return (param.type.suffixes or (".csv",))[0]


def invocation(name, command, target, output, given_input):
    """Arguments running ``command`` with the output parameter ``target`` set to ``output``:
    every input path parameter that is an argument or required gets ``given_input``, a required
    text option (metric compare --baseline, metric tune --data) names it too, another required
    output argument gets a fresh file."""
    args, options = [], []
    for param in command.params:
        if param is target:
            value = str(output)
        elif isinstance(param.type, OutputPath):
            if not (isinstance(param, click.Argument) and param.required):
                continue
            value = str(output.parent / f"other{suffix_of(param)}")
        elif isinstance(param.type, click.Path) and (isinstance(param, click.Argument) or param.required):
            value = str(given_input)
        elif param.required and isinstance(param, click.Option):
            value = str(given_input)
        else:
            continue
        if isinstance(param, click.Argument):
            args.append(value)
        else:
            options += [param.opts[0], value]
    return [*name.split(), *args, *options]


def reads_input(command) -> bool:
    return any(isinstance(p.type, click.Path) and not isinstance(p.type, OutputPath)
               or (p.required and isinstance(p, click.Option)) for p in command.params)


def test_every_command_that_writes_is_enumerated():
    """The walk finds the writers the issue names (a guard against the walk finding nothing)."""
    found = {(name, param.name) for name, _, param in WRITERS}
    for expected in [("rank", "out_file"), ("rank", "plot"), ("rank", "heatmap"), ("convert", "output"),
                     ("simulate", "output"), ("simulate", "truth"), ("judges", "drop_list"),
                     ("compare-models", "out_file"), ("plan", "out_file"), ("metric hter", "out_file"),
                     ("hmeant", "out_file"), ("report", "output"), ("demo", "report_file"), ("serve", "demo_dir")]:
        assert expected in found
    assert all(any(p.name == "force" for p in command.params) for _, command, _ in WRITERS)


@pytest.mark.parametrize("name, command, param", WRITERS, ids=IDS)
@pytest.mark.parametrize("spelling", ["same name", "symbolic link", "absolute path", "hard link"])
def test_an_output_that_is_the_input_is_refused(name, command, param, spelling, tmp_path, monkeypatch):
    if not reads_input(command):
        pytest.skip(f"{name} reads no file (its existing outputs are refused: the test below)")
    monkeypatch.chdir(tmp_path)
    if param.type.folder:  # serve --demo DIR: the input is a file the folder's demo would replace
        folder = tmp_path / "demo"
        folder.mkdir()
        source = param.type.beside(folder, {})[0]
        source.write_bytes(CONTENT)
        given, output = source, folder
    else:
        source = tmp_path / f"in{suffix_of(param)}"
        source.write_bytes(CONTENT)
        given = Path(source.name)
        output = {"same name": Path(source.name), "absolute path": source}.get(spelling)
        if spelling == "symbolic link":
            output = Path(f"link{source.suffix}")
            output.symlink_to(source.name)
        elif spelling == "hard link":
            output = Path(f"hard{source.suffix}")
            os.link(source, output)
    for force in ([], ["--force"]):  # an input is never overwritten, --force or not
        result = run(*invocation(name, command, param, output, given), *force)
        assert result.exit_code in (1, 2), result.output
        assert "bug in humeval" not in result.output and "Traceback" not in result.output
        assert "the input" in result.output and "never writes over an input" in result.output, result.output
        assert source.read_bytes() == CONTENT


@pytest.mark.parametrize("name, command, param", [w for w in WRITERS if not w[2].type.folder],
                         ids=[i for i, w in zip(IDS, WRITERS) if not w[2].type.folder])
def test_an_existing_output_needs_force(name, command, param, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "input.csv"
    source.write_bytes(CONTENT)
    existing = tmp_path / f"existing{suffix_of(param)}"
    existing.write_bytes(b"keep me")
    result = run(*invocation(name, command, param, Path(existing.name), Path(source.name)))
    assert result.exit_code == 2, result.output
    assert "bug in humeval" not in result.output
    assert f"{existing.name} exists: pass --force to overwrite it" in result.output, result.output
    assert existing.read_bytes() == b"keep me"


def test_force_overwrites_an_existing_output_that_is_not_an_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("table.csv").write_text("old\n")
    assert run("rank", PAIRS, "-m", "bt", "--out", "table.csv", "-q").exit_code == 2
    result = run("rank", PAIRS, "-m", "bt", "--out", "table.csv", "-q", "--force")
    assert result.exit_code == 0, result.output
    assert Path("table.csv").read_text().startswith("system,")


def test_convert_never_writes_its_ratings_side_file_over_the_input(tmp_path, monkeypatch):
    """A WMT08 file holds rankings and ratings: convert writes the ratings beside OUTPUT as
    NAME.ratings.EXT, which here is the input itself."""
    monkeypatch.chdir(tmp_path)
    content = (ROOT / "tests/fixtures/wmt08_small.csv").read_bytes()
    Path("w.ratings.csv").write_bytes(content)
    result = run("convert", "w.ratings.csv", "w.csv")
    assert result.exit_code == 2 and "OUTPUT (beside w.csv): w.ratings.csv is the input (FILE)" in result.output
    assert Path("w.ratings.csv").read_bytes() == content and not Path("w.csv").exists()


def test_demo_never_replaces_an_existing_judgments_file_beside_its_report(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("r.judgments.csv").write_text("mine\n")
    result = run("demo", "--report", "r.html", "--judgments", "50", "--items", "20", "-q")
    assert result.exit_code == 2 and "r.judgments.csv exists: pass --force" in result.output
    assert Path("r.judgments.csv").read_text() == "mine\n" and not Path("r.html").exists()
    # with --no-report nothing is written, so an existing default report is no obstacle
    Path("humeval-report.html").write_text("old report")
    assert run("demo", "--no-report", "--judgments", "50", "--items", "20", "-q").exit_code == 0
    assert Path("humeval-report.html").read_text() == "old report"


def test_per_track_figures_never_replace_an_input(tmp_path, monkeypatch):
    """With several tracks, --plot p.png writes p.TRACK.png: an input of that shape is refused."""
    monkeypatch.chdir(tmp_path)
    Path("p.Czech-English.png").write_bytes(CONTENT)
    result = run("rank", "p.Czech-English.png", "--format", "pairwise", "--plot", "p.png")
    assert result.exit_code == 2 and "one file per track" in result.output
    assert Path("p.Czech-English.png").read_bytes() == CONTENT


def test_two_outputs_naming_one_file_are_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("rank", PAIRS, "--plot", "x.png", "--heatmap", "./x.png")
    assert result.exit_code == 2 and "--heatmap: ./x.png is also written by --plot" in result.output
    result = run("simulate", "s.csv", "--truth", "s.csv")
    assert result.exit_code == 2 and "also written by OUTPUT" in result.output
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_output_is_refused_before_any_work(tmp_path, monkeypatch):
    """--out /proc/x.csv used to fail after the fit with the "bug" line; now nothing is read."""
    def not_reached(*args, **kwargs):
        raise AssertionError("read before the output was checked")

    monkeypatch.setattr("humeval.cli.common.read", not_reached)
    result = run("rank", PAIRS, "--out", "/proc/x.csv")
    assert result.exit_code == 2 and "--out: cannot create /proc/x.csv" in result.output
    assert "bug in humeval" not in result.output


@pytest.mark.parametrize("make, problem", [
    (lambda p: os.mkfifo(p), "is a FIFO (named pipe), not a file"),
    (lambda p: p.mkdir(), "is a directory"),
    (lambda p: p.symlink_to(p.parent / "nowhere.csv"), "symbolic link to a missing file"),
])
def test_an_output_that_is_not_a_regular_file_is_refused(make, problem, tmp_path):
    target = tmp_path / "t.csv"
    make(target)
    result = run("rank", PAIRS, "--out", target, "--force")
    assert result.exit_code == 2 and problem in result.output, result.output
    assert "bug in humeval" not in result.output


def test_a_file_of_an_input_folder_or_glob_is_an_input(tmp_path, monkeypatch):
    """A directory or glob read as one dataset: its files are inputs too."""
    monkeypatch.chdir(tmp_path)
    Path("parts").mkdir()
    for name in ("a.csv", "b.csv"):
        Path("parts", name).write_bytes(CONTENT)
    for given, which in (("parts", "a file of the input folder parts (FILE)"), ("parts/*.csv", "the input (FILE)")):
        result = run("rank", given, "--out", "parts/b.csv", "--force")
        assert result.exit_code == 2 and f"parts/b.csv is {which}" in result.output, result.output
        assert Path("parts", "b.csv").read_bytes() == CONTENT


def test_a_file_named_in_a_text_option_is_an_input(tmp_path, monkeypatch):
    """metric tune --data NAME=HYP,REF,HUMAN names its files inside one text value."""
    monkeypatch.chdir(tmp_path)
    fixtures = ROOT / "tests/fixtures"
    Path("human.tsv").write_bytes((fixtures / "mlqe_pe_small.hter").read_bytes())
    result = run("metric", "tune", "--data", f"x={fixtures / 'mlqe_pe_small.mt'},{fixtures / 'mlqe_pe_small.pe'},"
                 "human.tsv", "--out", "human.tsv", "--force")
    assert result.exit_code == 2 and "human.tsv is the input (--data)" in result.output, result.output
    assert Path("human.tsv").read_bytes() == (fixtures / "mlqe_pe_small.hter").read_bytes()


def test_a_report_humeval_wrote_is_replaced_by_a_rerun_and_nothing_else_is(tmp_path, monkeypatch):
    # `humeval demo` run twice in one folder (the README's first command): its own report and the
    # judgments beside it are replaced; a file humeval did not write is still refused without --force
    from click.testing import CliRunner

    from humeval.cli import cli
    monkeypatch.chdir(tmp_path)
    first = CliRunner().invoke(cli, ["demo", "--quiet"])
    assert first.exit_code == 0, first.output
    written = (tmp_path / "humeval-report.judgments.csv").read_bytes()
    again = CliRunner().invoke(cli, ["demo", "--quiet"])
    assert again.exit_code == 0, again.output
    assert (tmp_path / "humeval-report.judgments.csv").read_bytes() == written  # same seed, same file
    (tmp_path / "mine.html").write_text("<html>my notes</html>")
    refused = CliRunner().invoke(cli, ["demo", "--quiet", "--report", "mine.html"])
    assert refused.exit_code == 2 and "exists" in refused.output
    assert (tmp_path / "mine.html").read_text() == "<html>my notes</html>"
