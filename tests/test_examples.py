"""Every example in the documentation runs.

The examples are collected, not copied: every ``humeval …`` command in README.md and in every
documentation page docs/**/*.md (code blocks, and inline code that names a file; the generated
docs/reference/cli.md repeats the commands' help, whose examples are collected from the commands)
and in the "Example:" block of every command's and
subcommand's ``--help`` (walking the click command tree from ``humeval.cli.cli``). Each runs with
``CliRunner`` in a temporary directory, its file names mapped to the real files of
../shared/data (``SHARED_NAMES``, the one mapping table) or to files generated first
(``GENERATED``). An example whose data is absent is skipped, naming the file; every other must
exit 0 without the CLI's "bug in humeval" line. Examples are documentation, not benchmarks: each
should take seconds (the whole walk < 3 minutes on 2 cores with the data present).

``HUMEVAL_SHARED_DATA=DIR`` points the walk at the data when it is not at ../shared/data.
"""

from __future__ import annotations

import glob
import os
import re
import resource
import shlex
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from conftest import FIXTURES, SHARED
from humeval.cli import cli

README = Path(__file__).resolve().parents[1] / "README.md"
DOCS = README.parent / "docs"
GENERATED_PAGES = {"reference/cli.md"}  # every command's --help: its examples come from help_examples()
DATA = Path(os.environ.get("HUMEVAL_SHARED_DATA", SHARED))
SECRET = "not-a-secret"  # for $SECRET in examples

# Names used in examples -> path under ../shared/data. A key ending in "/" maps a prefix; the
# others are whole file names (the examples write files as a user who downloaded them would).
SHARED_NAMES = {
    "../shared/data/": "",
    "data_RNK.csv": "wmt10-rankings/wmt10/data_RNK.csv",
    "data_RNK-public.csv": "wmt10-rankings/wmt10/data_RNK-public.csv",
    "data_EDT.tsv": "wmt10-rankings/wmt10/data_EDT.tsv",
    "data_ACC.csv": "wmt10-rankings/wmt10/data_ACC.csv",
    "sample-fr-en-train.csv": "wmt13-fr-en-sample/sample-fr-en-train.csv",
    "sample-fr-en-test.csv": "wmt13-fr-en-sample/sample-fr-en-test.csv",
    "mqm_ted_ende.tsv": "mqm-google/ted/ende/mqm_ted_ende.tsv",
    "sxs_mqm_generalMT2023_ende.3ratingsPerSegment.tsv.tar.gz":
        "mqm-google/generalMT2023/ende/sxs_mqm_generalMT2023_ende.3ratingsPerSegment.tsv.tar.gz",
    "dev.mt": "mlqe-pe/et-en/post-editing/dev.mt",
    "dev.pe": "mlqe-pe/et-en/post-editing/dev.pe",
    "mlqe-pe/": "mlqe-pe/",
    "hmeant-wmt13/": "hmeant-wmt13/",
    "hmeant-wmt13": "hmeant-wmt13",
    "sys-level/": "wmt20-metrics-de-en/sys-level/",
    "seg-level/": "wmt20-metrics-de-en/seg-level/",
    "manual-evaluation/": "wmt20-metrics-de-en/manual-evaluation/",
    "input/": "wmt20-metrics-de-en/input/",
    "ad-seg-scores-de-en.csv": "wmt20-metrics-de-en/manual-evaluation/ad-seg-scores-de-en.csv",
    "ad-csen-good-stnd.csv": "wmt22-da-toen/ad-csen-good-stnd.csv",
    "esa_generalMT2024_wave2.csv": "wmt24-esa/esa_generalMT2024_wave2.csv",
    "mqm_newstest2020_ende.avg_seg_scores.tsv": "mqm-google/newstest2020/ende/mqm_newstest2020_ende.avg_seg_scores.tsv",
}


def _simulated_pilot(directory: Path):
    CliRunner().invoke(cli, ["simulate", str(directory / "pilot.csv"), "--design", "pairs", "--systems", "8",
                             "--judgments", "1000", "--quiet"], catch_exceptions=False)


