import numpy as np
import pytest

from humeval.data import Comparisons
from humeval.experiments import bootstrap
from humeval.ranking import BradleyTerry, base
from humeval.ranking.base import distinct, pair_cells


@pytest.mark.parametrize("size", [50, 10 ** 9])  # the counting pass, and the sort for a sparse key space
def test_distinct_is_numpy_unique(size):
    keys = np.random.default_rng(0).integers(0, 50, 1000) * (size // 50)
    values, position, counts = distinct(keys, size)
    expected, inverse, expected_counts = np.unique(keys, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(values, expected)
    np.testing.assert_array_equal(position, inverse)
    np.testing.assert_array_equal(counts, expected_counts)
    assert distinct(keys, size, inverse=False)[1] is None


def test_pair_cells_by_hand():
    c = Comparisons(a=[0, 1, 0, 2, 0, 1], b=[1, 0, 1, 2, 1, 2], outcome=[1, 2, 0, 1, 2, 1], systems=("x", "y", "z"))
    a, b, counts, row_cell = pair_cells(c)
    assert a.tolist() == [0, 1, 1] and b.tolist() == [1, 0, 2]
    # (x, y): one tie, one x preferred, one y preferred; (y, x): x preferred; (y, z): y preferred
    assert counts.tolist() == [[1, 1, 1], [0, 0, 1], [0, 1, 0]]
    assert row_cell.tolist() == [0, 1, 0, -1, 0, 2]


def test_fit_and_bootstrap_code_the_rows_once(monkeypatch):
    rng = np.random.default_rng(1)
    a = rng.integers(0, 6, 3000)
    c = Comparisons(a=a, b=(a + rng.integers(1, 6, 3000)) % 6, outcome=rng.integers(0, 3, 3000),
                    systems=tuple("abcdef"))
    calls = []
    original = base.pair_cells
    monkeypatch.setattr(base, "pair_cells", lambda *args, **kw: calls.append(1) or original(*args, **kw))
    import humeval.ranking.bradley_terry as bt
    monkeypatch.setattr(bt, "pair_cells", base.pair_cells)
    result = bootstrap(BradleyTerry(), c, n=50, random_state=0)
    assert len(calls) == 1 and result.table()["rank_lo"].notna().all()
