"""Fuzzing the arena columns: malformed variants of arena battles files (FastChat's JSON array with
``conv_metadata`` and ``category_tag``, JSON lines with weights, a votes CSV with weights,
covariate columns and categories, and humeval's own layout with ``cov:NAME`` columns as
``convert`` writes it) read with the arena options must end in a counted read or an
``InputError``; ``convert`` with the same options must exit 0 or 2, never with the "bug" line,
and what it writes must read back with the same covariates without options; `rank -m bt
--both-bad loss --intervals fisher` with those options on the record-level and Parquet cases must
exit 0 or 2.

Record-level mutations (a value replaced at any depth, a key dropped or added, a column of
another type in every record, a record that is not an object) work on the parsed JSON; text
mutations (truncation, random bytes, re-encodings, the line mutations of ``test_fuzz_readers``)
on the bytes. Every case is seeded, so a failure reproduces by its test id.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import humeval
from humeval.cli import cli
from test_fuzz_readers import BUG, ENCODINGS, _mutate_lines

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SEED = 18
RECORDS = json.loads((FIXTURES / "arena_battles.json").read_text(encoding="utf-8"))
STYLE_ONLY = {"style": True}
# the reader options of each source, as humeval.read keywords
OPTIONS = {
    "battles.json": {"style": True, "category": "language", "covariates": "turn"},
    "battles-tag.json": {"covariates": "conv_metadata.sum_assistant_a_tokens/conv_metadata.sum_assistant_b_tokens",
                         "category": "category_tag.math_v0.1.math"},
    "battles.jsonl": {"style": True, "weight": "weight", "category": "language"},
    "votes.csv": {"weight": "weight", "covariates": "len_a/len_b,style_diff", "category": "category"},
    "converted.csv": {},  # humeval's layout: weight, category, bothbad and cov:NAME are read without options
    "converted.jsonl": {},
}
# JSON values a record-level mutation puts in (Python objects; NaN and inf are written as NaN / Infinity)
JSON_VALUES = [None, float("nan"), float("inf"), -1, -0.5, 0, 1e308, 2 ** 70, "", " ", "x", "1.5", "NaN", "\x00",
               "\x1b[2J", True, [], [1, 2], {}, {"h1": "x"}, {"h1": None, "h2": 3}, {"nested": {"deep": 1}}, "[/]"]
RECORD_KINDS = ["value", "value", "value", "value", "value", "nested_value", "nested_value", "nested_value",
                "drop_key", "drop_key", "add_key", "type_flip", "type_flip", "not_record", "none"]
TEXT_KINDS = ["truncate", "random_bytes", "reencode", "empty"]
LINE_KINDS = ["truncate", "drop_field", "extra_field", "drop_column", "dup_column", "inject", "inject", "inject",
              "inject", "inject", "random_bytes", "reencode", "crlf", "blank_lines", "delete_rows", "header_only",
              "empty", "none"]


def _cli_args(options: dict) -> list[str]:
    """The convert/rank options of reader keywords."""
    args = ["--style-control"] if options.get("style") else []
    for key, flag in (("weight", "--weight"), ("category", "--category"), ("covariates", "--covariates")):
        if options.get(key):
            args += [flag, options[key]]
    return args


def _records(name: str) -> list[dict]:
    records = [dict(r) for r in RECORDS]
    if name == "battles.jsonl":
        for i, r in enumerate(records):
            r["weight"] = [1, 2, 0.5, 1, 3, 1, 2, 1][i]
    return records


def _converted(folder: Path, suffix: str) -> Path:
    """The votes CSV as ``convert`` writes it (weight, category, cov:len_a-len_b, cov:style_diff)."""
    path = folder / f"base{suffix}"
    result = CliRunner().invoke(cli, ["convert", str(FIXTURES / "arena_weights.csv"), str(path),
                                      *_cli_args(OPTIONS["votes.csv"]), "-q"])
    assert result.exit_code == 0, result.output
    return path


def _paths(record: dict) -> list[tuple]:
    """Key paths into a record: top-level keys, and one and two levels into nested records."""
    out = []
    for key, value in record.items():
        out.append((key,))
        if isinstance(value, dict):
            for inner, deeper in value.items():
                out.append((key, inner))
                if isinstance(deeper, dict):
                    out += [(key, inner, d) for d in deeper]
    return out


def _set(record: dict, path: tuple, value=None, delete: bool = False):
    for key in path[:-1]:
        record = record[key]
    if delete:
        del record[path[-1]]
    else:
        record[path[-1]] = value


def _mutate_records(records: list[dict], rng: random.Random, kind: str) -> list:
    records = json.loads(json.dumps(records))  # a deep copy
    i = rng.randrange(len(records))
    if kind in ("value", "nested_value"):
        paths = _paths(records[i])
        nested = [p for p in paths if len(p) > 1]
        _set(records[i], rng.choice(nested if kind == "nested_value" and nested else paths), rng.choice(JSON_VALUES))
    elif kind == "drop_key":
        _set(records[i], rng.choice(_paths(records[i])), delete=True)
    elif kind == "add_key":
        records[i][rng.choice(["weight", "extra", "language", "turn"])] = rng.choice(JSON_VALUES)
    elif kind == "type_flip":  # one column of another type in every record (arrow infers that type)
        path = rng.choice(_paths(records[0]))
        value = rng.choice(JSON_VALUES)
        for record in records:
            try:
                _set(record, path, value)
            except (KeyError, TypeError):
                pass
    elif kind == "not_record":
        records[i] = rng.choice([1, "x", None, [1, 2], []])
    return records


def _json_text(records: list, jsonl: bool) -> str:
    if jsonl:
        return "\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n"
    return "[\n" + ",\n".join(" " + json.dumps(r, ensure_ascii=False) for r in records) + "\n]\n"


def _text_bytes(text: str, rng: random.Random, kind: str) -> bytes:
    if kind == "empty":
        return rng.choice([b"", b"[]", b"[\n]", b"  \n", b"[{}]", b"[1, 2]"])
    if kind == "truncate":
        text = text[:rng.randrange(1, len(text))]
    if kind == "reencode":
        return text.replace("e", "é", 1).encode(rng.choice(ENCODINGS))
    data = bytearray(text.encode("utf-8"))
    if kind == "random_bytes":
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data)


def _parquet_cases() -> dict[str, tuple[pa.Table, dict]]:
    base = {"model_a": ["gpt", "claude", "llama", "gpt"], "model_b": ["claude", "llama", "gpt", "llama"],
            "winner": ["model_a", "model_b", "tie", "tie (bothbad)"]}
    meta = {"sum_assistant_a_tokens": [300, 50, 80, 20], "sum_assistant_b_tokens": [100, 150, 80, 60],
            "header_count_a": [1, 0, 0, 0], "header_count_b": [0, 1, 0, 0], "list_count_a": [0, 0, 0, 0],
            "list_count_b": [2, 0, 0, 0], "bold_count_a": [0, 0, 1, 0], "bold_count_b": [0, 0, 0, 1]}

    def struct(**change):
        return pa.array([{k: (change.get(k, v))[i] if k in change else v[i] for k, v in meta.items()}
                         for i in range(4)])

    style = dict(STYLE_ONLY)
    return {
        "style-ok": (pa.table({**base, "conv_metadata": struct()}), style),
        "style-text-counts": (pa.table({**base, "conv_metadata": struct(header_count_a=["1", "x", "", None])}), style),
        "style-list-counts": (pa.table({**base, "conv_metadata": pa.array(
            [{"sum_assistant_a_tokens": [1, 2]}] * 4)}), style),
        "style-null-record": (pa.table({**base, "conv_metadata": pa.array(
            [None, *struct().to_pylist()[1:]])}), style),
        "style-nan-inf": (pa.table({**base, "conv_metadata": struct(
            sum_assistant_a_tokens=[float("nan"), float("inf"), 1.0, 2.0])}), style),
        "style-metadata-string": (pa.table({**base, "conv_metadata": ["{}", "x", "", None]}), style),
        "style-missing-field": (pa.table({**base, "conv_metadata": pa.array(
            [{"sum_assistant_a_tokens": 1}] * 4)}), style),
        "style-huge": (pa.table({**base, "conv_metadata": struct(sum_assistant_a_tokens=[2 ** 62] * 4)}), style),
        "weight-text": (pa.table({**base, "w": ["1", "two", "", None]}), {"weight": "w"}),
        "weight-negative": (pa.table({**base, "w": [1.0, -1.0, 2.0, 1.0]}), {"weight": "w"}),
        "weight-inf": (pa.table({**base, "w": [1.0, float("inf"), 2.0, 1.0]}), {"weight": "w"}),
        "weight-bool": (pa.table({**base, "w": [True, False, True, True]}), {"weight": "w"}),
        "weight-all-zero": (pa.table({**base, "w": [0.0, 0.0, None, float("nan")]}), {"weight": "w"}),
        "weight-list": (pa.table({**base, "w": [[1.0], [2.0], [], None]}), {"weight": "w"}),
        "weight-dictionary": (pa.table({**base, "w": pa.array(["1", "2", "1", "3"]).dictionary_encode()}),
                              {"weight": "w"}),
        "weight-date": (pa.table({**base, "w": pa.array([0, 1, 2, 3], pa.date32())}), {"weight": "w"}),
        "category-struct": (pa.table({**base, "c": [{"x": 1}] * 4}), {"category": "c"}),
        "category-list": (pa.table({**base, "c": [["a"], ["b"], [], None]}), {"category": "c"}),
        "category-int-null": (pa.table({**base, "c": [1, None, 2, 1]}), {"category": "c"}),
        "category-missing": (pa.table(base), {"category": "c"}),
        "covariate-list": (pa.table({**base, "x": [[1.0], [2.0], [], None]}), {"covariates": "x"}),
        "covariate-text": (pa.table({**base, "x": ["1", "NaN", "inf", "x"]}), {"covariates": "x"}),
        "covariate-twice": (pa.table({**base, "x": [1.0, 2.0, 3.0, 4.0]}), {"covariates": "x,x"}),
        "covariate-slash-missing": (pa.table({**base, "x": [1.0, 2.0, 3.0, 4.0]}), {"covariates": "x/y"}),
        "covariate-nested-missing": (pa.table({**base, "conv_metadata": struct()}),
                                     {"covariates": "conv_metadata.nothing"}),
        "covariate-through-scalar": (pa.table({**base, "x": [1.0, 2.0, 3.0, 4.0]}), {"covariates": "x.y"}),
        "covariate-all-null": (pa.table({**base, "x": pa.array([None] * 4, pa.float64())}), {"covariates": "x"}),
        "covariate-style-clash": (pa.table({**base, "length": [1.0] * 4, "conv_metadata": struct()}),
                                  {"covariates": "length", "style": True}),
        "own-cov-text": (pa.table({"system_a": base["model_a"], "system_b": base["model_b"], "outcome": [1, 2, 0, 0],
                                   "cov:len": ["1", "x", "", None]}), {}),
        "own-cov-list": (pa.table({"system_a": base["model_a"], "system_b": base["model_b"], "outcome": [1, 2, 0, 0],
                                   "cov:len": [[1.0], [2.0], [], None]}), {}),
        "own-cov-empty-name": (pa.table({"system_a": base["model_a"], "system_b": base["model_b"],
                                         "outcome": [1, 2, 0, 0], "cov:": [1.0, 2.0, 3.0, 4.0]}), {}),
        "own-bothbad-text": (pa.table({"system_a": base["model_a"], "system_b": base["model_b"],
                                       "outcome": [1, 2, 0, 0], "bothbad": ["yes", "maybe", "", None]}), {}),
    }


def _cases():
    rng = random.Random(SEED)
    out = []
    for name in ("battles.json", "battles-tag.json", "battles.jsonl"):
        for kind in RECORD_KINDS + TEXT_KINDS:
            out.append(pytest.param(("records", name, kind, rng.randrange(2 ** 32)), id=f"{name}-{kind}-{len(out)}"))
    for name in ("votes.csv", "converted.csv", "converted.jsonl"):
        for kind in LINE_KINDS:
            out.append(pytest.param(("lines", name, kind, rng.randrange(2 ** 32)), id=f"{name}-{kind}-{len(out)}"))
    for name in _parquet_cases():
        out.append(pytest.param(("parquet", name, "parquet", 0), id=f"parquet-{name}"))
    return out


CASES = _cases()


def _materialise(case, folder: Path) -> tuple[Path, dict]:
    source, name, kind, seed = case
    rng = random.Random(seed)
    if source == "parquet":
        table, options = _parquet_cases()[name]
        path = folder / f"{name}.parquet"
        pq.write_table(table, path)
        return path, options
    options = OPTIONS[name]
    if source == "records":
        jsonl = name.endswith(".jsonl")
        records = _records(name)
        if kind in RECORD_KINDS:
            data = _json_text(_mutate_records(records, rng, kind), jsonl).encode("utf-8")
        else:
            data = _text_bytes(_json_text(records, jsonl), rng, kind)
    else:
        if name == "votes.csv":
            text = (FIXTURES / "arena_weights.csv").read_text(encoding="utf-8")
            delimiter = ","
        else:
            text = _converted(folder, Path(name).suffix).read_text(encoding="utf-8")
            delimiter = "," if name.endswith(".csv") else None
        if kind == "empty":
            data = rng.choice([b"", b"\n"])
        else:
            lines = _mutate_lines(text.rstrip("\n").split("\n"), delimiter, rng, kind)
            if not delimiter and kind == "inject":  # JSON lines: a value of an arena key
                i = rng.randrange(len(lines))
                try:
                    record = json.loads(lines[i])
                    record[rng.choice(["weight", "category", "bothbad", "cov:len_a-len_b", "cov:style_diff"])] = \
                        rng.choice(JSON_VALUES)
                    lines[i] = json.dumps(record)
                except (ValueError, TypeError):
                    pass
            text = "\n".join(lines) + "\n"
            if kind == "crlf":
                text = text.replace("\n", "\r\n")
            data = text.replace("e", "é", 1).encode(rng.choice(ENCODINGS)) if kind == "reencode" else \
                text.encode("utf-8")
            if kind == "random_bytes":
                data = bytearray(data)
                for _ in range(rng.randint(1, 6)):
                    data[rng.randrange(len(data))] = rng.randrange(256)
                data = bytes(data)
    path = folder / name
    path.write_bytes(data)
    return path, options


def _check(judgments, options):
    """A read that returns is sound: kept + skipped rows = rows read, finite covariates, weights
    finite and > 0 (0 is a counted skip), outcomes 0/1/2, both-bad only on ties."""
    c = judgments.comparisons
    report = judgments.report
    assert c is not None and len(c)
    assert len(c) + sum(report.skipped.values()) == report.rows, report
    assert set(np.unique(c.outcome)) <= {0, 1, 2} and not np.any(c.a == c.b)
    assert np.isfinite(c.covariates).all()
    assert np.isfinite(c.weight).all() and (c.weight > 0).all()
    assert not np.any(c.bothbad & (c.outcome != 0))
    if options.get("style"):
        assert c.covariate_names[-4:] == ("length", "headers", "lists", "bold")
    if options.get("category"):
        assert (c.category < len(c.categories)).all()


@pytest.mark.parametrize("case", CASES)
def test_read_counts_or_refuses(case, tmp_path):
    path, options = _materialise(case, tmp_path)
    try:
        judgments = humeval.read(path, format="pairwise", **options)
    except humeval.InputError as error:
        text = str(error)
        assert "\x00" not in text and "\x1b" not in text, text
        return
    _check(judgments, options)


@pytest.mark.parametrize("case", CASES)
def test_convert_exits_cleanly_and_round_trips(case, tmp_path):
    path, options = _materialise(case, tmp_path)
    out = tmp_path / "out.parquet"
    result = CliRunner().invoke(cli, ["convert", str(path), str(out), "-f", "pairwise", *_cli_args(options), "--json"])
    output = result.output + (result.stderr if result.stderr_bytes is not None else "")
    assert result.exit_code in (0, 2), (result.exit_code, output, result.exception)
    assert BUG not in output, output
    if result.exit_code == 0:
        read = humeval.read(path, format="pairwise", **options).comparisons
        back = humeval.read(out).comparisons
        assert back.covariate_names == read.covariate_names and back.systems == read.systems
        np.testing.assert_array_equal(back.covariates, read.covariates)
        np.testing.assert_array_equal(back.weight, read.weight)
        np.testing.assert_array_equal(back.bothbad, read.bothbad)


def test_case_count():
    """Every source and every mutation kind is covered, in about 150 cases."""
    assert 120 <= len(CASES) <= 200
    assert {c.values[0][1] for c in CASES} >= set(OPTIONS)


RANK_CASES = [c for c in CASES if c.values[0][2] in ("value", "nested_value", "drop_key", "type_flip", "inject",
                                                     "delete_rows", "none", "parquet")]


@pytest.mark.parametrize("case", RANK_CASES)
def test_rank_with_arena_options_exits_cleanly(case, tmp_path):
    """`rank -m bt` with the source's arena options, both-bad ties as losses against the anchor and
    Fisher intervals: exit 0 or 2, never the "bug" line."""
    path, options = _materialise(case, tmp_path)
    result = CliRunner().invoke(cli, ["rank", str(path), "-f", "pairwise", "-m", "bt", "--both-bad", "loss",
                                      "--intervals", "fisher", *_cli_args(options), "--json"])
    output = result.output + (result.stderr if result.stderr_bytes is not None else "")
    assert result.exit_code in (0, 2), (result.exit_code, output, result.exception)
    assert BUG not in output, output
