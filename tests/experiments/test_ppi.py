"""Prediction-powered inference: means against ppi-python and the published formula, BT against
humeval's own BT (λ = 0) and ppi-python's logistic PPI++, coverage on simulated biased judges, and
the WMT20 de-en check (a metric as the judge, DA on a held-out fifth)."""

import numpy as np
import pytest

from humeval.experiments.ppi import (bootstrap_battles, hold_out, ppi_bradley_terry, ppi_mean,
                                     system_means)
from humeval.errors import InputError
from humeval.simulate.judged import judged_battles, judged_ratings
from conftest import shared_file

# The figures docs/tutorials/humans-and-judges.md quotes, as these tests compute them (each test
# below checks its own; tests/test_tutorial_humans_and_judges.py checks the page quotes them):
# coverage shares and the share by which PPI++ intervals are narrower than human-only ones.
FIGURES = {
    "bt": {"ppi": 0.957, "human": 0.959, "judge": 0.28, "narrower": 0.17, "effective_n": 444},
    "davidson": {"ppi": 0.948, "judge": 0.37, "narrower": 0.33},
    "ratings": {"ppi": 0.937, "human": 0.951, "narrower": 0.09},
    "wmt20": {"ppi": 0.954, "human": 0.954, "narrower": 0.02, "worth": (40, 120), "human_scores": 1750},
}


def _cases():
    rng = np.random.default_rng(0)
    for n, N in [(50, 1000), (200, 200), (30, 5000)]:
        y = rng.normal(size=n)
        yield y, 0.7 * y + 0.5 * rng.normal(size=n) + 0.3, 0.86 * rng.normal(size=N) + 0.3


def test_mean_equals_the_published_formula_with_fixed_lambda():
    y, yh, yu = np.array([1.0, 2, 4, 5]), np.array([1.5, 2, 3, 6]), np.array([2.0, 4, 6])
    m = ppi_mean(y, yh, yu, lam=0.5)
    assert m.estimate == pytest.approx(0.5 * 4 + np.mean(y - 0.5 * yh))  # λ·mean(Ŷu) + mean(Y − λŶ)
    assert m.se ** 2 == pytest.approx(0.25 * np.var(yu) / 3 + np.var(y - 0.5 * yh) / 4)


@pytest.mark.parametrize("case", range(3))
def test_mean_and_lambda_agree_with_ppi_python(case):
    ppi_py = pytest.importorskip("ppi_py")
    y, yh, yu = list(_cases())[case]
    m = ppi_mean(y, yh, yu)
    lo, hi = ppi_py.ppi_mean_ci(y, yh, yu, alpha=0.05)
    assert m.interval(0.95) == pytest.approx((lo[0], hi[0]), abs=1e-10)
    assert m.estimate == pytest.approx(ppi_py.ppi_mean_pointestimate(y, yh, yu)[0], abs=1e-10)
    assert 0 < m.lam < 1


def test_bt_with_lambda_zero_is_humevals_maximum_likelihood_bt():
    from humeval.data.tables import Comparisons
    from humeval.ranking import BradleyTerry
    truth, h, j = judged_battles(random_state=3)
    human = ppi_bradley_terry(h, j)["human"]
    bt = BradleyTerry(l2=0).fit(Comparisons(a=h.a, b=h.b, outcome=h.outcome, systems=h.systems)).scores_  # no style
    assert (human.scores - human.scores.mean()).to_numpy() == pytest.approx((bt - bt.mean()).loc[human.scores.index]
                                                                             .to_numpy(), abs=1e-5)


def test_bt_point_estimate_agrees_with_ppi_python_logistic():
    ppi_py = pytest.importorskip("ppi_py")
    from humeval.experiments.ppi import _fit
    truth, h, j = judged_battles(random_state=4)
    est = ppi_bradley_terry(h, j, lam=0.6)["ppi"]
    lx, y, yh, w, ux, yu, wu = est.data
    # ppi_py wants 0/1 labels; the simulated battles have no ties
    # λ positionally: ppi-python 0.2.3 calls it lam, 0.2.1 and 0.2.2 lhat
    theta = ppi_py.ppi_logistic_pointestimate(lx, y, yh, ux, yu, 0.6)
    assert theta == pytest.approx(_fit(lx, y, yh, w, ux, yu, wu, 0.6), abs=1e-4)


