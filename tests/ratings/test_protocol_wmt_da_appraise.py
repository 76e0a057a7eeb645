"""The ``wmt-da-appraise`` protocol (WMT22's make_rankings.py, WMT21's ComputeWMT21Results.py) on a
hand-computed fixture: tests/fixtures/wmt_da_appraise_small.csv (Appraise's 9-field export, eng-deu).

TGT rows: u1 rates segments 1, 2 of A 90 80, B 60 50, C 70 40; u2 segments 3, 4 of A 85 99, B 45 66,
C 52 73; u3 only C/4 60. Controls of u1: CHK A/1 100, BAD A/1 20, REF A/2 95.
wmt22 (TGT only): u1 mean 65, deviations 25 15 −5 −15 5 −25, SS 1750, sd √350; u2 mean 70, deviations
15 29 −25 −4 −18 3, SS 2040, sd √408; u3 (one rating, sd undefined) dropped. Segment = that one z.
  A z = (40/√350 + 44/√408)/4, B = (−20/√350 − 29/√408)/4, C = (−20/√350 − 15/√408)/4; order A, C, B.
  A over B and over C: all four A segments above all four of the other, U = 16, exact p = 1/C(8,4) = 1/70.
  C over B: U = 4 + 0 + 1 + 4 = 9, p = P(U ≥ 9) by enumerating the 70 splits.
  wins A 2, C 0, B 0: running minimum 2 = 2 below A → boundary; clusters A | C B; ranks 1, 2-3, 2-3.
wmt21 (TGT and CHK): u1 over 90 80 60 50 70 40 100: mean 70, SS 2800, sd √(2800/6); A/1 = mean of the
  z of 90 and 100 = 25/√(2800/6); u3's single rating: sd (0/1) → 1, z 0. Raw A = (95 + 80 + 85 + 99)/4.
"""

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

import humeval
from humeval.ratings import protocols
from humeval.ratings.wmt_da_appraise import wmt_da_appraise

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "wmt_da_appraise_small.csv"
S1, S2 = math.sqrt(350), math.sqrt(408)


def exact_u_p(x, y):
    """P(U ≥ observed) over every split of the pooled values (no ties): the exact one-sided p."""
    pooled = list(x) + list(y)
    u = lambda a, b: sum(ai > bi for ai in a for bi in b)
    observed = u(x, y)
    splits = list(itertools.combinations(range(len(pooled)), len(x)))
    hits = sum(u([pooled[i] for i in s], [pooled[i] for i in range(len(pooled)) if i not in s]) >= observed
               for s in splits)
    return hits / len(splits)


@pytest.fixture(scope="module")
def ratings():
    return humeval.read(FIXTURE, controls=True).ratings


def test_wmt22_scores_tests_and_clusters(ratings):
    r = wmt_da_appraise(ratings, variant="wmt22")
    t = r.table
    assert list(t.index) == ["A", "C", "B"]
    assert t["z"].to_list() == pytest.approx([(40 / S1 + 44 / S2) / 4, (-20 / S1 - 15 / S2) / 4,
                                              (-20 / S1 - 29 / S2) / 4], rel=1e-12)
    assert t["raw"].to_list() == pytest.approx([88.5, 58.75, 55.25])
    assert r.pvalues.loc["A", "B"] == pytest.approx(1 / 70) and r.pvalues.loc["A", "C"] == pytest.approx(1 / 70)
    c = [5 / S1, -25 / S1, -18 / S2, 3 / S2]
    b = [-5 / S1, -15 / S1, -25 / S2, -4 / S2]
    assert r.pvalues.loc["C", "B"] == pytest.approx(exact_u_p(c, b), rel=1e-12)
    assert t["wins"].to_list() == [2, 0, 0] and t["losses"].to_list() == [0, 1, 1]
    assert t["rank"].to_list() == ["1", "2-3", "2-3"] and t["cluster"].to_list() == [1, 2, 2]
    assert any("1 annotators with sd 0" in k for k in r.skipped)
    assert r.skipped["REPEAT rows (not rated rows in the wmt22 procedure)"] == 1


def test_wmt21_counts_repeats_and_divides_a_zero_sd_by_one(ratings):
    r = wmt_da_appraise(ratings, variant="wmt21")
    seg = r.segments.set_index(["system", "item"])
    sd1 = math.sqrt(2800 / 6)
    assert seg.loc[("A", "1"), "z"] == pytest.approx(25 / sd1, rel=1e-12)
    assert seg.loc[("C", "4"), "raw"] == pytest.approx((73 + 60) / 2)
    assert r.table.loc["A", "raw"] == pytest.approx((95 + 80 + 85 + 99) / 4)
    assert np.isnan(r.pvalues.loc["B", "A"])  # only systems below are tested
    assert r.table["cluster"].to_list() == [1, 2, 2]


def test_registered_and_refuses_an_unknown_variant(ratings):
    assert protocols.get("wmt-da-appraise").needs_controls
    with pytest.raises(ValueError, match="variant"):
        wmt_da_appraise(ratings, variant="wmt19")
