"""The metric–human correlation table that ``humeval metric correlate`` prints and the report shows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from humeval.data.readers.mtme import read_mtme
from humeval.data.readers.wmt_metrics import read_da_scores, read_metric_scores
from humeval.errors import InputError
from humeval.data.tables import Comparisons
from humeval.metaeval.correlation import (bootstrap_interval, kendall, kendall_like, pairwise_accuracy, pearson,
                                          scored_pairs, williams_test)
from humeval.metaeval.grouped import correlation, to_matrix
from humeval.metaeval.significance import compare_metrics
from humeval.metaeval.ties import pairwise_confidence_error, tie_calibrated_accuracy


MAD_SCALE = 1.4826  # MAD × 1.4826 estimates σ for normal data (Leys et al. 2013), as WMT20's outliers.py
OUTLIER_MADS = 2.5  # WMT20's threshold (Mathur et al. 2020, results/outliers.py of WMT-Metrics-task/wmt20-metrics)


def outlier_systems(human: pd.Series, threshold: float = OUTLIER_MADS) -> list[str]:
    """The systems WMT20's metrics task calls outliers (Mathur et al. 2020, following Leys et al.
    2013): |h − median(h)| / (1.4826 · MAD) > ``threshold`` (2.5), with MAD = median |h − median(h)|
    over the human system scores ``h`` (DA z-scores). Nothing is an outlier when MAD = 0."""
    h = human.dropna().astype(float)
    median = float(np.median(h))
    mad = float(np.median(np.abs(h - median))) * MAD_SCALE
    if len(h) < 3 or mad == 0:
        return []
    return sorted(h.index[(np.abs(h - median) / mad > threshold).to_numpy()])


DARR_THRESHOLD = 25.0  # raw DA points; WMT20's combine-scores-seg-RR.py keeps a pair when diff >= 25


def darr_comparisons(raw: pd.Series, threshold: float = DARR_THRESHOLD) -> Comparisons:
    """WMT's DArr relative-ranking pairs from segment DA scores (Ma et al. 2019 §2.3; Mathur et al.
    2020): for every item, every pair of systems whose raw DA scores (``RAW.SCR``, 0–100, indexed
    by (item, system)) differ by at least ``threshold`` points, the higher one preferred. Pairs
    closer than that are not a reliable preference and are left out (no ties)."""
    items, a, b = [], [], []
    for item, scores in raw.dropna().groupby(level="item", sort=True):
        values = scores.droplevel("item").sort_index()
        names, x = values.index.to_numpy(dtype=object), values.to_numpy(dtype=float)
        i, j = np.triu_indices(len(x), 1)
        keep = np.abs(x[i] - x[j]) >= threshold
        better = np.where(x[i] > x[j], i, j)[keep]
        worse = np.where(x[i] > x[j], j, i)[keep]
        items += [item] * len(better)
        a += list(names[better])
        b += list(names[worse])
    return Comparisons.from_pandas(pd.DataFrame({"a": a, "b": b, "outcome": np.ones(len(a), dtype=np.int8),
                                                 "item": items}))


def correlation_table(metric_files, human_file, details=None, refset=None, exclude_systems=(), n_boot: int = 0,
                      confidence: float = 0.95, williams: bool = True, random_state=0, darr: bool = False, **options):
    """(level, table, skipped files) for WMT metrics-task files: see ``agreement_table`` for the
    columns and ``options`` (average_by, significance, statistic, n_resamples, alpha, tie_accuracy);
    ``darr`` adds WMT's segment-level Kendall-like τ on the DArr pairs of the file's raw scores."""
    level, human = read_da_scores(human_file, details)
    if darr:
        if level != "seg":
            raise InputError(human_file, None, "DArr pairs are built from segment-level DA scores",
                             "give the segment-level DA file (ad-seg-scores-<lp>.csv) with --details")
        options["darr"] = read_da_scores(human_file, details, column="RAW.SCR")[1]
    skipped, kept = [], {}
    for path in metric_files:
        name, metric_level, scores = read_metric_scores(path, refset)
        if metric_level != level:
            skipped.append(f"{Path(path).name} ({metric_level} level)")
            continue
        kept[name] = scores
    if not kept:
        raise InputError(human_file, None, f"no {level}-level metric files among {len(metric_files)}",
                         "give metric files of the same level as the human scores")
    table, notes = agreement_table(level, human, kept, exclude_systems, n_boot, confidence, williams, random_state,
                                   source=human_file, **options)
    table.attrs["notes"] = notes
    return level, table, skipped


def mtme_table(root, lp, human_name=None, level="seg", refset=None, exclude_systems=(), **options):
    """(level, table, notes) for one language pair of an mt-metrics-eval directory: the human
    scores ``human_name`` (default: the first of mqm, esa, wmt-z, wmt-raw, … present) against
    every metric of that level, one reference per metric (``refset``, else its first)."""
    data = read_mtme(root, lp)
    have = sorted(name for name, lvl in data.human if lvl == level)
    if not have:
        raise InputError(data.root / "human-scores", None, f"no {level}-level human scores for {data.lp}",
                         f"levels present: {', '.join(sorted({lvl for _, lvl in data.human})) or 'none'}")
    preferred = [n for n in ("mqm", "esa", "wmt-z", "wmt-raw") if n in have]
    human_name = human_name or (preferred or have)[0]
    if (human_name, level) not in data.human:
        raise InputError(data.root / "human-scores", None, f"no {data.lp}.{human_name}.{level}.score",
                         f"human scores here: {', '.join(have)}")
    kept = {}
    for (metric, ref, lvl), scores in sorted(data.metrics.items(), key=lambda kv: (kv[0][0], kv[0][1] == "src", kv[0][1])):
        if lvl == level and metric not in kept and (refset is None or ref in (refset, "src", "")):
            kept[metric] = scores
    if not kept:
        raise InputError(data.root / "metric-scores" / data.lp, None, f"no {level}-level metric scores",
                         "mt-metrics-eval names them METRIC-REF.LEVEL.score")
    table, notes = agreement_table(level, data.human[(human_name, level)], kept, exclude_systems,
                                   source=data.root, **options)
    return level, table, [f"human scores: {data.lp}.{human_name}.{level}.score"] + notes


def agreement_table(level, human, kept: dict, exclude_systems=(), n_boot: int = 0, confidence: float = 0.95,
                    williams: bool = True, random_state=0, average_by: str = "none", significance: str | None = None,
                    statistic: str = "pearson", n_resamples: int = 1000, alpha: float = 0.05,
                    tie_accuracy: bool = True, spa: bool = False, pce: bool = False, source="human scores",
                    exclude_outliers: bool = False, darr: pd.Series | None = None):
    """(table, notes): per metric, Pearson, Kendall τ-b (averaged by ``average_by``), at system level
    pairwise accuracy, with ``tie_accuracy`` acc_eq at the optimal tie threshold ε; ``n_boot`` > 0
    adds percentile intervals of r (unaveraged); ``williams`` the one-sided p-value of Williams' test
    that the top metric correlates better than each other one (Graham & Baldwin 2014; unaveraged
    Pearson only); ``significance`` (permutation or bootstrap) every pair of metrics tested on
    ``statistic`` and WMT's clusters (rank) and wins (``humeval.metaeval.significance``); ``spa``
    (segment level) soft pairwise accuracy of the systems (Thompson et al. 2024, ``n_resamples``
    permutations), ``pce`` its complement, the pairwise confidence error (PCE = 1 − SPA).
    At system level ``exclude_outliers`` leaves out the systems ``outlier_systems`` finds among
    those with human scores (after ``exclude_systems``), as WMT20's second system-level table;
    without it a note names them, and a note names the systems only one side scores. ``darr``
    (segment level: raw DA scores by (item, system)) adds ``kendall_like``, WMT's Kendall-like τ on
    the DArr pairs (``darr_comparisons``), a metric tie counting as discordant as WMT20's script."""
    if level == "sys" and (spa or pce):
        name = "soft pairwise accuracy" if spa else "pairwise confidence error"
        raise InputError(source, None, f"{name} needs segment-level scores",
                         "use segment-level human and metric scores (it tests every system pair on them)")
    if level != "sys" and exclude_outliers:
        raise InputError(source, None, "outlier systems are a system-level rule (WMT20's, on system DA scores)",
                         "use system-level human and metric scores, or leave out the outliers by name")
    if level == "sys" and average_by != "none":
        raise InputError(source, None, f"average_by={average_by} needs segment-level scores",
                         "use segment-level human and metric scores, or average_by none")
    notes = []
    exclude = set(exclude_systems)
    if level == "seg":
        human = human[~human.index.get_level_values("system").isin(exclude)]
        matrices, systems, _ = to_matrix({"": human, **kept})
        gold = matrices.pop("")
        if darr is not None:
            scored = set().union(*[set(v.index) for v in kept.values()])
            darr = darr[[key in scored and key[1] not in exclude for key in darr.index]]
            pairs = darr_comparisons(darr)
            notes.append(f"kendall_like: WMT's DArr τ on {len(pairs):,} pairs of outputs of one segment whose raw DA "
                         f"scores differ by ≥ {DARR_THRESHOLD:g} (systems the metric files score); a metric tie "
                         "counts as discordant")
    else:
        human = human[~human.index.isin(exclude)]
        outliers = outlier_systems(human)
        if outliers and exclude_outliers:
            exclude |= set(outliers)
            human = human[~human.index.isin(exclude)]
            notes.append(f"left out {len(outliers)} outlier systems (WMT20's rule: human score more than "
                         f"{OUTLIER_MADS:g} × 1.4826 MAD from the median): {', '.join(outliers)}")
        elif exclude_outliers:
            notes.append("no outlier systems by WMT20's rule (human score more than "
                         f"{OUTLIER_MADS:g} × 1.4826 MAD from the median)")
        elif outliers:
            notes.append(f"{len(outliers)} outlier systems by WMT20's rule (human score more than {OUTLIER_MADS:g} × "
                         f"1.4826 MAD from the median) are included: {', '.join(outliers)}; WMT20 also reports "
                         "the correlations without them (--exclude-outliers)")
        scored = set().union(*[set(v.index) for v in kept.values()])
        for side, names in (("human scores but no metric score", set(human.index) - scored),
                            ("metric scores but no human score", scored - set(human.index) - exclude)):
            if names:
                notes.append(f"left out, {side}: {', '.join(sorted(names))}")
        systems = sorted(set(human.index).union(scored) - exclude)
        gold = human.reindex(systems).to_numpy(dtype=float)
        matrices = {k: v.reindex(systems).to_numpy(dtype=float) for k, v in kept.items()}
    rows = []
    for name, m in matrices.items():
        both = ~(np.isnan(gold) | np.isnan(m))
        row = {"metric": name, "n": int(both.sum()), "pearson": correlation(gold, m, pearson, average_by),
               "kendall": correlation(gold, m, kendall, average_by)}
        if darr is not None:
            row["kendall_like"] = kendall_like(pairs, kept[name], metric_ties="penalize")
            row["darr pairs"] = scored_pairs(pairs, kept[name])
            if row["darr pairs"] < len(pairs):  # a pair whose output the metric did not score is left out of its τ
                notes.append(f"{name}: scores {row['darr pairs']:,} of the {len(pairs):,} DArr pairs (its τ is over "
                             "those; the others lack its score of one output)")
        if level == "sys":
            row["pairwise accuracy"] = pairwise_accuracy(kept[name].reindex(systems), human.reindex(systems))
        if tie_accuracy:
            try:
                row["acc_eq"], row["ε"] = tie_calibrated_accuracy(gold, m, average_by)
            except ValueError as e:  # too many pairs without grouping
                row["acc_eq"], row["ε"] = np.nan, np.nan
                if f"acc_eq not computed: {e}" not in notes:
                    notes.append(f"acc_eq not computed: {e}")
        if (spa or pce) and level == "seg":
            error = pairwise_confidence_error(gold, m, n_resamples, random_state)
            if spa:
                row["spa"] = 1.0 - error
            if pce:
                row["pce"] = error
        if n_boot:
            g, mm = gold[both], m[both]
            low, high = bootstrap_interval(pearson, mm, g, n=n_boot, confidence=confidence, random_state=random_state)
            row[f"r {confidence:.0%} low"], row[f"r {confidence:.0%} high"] = low, high
        rows.append(row)
    table = pd.DataFrame(rows).set_index("metric")
    key = statistic if statistic in table.columns else "pearson"
    table = table.sort_values(key, ascending=False, kind="stable")
    if average_by != "none":
        notes.append(f"statistics computed per {average_by} and averaged (groups without a defined value left out)")
    if williams and len(table) > 1 and average_by == "none":
        top = table.index[0]
        p_values = []
        for name in table.index:
            ok = ~(np.isnan(gold) | np.isnan(matrices[top]) | np.isnan(matrices[name]))
            if name == top or ok.sum() < 4:
                p_values.append(np.nan)
                continue
            a, b, h = matrices[top][ok], matrices[name][ok], gold[ok]
            p_values.append(williams_test(pearson(h, a), pearson(h, b), pearson(a, b), int(ok.sum()))[1])
        table[f"p ({top} > this)"] = p_values
    if significance:
        result = compare_metrics(gold, matrices, statistic, average_by, significance, n_resamples, alpha, random_state)
        table = table.loc[result.table.index]
        table["rank"], table["wins"] = result.table["rank"], result.table["wins"]
        table.attrs["pvalues"] = result.pvalues
        notes += [f"rank and wins by {statistic}" + (f" averaged by {average_by}" if average_by != "none" else "")]
        notes += result.notes
    return table, notes
