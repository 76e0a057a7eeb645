"""WMT07's uniform chance agreement (P(E) = 1/k on a k-point scale, 1/3 for rankings) and the
pooled "(all)" rows of scale agreement, on hand-computed examples."""

from types import SimpleNamespace

import numpy as np
import pytest
from click.testing import CliRunner

from humeval.agreement import agreement_table, judge_quality, ranking_agreement, rating_agreement
from humeval.agreement.scales import scale_points
from humeval.cli import cli
from humeval.data import Rankings, Ratings


def one_item(scale=""):
    # item i1, system S: j1 4, j2 4, j3 2, j1 again 4; item i2: j1 1, j2 2 (tests/agreement/test_rankings_and_judges)
    return Ratings(item=[0, 0, 0, 0, 1, 1], system=[0] * 6, judge=[0, 1, 2, 0, 0, 1], criterion=[0] * 6,
                   score=[4.0, 4, 2, 4, 1, 2], systems=("S",), items=("i1", "i2"), judges=("j1", "j2", "j3"),
                   criteria=("adequacy",), scale=scale)


def test_uniform_chance_on_a_declared_five_point_scale():
    """Inter P(A) = 2/6 (see test_scale_agreement_by_hand). WMT07: P(E) = 1/5, so
    kappa = (1/3 − 1/5) / (4/5) = 1/6. Linear weights |a − b| / 4 over the 6 inter pairs:
    0, 2, 2, 0, 2 (item i1) and 1 (i2): P(A) = 1 − 7/24 = 17/24; under the uniform distribution on
    1..5, E|a − b| = 2·(4·1 + 3·2 + 2·3 + 1·4)/25 = 1.6, P(E) = 1 − 1.6/4 = 3/5, kappa = 13/48."""
    r = one_item("1-5")
    np.testing.assert_array_equal(scale_points(r), [1, 2, 3, 4, 5])
    result = rating_agreement(r, expected="uniform")
    inter = result["inter"]
    assert inter.p_expected == pytest.approx(1 / 5) and inter.kappa == pytest.approx(1 / 6)
    assert "1/5" in inter.method and result["intra"].p_expected == pytest.approx(1 / 5)
    weighted = result["inter (linear weights)"]
    assert weighted.p_agree == pytest.approx(17 / 24) and weighted.p_expected == pytest.approx(3 / 5)
    assert weighted.kappa == pytest.approx(13 / 48)
    # the observed default is unchanged: P(E) = (1/6)² + (2/6)² + (3/6)² = 14/36
    assert rating_agreement(r)["inter"].p_expected == pytest.approx(14 / 36)


def test_uniform_chance_without_a_declared_scale_spans_the_scores_seen():
    """No declared scale: the points are 1..4 (lowest to highest score), P(E) = 1/4 and
    kappa = (1/3 − 1/4) / (3/4) = 1/9. A declared scale the scores do not fit is not used."""
    for r in (one_item(), one_item("0-1")):
        inter = rating_agreement(r, expected="uniform")["inter"]
        assert inter.p_expected == pytest.approx(1 / 4) and inter.kappa == pytest.approx(1 / 9)
    with pytest.raises(ValueError, match="rankings"):
        rating_agreement(one_item(), expected="wmt")


def test_uniform_chance_for_rankings_is_a_third():
    """WMT07's 1/3 for the labels <, =, >: with P(A) = 1/2 (test_wmt_agreement_by_hand),
    kappa = (1/2 − 1/3) / (2/3) = 1/4; with ties dropped the labels are two: P(E) = 1/2."""
    comparisons = Rankings(system=[[0, 1, 2]] * 3, rank=[[1, 2, 2], [1, 1, 3], [1, 2, 3]], item=[0, 0, 0],
                           judge=[0, 1, 0], systems=("A", "B", "C"), items=("s1",), judges=("j1", "j2")).expand()
    inter = ranking_agreement(comparisons, expected="uniform")["inter"]
    assert inter.p_expected == pytest.approx(1 / 3) and inter.kappa == pytest.approx(1 / 4)
    no_ties = ranking_agreement(comparisons, drop_ties=True, expected="uniform")["inter"]
    assert no_ties.p_expected == pytest.approx(1 / 2) and no_ties.kappa == pytest.approx(1.0)
    quality = judge_quality(comparisons, expected="uniform", min_pairs=1)
    # j2 against j1's labels: (A,B) 0/2, (A,C) 2/2, (B,C) 1/2 -> 3/6; kappa (1/2 − 1/3)/(2/3)
    assert quality.loc["j2", "kappa"] == pytest.approx(1 / 4)


