"""The metric–human correlation table that ``humeval metric correlate`` prints and the report shows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from humeval.errors import InputError
from humeval.metaeval.correlation import bootstrap_interval, kendall, pairwise_accuracy, pearson, williams_test
from humeval.data.readers.wmt_metrics import read_da_scores, read_metric_scores


def correlation_table(metric_files, human_file, details=None, refset=None, exclude_systems=(), n_boot: int = 0,
                      confidence: float = 0.95, williams: bool = True, random_state=0):
    """(level, table, skipped files): per metric file of the human scores' level, Pearson, Kendall
    τ-b and (system level) pairwise accuracy with the human scores; ``n_boot`` > 0 adds percentile
    intervals of r; ``williams`` adds the one-sided p-value of Williams' test that the top metric
    correlates better than each other one (Graham & Baldwin 2014)."""
    level, human = read_da_scores(human_file, details)
    rows, skipped, kept = [], [], {}
    for path in metric_files:
        name, metric_level, scores = read_metric_scores(path, refset)
        if metric_level != level:
            skipped.append(f"{Path(path).name} ({metric_level} level)")
            continue
        keys = scores.index.get_level_values("system") if level == "seg" else scores.index
        scores = scores[~keys.isin(exclude_systems)]
        common = scores.index.intersection(human.index)
        m, h = scores[common], human[common]
        row = {"metric": name, "n": len(common), "pearson": pearson(m, h), "kendall": kendall(m, h)}
        if level == "sys":
            row["pairwise accuracy"] = pairwise_accuracy(m, h)
        if n_boot:
            low, high = bootstrap_interval(pearson, m.to_numpy(), h.to_numpy(), n=n_boot, confidence=confidence,
                                           random_state=random_state)
            row[f"r {confidence:.0%} low"], row[f"r {confidence:.0%} high"] = low, high
        rows.append(row)
        kept[name] = scores
    if not rows:
        raise InputError(human_file, None, f"no {level}-level metric files among {len(metric_files)}",
                         "give metric files of the same level as the human scores")
    table = pd.DataFrame(rows).set_index("metric").sort_values("pearson", ascending=False)
    if williams and len(table) > 1:
        top = table.index[0]
        p_values = []
        for name in table.index:
            common = kept[top].index.intersection(kept[name].index).intersection(human.index)
            if name == top or len(common) < 4:
                p_values.append(np.nan)
                continue
            a, b, h = kept[top][common], kept[name][common], human[common]
            p_values.append(williams_test(pearson(h, a), pearson(h, b), pearson(a, b), len(common))[1])
        table[f"p ({top} > this)"] = p_values
    return level, table, skipped
