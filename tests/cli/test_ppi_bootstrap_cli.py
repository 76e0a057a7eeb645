"""`humeval ppi --bootstrap` (battles, Davidson, ratings, WMT DA), `--differences` (p-values against a
hand computation from ppi-python's means, WMT-style clusters) and the audit's swapped-order check."""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy.stats import norm

from humeval import read
from humeval.cli import cli
from humeval.experiments.ppi import (bootstrap_battles, bootstrap_system_means, difference_clusters,
                                     mean_differences, ppi_bradley_terry, ppi_davidson, system_means)
from humeval.simulate.judged import battles_frame, judged_battles, judged_ratings


def _figures():
    """The FIGURES of tests/experiments/test_ppi_bootstrap.py (what the tutorial quotes)."""
    import importlib.util
    from pathlib import Path
    spec = importlib.util.spec_from_file_location(
        "test_ppi_bootstrap_figures", Path(__file__).parents[1] / "experiments/test_ppi_bootstrap.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FIGURES


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _parts(path):
    c = read(path).comparisons
    kinds = np.asarray(c.judge_kinds, dtype=object)[c.judge_kind]
    return c.take(np.flatnonzero(kinds == "human")), c.take(np.flatnonzero(kinds != "human"))


def _ratings_file(path, n_items=200, seed=0):
    truth, h, j = judged_ratings(n_items=n_items, random_state=seed)
    frames = [s.rename("score").reset_index().assign(judge_kind=k) for s, k in ((h, "human"), (j, "chrF"))]
    pd.concat(frames).to_csv(path, index=False)
    return _series(path)


def _series(path):
    r = read(path, format="ratings").ratings
    kinds = np.asarray(r.judge_kinds, dtype=object)[r.judge_kind]
    items, systems = np.asarray(r.items, dtype=object), np.asarray(r.systems, dtype=object)
    index = pd.MultiIndex.from_arrays([items[r.item], systems[r.system]], names=["item", "system"])
    s = pd.Series(r.score, index=index)
    return s[kinds == "human"], s[kinds != "human"]


@pytest.mark.parametrize("model", ["bt", "davidson"])
def test_battles_bootstrap_equals_the_library(tmp_path, model):
    _, h, j = judged_battles(n_human=200, n_judge=800, nu=0.8 if model == "davidson" else 0.0, random_state=3)
    path = tmp_path / "battles.csv"
    battles_frame(h, j).to_csv(path, index=False)
    result = run("ppi", path, "--model", model, "--bootstrap", 30, "--random-state", 4, "--json")
    assert result.exit_code == 0, result.output
    got = {r["system"]: r for r in json.loads(result.output)["systems"]}
    fit = ppi_davidson if model == "davidson" else ppi_bradley_terry
    want = bootstrap_battles(fit(*_parts(path))["ppi"], 30, 0.95, 4)
    for system, row in want.iterrows():
        for column in ("human_lo", "human_hi", "ppi_lo", "ppi_hi"):
            assert got[system][f"boot_{column}"] == pytest.approx(row[column], abs=1e-9)
    text = run("ppi", path, "--model", model, "--bootstrap", 30).output
    assert "bootstrap percentile intervals (30 resamples" in " ".join(text.split())
    assert run("ppi", path, "--bootstrap", 1).exit_code == 2


def test_davidson_bootstrap_without_ties_is_refused(tmp_path):
    _, h, j = judged_battles(n_human=100, n_judge=300, random_state=2)  # no ties: ν̂ = 0
    path = tmp_path / "battles.csv"
    battles_frame(h, j).to_csv(path, index=False)
    result = run("ppi", path, "--model", "davidson", "--bootstrap", 100)
    assert result.exit_code == 2 and "no battle is a tie" in result.output and "--model bt" in result.output
    assert run("ppi", path, "--model", "davidson").exit_code == 0


def test_ratings_bootstrap_equals_the_library(tmp_path):
    path = tmp_path / "ratings.csv"
    h, j = _ratings_file(path)
    result = run("ppi", path, "--format", "ratings", "--bootstrap", 50, "--json")
    assert result.exit_code == 0, result.output
    got = {r["system"]: r for r in json.loads(result.output)}
    want = bootstrap_system_means(h, j, 50, 0.95, 0)
    for system, row in want.iterrows():
        assert got[system]["boot_ppi_lo"] == pytest.approx(row.ppi_lo, abs=1e-9)
        assert got[system]["boot_human_hi"] == pytest.approx(row.human_hi, abs=1e-9)
        assert got[system]["ppi_lo"] < got[system]["ppi"] < got[system]["ppi_hi"]


def test_differences_against_ppi_python_means_and_a_hand_z_test(tmp_path):
    """Each system's PPI++ mean and standard error from ppi-python at the λ humeval tuned; the
    difference's interval d ± z √(se_s² + se_t²) and p = 2 Φ(−|d| / se) by hand."""
    ppi_py = pytest.importorskip("ppi_py")
    path = tmp_path / "ratings.csv"
    h, j = _ratings_file(path, n_items=1500, seed=1)
    table = system_means(h, j)
    d = mean_differences(table)
    z = norm.ppf(0.975)
    se = {}
    for system in table.index:
        lab = pd.concat([h.xs(system, level=1), j.xs(system, level=1)], axis=1, join="inner")
        yu = j.xs(system, level=1).drop(lab.index)
        lam = table.at[system, "lam"]
        lo, hi = ppi_py.ppi_mean_ci(lab.iloc[:, 0].to_numpy(), lab.iloc[:, 1].to_numpy(), yu.to_numpy(), alpha=0.05,
                                    lam=lam)
        assert table.at[system, "ppi"] == pytest.approx((lo[0] + hi[0]) / 2, abs=1e-9)
        se[system] = (hi[0] - lo[0]) / (2 * z)
    for row in d.itertuples():
        s = np.hypot(se[row.better], se[row.worse])
        diff = table.at[row.better, "ppi"] - table.at[row.worse, "ppi"]
        assert (row.ppi, row.ppi_lo, row.ppi_hi) == pytest.approx((diff, diff - z * s, diff + z * s), abs=1e-9)
        assert row.ppi_p == pytest.approx(2 * norm.cdf(-abs(diff) / s), abs=1e-12)
    cluster = difference_clusters(table, d)
    assert cluster.iloc[0] == 1 and cluster.is_monotonic_increasing and cluster.max() >= 2
    # a line falls after a system exactly when every system above it beats every one below it
    for pos in range(1, len(table)):
        above, below = table.index[:pos], table.index[pos:]
        beaten = all(((d.better == a) & (d.worse == b) & (d.ppi_lo > 0)).any() for a in above for b in below)
        assert (cluster.iloc[pos] > cluster.iloc[pos - 1]) == beaten
    result = run("ppi", path, "--format", "ratings", "--differences")
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "differences of system means" in text and "clusters" in text
    best = d.iloc[0]
    line = next(x for x in result.output.splitlines() if x.split("│")[0].strip() == best.better
                and x.split("│")[1].strip() == best.worse)
    assert f"{best.ppi_p:.2g}"[:3] in line or f"{best.ppi_p:.3g}" in line


def test_differences_refusals(tmp_path):
    path = tmp_path / "ratings.csv"
    _ratings_file(path)
    assert "--differences goes with the printed tables" in run("ppi", path, "--format", "ratings", "--differences",
                                                              "--json").output
    _, h, j = judged_battles(n_human=100, n_judge=300, random_state=0)
    battles = tmp_path / "battles.csv"
    battles_frame(h, j).to_csv(battles, index=False)
    result = run("ppi", battles, "--differences")
    assert result.exit_code == 2 and "--differences goes with ratings" in result.output


def test_wmt20_de_en_bootstrap_and_differences():
    """A metric (chrF) as the judge of WMT20 de-en DA held out to a fifth (the tutorial's command):
    the bootstrap's combined intervals (1,000 resamples) against the sandwich's widths, the
    significant differences and the clusters the tutorial quotes."""
    from conftest import shared_file
    FIGURES = _figures()
    from humeval.data.readers.wmt_metrics import read_da_scores, read_metric_scores
    from humeval.experiments.ppi import hold_out
    root = shared_file("wmt20-metrics-de-en")
    args = ("ppi", "--da", root / "manual-evaluation/ad-seg-scores-de-en.csv", "--details",
            root / "input/de-en.details.txt", "--metric", root / "seg-level/chrF.seg.score.de-en.tsv",
            "--hold-out", "0.2", "--bootstrap", 1000)
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert len(rows) == 12
    ratio = np.array([(r["boot_ppi_hi"] - r["boot_ppi_lo"]) / (r["ppi_hi"] - r["ppi_lo"]) for r in rows])
    low, high = FIGURES["wmt20"]["ratio"]
    assert low - 0.005 <= ratio.min() < low + 0.005 and high - 0.005 <= ratio.max() < high + 0.005
    assert ratio.mean() == pytest.approx(1.005, abs=0.001)  # the tutorial: "1.005 on average"
    _, da = read_da_scores(root / "manual-evaluation/ad-seg-scores-de-en.csv", root / "input/de-en.details.txt")
    _, _, chrf = read_metric_scores(root / "seg-level/chrF.seg.score.de-en.tsv")
    judge = chrf.loc[da.index.intersection(chrf.index)]
    table = system_means(hold_out(da, judge, 0.2, 0), judge)
    d = mean_differences(table)
    assert (d.ppi_lo > 0).sum() == FIGURES["wmt20"]["significant"]
    assert (d.human_lo > 0).sum() == FIGURES["wmt20"]["human_significant"]
    sizes = difference_clusters(table, d).value_counts().sort_index().tolist()
    assert " | ".join(map(str, sizes)) == FIGURES["wmt20"]["clusters"] and table.index[-1].startswith("yolo")
    text = run(*args, "--differences").output
    assert "differences of system means" in " ".join(text.split()) and text.count("│") > 66 * 9


def test_audit_swapped_orders_on_a_hand_made_file(tmp_path):
    """Five battles judged both ways: q1 A both ways, q4 a tie both ways (consistent); q2 and q6 the
    first shown both ways; q3 the second shown both ways; q5 judged once (no twin)."""
    rows = [("A", "B", "model_a", "q1"), ("A", "C", "model_a", "q2"), ("B", "C", "model_b", "q3"),
            ("A", "B", "tie", "q4"), ("A", "C", "model_a", "q5"), ("B", "C", "model_a", "q6")]
    judge = rows + [("B", "A", "model_b", "q1"), ("C", "A", "model_a", "q2"), ("C", "B", "model_b", "q3"),
                    ("B", "A", "tie", "q4"), ("C", "B", "model_a", "q6")]
    frame = pd.DataFrame([(*r, "human") for r in rows] + [(*r, "gpt-judge") for r in judge],
                         columns=["model_a", "model_b", "winner", "question_id", "judge_kind"])
    path = tmp_path / "twice.csv"
    frame.to_csv(path, index=False)
    result = run("ppi", path, "--audit")
    assert result.exit_code == 0, result.output
    lines = {x.split("│")[0].strip(): [v.strip() for v in x.split("│")[1:]] for x in result.output.splitlines()
             if "swapped orders:" in x}
    # 2 of 5: Wilson (0.118, 0.769); 1 of 5: (0.0362, 0.624)
    assert lines["swapped orders: consistent (Wilson)"] == ["0.4", "0.118", "0.769", "5"]
    assert lines["swapped orders: first shown wins in both orders (Wilson)"] == ["0.4", "0.118", "0.769", "5"]
    assert lines["swapped orders: second shown wins in both orders (Wilson)"] == ["0.2", "0.0362", "0.624", "5"]
    assert "judged no battle in both orders" not in result.output


def test_audit_says_when_no_battle_was_judged_twice(tmp_path):
    _, h, j = judged_battles(n_human=150, n_judge=500, random_state=1)
    path = tmp_path / "battles.csv"
    battles_frame(h, j).to_csv(path, index=False)
    result = run("ppi", path, "--audit")
    assert result.exit_code == 0, result.output
    assert "judged no battle in both orders" in " ".join(result.output.split())
    assert "swapped orders:" not in result.output.replace("swapped orders: the judge", "")
