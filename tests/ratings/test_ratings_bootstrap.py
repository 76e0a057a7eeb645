"""The compiled bootstrap replays equal the same resamples computed the plain way."""

import numpy as np
import pandas as pd
import pytest

from humeval.data.tables import Ratings
from humeval.errors import InputError
from humeval.ratings import aggregate, bootstrap_scores


def random_ratings(seed=0, n=400):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"system": rng.choice(list("ABCD"), n), "item": rng.integers(0, 30, n).astype(str),
                       "judge": rng.integers(0, 12, n).astype(str), "score": rng.integers(0, 101, n).astype(float)})
    return Ratings.from_pandas(df)


def plain_means(agg, item_weight, judge_weight):
    """Σ_c w_i mean_v(c) / Σ_c w_i with mean_v(c) the judge-weighted cell mean."""
    df = pd.DataFrame({"s": agg.system, "i": agg.item, "v": judge_weight[agg.judge], "x": agg.value})
    df["vx"] = df.v * df.x
    cells = df.groupby(["s", "i"])[["vx", "v"]].sum()
    cells = cells[cells.v > 0]
    cells["m"] = cells.vx / cells.v
    cells["w"] = item_weight[cells.index.get_level_values("i")]
    sums = cells.assign(wm=cells.w * cells.m).groupby("s")[["wm", "w"]].sum()
    out = np.full(len(agg.systems), np.nan)
    ok = sums.w > 0
    out[sums.index[ok]] = (sums.wm / sums.w)[ok]
    return out


@pytest.mark.parametrize("by", ["segment", "judge", "both"])
def test_replays_equal_plain_weighted_means(by):
    agg = aggregate(random_ratings(), "z-mean")
    result = bootstrap_scores(agg, n=7, by=by, random_state=5)
    rng = np.random.default_rng(5)  # the same draws, in the order bootstrap_scores makes them
    n_items, n_judges = len(agg.items), len(agg.judges)
    if by == "segment":
        items = rng.integers(0, n_items, size=(7, n_items))
        judges = None
    else:
        judges = rng.integers(0, n_judges, size=(7, n_judges))
        items = rng.integers(0, n_items, size=(7, n_items)) if by == "both" else None
    for b in range(7):
        w = np.bincount(items[b], minlength=n_items).astype(float) if items is not None else np.ones(n_items)
        v = np.bincount(judges[b], minlength=n_judges).astype(float) if judges is not None else np.ones(n_judges)
        np.testing.assert_allclose(result.samples[b], plain_means(agg, w, v), rtol=1e-10)


def test_interval_covers_the_estimate_and_shrinks_with_data():
    agg = aggregate(random_ratings(n=400), "raw")
    big = aggregate(random_ratings(n=4000), "raw")
    small_width = np.mean(bootstrap_scores(agg, 300).hi - bootstrap_scores(agg, 300).lo)
    big_result = bootstrap_scores(big, 300)
    assert np.mean(big_result.hi - big_result.lo) < small_width
    est = big.system_means()
    assert ((big_result.lo <= est) & (est <= big_result.hi)).all()


def test_resampling_annotators_needs_their_ids():
    df = pd.DataFrame({"system": ["A", "A", "B", "B"], "item": ["1", "2", "1", "2"], "score": [1.0, 2, 3, 4]})
    agg = aggregate(Ratings.from_pandas(df), "raw")
    with pytest.raises(InputError, match="resampling annotators needs an annotator id"):
        bootstrap_scores(agg, 10, by="judge")
