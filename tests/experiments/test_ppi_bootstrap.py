"""The prediction-powered bootstrap (``ppi_bootstrap`` and its three users: Bradley–Terry,
Davidson, ratings means): coverage on simulated campaigns with a biased judge, agreement with the
sandwich on large campaigns, the resampling scheme itself; the swapped-order position check of
the judge audit."""

import numpy as np
import pandas as pd
import pytest

from humeval.data.tables import Comparisons
from humeval.experiments.judge_audit import swapped_orders, wilson
from humeval.experiments.ppi import (bootstrap_battles, bootstrap_system_means, ppi_bootstrap, ppi_bradley_terry,
                                     ppi_davidson, system_means)
from humeval.simulate.judged import judged_battles, judged_ratings

# The figures docs/tutorials/humans-and-judges.md quotes, as the tests below compute them
# (tests/test_tutorial_humans_and_judges.py checks the page quotes these).
FIGURES = {"bt": 0.935, "ratings": 0.94,
           "wmt20": {"ratio": (0.93, 1.06), "significant": 35, "human_significant": 36, "clusters": "11 | 1"}}


def test_resamples_pairs_and_judge_only_units_apart():
    """Each resample draws n labelled rows and N judge-only rows, each from its own part."""
    seen = []

    def statistic(i, j):
        seen.append((i.copy(), j.copy()))
        return np.array([len(i), len(j)])

    lo, hi = ppi_bootstrap(statistic, 7, 30, n_resamples=50, random_state=1)
    assert (lo == [7, 30]).all() and (hi == [7, 30]).all()
    assert all(i.max() < 7 and j.max() < 30 for i, j in seen)
    assert len({tuple(i) for i, _ in seen}) == 50  # a new draw each time
    again = []
    ppi_bootstrap(lambda i, j: again.append(i.copy()) or np.zeros(1), 7, 30, n_resamples=50, random_state=1)
    assert all((a == s[0]).all() for a, s in zip(again, seen))  # seeded


def test_percentiles_of_a_known_statistic():
    """The mean of 400 N(0, 1) draws resampled: the percentile interval is the CLT one within
    Monte-Carlo error (2,000 resamples: the bounds' sd ≈ 0.004)."""
    x = np.random.default_rng(0).normal(size=400)
    lo, hi = ppi_bootstrap(lambda i, j: np.array([x[i].mean()]), 400, 1, 2000, 0.95, random_state=0)
    half = 1.959964 * x.std() / 20
    assert lo[0] == pytest.approx(x.mean() - half, abs=0.015)
    assert hi[0] == pytest.approx(x.mean() + half, abs=0.015)


def test_bt_bootstrap_covers_the_truth_with_a_biased_judge():
    """40 campaigns × 5 systems = 200 intervals; 400 human and 1,500 judge battles, the judge
    biased by position, a favoured system and verbosity; 100 resamples each. Measured: 0.935 for
    both the combined and the human-only intervals (the judge alone covers about a third)."""
    cover = {"ppi": [], "human": []}
    for seed in range(40):
        truth, h, j = judged_battles(n_human=400, n_judge=1500, k=5, random_state=seed)
        boot = bootstrap_battles(ppi_bradley_terry(h, j)["ppi"], 100, random_state=seed).loc[truth.index]
        for kind in cover:
            cover[kind] += list((boot[f"{kind}_lo"] <= truth) & (truth <= boot[f"{kind}_hi"]))
    assert len(cover["ppi"]) == 200
    assert np.mean(cover["ppi"]) >= 0.90
    assert np.mean(cover["human"]) >= 0.90
    for kind in cover:  # the tutorial's figure (one interval flipped is 0.005)
        assert np.mean(cover[kind]) == pytest.approx(FIGURES["bt"], abs=0.0055)


@pytest.mark.parametrize("fit", [ppi_bradley_terry, ppi_davidson])
def test_battle_bootstrap_width_agrees_with_the_sandwich_on_a_large_campaign(fit):
    """3,000 human and 20,000 judge battles: bootstrap widths (300 resamples: a width's Monte-Carlo
    sd is about 6 %) within 15 % of the sandwich's for every system, 7 % on average, for the
    combined and the human-only abilities; the bootstrap re-tunes λ, the sandwich does not."""
    truth, h, j = judged_battles(n_human=3000, n_judge=20000, nu=0.8 if fit is ppi_davidson else 0.0,
                                 random_state=7)
    result = fit(h, j)
    boot = bootstrap_battles(result["ppi"], 300, random_state=0)
    for kind in ("ppi", "human"):
        iv = result[kind].intervals()
        ratio = (boot[f"{kind}_hi"] - boot[f"{kind}_lo"]) / (iv.hi - iv.lo)
        assert ratio.to_numpy() == pytest.approx(1, abs=0.15)
        assert ratio.mean() == pytest.approx(1, abs=0.07)
    assert (boot.ppi == result["ppi"].scores).all()


