"""The report's "can this ranking be trusted" table, per track: beside each system of the
bootstrap ranking, how few judgments reverse its order with the next system (AMIP fragility,
``experiments.robustness``: first-order influence, verified by a refit) and its simultaneous and
marginal rank confidence sets (``experiments.rank_sets``, Mogstad et al. 2024, from the same
bootstrap resamples as the ranking table). The numbers are those of
``humeval rank FILE --model M --bootstrap N --robustness --rank-sets`` with the report's seed.
Fragility needs a model of the Bradley–Terry family (its influence functions); for any other
model the table has the rank sets alone and says why.
"""

from __future__ import annotations

import pandas as pd

from humeval.agreement.rankings import REFERENCE_NAMES
from humeval.experiments.bootstrap import judgment_count
from humeval.experiments.rank_sets import bootstrap_rank_sets, rank_set_columns, rank_set_note
from humeval.experiments.robustness import FAMILIES, fragility, robustness_table
from humeval.ranking.boards import ANCHOR
from humeval.report.render import number, share


def trust_table(model, comparisons, result, confidence: float):
    """(table, caption, rank-1 sentence or ""): per system (best first) score, rank, ``to flip``
    (judgments whose removal puts the next system level with or above it), ``rank set``,
    ``marginal``, ``top1``; the caption says what each column means."""
    try:
        sets = bootstrap_rank_sets(result, confidence, (ANCHOR, *REFERENCE_NAMES))
        table = sets[["score", "rank"]].join(rank_set_columns(sets))
        caption = [rank_set_note(confidence, f"the ranking's {result.n:,} bootstrap resamples")]
    except ValueError as error:  # too few resamples fitted every system
        scores = result.estimate.drop(list((ANCHOR, *REFERENCE_NAMES)), errors="ignore").sort_values(ascending=False)
        table = pd.DataFrame({"score": scores, "rank": scores.rank(ascending=False, method="min").astype(int)})
        caption = [f"no rank sets: {error}"]
    top = ""
    if type(model).__name__ in FAMILIES:
        robust, note = robustness_table(model, comparisons)
        table.insert(2, "to flip", fragility(robust).reindex(table.index).astype("Int64"))
        caption.insert(0, note)
        first = robust[robust.index.str.startswith("top: ")]
        if len(first) and pd.notna(first["dropped"].iloc[0]):
            row = first.iloc[0]
            top = (f"rank 1, {first.index[0].removeprefix('top: ')}, falls by dropping "
                   f"{number(row['dropped'], 'count')} of {number(judgment_count(comparisons), 'count')} judgments "
                   f"({share(row['share'])}), verified by a refit")
    else:
        caption.insert(0, f"no 'to flip' column: the fewest judgments that reverse an order come from the influence "
                          f"functions of the Bradley–Terry family (bt, davidson, rao-kupper), not of {type(model).__name__}")
    return table, "; ".join(caption), top
