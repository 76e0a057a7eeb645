"""docs/tutorials/humans-and-judges.md end to end: its code blocks run in order in one directory
(python blocks in one namespace, ``humeval`` commands through the CLI; a command whose public
data is absent is skipped, the rest still run), and the figures it quotes are the ones the code
gives: those of the printed audit from this run, and the simulation and WMT20 figures that
tests/experiments/test_ppi.py computes and checks (``FIGURES``), here checked to be the page's."""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from humeval.cli import cli

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs/tutorials/humans-and-judges.md"
TEXT = PAGE.read_text(encoding="utf-8")
PROSE = " ".join(re.sub(r"^```[^\n]*\n.*?^```", "", TEXT, flags=re.S | re.M).split())


def blocks() -> list[tuple[str, str]]:
    """(language, code) of every fenced block, in page order."""
    return re.findall(r"^```(\w*)\n(.*?)^```", TEXT, flags=re.S | re.M)


def figures() -> dict:
    spec = importlib.util.spec_from_file_location("test_ppi_figures", ROOT / "tests/experiments/test_ppi.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FIGURES


@pytest.fixture(scope="module")
def page_run(tmp_path_factory):
    """Every block of the page run in order in one directory: {command: output}."""
    import contextlib

    import matplotlib
    matplotlib.use("Agg")
    from test_examples import resolve
    directory = tmp_path_factory.mktemp("humans-and-judges")
    namespace, outputs, skipped = {}, {}, []
    with contextlib.chdir(directory):
        for language, code in blocks():
            if language == "python":
                exec(compile(code, str(PAGE), "exec"), namespace)
                continue
            for line in code.splitlines():
                if not line.startswith("humeval "):
                    continue
                try:
                    args = resolve(line, directory)
                except pytest.skip.Exception as reason:  # public data not here: this command only
                    skipped.append(f"{line}: {reason}")
                    continue
                result = CliRunner().invoke(cli, args)
                assert "bug in humeval" not in result.output, line
                assert result.exit_code == 0, f"{line}\n{result.output[-2000:]}"
                outputs[line] = result.stdout
    return outputs, skipped


def test_every_block_runs_in_order(page_run):
    outputs, skipped = page_run
    commands = [line for language, code in blocks() if language != "python" for line in code.splitlines()
                if line.startswith("humeval ")]
    assert len(commands) >= 2 and set(outputs) | {s.split(":")[0] for s in skipped} >= set(commands)
    assert "humeval ppi judged.csv --audit" in outputs  # runs on the page's own data, never skipped


def test_the_audit_figures_are_the_printed_ones(page_run):
    printed = " ".join(page_run[0]["humeval ppi judged.csv --audit"].split())
    quoted = {  # what the page says -> what the printed tables show
        "agrees with the humans on 0.823 of the 300 battles": r"agreement \(share of matched battles\) │ 0\.823 .* │ 300",
        "Cohen's κ 0.645": r"Cohen's kappa \(bootstrap interval\) │ 0\.645",
        "first-shown output in 0.587": r"judge prefer the first shown │ 0\.587",
        "the humans in 0.507": r"humans prefer the first shown │ 0\.507",
        "position bias, 0.0806": r"position bias: judge − humans │ 0\.0806 │ 0\.0\d+ │",  # lo above 0
        "S0 is 0.106 above": r"S0 │ 0\.106 │",
        "λ is 0.53": r"λ = 0\.53;",
        "as narrow as 442 human battles": r"as narrow as 442 human battles alone \(the judge is worth \+142\)",
    }
    for phrase, pattern in quoted.items():
        assert phrase in PROSE, phrase
        assert re.search(pattern, printed), (phrase, pattern)
    assert "signature: humeval:" in printed


def percent(share: float) -> str:
    return f"{100 * share:.1f}".removesuffix(".0")


def test_the_simulation_and_wmt20_figures_are_those_the_tests_check():
    f = figures()
    bt, dav, rat, wmt = f["bt"], f["davidson"], f["ratings"], f["wmt20"]
    phrases = [
        f"covered the all-human means of the 12 systems {percent(wmt['ppi'])} % of the time",
        f"combined intervals are only {percent(wmt['narrower'])} % narrower",
        f"worth about {wmt['worth'][0]}–{wmt['worth'][1]} of ~{wmt['human_scores']:,} human scores",
        f"covered the true abilities {percent(bt['ppi'])} % of the time, human-only {percent(bt['human'])} %, "
        f"judge-only {percent(bt['judge'])} %, and were {percent(bt['narrower'])} % narrower than human-only "
        f"(worth {bt['effective_n']} human battles for 300 collected)",
        f"covered {percent(dav['ppi'])} %, judge-only {percent(dav['judge'])} %, and was {percent(dav['narrower'])} % "
        "narrower than human-only",
        f"combined {percent(rat['ppi'])} % coverage of the true means, human-only {percent(rat['human'])} %, "
        f"combined {percent(rat['narrower'])} % narrower",
    ]
    for phrase in phrases:
        assert phrase in PROSE, phrase
    assert "human-only alike" in PROSE and wmt["human"] == wmt["ppi"]


def test_the_bootstrap_figures_are_those_the_tests_check():
    spec = importlib.util.spec_from_file_location("test_ppi_bootstrap_figures",
                                                  ROOT / "tests/experiments/test_ppi_bootstrap.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    f = module.FIGURES
    low, high = f["wmt20"]["ratio"]
    phrases = [f"combined intervals are {low:.2f}–{high:.2f} times the sandwich's widths",
               f"{f['wmt20']['significant']} of the 66 differences are significant "
               f"({f['wmt20']['human_significant']} by the humans alone)",
               f"covered the true abilities {percent(f['bt'])} % of the time, combined and human-only alike",
               f"30 simulated ratings campaigns (200 resamples) {percent(f['ratings'])} %"]
    for phrase in phrases:
        assert phrase in PROSE, phrase
