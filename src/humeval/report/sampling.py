"""The report's view of uneven sampling (``humeval report --reweight/--provisional/--siblings``):
how uneven the pairs' counts were, the reweighted ranking beside the unweighted one when their
orders differ, and the provisional flags beside the trust table. The weighting policies and
flags are ``humeval.ranking.reweight``'s, applied as ``humeval rank`` applies them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from humeval.report.render import number


@dataclass
class SamplingOptions:
    """The report's sampling options: ``policy`` (``reweight.parse_policy``: "pairs[:FLOOR]"),
    ``provisional`` (fewest comparisons), ``siblings`` (variants per family), ``families`` (the
    --families file, named in commands) and ``mapping`` (its system → family)."""
    policy: str | None = None
    provisional: int | None = None
    siblings: int | None = None
    families: str | None = None
    mapping: dict | None = None

    def fit_args(self) -> tuple:
        """The ``humeval rank`` words that weigh the comparisons as the report does."""
        return ("--reweight", self.policy) if self.policy else ()

    def flag_args(self) -> tuple:
        """The ``humeval rank`` words that flag the systems as the report does."""
        return ((("--provisional", self.provisional) if self.provisional else ())
                + (("--siblings", self.siblings) if self.siblings else ())
                + (("--families", self.families) if self.families else ()))

    def flags(self, comparisons) -> pd.DataFrame | None:
        from humeval.ranking.reweight import provisional_flags
        return provisional_flags(comparisons, self.provisional, self.siblings, self.mapping)

    def note(self) -> str:
        from humeval.ranking.reweight import provisional_note
        return provisional_note(self.provisional, self.siblings, self.mapping)


def pair_counts(comparisons) -> pd.Series:
    """Comparisons per unordered pair of systems that met at least once (weighted rows count
    their weight), indexed "a – b"."""
    c = comparisons
    lo, hi = np.minimum(c.a, c.b), np.maximum(c.a, c.b)
    frame = pd.DataFrame({"lo": lo, "hi": hi, "n": c.weight})
    counts = frame.groupby(["lo", "hi"])["n"].sum()
    counts.index = [f"{c.systems[i]} – {c.systems[j]}" for i, j in counts.index]
    return counts


UNEVEN = 2.0  # the most-met pair this many times the median pair's count: the hint names --reweight


def unevenness(comparisons, hint: bool = False) -> str:
    """One sentence: how many of the possible pairs met, and their counts' min/median/max
    (the spread ``--reweight pairs`` evens out); with ``hint``, when the most-met pair met at
    least ``UNEVEN`` times as often as the median pair, the words naming ``--reweight pairs``."""
    counts = pair_counts(comparisons)
    p = len(np.unique(np.concatenate([comparisons.a, comparisons.b])))
    possible = p * (p - 1) // 2
    if counts.empty:
        return "sampling: no pair of systems met"
    return (f"sampling: {number(len(counts), 'count')} of {number(possible, 'count')} pairs of systems met, "
            f"comparisons per pair min {number(counts.min(), 'count')}, median {number(counts.median(), 'count')}, "
            f"max {number(counts.max(), 'count')} ({counts.idxmax()})"
            + ("; the pairs met unevenly, and the pairs met most weigh most in the fit: --reweight pairs weighs "
               "every pair alike" if hint and counts.max() >= UNEVEN * counts.median() else ""))


def beside_unweighted(weighted_model, unweighted_model) -> tuple[pd.DataFrame | None, str]:
    """(table or None, sentence): the reweighted fit's scores and ranks beside the unweighted
    fit's; the table only when the two orders differ (else the sentence says they agree)."""
    w, u = weighted_model.ranking(), unweighted_model.ranking()
    table = pd.DataFrame({"score": w["score"], "rank": w["rank"],
                          "unweighted score": u["score"].reindex(w.index),
                          "unweighted rank": u["rank"].reindex(w.index)})
    table.index.name = "system"
    moved = table.index[table["rank"] != table["unweighted rank"]]
    if len(moved) == 0:
        return None, "the unweighted fit orders the systems the same way"
    return table, (f"reweighting moves {len(moved)} system{'s' if len(moved) != 1 else ''} "
                   f"({', '.join(map(str, moved[:10]))}{' …' if len(moved) > 10 else ''})")