def _hmeant_files(directory: Path):
    """annotations.json: the WMT13 HMEANT annotations in humeval's JSON format; adequacy.csv:
    made-up "human" scores (HMEANT plus noise) so that ``--tune`` has something to fit."""
    import numpy as np

    from humeval.data.readers.hmeant import read_wmt13
    from humeval.metrics.hmeant import hmeant
    from humeval.data.hmeant import write_json
    annotations = read_wmt13(shared("hmeant-wmt13"))
    write_json(annotations, directory / "annotations.json")
    scores = hmeant(annotations).groupby(["item", "system"], as_index=False)["hmeant"].mean()
    noise = np.random.default_rng(0).normal(0, 0.1, len(scores))
    scores.assign(score=scores.hmeant + noise)[["item", "system", "score"]].to_csv(directory / "adequacy.csv",
                                                                                 index=False)


# Input files the examples name that are made here first: name -> function(directory).
def _simulated_campaign(directory: Path):
    """campaign.parquet: the README's simulated campaign with 30 % random judges; drop.txt: the
    judges `humeval judges` flags in it (what `--drop-judges` examples read)."""
    for args in (["simulate", "campaign.parquet", "--random-judges", "0.3"],
                 ["judges", "campaign.parquet", "--drop-list", "drop.txt"]):
        CliRunner().invoke(cli, [*args[:1], *(str(directory / a) if a.endswith((".parquet", ".txt")) else a
                                              for a in args[1:]), "--quiet"], catch_exceptions=False)


def _da_campaign(directory: Path):
    """ad-latest.csv: a simulated WMT DA per-annotator file with degraded-reference and repeat items,
    4 of 20 annotators clicking at random; failed.txt: the annotators `humeval judges` fails."""
    from humeval.simulate.ratings import simulate_ratings
    df = simulate_ratings(n_systems=4, n_items=15, n_judges=20, n_ratings=4000, bad_ref=0.1, repeat=0.05,
                          random_judges=0.2, random_state=1).ratings.to_pandas()
    header = "HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time"
    rows = ["\t".join(["H", r.judge, "de", "en", "1", "1", r.system, "r", r.kind, r.item, f"{r.score:.0f}", "9"])
            for r in df.itertuples()]
    (directory / "ad-latest.csv").write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    CliRunner().invoke(cli, ["judges", str(directory / "ad-latest.csv"), "--drop-list", str(directory / "failed.txt"),
                             "--quiet"], catch_exceptions=False)


def _serve_demo(directory: Path):
    """demo/campaign.toml: the demo campaign `humeval serve --demo demo/` writes."""
    from humeval.serve.demo import write_demo
    write_demo(directory / "demo")


def _graham_da(directory: Path):
    """sys.de-en, human-post-edit.de-en, human-scores.de-en.csv: one pair of Graham et al.'s DA data
    set with post-edits (docs/reference/formats/graham-da.md)."""
    (directory / "sys.de-en").write_text("the cat sat\na dog runs fast\n", encoding="utf-8")
    (directory / "human-post-edit.de-en").write_text("the cat sat\na dog runs\n", encoding="utf-8")
    (directory / "human-scores.de-en.csv").write_text("HIT N SID SYS SCR\nH0 15 1 uedin-nmt 80.5\n"
                                                      "H0 15 2 uedin-nmt 40\n", encoding="utf-8")


def _pearmut_campaign(directory: Path):
    """pearmut_campaign.json: a small campaign in Pearmut's layout (two models, two documents, a
    tutorial item), for `humeval serve --import`."""
    import json
    segment = [{"item_id": f"doc{d}_#_{i}", "src": f"Satz {d}.{i}.", "tgt": {"A": f"Sentence {d}.{i}.",
                                                                            "B": f"Phrase {d}.{i}."}}
               for d in range(2) for i in range(3)]
    tutorial = {"item_id": "tutorial_1", "src": "Der Hund bellt.", "tgt": {"A": "The dog barks."},
                "validation": {"A": {"score": [80, 100], "warning": "Right: 80 or more."}}}
    data = {"info": {"assignment": "task-based", "protocol": "ESA"}, "campaign_id": "example",
            "data": [[[tutorial], segment[:3], segment[3:]]]}
    (directory / "pearmut_campaign.json").write_text(json.dumps(data), encoding="utf-8")


