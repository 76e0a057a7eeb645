"""WMT's clusters from a significance matrix: hand examples with known answers."""

import numpy as np
import pytest

from humeval.ratings import clusters, wins

# Five systems, best first. A beats everybody; B, C, D beat E; B beats D but not C; C not D.
#       A  B  C  D  E
SIG = np.array([
    [0, 1, 1, 1, 1],  # A
    [0, 0, 0, 1, 1],  # B
    [0, 0, 0, 0, 1],  # C
    [0, 0, 0, 0, 1],  # D
    [0, 0, 0, 0, 0],  # E
], dtype=bool)


def test_a_line_where_everyone_above_beats_everyone_below():
    # lines after A (A beats all) and after D (A-D all beat E); B/C/D stay together (C ~ D)
    assert clusters(SIG).tolist() == [1, 2, 2, 2, 3]
    assert wins(SIG).tolist() == [4, 2, 1, 1, 0]


def test_order_is_respected():
    order = np.array([4, 3, 2, 1, 0])  # listed worst first: nobody above is ever better
    assert clusters(SIG, order).tolist() == [1, 1, 1, 1, 1]
    shuffled = np.array([0, 2, 1, 3, 4])
    assert clusters(SIG, shuffled).tolist() == [1, 2, 2, 2, 3]


def test_the_two_readings_differ_when_significance_is_not_monotone():
    # A beats B but not C (C's scores vary more): "worse than all above" starts a cluster at B;
    # WMT's "above all beat all below" does not, since A does not beat C.
    sig = np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0]], dtype=bool)
    assert clusters(sig, rule="all-below").tolist() == [1, 1, 1]
    assert clusters(sig, rule="above").tolist() == [1, 2, 2]
    with pytest.raises(ValueError, match="unknown cluster rule 'x'"):
        clusters(sig, rule="x")
