"""Sorting labels by their bytes (``_sort.sort_order``) and coding one column through its sorted
dictionary (``encode_arrow``'s path for a dictionary that holds each value once): both must
give exactly what Python's ``sorted`` and the general path give."""

import random

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from humeval.data.readers._arrow import encode_arrow
from humeval.data.readers._sort import sort_order

# NUL (a longer string padded with zeros must still sort after its prefix), two- to four-byte
# UTF-8, white space, upper case: every byte order a label can meet
ALPHABET = ["a", "b", "\x00", "é", "中", "😀", " ", "z", "A"]


def _strings(rng: random.Random, prefix: str = "") -> list:
    n = rng.randint(0, 60)
    letters = ALPHABET[:rng.randint(1, len(ALPHABET))]
    values = [prefix + "".join(rng.choice(letters) for _ in range(rng.choice([0, 1, 3, 7, 8, 9, 15, 16, 17, 25])))
              for _ in range(n)]
    if values and rng.random() < 0.3:
        values[rng.randrange(len(values))] = None
    return values


@pytest.mark.parametrize("seed", range(6))
def test_sort_order_is_pythons_order(seed):
    rng = random.Random(seed)
    for _ in range(150):
        prefix = rng.choice(["", "arena_user_", "model-", "0000000000000000", "a"])
        values = _strings(rng, prefix)
        array = pa.array(values, pa.string())
        if len(array) > 2 and rng.random() < 0.3:
            array = array.slice(1, len(array) - 2)  # an array that starts inside its buffers
        got = [array[int(i)].as_py() for i in sort_order(array)]
        present = [v for v in array.to_pylist() if v is not None]
        assert got == sorted(present) + [None] * array.null_count
        # equal strings keep their order, as arrow's stable sort keeps them
        assert np.array_equal(sort_order(array), pc.sort_indices(array).to_numpy())


def test_sort_order_of_ids_with_a_shared_prefix_and_of_nothing():
    ids = pa.array([f"arena_user_{i}" for i in (10, 9, 100, 1, 11)] + ["arena_user_"])
    assert [ids[int(i)].as_py() for i in sort_order(ids)] == sorted(ids.to_pylist())
    assert sort_order(pa.array([], pa.string())).tolist() == []
    assert sort_order(pa.array([None, None], pa.string())).tolist() == [0, 1]
    assert sort_order(pa.array(["", ""], pa.large_string())).tolist() == [0, 1]


def test_one_column_codes_equal_the_general_path():
    rng = random.Random(7)
    values = [rng.choice(["b", "a", " ", "", None, "c", "é", "a\x00"]) for _ in range(500)]
    column = pa.chunked_array([pa.array(values[:200]), pa.array(values[200:])])
    (codes,), labels = encode_arrow(column)
    assert labels == ("a", "a\x00", "b", "c", "é")  # blanks (empty, white space, null) are not labels
    expected = [labels.index(v) if v is not None and v.strip() else -1 for v in values]
    assert codes.tolist() == expected
    # two columns take the general path (unique + lookup); the one-column path agrees with it
    (again, _), both = encode_arrow(column, pa.chunked_array([pa.array(["zz"])]))
    assert both == tuple(sorted(labels + ("zz",)))
    assert [both[c] if c >= 0 else None for c in again] == [labels[c] if c >= 0 else None for c in codes]


def test_a_dictionary_that_repeats_a_value_takes_the_general_path():
    # arrow allows a dictionary to hold a value twice (a file may be written so): both entries
    # must get one code, not two labels that print alike
    dictionary = pa.array(["b", "a", "b", " "])
    column = pa.chunked_array([pa.DictionaryArray.from_arrays(pa.array([0, 1, 2, 3, None, 2], pa.int32()), dictionary)])
    (codes,), labels = encode_arrow(column)
    assert labels == ("a", "b")
    assert codes.tolist() == [1, 0, 1, -1, -1, 1]


def test_label_columns_hashed_on_arrow_pool_read_as_before(monkeypatch, tmp_path):
    # the pairwise and ratings readers dictionary-encode their label columns on arrow's pool
    # (dictionary_columns); one thread (arrow's pool of one: the plain path) must read the same
    from humeval import read
    from humeval.data.readers._arrow import dictionary_columns
    monkeypatch.setattr(pa, "cpu_count", lambda: 2)  # a CLI test in this process may have set arrow's pool to 1
    table = pa.table({"a": ["x", None, "y", "x"], "b": pa.array([1, 2, 3, 4]), "c": ["q", "q", " ", "r"]})
    encoded = dictionary_columns(table, ["a", "b", "c", "absent"])
    assert pa.types.is_dictionary(encoded.schema.field("a").type) and encoded.schema.field("b").type == pa.int64()
    assert encoded["a"].cast(pa.string()).to_pylist() == table["a"].to_pylist()
    path = tmp_path / "battles.csv"
    path.write_text("model_a,model_b,winner,question_id,judge\n"
                    + "".join(f"m{i % 5},m{(i + 1) % 5},{('model_a', 'tie', 'model_b')[i % 3]},q{i % 7},u{i % 3}\n"
                              for i in range(40)))
    pooled = read(path).comparisons
    monkeypatch.setattr(pa, "cpu_count", lambda: 1)
    plain = read(path).comparisons
    for column in ("a", "b", "outcome", "item", "judge"):
        assert np.array_equal(getattr(pooled, column), getattr(plain, column))
    assert pooled.systems == plain.systems == ("m0", "m1", "m2", "m3", "m4")
    assert pooled.items == tuple(f"q{i}" for i in range(7))