def _battles(directory: Path):
    """battles/: 200,000 simulated arena battles as hive-partitioned Parquet, by the README's
    generator (benchmarks/make_battles.py), for the "At scale" examples."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("make_battles", README.parent / "benchmarks" / "make_battles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.write_battles(directory / "battles", 200_000, n_systems=20, n_judges=50)


def _arena_battles(directory: Path):
    """battles.json: 4,000 simulated arena battles in FastChat's clean_battle layout, as
    `humeval simulate battles.json --design battles` writes them (humeval.simulate.write_arena_battles)."""
    from humeval.simulate import write_arena_battles
    write_arena_battles(directory / "battles.json")


def _arena_votes(directory: Path):
    """votes.csv: the csv block of docs/tutorials/arena.md that the reader saves, which is the arena
    fixture with a weight and two length columns (tests/fixtures/arena_weights.csv)."""
    page = (DOCS / "tutorials/arena.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"^```csv\n(.*?)^```", page, flags=re.S | re.M)
    assert block == (FIXTURES / "arena_weights.csv").read_text(encoding="utf-8"), "arena.md's votes.csv drifted"
    (directory / "votes.csv").write_text(block, encoding="utf-8")


def _judged_battles(directory: Path):
    """judged.csv: human and LLM-judge battles, written by the python block of
    docs/tutorials/humans-and-judges.md itself (run in ``directory``)."""
    import contextlib
    page = (DOCS / "tutorials/humans-and-judges.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"^```python\n(.*?)^```", page, flags=re.S | re.M) if "judged.csv" in b]
    with contextlib.chdir(directory):
        exec(compile(block, "docs/tutorials/humans-and-judges.md", "exec"), {})


def ted_chrf(mqm, out):
    """Segment-level chrF (humeval's metric code) of every system of Google's MQM TED file against
    its ``ref`` system's target texts (<v></v> error spans stripped): an automatic judge of the
    MQM-rated segments, as a system/segment/score table."""
    import csv

    import pandas as pd

    from humeval.metrics.baselines import chrf
    table = pd.read_csv(mqm, sep="\t", quoting=csv.QUOTE_NONE, dtype=str, keep_default_na=False)
    texts = table.groupby(["system", "seg_id"], sort=False)["target"].first().map(lambda s: re.sub(r"</?v>", "", s))
    ref = texts.xs("ref", level="system")
    rows = []
    for system, part in texts.drop("ref", level="system").groupby(level="system"):
        segments = part.index.get_level_values("seg_id")
        rows += zip([system] * len(part), segments, chrf(list(part), [list(ref.reindex(segments))]).segment)
    pd.DataFrame(rows, columns=["system", "segment", "score"]).to_csv(out, sep="\t", index=False)


def _ted_chrf(directory: Path):
    """chrf-ted.tsv: chrF of the MQM TED en-de systems against ref (``ted_chrf``)."""
    ted_chrf(shared(SHARED_NAMES["mqm_ted_ende.tsv"]), directory / "chrf-ted.tsv")


GENERATED = {"chrf-ted.tsv": _ted_chrf, "judged.csv": _judged_battles, "demo/campaign.toml": _serve_demo, "pearmut_campaign.json": _pearmut_campaign, "sys.de-en": _graham_da, "battles/": _battles, "battles.json": _arena_battles, "votes.csv": _arena_votes, "ad-latest.csv": _da_campaign, "failed.txt": _da_campaign, "campaign.parquet": _simulated_campaign, "drop.txt": _simulated_campaign, "pilot.csv": _simulated_pilot, "annotations.json": _hmeant_files, "adequacy.csv": _hmeant_files}

# Examples that cannot run here, with the reason. Keep this list short.
NO_OUTPUTS = ("WMT10's system outputs and reference (outputs/cz-en/, newstest2010.ref.en) are not in the shared data; "
    "tests/metrics/test_tuning_consistency.py runs the same command on a fixture")
NO_SECOND_SYSTEM = ("needs two systems' outputs of one test set and its reference; the shared data has one MT system "
                    "per MLQE-PE language pair and no WMT20 texts; tests/metaeval/test_metaeval_cli.py runs it on fixtures")
NO_MTME = ("mt-metrics-eval's data (mt-metrics-eval-v2/) is not in the shared data; "
           "tests/metaeval/test_metaeval_cli.py runs it on a fixture of its layout")
NOT_RUNNABLE: dict[str, str] = {
    "humeval serve demo/campaign.toml": "starts a server that runs until stopped; tests/serve/test_serve_load.py and "
                                        "test_serve_browser.py run it in a subprocess",
    "humeval rank mqm.tsv": "an export of a running campaign; tests/serve/test_serve_exports.py runs humeval rank on "
                            "the MQM export of a campaign with every task type and compares it with the board",
    "humeval rank documents.csv -m z-mean": "an export of a running campaign; tests/serve/test_serve_document_scores.py "
                                            "reads the documents export back and ranks a hand-made one",
    "humeval metric compare --baseline base.txt --system new.txt --ref ref.txt --test ar": NO_SECOND_SYSTEM,
    "humeval metric correlate --mtme mt-metrics-eval-v2/wmt22 --lp en-de --human-name mqm --average-by item": NO_MTME,
    "humeval metric tune --objective consistency --conflicts tie-across-judges "
    "--data Czech-English=outputs/cz-en/,newstest2010.ref.en,data_RNK.csv": NO_OUTPUTS,
    "humeval metric tune --objective consistency --conflicts tie "
    "--data Czech-English=outputs/cz-en/,newstest2010.ref.en,data_RNK.csv": NO_OUTPUTS,
}

# Examples that fail because of a known bug being fixed elsewhere (strict=False: a fixed one passes quietly).
XFAIL_UNTIL_FIXED: dict[str, str] = {}  # example → reason, for a known failure being fixed (none now)


# -- collecting ------------------------------------------------------------------------------

def _commands(lines: list[str]) -> list[str]:
    """The ``humeval`` commands among shell lines: continuations joined, ``NAME=value``
    assignments expanded, ``$ `` prompts, comments and ``… && `` prefixes dropped, synopsis
    lines (with ``…`` or ``[``) left out."""
    joined, current = [], ""
    for line in lines:
        line = line.strip()
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        joined.append(current + line)
        current = ""
    variables = {"SECRET": SECRET}
    commands = []
    for line in joined:
        line = line.removeprefix("$ ").strip()
        if re.match(r"^\w+=\S", line):  # P=a/b; A=c/d
            for name, value in re.findall(r"(\w+)=([^;\s]+)", line):
                variables[name] = value
            continue
        for part in line.split(" && "):
            part = part.strip()
            if not part.startswith("humeval ") and part != "humeval":
                continue
            if "…" in part or re.search(r"\s\[", part):
                continue
            part = re.sub(r"\$\{?(\w+)\}?", lambda m: variables.get(m.group(1), m.group(0)), part)
            words = shlex.split(part, comments=True)
            if not any(re.fullmatch(r"[A-Z][A-Z_]{2,}…?", word) for word in words):  # FILE, DA_FILE: syntax
                commands.append(shlex.join(words))
    return commands


def help_examples() -> dict[str, str]:
    """Example command -> where it was found (``humeval rank --help``), over the command tree."""
    found = {}

    def walk(command: click.Command, path: list[str]):
        text = command.help or ""
        if "Example:" in text:
            block = text.split("Example:", 1)[1].replace("\b", "")
            for example in _commands(block.splitlines()):
                found.setdefault(example, " ".join(path) + " --help")
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, path + [name])

    walk(cli, ["humeval"])
    return found


def readme_examples(text: str | None = None, where: str = "README.md") -> dict[str, str]:
    """Example command -> where it was found: fenced code blocks, and inline code that names
    a file (prose also names commands and options alone, e.g. `humeval complete`)."""
    text = README.read_text(encoding="utf-8") if text is None else text
    found = {}
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.S | re.M)
    for block in blocks:
        for example in _commands(block.splitlines()):
            found.setdefault(example, f"{where} code block")
    prose = re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.S | re.M)
    for span in re.findall(r"`(humeval [^`]+)`", prose):
        span = " ".join(span.split())
        for example in _commands([span]):
            if any(re.search(r"\.\w+$|/", word) for word in shlex.split(example)[2:]):
                found.setdefault(example, f"{where} inline")
    return found


def docs_examples() -> dict[str, str]:
    """The examples of every documentation page, as README.md's are collected."""
    found = {}
    for page in sorted(DOCS.rglob("*.md")):
        name = page.relative_to(DOCS).as_posix()
        if name not in GENERATED_PAGES:
            for example, source in readme_examples(page.read_text(encoding="utf-8"), f"docs/{name}").items():
                found.setdefault(example, source)
    return found


def all_examples() -> dict[str, str]:
    return {**readme_examples(), **docs_examples(), **{k: v for k, v in help_examples().items()}}


# -- running ---------------------------------------------------------------------------------

def shared(relative: str) -> Path:
    path = DATA / relative
    if not (glob.glob(str(path)) if "*" in relative else path.exists()):
        pytest.skip(f"data not available: {path}")
    return path


def written_names(words: list[str]) -> set[str]:
    """The file names the example writes (its output options' values): not generated first, since
    no command writes over an existing file without --force."""
    command, rest = cli, list(words)
    while isinstance(command, click.Group) and rest and rest[0] in command.commands:
        command = command.commands[rest.pop(0)]
    if isinstance(command, click.Group):
        return set()
    from humeval.cli.common import OutputPath
    ctx = command.make_context("humeval", rest, resilient_parsing=True)
    return {str(ctx.params.get(p.name)) for p in command.params
            if isinstance(p.type, OutputPath) and ctx.params.get(p.name) is not None}


def resolve(example: str, directory: Path) -> list[str]:
    """The example's arguments with its file names mapped to real or generated files (skips
    when a real file is absent)."""
    args = []
    written = written_names(shlex.split(example)[1:])
    for word in shlex.split(example)[1:]:
        def real(match):
            name = match.group(0)
            for key, target in SHARED_NAMES.items():
                if name == key or (key.endswith("/") and name.startswith(key)):
                    return str(shared(target + name[len(key):] if key.endswith("/") else target))
            if name in GENERATED and name not in written and not (directory / name).exists():
                GENERATED[name](directory)
            return name
        word = re.sub(r"[\w.~/*+-]+", real, word)
        if "*" in word:  # a shell glob, expanded as the shell would
            matches = sorted(glob.glob(word))
            args += matches or [word]
        else:
            args.append(word)
    for name in written:  # made as a by-product of generating an input (ad-latest.csv brings failed.txt)
        if (directory / name).is_file():
            (directory / name).unlink()
    return args


def cpu_seconds() -> float:
    """CPU time of this process (all threads) and its finished children: an example's cost,
    whatever else the machine is doing."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _cases():
    cases = []
    for example, source in all_examples().items():
        marks = []
        if example in XFAIL_UNTIL_FIXED:
            marks.append(pytest.mark.xfail(strict=False, reason=XFAIL_UNTIL_FIXED[example]))
        if example in NOT_RUNNABLE:
            marks.append(pytest.mark.skip(reason=NOT_RUNNABLE[example]))
        cases.append(pytest.param(example, source, marks=marks, id=example[:90]))
    return cases


@pytest.mark.parametrize("example, source", _cases())
def test_example_runs(example, source, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SECRET", SECRET)
    args = resolve(example, tmp_path)
    start = cpu_seconds()
    result = CliRunner().invoke(cli, args)
    seconds = cpu_seconds() - start
    output = result.output  # stdout and stderr (click ≥ 8.2)
    assert "bug in humeval" not in output, f"{source}: {example}\n{output[-3000:]}"
    if result.exit_code == 2 and "WordNet database files" in output and not os.environ.get("HUMEVAL_REQUIRE_WORDNET"):
        # a system package the README names (apt-get install wordnet-base); CI installs it and requires it
        pytest.skip(f"needs WordNet's database files (apt-get install wordnet-base): {example}")
    assert result.exit_code == 0, f"{source}: {example} exited {result.exit_code}\n{output[-3000:]}\n{result.exception!r}"
    assert seconds < 60, f"{source}: {example} took {seconds:.0f} s of CPU; examples are documentation, make it smaller"


def test_the_walk_finds_the_examples():
    """The collector sees what a reader sees, and the lists above name real examples."""
    examples = all_examples()
    assert "humeval demo" in examples
    assert examples["humeval info data_RNK.csv --track Czech-English"] == "humeval info --help"
    assert any(e.startswith("humeval metric tune") and "mlqe-pe/et-en/post-editing/dev.mt" in e for e in examples)
    assert not [e for e in examples if "…" in e or "$" in e or "\\" in e]
    stale = [e for e in (*NOT_RUNNABLE, *XFAIL_UNTIL_FIXED) if e not in examples]
    assert not stale, f"listed examples no longer in the documentation: {stale}"


def test_collect_parses_shell_lines():
    text = """intro `humeval complete` and `humeval report FILE… -o r.html`, `humeval info
data_RNK.csv` inline.

```bash
P=dir/sub; A=other
python -m pip install . && humeval demo
humeval metric tune --tokenize none \\
  --data "x=$P/dev.mt,$A/dev.pe"      # a comment
humeval rank FILE [--model bt]
$ humeval info data_RNK.csv
 track ┃ systems
```
"""
    assert list(readme_examples(text)) == ["humeval demo", "humeval metric tune --tokenize none --data x=dir/sub/dev.mt,other/dev.pe",
                                           "humeval info data_RNK.csv"]
