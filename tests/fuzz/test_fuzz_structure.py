"""Fuzzing the structure of every reader's files (issue 27's corpus kinds): a line longer than
Python's csv field limit, an unbalanced quote (alone, or swallowing more than 131,072 characters),
CR-only line ends, a duplicated header name, lines merged by re-saving with another delimiter,
deeply nested JSON, and archives (a valid .gz, a truncated one, a .tar.gz of two files, a
decompression bomb under lowered limits). Every read ends in a counted read or an ``InputError``
naming the file, never another exception; ``info`` exits 0 or 2, never with the "bug" line.

The sources are ``test_fuzz_readers.TEXT`` (its machinery: fixtures, ``_source``) plus the readers
it does not cover (ESA, WMT10 acceptability, WMT DA per annotator and per segment, an arena JSON
array). Every case comes from a seeded RNG, so a failure reproduces by its test id.
"""

from __future__ import annotations

import gzip
import io
import json
import random
import tarfile

import pytest
from click.testing import CliRunner

import humeval
from humeval.cli import cli
from humeval.data.readers import _io
from test_fuzz_readers import BUG, FIXTURES, TEXT, _check_values, _source

SEED = 27
# name, format, source (fixture or text), delimiter (None: JSON)
EXTRA = [
    ("esa.csv", "esa", "esa_wmt24_small.csv", ","),
    ("acc.csv", "wmt-acc", "srclang,trglang,srcIndex,documentId,segmentId,judgeId,systemNumber,systemId,editId,judgment\n"
                           "French,English,1,d,1,j1,1,A,1,YES\nFrench,English,2,d,2,j1,1,B,2,NO\n"
                           "French,English,3,d,3,j2,1,A,3,UNK\n", ","),
    ("ad-csen-good-stnd.csv", "wmt-da", "HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time\n"
                                        "3IK\tM13\tcs\ten\tad\t4\tFB.7\t100\tSYSTEM\t177\t0.62\t931.0\n"
                                        "3IK\tM13\tcs\ten\tad\t4\tOB.0\t101\tSYSTEM\t690\t-1.9\t931.0\n"
                                        "3JM\tM14\tcs\ten\tad\t5\tFB.7\t102\tSYSTEM\t177\t0.43\t515.0\n", "\t"),
    ("ad-seg-scores-de-en.csv", "wmt-da-seg", "SYS SID RAW.SCR Z.SCR N\nOPPO.1360 1 100 1.78 1\nOPPO.1360 2 75 -0.25 2\n"
                                              "B.1 1 50 -1.0 1\n", " "),
    ("battles.json", "pairwise", "arena_battles.json", None),
]
SOURCES = [(n, f, s, d) for n, f, s, d, _ in TEXT if f != "appraise-xml"] + EXTRA
KINDS = ["long_line", "quote", "quote_swallows", "cr_only", "dup_header", "merged", "nesting", "gzip",
         "gzip_truncated", "tar_two", "bomb"]


def _lines(source: str) -> list[str]:
    return _source(source).replace("\r\n", "\n").rstrip("\n").split("\n")


def _cells(line: str, delimiter: str) -> list[str]:
    return line.split() if delimiter == " " else line.split(delimiter)


