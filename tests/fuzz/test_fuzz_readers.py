"""Fuzzing the readers: malformed variants of small valid files must end in a counted read or an
``InputError``, never another exception; the ``info`` command must exit 0 or 2, never with its
"this is a bug" line.

Every case comes from a seeded RNG, so a failure reproduces by its test id. For text formats a
case mutates one fixture (truncated or short rows, dropped or duplicated columns, NaN / inf /
``-`` / empty / huge / NUL / control-character values, random bytes, UTF-16 / UTF-32 / latin-1
re-encodings, CRLF, blank lines, an empty file, a header alone); Parquet cases are built from
arrow tables with wrong column types (float, NaN and list outcomes, list labels, …).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import humeval
from humeval.cli import cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SEED = 16
BUG = "this is a bug in humeval"

# name, format, fixture file (or inline text), delimiter (None: not delimited), quoting honoured
TEXT = [
    ("arena.csv", "pairwise", "arena_small.csv", ",", True),
    ("arena.jsonl", "pairwise", "arena_small.jsonl", None, True),
    ("humeval.tsv", "pairwise", "track\titem\tjudge\tgroup\tsystem_a\tsystem_b\toutcome\n"
                                "de-en\t1\tj1\t0\tA\tB\t1\nde-en\t1\tj1\t0\tA\tC\t0\nde-en\t2\tj2\t-1\tB\tC\t2\n"
                                "fr-en\t3\tj2\t-1\tA\tB\t2\n", "\t", True),
    ("ratings.csv", "ratings", "ratings_long.csv", ",", True),
    ("ratings.jsonl", "ratings", '{"item": "s1", "system": "A", "judge": "j1", "score": 70}\n'
                                 '{"item": "s1", "system": "B", "judge": "j1", "score": 55.5}\n'
                                 '{"item": "s2", "system": "A", "judge": "j2", "score": 80}\n', None, True),
    ("da.eten.df.short.tsv", "mlqe-da", "mlqe_da_small.eten.df.short.tsv", "\t", False),
    ("mqm.ende.tsv", "mqm", "mqm_small.ende.tsv", "\t", False),
    ("mqm_avg.tsv", "mqm-avg", "mqm_avg_small.tsv", " ", False),
    ("edits.tsv", "wmt-edits", "wmt10_edits_small.tsv", "\t", False),
    ("appraise.xml", "appraise-xml", "appraise_small.xml", None, False),
    ("wmt10.csv", "wmt-csv", "wmt10_small.csv", ",", True),
    ("wmt08.csv", "wmt-legacy", "wmt08_small.csv", ",", True),
    ("wmt09.tsv", "wmt-legacy", "wmt09_small.tsv", "\t", False),
]
# known findings in readers fixed on another branch of issue 16 (non-strict: they pass once fixed)
KNOWN: dict[str, str] = {}  # case id → reason, for a finding not fixed yet (xfail, not strict)
VALUES = ["NaN", "nan", "inf", "-inf", "Infinity", "-", "", "   ", "99999999999999999999", "40000", "-7", "0",
          "1.5", "1.0", "\x00", "A\x00B", "\x1b[31mred", "\x07bell", "\x0c", "é", "[1, 2]", '"', "None", "1e400",
          "[NaN]", '"123"', "[150]", "[-1]", "[]", "[1, \"x\"]", "[/]", "[bold]x"]
JSON_VALUES = ["NaN", "Infinity", "-Infinity", "1.5", "1.0", "1", "7", "null", "[1, 2]", '{"x": 1}', '"\\u0000"',
               "99999999999999999999999", "true", '""', '"  "', '"\\u001b[2J"', "-1", '"[/]"']
ENCODINGS = ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-8-sig", "latin-1"]
# mutations that keep one data row per line (so rows read + skipped must match the data lines)
LINE_SAFE = {"inject", "crlf", "reencode", "blank_lines", "delete_rows", "none"}


def _source(spec: str) -> str:
    return (FIXTURES / spec).read_text(encoding="utf-8") if (FIXTURES / spec).exists() else spec


def _split(line: str, delimiter: str) -> list[str]:
    return line.split(" ") if delimiter == " " else line.split(delimiter)


def _mutate_lines(lines: list[str], delimiter: str | None, rng: random.Random, kind: str) -> list[str]:
    lines = list(lines)
    data = list(range(1, len(lines)))
    if kind == "truncate" and data:
        i = rng.choice(data)
        lines[i] = lines[i][:rng.randrange(len(lines[i]) + 1)]
    elif kind in ("drop_field", "extra_field") and data and delimiter:
        i = rng.choice(data)
        cells = _split(lines[i], delimiter)
        if kind == "drop_field":
            del cells[rng.randrange(len(cells))]
        else:
            cells.insert(rng.randrange(len(cells) + 1), rng.choice(VALUES[:8]))
        lines[i] = delimiter.join(cells)
    elif kind in ("drop_column", "dup_column") and delimiter:
        cells = _split(lines[0], delimiter)
        j = rng.randrange(len(cells))
        if kind == "drop_column":
            del cells[j]
        else:
            cells[j] = cells[rng.randrange(len(cells))]
        lines[0] = delimiter.join(cells)
    elif kind == "inject" and data:
        for _ in range(rng.randint(1, 3)):
            i = rng.choice(data)
            if delimiter:
                cells = _split(lines[i], delimiter)
                cells[rng.randrange(len(cells))] = rng.choice(VALUES)
                lines[i] = delimiter.join(cells)
            elif lines[i].lstrip().startswith("{"):
                try:
                    key = rng.choice(list(json.loads(lines[i])))
                except ValueError:  # an earlier injection broke this line already
                    continue
                lines[i] = re.sub(rf'("{re.escape(key)}": )("[^"]*"|[^,}}]*)', lambda m: m.group(1) + rng.choice(JSON_VALUES),
                                  lines[i], count=1)
            else:  # XML: an attribute value
                lines[i] = re.sub(r'(system|rank|user|id)="[^"]*"', lambda m: f'{m.group(1)}="{rng.choice(VALUES)}"',
                                  lines[i], count=1)
    elif kind == "blank_lines":
        for _ in range(rng.randint(1, 3)):
            lines.insert(rng.randint(1, len(lines)), rng.choice(["", " ", "\t"]) if delimiter != "\t" else "")
        lines.append("")
    elif kind == "delete_rows" and data:
        keep = set(rng.sample(data, rng.randrange(len(data))))
        lines = [lines[0]] + [x for i, x in enumerate(lines) if i in keep]
    elif kind == "duplicate_rows" and data:
        lines += [lines[rng.choice(data)] for _ in range(rng.randint(1, 3))]
    elif kind == "header_only":
        lines = lines[:1]
    return lines


def _text_case(rng: random.Random, name: str, source: str, delimiter: str | None, kind: str) -> bytes:
    lines = source.rstrip("\n").split("\n")
    if kind == "empty":
        return rng.choice([b"", b"\n", b"  \n\n"])
    lines = _mutate_lines(lines, delimiter, rng, kind)
    text = "\n".join(lines) + rng.choice(["\n", ""])
    if kind == "crlf":
        text = text.replace("\n", "\r\n")
    if kind == "reencode":
        encoding = rng.choice(ENCODINGS)
        if encoding == "latin-1":
            text = text.replace("e", "é", 1)
        return text.encode(encoding)
    data = bytearray(text.encode("utf-8"))
    if kind == "random_bytes" and data:
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data)


def _parquet_cases() -> list[tuple[str, str, pa.Table]]:
    a, b = ["A", "A", "B", "C"], ["B", "C", "C", "A"]
    base = {"system_a": a, "system_b": b}
    cases = [
        ("outcome-int", "pairwise", pa.table({**base, "outcome": [1, 0, 2, 1]})),
        ("outcome-float-integral", "pairwise", pa.table({**base, "outcome": [1.0, 0.0, 2.0, 1.0]})),
        ("outcome-nan", "pairwise", pa.table({**base, "outcome": [1.0, float("nan"), 2.0, None]})),
        ("outcome-fraction", "pairwise", pa.table({**base, "outcome": [1.0, 0.5, 2.0, 1.0]})),
        ("outcome-inf", "pairwise", pa.table({**base, "outcome": [1.0, float("inf"), 2.0, 1.0]})),
        ("outcome-huge", "pairwise", pa.table({**base, "outcome": [1, 2 ** 40, 2, 1]})),
        ("outcome-seven", "pairwise", pa.table({**base, "outcome": [1, 7, 2, 1]})),
        ("outcome-bool", "pairwise", pa.table({**base, "outcome": [True, False, True, True]})),
        ("outcome-list", "pairwise", pa.table({**base, "outcome": [[1], [0], [2], [1, 2]]})),
        ("system-list", "pairwise", pa.table({"system_a": [["A"], ["A"], ["B"], ["C"]], "system_b": b,
                                              "outcome": [1, 0, 2, 1]})),
        ("system-int", "pairwise", pa.table({"system_a": [1, 1, 2, 3], "system_b": [2, 3, 3, 1],
                                             "outcome": [1, 0, 2, 1]})),
        ("system-null", "pairwise", pa.table({"system_a": ["A", None, "", "C"], "system_b": b,
                                              "outcome": [1, 0, 2, 1]})),
        ("system-nul", "pairwise", pa.table({"system_a": ["A\x00", "A", "\x1b[2J", "C"], "system_b": b,
                                             "outcome": [1, 0, 2, 1]})),
        ("self", "pairwise", pa.table({"system_a": a, "system_b": a, "outcome": [1, 0, 2, 1]})),
        ("all-skipped", "pairwise", pa.table({**base, "outcome": pa.array([None] * 4, pa.string())})),
        ("empty", "pairwise", pa.table({"system_a": pa.array([], pa.string()), "system_b": pa.array([], pa.string()),
                                        "outcome": pa.array([], pa.int64())})),
        ("group-huge", "pairwise", pa.table({**base, "outcome": [1, 0, 2, 1], "group": [1, 2 ** 40, 3, 4]})),
        ("group-float", "pairwise", pa.table({**base, "outcome": [1, 0, 2, 1], "group": [1.5, 2.0, None, 4.0]})),
        ("track-struct", "pairwise", pa.table({**base, "outcome": [1, 0, 2, 1], "track": [{"x": 1}] * 4})),
        ("no-outcome", "pairwise", pa.table(base)),
        ("scores", "ratings", pa.table({"item": ["1", "1", "2"], "system": ["A", "B", "A"], "score": [70.0, 55.0, 80.0]})),
        ("scores-nan-inf", "ratings", pa.table({"item": ["1", "1", "2"], "system": ["A", "B", "A"],
                                                "score": [70.0, float("nan"), float("inf")]})),
        ("scores-text", "ratings", pa.table({"item": ["1", "1", "2"], "system": ["A", "B", "A"],
                                             "score": ["70", "x", ""]})),
        ("scores-list", "ratings", pa.table({"item": ["1", "1", "2"], "system": ["A", "B", "A"],
                                             "score": [[70.0], [1.0], [2.0]]})),
        ("scores-no-system", "ratings", pa.table({"item": ["1", "1", "2"], "system": [None, "B", ""],
                                                  "score": [70.0, 55.0, 80.0]})),
        ("scores-all-nan", "ratings", pa.table({"item": ["1", "2"], "system": ["A", "B"],
                                                "score": [float("nan"), None]})),
    ]
    return cases


KINDS = ["truncate", "drop_field", "extra_field", "drop_column", "dup_column", "inject",
         "random_bytes", "reencode", "crlf", "blank_lines", "delete_rows", "duplicate_rows", "header_only", "empty",
         "none"]


REPEATS = {"inject": 9, "random_bytes": 2, "truncate": 2, "reencode": 3}


def _cases():
    rng = random.Random(SEED)
    out = []
    for name, fmt, spec, delimiter, _ in TEXT:
        for kind in KINDS:
            for repeat in range(REPEATS.get(kind, 1)):
                seed = rng.randrange(2 ** 32)
                case_id = f"{name}-{kind}-{repeat}"
                marks = [pytest.mark.xfail(reason=KNOWN[case_id], strict=False)] if case_id in KNOWN else []
                out.append(pytest.param(("text", name, fmt, kind, seed), id=case_id, marks=marks))
    for kind in ["truncate", "inject", "inject", "crlf", "blank_lines", "reencode", "empty", "random_bytes",
                 "delete_rows", "missing_pe"]:
        out.append(pytest.param(("pe", "pe", "mlqe-pe", kind, rng.randrange(2 ** 32)), id=f"mlqe-pe-{kind}-{len(out)}"))
    for name, fmt, _ in _parquet_cases():
        out.append(pytest.param(("parquet", name, fmt, "parquet", 0), id=f"parquet-{name}"))
    return out


CASES = _cases()
PE_VALUES = ["nan", "inf", "-1", "x", "", "0.5", "1e400", "\x00"]


def _materialise(case, folder: Path) -> tuple[Path, int | None]:
    """Write the case's file(s); return the path to read and the number of data rows when the
    mutation kept one row per line (else None)."""
    source, name, fmt, kind, seed = case
    rng = random.Random(seed)
    if source == "parquet":
        table = dict((n, t) for n, _, t in _parquet_cases())[name]
        path = folder / f"{name}.parquet"
        pq.write_table(table, path)
        return path, table.num_rows
    if source == "pe":
        texts = {p: (FIXTURES / f"mlqe_pe_small.{p}").read_text(encoding="utf-8") for p in ("src", "mt", "pe", "hter")}
        part = rng.choice(["mt", "pe", "hter"])
        lines = texts[part].rstrip("\n").split("\n")
        if kind == "inject":
            lines[rng.randrange(len(lines))] = rng.choice(PE_VALUES) if part == "hter" else rng.choice(VALUES)
        elif kind in ("truncate", "delete_rows"):
            lines = lines[:-1]
        elif kind == "blank_lines":
            lines.append("")
        texts[part] = "\n".join(lines) + "\n"
        if kind == "crlf":
            texts = {p: t.replace("\n", "\r\n") for p, t in texts.items()}
        for p, t in texts.items():
            data = t.encode("utf-16" if kind == "reencode" and p == part else "utf-8")
            if kind == "empty" and p == part:
                data = b""
            if kind == "random_bytes" and p == part:
                data = bytearray(data)
                data[rng.randrange(len(data))] = rng.randrange(256)
                data = bytes(data)
            if not (kind == "missing_pe" and p == "pe"):
                (folder / f"x.{p}").write_bytes(data)
        return folder / "x.mt", None
    spec, delimiter = next((s, d) for n, _, s, d, _ in TEXT if n == name)
    data = _text_case(rng, name, _source(spec), delimiter, kind)
    path = folder / name
    path.write_bytes(data)
    rows = None
    quoting = next(q for n, _, _, _, q in TEXT if n == name)
    if kind in LINE_SAFE and fmt != "appraise-xml":
        text = _decoded(data)
        if text is not None and not (quoting and '"' in text) and "\x0c" not in text:
            body = [x for x in text.replace("\r\n", "\n").split("\n")[1 if delimiter else 0:] if x.strip()]
            rows = len(body)
    return path, rows


def _decoded(data: bytes) -> str | None:
    for bom, encoding in ((b"\xff\xfe\x00\x00", "utf-32"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"),
                          (b"\xef\xbb\xbf", "utf-8-sig")):
        if data.startswith(bom):
            return data.decode(encoding)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _kept(judgments) -> int:
    """Rows a reader turned into judgments, counted in the reader's own unit."""
    fmt = judgments.report.format.split(" ")[0]
    if fmt in ("wmt-csv", "wmt-legacy"):  # rows hold rankings, scores and edits at once
        return None
    if fmt == "pairwise":
        return len(judgments.comparisons)
    if fmt == "appraise-xml":
        return len(judgments.rankings)
    if fmt in ("ratings", "mqm-avg"):
        return len(judgments.ratings)
    if fmt in ("wmt-edits", "mlqe-pe"):
        return len(judgments.post_edits)
    return None


