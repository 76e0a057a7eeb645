"""Regressions for what tests/fuzz/test_fuzz_arena.py found in the arena readers."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import humeval
from conftest import FIXTURES
from humeval.errors import InputError

RECORDS = json.loads((FIXTURES / "arena_battles.json").read_text(encoding="utf-8"))


def test_count_beyond_2_to_53_is_read_as_the_nearest_float(tmp_path):
    """Arrow's safe cast refused int64 values above 2**53 with an ArrowInvalid traceback."""
    path = tmp_path / "x.parquet"
    pq.write_table(pa.table({"model_a": ["a", "b"], "model_b": ["b", "a"], "winner": ["model_a", "tie"],
                             "x": [2 ** 62, 0]}), path)
    c = humeval.read(path, covariates="x").comparisons
    assert c.covariates[:, 0].tolist() == [2.0 ** 62, 0.0]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32", "utf-8-sig"])
def test_json_array_with_a_byte_order_mark_is_an_array(tmp_path, encoding):
    """A UTF-16 clean_battle file was taken for JSON lines ("not valid JSON at column 2")."""
    path = tmp_path / "battles.json"
    path.write_bytes((FIXTURES / "arena_battles.json").read_text(encoding="utf-8").encode(encoding))
    c = humeval.read(path, style=True).comparisons
    assert len(c) == 8 and c.bothbad.sum() == 2
    np.testing.assert_array_equal(c.covariates, humeval.read(FIXTURES / "arena_battles.json", style=True)
                                  .comparisons.covariates)


def test_json_array_in_an_encoding_without_a_mark(tmp_path):
    path = tmp_path / "battles.json"
    path.write_bytes((FIXTURES / "arena_battles.json").read_text(encoding="utf-8").encode("utf-16-le"))
    assert len(humeval.read(path, format="pairwise", encoding="utf-16-le").comparisons) == 8


def test_nested_field_of_another_type_is_named_with_its_record(tmp_path):
    """Arrow's "Column(/conv_metadata/…) changed from number to string in row 2" named no
    record: the message now gives the dotted field and the record."""
    records = json.loads(json.dumps(RECORDS))
    records[4]["conv_metadata"]["header_count_a"]["h3"] = "x"
    path = tmp_path / "battles.json"
    path.write_text(json.dumps(records))
    with pytest.raises(InputError, match=r"'conv_metadata\.header_count_a\.h3' is a string here but a number in "
                                         r"record 1 \(record 5\)"):
        humeval.read(path)
    lines = tmp_path / "battles.jsonl"
    lines.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    with pytest.raises(InputError, match=r"battles\.jsonl:5: 'conv_metadata\.header_count_a\.h3' is a string"):
        humeval.read(lines)