@pytest.mark.parametrize("seed", [4, 7])
def test_bt_tuned_estimate_and_sandwich_agree_with_ppi_python_logistic(seed):
    """ppi-python's logistic PPI++ on the same design: with λ tuned by each library (humeval on the
    PPI++ loss's own Hessian (1 − λ)·human + λ·judge, ppi-python on all battles pooled; λ 0.5336
    against 0.5319 at seed 4) the point estimates agree to 1e-3; at a fixed λ the intervals share
    their centre and their widths agree within 5 % (the two Hessian estimates differ by that much
    on 300 human battles; seeds 4–9 give ratios 0.953–1.032). ppi-python's interval with its own
    tuned λ is not centred on its point estimate (0.07 off at seed 7), so λ is fixed for it."""
    ppi_py = pytest.importorskip("ppi_py")
    from scipy.stats import norm
    from humeval.experiments.ppi import _fit, _sandwich
    truth, h, j = judged_battles(random_state=seed)
    tuned = ppi_bradley_terry(h, j)["ppi"]
    lx, y, yh, w, ux, yu, wu = tuned.data
    theirs = ppi_py.ppi_logistic_pointestimate(lx, y, yh, ux, yu, None)
    assert _fit(lx, y, yh, w, ux, yu, wu, tuned.lam) == pytest.approx(theirs, abs=1e-3)
    theta = _fit(lx, y, yh, w, ux, yu, wu, 0.6)
    se = np.sqrt(np.diag(_sandwich(lx, y, yh, w, ux, yu, wu, 0.6, theta)[0]))
    lo, hi = ppi_py.ppi_logistic_ci(lx, y, yh, ux, yu, alpha=0.05, lam=0.6)
    assert (lo + hi) / 2 == pytest.approx(theta, abs=1e-6)
    assert (hi - lo) / (2 * norm.ppf(0.975) * se) == pytest.approx(np.ones(len(se)), abs=0.05)


def test_bt_coverage_with_a_biased_judge():
    """200 campaigns, 6 systems, 300 human and 3,000 judge battles; the judge prefers the first
    output, system S0 and longer outputs: PPI++ covers θ at ≥ 93 %, the judge alone does not,
    and PPI++ is narrower than human-only."""
    cover = {"human": [], "judge": [], "ppi": []}
    width = {"human": [], "judge": [], "ppi": []}
    effective = []
    for seed in range(200):
        truth, h, j = judged_battles(random_state=seed)
        result = ppi_bradley_terry(h, j)
        for kind, est in result.items():
            iv = est.intervals(0.95).loc[truth.index]
            cover[kind].append(((iv.lo <= truth) & (truth <= iv.hi)).mean())
            width[kind].append((iv.hi - iv.lo).mean())
        effective.append(result["ppi"].extra["effective_n"])
    assert np.mean(cover["ppi"]) >= 0.93
    assert np.mean(cover["human"]) >= 0.93
    assert np.mean(cover["judge"]) < 0.6
    assert np.mean(width["ppi"]) < 0.9 * np.mean(width["human"])
    # the tutorial's figures (1,200 intervals: one flipped is 0.08 points; rounding adds 0.05)
    quoted = FIGURES["bt"]
    for kind in ("ppi", "human"):
        assert np.mean(cover[kind]) == pytest.approx(quoted[kind], abs=0.0015)
    assert np.mean(cover["judge"]) == pytest.approx(quoted["judge"], abs=0.006)
    assert 1 - np.mean(width["ppi"]) / np.mean(width["human"]) == pytest.approx(quoted["narrower"], abs=0.006)
    assert np.mean(effective) == pytest.approx(quoted["effective_n"], abs=1)


def test_ratings_coverage_with_a_biased_judge_on_another_scale():
    cover, human, wh, wp = [], [], [], []
    for seed in range(150):
        truth, h, j = judged_ratings(random_state=seed)
        t = system_means(h, j).loc[truth.index]
        cover.append(((t.ppi_lo <= truth) & (truth <= t.ppi_hi)).mean())
        human.append(((t.human_lo <= truth) & (truth <= t.human_hi)).mean())
        wh.append(t.width_human.mean())
        wp.append(t.width_ppi.mean())
    assert np.mean(cover) >= 0.93
    assert np.mean(wp) < 0.95 * np.mean(wh)
    quoted = FIGURES["ratings"]  # the tutorial's (750 intervals: one flipped is 0.13 points)
    assert np.mean(cover) == pytest.approx(quoted["ppi"], abs=0.002)
    assert np.mean(human) == pytest.approx(quoted["human"], abs=0.002)
    assert 1 - np.mean(wp) / np.mean(wh) == pytest.approx(quoted["narrower"], abs=0.006)


def test_bootstrap_resamples_both_parts_and_agrees_with_the_sandwich():
    truth, h, j = judged_battles(random_state=1)
    est = ppi_bradley_terry(h, j)["ppi"]
    boot = bootstrap_battles(est, 200, random_state=0)
    sandwich = est.intervals()
    assert (boot.ppi_hi - boot.ppi_lo).to_numpy() == pytest.approx((sandwich.hi - sandwich.lo).to_numpy(), rel=0.25)


def test_no_shared_units_is_an_input_error():
    truth, h, j = judged_ratings(random_state=0)
    moved = j.copy()
    moved.index = moved.index.set_levels([f"x{i}" for i in moved.index.levels[0]], level=0)
    with pytest.raises(InputError, match="share no"):
        system_means(h, moved)
    truth, hb, jb = judged_battles(random_state=0)
    with pytest.raises(InputError, match="share no battle"):
        ppi_bradley_terry(hb, jb.take(np.arange(len(hb), len(jb))))


