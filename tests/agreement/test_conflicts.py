"""Conflicting judgments of one pair become ties (Denkowski & Lavie 2010, §3.2), checked by hand."""

import numpy as np
import pandas as pd

import humeval
from conftest import shared_file
from humeval.agreement import resolve_conflicts
from humeval.data.tables import Comparisons

# (judge, item, a, b, outcome): 1 = a preferred, 2 = b preferred, 0 = tie
ROWS = [
    ("J1", "s1", "A", "B", 1),  # J1 on s1: A>B, B>A (written as b of a B-A row), A>B
    ("J1", "s1", "B", "A", 1),
    ("J1", "s1", "A", "B", 1),
    ("J2", "s1", "A", "B", 2),  # J2 on s1: B>A once
    ("J1", "s1", "A", "C", 0),  # a tie stays a tie
    ("J1", "s2", "A", "B", 2),  # another segment: no conflict with s1
    ("J3", "s2", "A", "B", 2),
]


def table():
    return Comparisons.from_pandas(pd.DataFrame(ROWS, columns=["judge", "item", "a", "b", "outcome"]))


def rows(c):
    return sorted(map(tuple, c.to_pandas()[["judge", "item", "a", "b", "outcome"]].to_numpy().tolist()))


def test_one_judges_contradiction_becomes_one_tie():
    resolved, n = resolve_conflicts(table())
    # J1/s1: x = 2 (A wins), y = 1 (B wins) → 1 tie + 1 A>B; everything else unchanged
    assert n == 1 and len(resolved) == 6
    assert rows(resolved) == sorted([("J1", "s1", "A", "B", 0), ("J1", "s1", "A", "B", 1), ("J2", "s1", "A", "B", 2),
                                     ("J1", "s1", "A", "C", 0), ("J1", "s2", "A", "B", 2), ("J3", "s2", "A", "B", 2)])


def test_across_judges_pairs_off_every_conflict():
    resolved, n = resolve_conflicts(table(), across_judges=True)
    # s1, A vs B: A wins 2 (J1 twice), B wins 2 (J1 once, J2 once) → 2 ties, nothing decisive left
    assert n == 2 and len(resolved) == 5
    ab = resolved.to_pandas().query("item == 's1' and ((a == 'A' and b == 'B') or (a == 'B' and b == 'A'))")
    assert list(ab["outcome"]) == [0, 0]
    # s2 agrees (B>A twice): untouched
    assert list(resolved.to_pandas().query("item == 's2'")["outcome"]) == [2, 2]


def test_nothing_to_resolve_and_unknown_segments():
    c = Comparisons.from_pandas(pd.DataFrame({"a": ["A", "A"], "b": ["B", "B"], "outcome": [1, 2]}))
    same, n = resolve_conflicts(c)  # no item: the two judgments need not concern the same outputs
    assert n == 0 and list(same.outcome) == [1, 2]
    agreeing = table().take(np.array([5, 6]))
    assert resolve_conflicts(agreeing, across_judges=True)[1] == 0


def test_real_wmt10_contradictions():
    """WMT10 expert rankings hold a few repeated judgments of one segment by one judge; pairing
    them off keeps tie + decisive counts consistent: every resolved pair removes one comparison."""
    c = humeval.read(shared_file("wmt10-rankings/wmt10/data_RNK.csv")).comparisons
    resolved, n = resolve_conflicts(c)
    assert len(resolved) == len(c) - n
    assert int(np.sum(resolved.outcome == 0)) == int(np.sum(c.outcome == 0)) + n
    across, m = resolve_conflicts(c, across_judges=True)
    assert m >= n and len(across) == len(c) - m
