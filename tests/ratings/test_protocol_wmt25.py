"""The ``wmt25`` protocol (WMT25's 08-compute_clusters.py) on a hand-computed fixture.

tests/fixtures/wmt25_small.jsonl: one pair (en-cs_CZ), systems A, B, C, three segments, two waves
(A's second wave of the speech segment is NaN):

    segment        A          B          C
    news d1/0      90, 80     60, 62     61.5, 58
    news d1/1      85, 95     64, 66     65.25, 61.9
    speech d2/0    70, NaN    68, 55     57.3, 70.2

Means: A 420/5 = 84, B 375/6 = 62.5, C 374.15/6 = 62.3583…; domains A news 87.5, speech 70.
A − B with the waves crossed: 30 28 20 18 | 21 19 31 29 | 2 15, all positive, n = 10, so the exact
one-sided signed-rank p = 2⁻¹⁰ = 0.0009765625 < 0.025. (Without crossing, the 5 same-wave pairs
would give 2⁻⁵ = 0.03125, not significant: the crossing decides it.)
B − C: −1.5 2 0.5 4 | −1.25 2.1 0.75 4.1 | 10.7 −2.2 −2.3 −15.2: ranks of |d| 1+ 2+ 3− 4− 5+ 6+ 7− 8− 9+
10+ 11+ 12−, T⁺ = 44 of 78; p = P(T⁺ ≥ 44) by enumerating the 2¹² sign patterns (> 0.025).
Ranges: A 1–1 (beats B), B 2–3 (A beats it; not C), C 2–3; clusters A | B C.
"""

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import humeval
from humeval.cli import cli
from humeval.ratings import protocols
from humeval.ratings.wmt25 import cluster_ends, pair_differences, rank_ranges, wmt25

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "wmt25_small.jsonl"


def exact_upper_p(d):
    """P(T⁺ ≥ observed) over all sign patterns: the exact one-sided signed-rank p (no ties, no zeros)."""
    ranks = np.argsort(np.argsort(np.abs(d))) + 1
    observed = ranks[np.asarray(d) > 0].sum()
    total = [sum(r for r, s in zip(ranks, signs) if s) for signs in itertools.product((0, 1), repeat=len(d))]
    return np.mean(np.array(total) >= observed)


@pytest.fixture(scope="module")
def result():
    return wmt25(humeval.read(FIXTURE).ratings)


def test_scores_order_and_domains(result):
    t = result.table
    assert list(t.index) == ["A", "B", "C"]
    assert t["score"].to_list() == pytest.approx([84, 62.5, 374.15 / 6], rel=1e-12)
    assert t["n"].to_list() == [5, 6, 6]
    assert not any("no score in the file" in n for n in result.notes)  # A's NaN wave leaves one score, not none
    assert t.loc["A", "domain_news"] == pytest.approx(87.5) and t.loc["A", "domain_speech"] == pytest.approx(70)


def test_waves_are_crossed_and_tested_one_sided(result):
    p = result.pvalues
    assert p.loc["A", "B"] == pytest.approx(2 ** -10, rel=1e-12)
    d = [-1.5, 2, 0.5, 4, -1.25, 2.1, 0.75, 4.1, 10.7, -2.2, -2.3, -15.2]
    assert p.loc["B", "C"] == pytest.approx(exact_upper_p(d), rel=1e-12)
    assert p.loc["C", "B"] == pytest.approx(exact_upper_p([-x for x in d]), rel=1e-12)
    assert p.loc["B", "C"] > 0.025 and result.alpha == 0.025


def test_pairs_are_the_cross_product_of_the_waves():
    import pandas as pd
    a = pd.Series([90, 80, 70], index=["s1", "s1", "s2"])
    b = pd.Series([60, 62, 68, 55], index=["s1", "s1", "s2", "s2"])
    assert sorted(pair_differences(a, b)) == sorted([30, 28, 20, 18, 2, 15])


def test_rank_ranges_and_clusters(result):
    t = result.table
    assert t["rank"].to_list() == ["1-1", "2-3", "2-3"]
    assert t["cluster"].to_list() == [1, 2, 2]


def test_range_walk_stops_at_the_first_significant_system():
    # 4 systems best first; 1 beats 3 only, 2 beats 4 only. Row 1 down: 2 not (end 2), 3 beats → end 2.
    # Row 3 up: 2 not (start 2), 1 beats it → start 2. Row 4 up: 3 not, 2 beats it → start 3.
    s = np.zeros((4, 4), dtype=bool)
    s[0, 2] = s[1, 3] = True
    lo, hi = rank_ranges(s)
    assert lo.tolist() == [1, 1, 2, 3] and hi.tolist() == [2, 3, 4, 4]
    assert cluster_ends(lo, hi).tolist() == [1, 1, 1, 1]
    assert cluster_ends(np.array([1, 1, 3]), np.array([2, 2, 3])).tolist() == [1, 1, 2]


def test_rank_protocol_wmt25_prints_the_same_numbers(result):
    out = CliRunner().invoke(cli, ["rank", str(FIXTURE), "--protocol", "wmt25", "--json"])
    assert out.exit_code == 0, out.output
    shown = json.loads(out.output[out.output.index("{"):])
    (part,) = shown.values()
    assert part["protocol"] == "wmt25"
    assert {r["system"]: r["score"] for r in part["table"]} == pytest.approx(result.table["score"].to_dict())
    assert "wmt25" in protocols.PROTOCOLS