def test_wmt20_de_en_metric_as_judge_covers_the_full_human_means():
    from humeval.data.readers.wmt_metrics import read_da_scores, read_metric_scores
    da_file = shared_file("wmt20-metrics-de-en/manual-evaluation/ad-seg-scores-de-en.csv")
    root = da_file.parents[1]
    _, da = read_da_scores(da_file, root / "input/de-en.details.txt")
    _, _, chrf = read_metric_scores(root / "seg-level/chrF.seg.score.de-en.tsv")
    shared = da.index.intersection(chrf.index)
    full = da.groupby(level=[0, 1]).mean().loc[shared].groupby(level=1).mean()
    cover, human, ratio, worth, n = [], [], [], [], []
    for seed in range(20):
        t = system_means(hold_out(da, chrf.loc[shared], 0.2, seed), chrf.loc[shared])
        cover.append(((t.ppi_lo <= full[t.index]) & (full[t.index] <= t.ppi_hi)).mean())
        human.append(((t.human_lo <= full[t.index]) & (full[t.index] <= t.human_hi)).mean())
        ratio.append((t.width_ppi / t.width_human).mean())
        worth.append((t.effective_n - t.n).sum())  # human scores the judge is worth, over the systems
        n.append(t.n.sum())
    assert len(t) == 12
    assert np.mean(cover) >= 0.9
    assert np.mean(ratio) <= 1.0
    quoted = FIGURES["wmt20"]  # the tutorial's (240 intervals: one flipped is 0.4 points)
    assert np.mean(cover) == pytest.approx(quoted["ppi"], abs=0.001)
    assert np.mean(human) == pytest.approx(quoted["human"], abs=0.001)
    assert 1 - np.mean(ratio) == pytest.approx(quoted["narrower"], abs=0.005)
    low, high = quoted["worth"]
    assert low - 5 <= min(worth) and max(worth) <= high + 5 and max(worth) - min(worth) > (high - low) / 2
    assert np.mean(n) == pytest.approx(quoted["human_scores"], rel=0.02)


def test_davidson_with_lambda_zero_is_humevals_davidson():
    from humeval.data.tables import Comparisons
    from humeval.experiments.ppi import ppi_davidson
    from humeval.ranking import Davidson
    truth, h, j = judged_battles(nu=0.8, random_state=2)
    human = ppi_davidson(h, j)["human"]
    model = Davidson(l2=0).fit(Comparisons(a=h.a, b=h.b, outcome=h.outcome, systems=h.systems))
    s = model.scores_
    assert human.scores.to_numpy() == pytest.approx((s - s.mean()).loc[human.scores.index].to_numpy(), abs=1e-5)
    assert human.extra["nu"] == pytest.approx(model.nu_, rel=1e-5)


def test_davidson_coverage_with_ties_and_a_biased_judge():
    """100 campaigns with Davidson ties (ν = 0.8, about a quarter of battles tied), 300 human and
    1,500 judge battles: PPI++ covers θ at ≥ 93 %, the judge alone does not, PPI++ is narrower."""
    from humeval.experiments.ppi import ppi_davidson
    cover = {"human": [], "judge": [], "ppi": []}
    width = {"human": [], "judge": [], "ppi": []}
    for seed in range(100):
        truth, h, j = judged_battles(n_judge=1500, nu=0.8, random_state=seed)
        for kind, est in ppi_davidson(h, j).items():
            iv = est.intervals(0.95).loc[truth.index]
            cover[kind].append(((iv.lo <= truth) & (truth <= iv.hi)).mean())
            width[kind].append((iv.hi - iv.lo).mean())
    assert np.mean(cover["ppi"]) >= 0.93
    assert np.mean(cover["judge"]) < 0.6
    assert np.mean(width["ppi"]) < 0.9 * np.mean(width["human"])
    quoted = FIGURES["davidson"]  # the tutorial's (600 intervals: one flipped is 0.17 points)
    assert np.mean(cover["ppi"]) == pytest.approx(quoted["ppi"], abs=0.0025)
    assert np.mean(cover["judge"]) == pytest.approx(quoted["judge"], abs=0.006)
    assert 1 - np.mean(width["ppi"]) / np.mean(width["human"]) == pytest.approx(quoted["narrower"], abs=0.006)


def test_mean_differences_cover_the_true_differences():
    from humeval.experiments.ppi import mean_differences
    cover = []
    for seed in range(100):
        truth, h, j = judged_ratings(random_state=seed)
        d = mean_differences(system_means(h, j))
        true = truth[d.better].to_numpy() - truth[d.worse].to_numpy()
        cover.append(((d.ppi_lo <= true) & (true <= d.ppi_hi)).mean())
    t = system_means(h, j)
    first = d.iloc[0]
    assert first.ppi == pytest.approx(t.at[first.better, "ppi"] - t.at[first.worse, "ppi"])
    assert first.ppi_hi - first.ppi == pytest.approx(1.959964 * np.hypot(t.at[first.better, "se_ppi"],
                                                                          t.at[first.worse, "se_ppi"]), rel=1e-5)
    assert np.mean(cover) >= 0.93