def _check_values(judgments) -> None:
    """What a reader returns is sound: finite scores, outcomes 0/1/2, no self-comparisons."""
    c, r, p = judgments.comparisons, judgments.ratings, judgments.post_edits
    if c is not None:
        assert set(np.unique(c.outcome)) <= {0, 1, 2}
        assert not np.any(c.a == c.b) and (c.a >= 0).all() and (c.b >= 0).all()
    if r is not None:
        assert np.isfinite(r.score).all()
        if judgments.report.format == "mlqe-da":
            assert ((r.score >= 0) & (r.score <= 100)).all()
    if p is not None:
        hter = p.hter[~np.isnan(p.hter)]
        assert np.isfinite(hter).all() and (hter >= 0).all()


@pytest.mark.parametrize("case", CASES)
def test_read_counts_or_refuses(case, tmp_path):
    path, rows = _materialise(case, tmp_path)
    fmt = case[2]
    try:
        judgments = humeval.read(path, format=fmt)
    except humeval.InputError as error:
        text = str(error)
        assert "\x00" not in text and "\x1b" not in text, text  # control characters are escaped
        return
    report = judgments.report
    assert any(len(t) for t in judgments.tables().values()), "a read that returns has judgments"
    _check_values(judgments)
    kept = _kept(judgments)
    if kept is not None:
        row_skips = sum(n for reason, n in report.skipped.items() if not reason.startswith("pairs"))
        if fmt == "appraise-xml":
            row_skips = sum(n for reason, n in report.skipped.items() if reason.startswith("ranking results"))
        assert kept + row_skips == report.rows, report
    if rows is not None:
        assert report.rows == rows, report


@pytest.mark.parametrize("case", CASES)
def test_info_never_reports_a_bug(case, tmp_path):
    path, _ = _materialise(case, tmp_path)
    result = CliRunner().invoke(cli, ["info", str(path)])
    output = result.output + (result.stderr if result.stderr_bytes is not None else "")
    assert result.exit_code in (0, 2), (result.exit_code, output, result.exception)
    assert BUG not in output, output


def test_case_count():
    """The suite is a few hundred cases (the brief: fast, seeded, every format)."""
    assert 200 <= len(CASES) <= 400
    assert {c.values[0][2] for c in CASES} == {"pairwise", "ratings", "mlqe-da", "mlqe-pe", "mqm", "mqm-avg",
                                                "wmt-edits", "appraise-xml", "wmt-csv", "wmt-legacy"}
