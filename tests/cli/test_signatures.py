"""Every command signs its results (``humeval.cli.signing.sign``): the commands are enumerated
from the click tree, so a new command must be given a small invocation here (or be named as
unsigned) or this test fails. Each is run on a small fixture with --json (every command has it),
as printed (the signature follows its tables) and with --out where it writes a result table; the
signature must be there, the same everywhere, and parse back into the command, the inputs'
content hashes and the libraries' versions."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import command_tree

from humeval import signature
from humeval.cli import cli
from humeval.cli.common import TABLE_OUT
from humeval.cli.signing import UNSIGNED

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests/fixtures"
PAIRS = FIXTURES / "wmt10_small.csv"
MT, PE = FIXTURES / "mlqe_pe_small.mt", FIXTURES / "mlqe_pe_small.pe"
RATINGS = FIXTURES / "mqm_small.ende.tsv"


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _helper(relative: str, name: str):
    """A fixture-making function of another test module (``metaeval/test_metaeval_cli.py``)."""
    spec = importlib.util.spec_from_file_location(relative.replace("/", "_")[:-3], ROOT / "tests" / relative)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The inputs the invocations name: small simulated, MTME-like, battles and HMEANT files."""
    d = tmp_path_factory.mktemp("signatures")
    assert run("simulate", d / "sim.csv", "--systems", 5, "--judgments", 400, "--quiet").exit_code == 0
    _helper("metaeval/test_metaeval_cli.py", "make_mtme")(d)
    _helper("cli/test_ppi_cli.py", "_battles_file")(d / "battles.csv")
    from humeval.metrics.hmeant import write_json
    from humeval.metrics.hmeant.weights import Weights
    from humeval.simulate.hmeant import simulate_hmeant
    annotations, _ = simulate_hmeant(Weights(1.0, {"AGENT": 2.0, "PATIENT": 1.0}, 0.5), n_items=10, noise=0.01)
    write_json(annotations, d / "hmeant.json")
    return d


def invocations(d: Path) -> dict[str, list]:
    """(command name) -> arguments of a quick run on small data, without --json."""
    sim, scores = d / "sim.csv", d / "wmt-like/metric-scores/de-en/Good-metric-refA.seg.score"
    return {
        "info": [PAIRS],
        "convert": [PAIRS, d / "converted.csv"],
        "simulate": [d / "simulated.csv", "--systems", 5, "--judgments", 100],
        "demo": [PAIRS, "--no-report"],
        "rank": [PAIRS, "-m", "bojar"],
        "compare-models": [sim, "-m", "uniform,independent-pairs", "--sizes", "100,200", "--trials", 2],
        "agreement": [PAIRS],
        "judges": [PAIRS],
        "grm fit": [sim, "--baseline", "sys02"],
        "grm study": [sim, "--baselines", "sys02", "--budgets", "200", "--trials", 1],
        "complete": [RATINGS, "--trials", 1],
        "metric score": ["--hyp", MT, "--ref", PE, "--metrics", "chrf"],
        "metric hter": [MT],
        "metric correlate": ["--mtme", d / "wmt-like", "--lp", "de-en"],
        "metric compare": ["--scores", scores, "--baseline", "sysA", "--resamples", 50],
        "metric tune": ["--matchers", "exact", "--tokenize", "none", "--alpha", "0.85", "--beta", "1", "--gamma", "0.5",
                        "--delta", "0.5", "--data", f"A={MT},{PE},{FIXTURES / 'mlqe_pe_small.hter'}"],
        "hmeant": [d / "hmeant.json"],
        "report": [PAIRS, "--out", d / "report.json", "--bootstrap", 10, "--trials", 1],
        "ppi": [d / "battles.csv"],
        "plan": [sim, "--budget", 200, "--simulations", 2, "--no-clusters"],
        "active-study": ["--systems", 4, "--budget", 200, "--batch", 100, "--trials", 1],
    }


COMMANDS = dict(command_tree(cli))


def signatures_in(value) -> list[str]:
    """Every value of a ``signature``/``humeval_signature`` field of a JSON document that is a
    humeval signature (metric's rows also carry sacrebleu's ``signature``)."""
    found = []
    if isinstance(value, dict):
        for key, v in value.items():
            if key in ("signature", "humeval_signature") and isinstance(v, str) and v.startswith("humeval:"):
                found.append(v)
            else:
                found += signatures_in(v)
    elif isinstance(value, list):
        for v in value:
            found += signatures_in(v)
    return found


def check(sig: str, name: str, inputs: list[Path]):
    fields = signature.parse(sig)
    assert fields["cmd"] == name.replace(" ", ".")
    assert fields["humeval"] == signature.version()
    assert {"numpy", "scipy", "pandas"} <= set(fields)
    for path in inputs:  # every input file's content hash is in it (the data or a named option)
        assert signature.data_hash(path) in sig, (name, path)


def test_every_command_is_signed_or_named_unsigned(files):
    assert set(COMMANDS) == set(invocations(files)) | UNSIGNED