def two_tracks():
    """Track T1, item i1, system S: j1 3, j2 3. Track T2, the same item and system codes: j3 1, j4 2.
    Pairs never cross tracks: T1 1 of 1 agree, T2 0 of 1; pooled 1 of 2 (6 pairs if they crossed)."""
    return Ratings(item=[0, 0, 0, 0], system=[0] * 4, judge=[0, 1, 2, 3], criterion=[0] * 4, track=[0, 0, 1, 1],
                   score=[3.0, 3, 1, 2], systems=("S",), items=("i1",), judges=("j1", "j2", "j3", "j4"),
                   criteria=("fluency",), tracks=("T1", "T2"), scale="1-5")


def test_pooled_row_over_tracks():
    """Pooled: P(A) = 1/2 over 2 pairs; observed P(E) from the pooled scores 3, 3, 1, 2:
    (2/4)² + (1/4)² + (1/4)² = 3/8, kappa = (1/2 − 3/8) / (5/8) = 1/5; uniform P(E) = 1/5,
    kappa = (1/2 − 1/5) / (4/5) = 3/8."""
    for expected, p_e, kappa in (("observed", 3 / 8, 1 / 5), ("uniform", 1 / 5, 3 / 8)):
        table = agreement_table(SimpleNamespace(comparisons=None, ratings=two_tracks()), expected=expected)
        inter = table[table["agreement"] == "inter"].set_index("track")
        assert list(inter.index) == ["T1", "T2", "(all)"]
        assert inter.loc["T1", "P(A)"] == 1.0 and inter.loc["T2", "P(A)"] == 0.0
        assert (inter.loc["(all)", "P(A)"], inter.loc["(all)", "pairs"]) == (0.5, 2)
        assert inter.loc["(all)", "P(E)"] == pytest.approx(p_e) and inter.loc["(all)", "kappa"] == pytest.approx(kappa)
    one = agreement_table(SimpleNamespace(comparisons=None, ratings=one_item("1-5")))
    assert "(all)" not in set(one["track"])  # one track: nothing to pool


def test_agreement_command_takes_the_chance_rate(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("item,system,judge,track,score\ni1,S,j1,T1,3\ni1,S,j2,T1,3\ni1,S,j3,T2,1\ni1,S,j4,T2,2\n")
    result = CliRunner().invoke(cli, ["agreement", str(path), "--expected", "uniform", "--json"])
    assert result.exit_code == 0, result.output
    import json
    rows = json.loads(result.output)[str(path)]
    pooled = [r for r in rows if r["track"] == "(all)" and r["agreement"] == "inter"]
    # the scores 1..3 declare no scale: P(E) = 1/3, kappa = (1/2 − 1/3) / (2/3) = 1/4
    assert len(pooled) == 1 and pooled[0]["P(E)"] == pytest.approx(1 / 3) and pooled[0]["kappa"] == pytest.approx(1 / 4)
    shown = CliRunner().invoke(cli, ["agreement", str(path), "--expected", "uniform"])
    assert "WMT07" in shown.output and "pooled over the tracks" in " ".join(shown.output.split())
    wmt = CliRunner().invoke(cli, ["agreement", str(path), "--expected", "wmt"])
    assert wmt.exit_code == 2 and "--expected" in wmt.output
