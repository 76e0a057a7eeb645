"""System-against-baseline paired tests behind ``humeval metric compare``: on texts (sacrebleu's
metrics from sufficient statistics), on a segment-level metric score file, or on human ratings
(the paired tests of ``humeval.ratings.significance``, through the ratings ranking)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from humeval.data.readers.mtme import read_scores
from humeval.data.readers.wmt_metrics import read_metric_scores
from humeval.errors import InputError
from humeval.metaeval.grouped import to_matrix
from humeval.metaeval.systems import mean_statistics, paired_test

RATINGS_TEST = {"bs": "paired-bootstrap", "ar": "permutation"}


def compare_texts(hyps: dict, baseline: str, refs, metrics, statistics, test="bs", n=0, random_state=12345):
    """(table, notes): every hypothesis file of ``hyps`` but the baseline, for each metric;
    ``statistics(name, lines, refs)`` gives (sufficient statistics, score function, signature):
    ``humeval.metrics.baselines.corpus_statistics`` (passed in: metaeval does not import metrics)."""
    corpus_statistics = statistics
    rows, notes = [], []
    for name in metrics:
        base_stats, score, signature = corpus_statistics(name, hyps[baseline], refs)
        for path, lines in hyps.items():
            if path == baseline:
                continue
            result = paired_test(base_stats, corpus_statistics(name, lines, refs)[0], score, test, n or None,
                                 random_state)
            rows.append(_row(Path(path).name, name, result))
        notes.append(signature)
    return _table(rows), notes + [_note(test, rows)]


def _row(system, metric, result):
    return {"system": system, "metric": metric, "baseline score": result.baseline, "score": result.system,
            "Δ": result.system - result.baseline, "p": result.p_value}


def _table(rows):
    return pd.DataFrame(rows).set_index("system")


def _note(test, rows):
    return (f"two-sided p-values, {'paired bootstrap' if test == 'bs' else 'approximate randomisation'} as "
            f"sacrebleu{' (1,000 resamples' if test == 'bs' else ' (10,000 trials'} unless --test-resamples)")


def read_segment_scores(path) -> tuple[str, pd.Series]:
    """(metric name, scores by (item, system)) from a WMT metrics TSV or an mt-metrics-eval
    ``METRIC-REF.seg.score`` file (one block of scores per system)."""
    path = Path(path)
    if path.name.endswith(".score"):
        from humeval.data.readers._io import read_text
        names = [line.split()[0] for line in read_text(path).splitlines() if line.strip()]
        systems = len(set(names))
        if not names or len(names) % systems:
            raise InputError(path, None, f"{len(names)} scores for {systems} systems",
                             "segment-level files hold one block of scores per system, one per segment")
        return path.name.split(".")[0], read_scores(path, "seg", len(names) // systems)
    name, level, scores = read_metric_scores(path)
    if level != "seg":
        raise InputError(path, None, "system-level scores", "paired tests need segment-level scores")
    return name, scores


def compare_scores(path, baseline: str, systems=(), test="bs", n=0, random_state=12345):
    """(table, notes): mean segment score of each system against the baseline's, on shared segments."""
    name, scores = read_segment_scores(path)
    matrices, names, _ = to_matrix({"m": scores})
    m = matrices["m"]
    base = _system_index(names, baseline, path)
    rows = []
    for system in systems or [s for s in names if s != baseline]:
        k = _system_index(names, system, path)
        both = ~(np.isnan(m[base]) | np.isnan(m[k]))
        stats_a, score = mean_statistics(m[base, both])
        result = paired_test(stats_a, mean_statistics(m[k, both])[0], score, test, n or None, random_state)
        rows.append(_row(system, name, result))
    return _table(rows), [_note(test, rows), "scores: means over the segments both systems have"]


def _system_index(names, system, path) -> int:
    if system not in names:
        raise InputError(path, None, f"no system {system!r}", f"systems here: {', '.join(names)[:300]}")
    return names.index(system)


def compare_ratings(judgments, path, baseline: str, systems=(), test="bs", n=0, random_state=12345):
    """(table, notes): the ratings ranking's paired test (one-sided p both ways, doubled → two-sided)."""
    from humeval.ratings.rank import default_model, rank_ratings
    ratings = getattr(judgments, "ratings", None)
    if ratings is None:
        raise InputError(path, None, "holds no ratings", "--ratings needs a DA, MQM or ESA ratings file")
    ranking = rank_ratings(ratings, default_model(ratings), test=RATINGS_TEST[test], n_resamples=n or 1000, random_state=random_state,
                           source=str(path))
    p, table = ranking.pvalues, ranking.table
    names = list(p.index)
    _system_index(names, baseline, path)
    rows = []
    for system in systems or [s for s in names if s != baseline]:
        _system_index(names, system, path)
        two_sided = min(1.0, 2 * min(p.loc[system, baseline], p.loc[baseline, system]))
        rows.append({"system": system, "metric": f"human ({ranking.score})",
                     "baseline score": table.loc[baseline, ranking.score], "score": table.loc[system, ranking.score],
                     "Δ": table.loc[system, ranking.score] - table.loc[baseline, ranking.score], "p": two_sided})
    return _table(rows), ranking.notes + ["p: twice the smaller one-sided p-value (two-sided, as sacrebleu's)"]