@pytest.mark.parametrize("name", sorted(set(COMMANDS) - UNSIGNED))
def test_json_output_and_tables_carry_the_signature(name, files, monkeypatch):
    monkeypatch.chdir(files)
    args = invocations(files)[name]
    inputs = [Path(a) for a in args if isinstance(a, Path) and a.exists()]
    for output in ("converted.csv", "simulated.csv", "report.json"):
        (files / output).unlink(missing_ok=True)
    result = run(*name.split(), *args, "--json")
    assert result.exit_code == 0, result.output
    found = signatures_in(json.loads(result.stdout))
    assert found and len(set(found)) == 1, (name, result.stdout[-500:])
    check(found[0], name, inputs)
    if name == "report":  # the report's own JSON carries it too
        assert json.loads((files / "report.json").read_text())["signature"] == found[0]
        (files / "report.json").unlink()
    for output in ("converted.csv", "simulated.csv"):
        (files / output).unlink(missing_ok=True)
    shown = run(*name.split(), *args)
    assert shown.exit_code == 0, shown.output
    if "signature: humeval:" in shown.stdout or name not in ("convert", "simulate", "report"):
        # every command but the writers of data and reports prints a table: its last line is the signature
        last = shown.stdout.strip().splitlines()[-1]
        assert last.startswith("signature: humeval:"), (name, shown.stdout[-500:])
        assert last.split(" ", 1)[1] == found[0]  # the same run, so the same signature
    quiet = run(*name.split(), *args, "--quiet") if any(p.name == "quiet" for p in COMMANDS[name].params) else None
    if quiet is not None and name not in ("convert", "simulate", "report"):
        assert "signature:" not in quiet.stdout


@pytest.mark.parametrize("name", sorted(n for n, c in COMMANDS.items() if any(p.type is TABLE_OUT for p in c.params)))
def test_out_tables_carry_the_signature(name, files, monkeypatch):
    monkeypatch.chdir(files)
    args = invocations(files)[name]
    (table_option,) = [p for p in COMMANDS[name].params if p.type is TABLE_OUT and p.name == "out_file"]
    for suffix in (".csv", ".parquet"):
        out = files / f"{name.replace(' ', '-')}-out{suffix}"
        result = run(*name.split(), *args, table_option.opts[0], out, "--force", "--json")
        assert result.exit_code == 0, result.output
        (sig,) = set(signatures_in(json.loads(result.stdout)))
        table = pd.read_csv(out) if suffix == ".csv" else pd.read_parquet(out)
        column = "humeval_signature" if "humeval_signature" in table else "signature"
        assert (table[column] == sig).all(), (name, table.columns)


def _sig(*args) -> str:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    (sig,) = set(signatures_in(json.loads(result.stdout)))
    return sig


def test_number_changing_options_change_the_signature_and_cosmetic_ones_do_not(tmp_path):
    base = _sig("judges", PAIRS)
    assert _sig("judges", PAIRS, "--quiet") == base  # how it is shown
    assert _sig("judges", PAIRS, "--track", "French-English") != base  # which data
    assert signature.parse(_sig("judges", PAIRS, "--track", "French-English"))["track"] == "French-English"
    plan = _sig("plan", PAIRS, "--budget", 200, "--simulations", 2, "--no-clusters")
    assert _sig("plan", PAIRS, "--budget", 200, "--simulations", 2, "--no-clusters", "--jobs", 2,
                "--plot", tmp_path / "p.png", "--out", tmp_path / "p.csv") == plan  # speed and outputs
    other_seed = _sig("plan", PAIRS, "--budget", 200, "--simulations", 2, "--no-clusters", "--random-state", 1)
    assert other_seed != plan and signature.parse(other_seed)["random-state"] == "1"
    assert _sig("--threads", 1, "plan", PAIRS, "--budget", 200, "--simulations", 2, "--no-clusters") == plan
    # an input-file option is signed by its content, not its path
    listed, copy = tmp_path / "drop.txt", tmp_path / "copy.txt"
    listed.write_text("no-such-judge\n")
    copy.write_text("no-such-judge\n")
    plan_args = ["plan", PAIRS, "--budget", 200, "--simulations", 2, "--no-clusters"]
    dropped = _sig(*plan_args, "--drop-judges", listed)
    assert dropped != plan and _sig(*plan_args, "--drop-judges", copy) == dropped
    assert signature.parse(dropped)["drop-judges"] == signature.data_hash(listed)
    # another file, another data hash
    other = tmp_path / "other.csv"
    other.write_bytes(PAIRS.read_bytes() + b"\n")
    assert signature.parse(_sig("judges", other))["data"] == signature.data_hash(other) != signature.parse(base)["data"]


def test_rank_reruns_from_a_signature_with_an_input_file_option(tmp_path):
    listed = tmp_path / "drop.txt"
    listed.write_text("no-such-judge\n")
    first = run("rank", PAIRS, "-m", "bojar", "--drop-judges", listed)
    assert first.exit_code == 0, first.output
    sig = first.stdout.strip().splitlines()[-1].split(" ", 1)[1]
    again = run("rank", "--signature", sig, "--drop-judges", listed, PAIRS)
    assert again.exit_code == 0 and again.stdout == first.stdout
    without = run("rank", "--signature", sig, PAIRS)
    assert without.exit_code == 2 and "--drop-judges" in without.output and "bug" not in without.output
    listed.write_text("someone-else\n")
    changed = run("rank", "--signature", sig, "--drop-judges", listed, PAIRS)
    assert changed.exit_code == 2 and "content hash" in changed.output
    other = run("rank", "--signature", sig.replace("cmd:rank", "cmd:judges"), PAIRS)
    assert other.exit_code == 2 and "humeval judges" in other.output