def _join(cells: list[str], delimiter: str) -> str:
    return delimiter.join(cells)


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _mutate(source: str, delimiter: str | None, kind: str, rng: random.Random) -> tuple[str, bytes]:
    """(file name suffix, bytes) of one damaged variant."""
    if delimiter is None:  # a JSON array of records, or JSON lines
        text = _source(source)
        if text.lstrip().startswith("["):
            text = json.dumps(json.loads(text), indent=1)
        lines = text.split("\n")
        i = rng.choice([k for k, x in enumerate(lines) if ": " in x])
        key = rng.choice(list(json.loads(lines[i])) if lines[i].startswith("{") else [lines[i].split(":")[0].strip(' "')])
        if kind == "nesting":
            depth = rng.choice([65, 1_000, 100_000])
            lines[i] = lines[i].replace(f'"{key}": ', f'"deep": {_nested(depth)}, "{key}": ', 1)
        elif kind == "long_line":
            lines[i] = lines[i].replace(f'"{key}": "', f'"{key}": "' + "x" * 200_000, 1)
        text = "\n".join(lines)
        if kind == "cr_only":
            text = text.replace("\n", "\r")
        elif kind in ("quote", "quote_swallows"):
            text = text.replace('"', "", 1 + rng.randrange(20))
        return "", text.encode()
    lines = _lines(source)
    data = list(range(1, len(lines))) or [0]
    i = rng.choice(data)
    if kind == "long_line":
        cells = _cells(lines[i], delimiter)
        j = rng.randrange(len(cells))
        cells[j] += "x" * rng.choice([140_000, 1_000_000])
        lines[i] = _join(cells, delimiter)
    elif kind in ("quote", "quote_swallows"):
        cells = _cells(lines[i], delimiter)
        cells[rng.randrange(len(cells))] = '"' + cells[rng.randrange(len(cells))]
        lines[i] = _join(cells, delimiter)
        if kind == "quote_swallows":  # enough after it to pass the csv field limit
            lines += [lines[rng.choice(data)] for _ in range(200_000 // max(len(lines[-1]), 1) + 2)]
    elif kind == "cr_only":
        return "", ("\r".join(lines) + "\r").encode()
    elif kind == "dup_header":  # (a WMT DA header is space-separated above tab-separated rows)
        split = delimiter if delimiter in lines[0] else " "
        cells = _cells(lines[0], split)
        a, b = rng.sample(range(len(cells)), 2)
        cells[a] = cells[b]
        lines[0] = _join(cells, split)
    elif kind == "merged":  # re-saved with commas: a field opening with a quote merges the next lines
        lines = [_join(_cells(x, delimiter), ",") for x in lines]
        cells = lines[i].split(",")
        cells[-1] = '"' + cells[-1]
        lines[i] = ",".join(cells)
    elif kind == "nesting":
        cells = _cells(lines[i], delimiter)
        cells[rng.randrange(len(cells))] = _nested(rng.choice([65, 10_000]))
        lines[i] = _join(cells, delimiter)
    text = "\n".join(lines) + "\n"
    if kind in ("gzip", "gzip_truncated", "bomb"):
        packed = gzip.compress(text.encode() if kind != "bomb" else (text + lines[-1] + "\n" * 400_000).encode())
        return ".gz", packed[: len(packed) // 2] if kind == "gzip_truncated" else packed
    if kind == "tar_two":
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            for member in ("a.tsv", "b.tsv"):
                info = tarfile.TarInfo(member)
                info.size = len(text.encode())
                tar.addfile(info, io.BytesIO(text.encode()))
        return ".tar.gz", buffer.getvalue()
    return "", text.encode()


def _cases():
    rng = random.Random(SEED)
    out = []
    for name, fmt, source, delimiter in SOURCES:
        for kind in KINDS:
            if delimiter is None and kind not in ("nesting", "long_line", "cr_only", "quote", "quote_swallows"):
                continue
            out.append(pytest.param(name, fmt, source, delimiter, kind, rng.randrange(2 ** 32),
                                    id=f"{name}-{kind}"))
    return out


CASES = _cases()


def _write(tmp_path, name, source, delimiter, kind, seed):
    suffix, data = _mutate(source, delimiter, kind, random.Random(seed))
    path = tmp_path / (name + suffix)
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("name,fmt,source,delimiter,kind,seed", CASES)
def test_read_counts_or_refuses(name, fmt, source, delimiter, kind, seed, tmp_path, monkeypatch):
    if kind == "bomb":  # the limits lowered so that a small file is a bomb: 50× past 64 kB
        monkeypatch.setattr(_io, "RATIO_FLOOR", 64_000)
        monkeypatch.setattr(_io, "CHUNK", 16_384)
    path = _write(tmp_path, name, source, delimiter, kind, seed)
    for given in (None, fmt):
        try:
            judgments = humeval.read(path, format=given)
        except humeval.InputError as error:
            assert str(error).startswith(str(path)) and len(str(error)) < 1_000, error
            if kind in ("long_line", "quote_swallows") and error.line is not None and "field limit" in str(error):
                assert "longer than 131,072 characters or has an unbalanced quote" in error.problem
            if kind == "bomb":
                assert "expands past" in error.problem
            if kind == "tar_two":
                assert "holds 2 files" in error.problem
            continue
        assert kind not in ("bomb", "tar_two", "gzip_truncated"), judgments.report
        assert kind != "dup_header" or name == "esa.csv", judgments.report  # WMT24's ESA rows have no header
        assert any(len(t) for t in judgments.tables().values())
        _check_values(judgments)


@pytest.mark.parametrize("name,fmt,source,delimiter,kind,seed",
                         [c for c in CASES if c.values[4] in ("long_line", "quote_swallows", "cr_only", "nesting")])
def test_info_never_reports_a_bug(name, fmt, source, delimiter, kind, seed, tmp_path):
    path = _write(tmp_path, name, source, delimiter, kind, seed)
    result = CliRunner().invoke(cli, ["info", str(path)])
    assert result.exit_code in (0, 2), (result.exit_code, result.output, result.exception)
    assert BUG not in result.output


def test_a_valid_gzip_reads_as_the_plain_file(tmp_path):
    plain = humeval.read(FIXTURES / "wmt10_small.csv")
    path = tmp_path / "wmt10.csv.gz"
    path.write_bytes(gzip.compress((FIXTURES / "wmt10_small.csv").read_bytes()))
    packed = humeval.read(path)
    assert packed.comparisons.outcome.tolist() == plain.comparisons.outcome.tolist()


def test_case_count():
    """Every reader but Appraise's XML (fuzzed in test_fuzz_readers) and every structural kind."""
    assert {c.values[1] for c in CASES} == {"pairwise", "ratings", "mlqe-da", "mqm", "mqm-avg", "wmt-edits", "wmt-csv",
                                            "wmt-legacy", "esa", "wmt-acc", "wmt-da", "wmt-da-seg"}
    assert {c.values[4] for c in CASES} == set(KINDS) and 150 <= len(CASES) <= 250