def test_means_bootstrap_agrees_with_the_sandwich_and_covers():
    """Ratings: 2,000 items × 5 systems, humans on 15 %: widths within 10 % of the sandwich's
    (1,000 resamples); and on 30 small campaigns (150 intervals) the combined intervals cover the
    true means at ≥ 90 %."""
    truth, h, j = judged_ratings(n_items=2000, random_state=3)
    table = system_means(h, j)
    boot = bootstrap_system_means(h, j, 1000, random_state=0).loc[table.index]
    for kind in ("ppi", "human"):
        ratio = (boot[f"{kind}_hi"] - boot[f"{kind}_lo"]) / (table[f"{kind}_hi"] - table[f"{kind}_lo"])
        assert ratio.to_numpy() == pytest.approx(1, abs=0.10)
    assert (boot.ppi == table.ppi).all()
    cover = []
    for seed in range(30):
        truth, h, j = judged_ratings(random_state=seed)
        b = bootstrap_system_means(h, j, 200, random_state=seed).loc[truth.index]
        cover += list((b.ppi_lo <= truth) & (truth <= b.ppi_hi))
    assert np.mean(cover) >= 0.90
    assert np.mean(cover) == pytest.approx(FIGURES["ratings"], abs=0.007)  # the tutorial's (150 intervals)


def test_bootstrap_is_seeded():
    truth, h, j = judged_battles(n_human=150, n_judge=600, nu=0.8, random_state=2)
    est = ppi_davidson(h, j)["ppi"]
    a, b = (bootstrap_battles(est, 20, random_state=5) for _ in range(2))
    pd.testing.assert_frame_equal(a, b)
    assert not bootstrap_battles(est, 20, random_state=6).equals(a)


# -- swapped orders -------------------------------------------------------------------------

def test_wilson_matches_the_published_interval():
    """2 of 5: Wilson's 95 % interval is (0.1176, 0.7693) (e.g. Newcombe 1998, Table I's method 3 style)."""
    lo, hi = wilson(0.4, 5)
    assert (lo, hi) == pytest.approx((0.1176, 0.7693), abs=1e-4)
    assert np.isnan(wilson(np.nan, 0)[0])


def _twice(pairs, pi, rng):
    """Battles judged in both orders by a judge that says "first shown" with probability ``pi``
    and otherwise names the truly better output: P(first shown wins in both) = π,
    P(consistent) = 1 − π, P(second shown wins in both) = 0."""
    x = rng.integers(0, 4, pairs)
    y = (x + rng.integers(1, 4, pairs)) % 4
    better_is_x = rng.random(pairs) < 0.5
    item = np.arange(pairs)

    def verdict(first_is_x):
        position = rng.random(pairs) < pi
        truthful = np.where(better_is_x == first_is_x, 1, 2)
        return np.where(position, 1, truthful).astype(np.int8)

    a, b = np.concatenate([x, y]), np.concatenate([y, x])
    outcome = np.concatenate([verdict(True), verdict(False)])
    return Comparisons(a=a, b=b, outcome=outcome, item=np.concatenate([item, item]),
                       systems=("S0", "S1", "S2", "S3"), items=tuple(f"q{i}" for i in range(pairs)))


@pytest.mark.parametrize("pi", [0.0, 0.3])
def test_swapped_orders_recover_a_planted_position_bias(pi):
    table = swapped_orders(_twice(3000, pi, np.random.default_rng(11)))
    assert (table.n == 3000).all()
    truth = {"consistent": 1 - pi, "first shown wins in both orders": pi, "second shown wins in both orders": 0.0}
    for name, share in truth.items():
        row = table.loc[name]
        assert row.lo <= share <= row.hi or share == 0 == row.estimate
        assert row.estimate == pytest.approx(share, abs=3 * np.sqrt(0.25 / 3000) + 1e-12)


def test_swapped_orders_none_twice_and_several_verdicts_per_order():
    one_way = Comparisons(a=np.array([0, 1]), b=np.array([1, 2]), outcome=np.array([1, 2], np.int8),
                          item=np.array([0, 0]), systems=("A", "B", "C"), items=("q",))
    table = swapped_orders(one_way)
    assert (table.n == 0).all() and table.estimate.isna().all()
    # q: A–B judged twice as (A, B) and once as (B, A): one twin pair (the first of each order), A in both
    c = Comparisons(a=np.array([0, 0, 1]), b=np.array([1, 1, 0]), outcome=np.array([1, 2, 2], np.int8),
                    item=np.array([0, 0, 0]), systems=("A", "B"), items=("q",))
    table = swapped_orders(c)
    assert table.loc["consistent"].estimate == 1 and table.loc["consistent"].n == 1


def test_swapped_orders_on_arena_hard_games(tmp_path):
    """Arena-Hard-Auto judges each question twice (game 1: baseline first; game 2: model first),
    read by the arena-hard reader: q1 the model both ways (consistent), q2 the first shown both
    ways, q3 the second shown both ways, q4 a tie both ways, q5 one game missing (no twin)."""
    import json

    from humeval import read
    games = {"q1": ["B>A", "A>>B"], "q2": ["A>B", "A>B"], "q3": ["B>A", "B>A"], "q4": ["A=B", "A=B"],
             "q5": ["B>A", None]}
    lines = [json.dumps({"uid": q, "judge": "gpt-4.1", "model": "m", "baseline": "base",
                         "games": [{"score": v, "judgment": {}, "prompt": []} if v else None for v in verdicts]})
             for q, verdicts in games.items()]
    path = tmp_path / "judgments.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    table = swapped_orders(read(path).comparisons)
    assert (table.n == 4).all()
    assert table.estimate.tolist() == [0.5, 0.25, 0.25]
    assert tuple(table.loc["consistent", ["lo", "hi"]]) == pytest.approx(wilson(0.5, 4))
