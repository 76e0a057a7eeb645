"""Judge quality: how much each judge can be trusted, and a one-line way to drop the doubtful.

For every judge: the number of judgments, agreement with the other judges (P(A) over the judge's
inter-annotator pairs and the kappa with the pooled P(E)), agreement with the consensus (the
leave-one-out majority label of the other judges on the same unit), self-consistency (agreement
of the judge's repeated judgments) with the number of repeated pairs it rests on (``repeat
pairs``), and a flag. A judge is flagged ``not above chance`` when its agreement with the others
is not shown above chance (one-sided binomial test of P(A) > P(E) at ``alpha``, the p-value
P(X ≥ agreements) for X ~ Binomial(pairs, P(E)) from ``scipy.special.bdtrc``, with at least
``min_pairs`` pairs): a failure to show agreement, not proof of chance answers. ``outlier`` when
its kappa lies more than ``outlier_mads`` median absolute deviations below the median judge's.
Judges with too few pairs are marked ``few pairs``; ``flag_rules`` states the cut-offs.

Exact agreement needs labels: pairwise rankings (<, =, >) and small scales (at most
``scales.CATEGORICAL_MAX`` distinct whole-number scores, ``scales.is_categorical``, the rule the
agreement table uses). On continuous scores (z-scores, MQM, DA's 0–100 slider with its many
values) two judges' scores rarely match exactly whatever their quality, so P(A) ≈ 0 and every
judge would test "at chance": there the four exact-agreement columns are NaN, the assessable
judges get the flag ``n/a`` and nobody is flagged (``not_applicable`` says why and what applies).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import bdtrc

from humeval.agreement.pairs import LabelCounts
from humeval.agreement.rankings import expected_agreement, ranking_labels
from humeval.agreement.scales import CATEGORICAL_MAX, is_categorical
from humeval.data.tables import Comparisons, Ratings, Table

NOT_APPLICABLE = "n/a"  # the flag of an assessable judge when exact agreement does not apply
NOT_ABOVE_CHANCE = "not above chance"  # agreement not shown above chance at alpha
ALPHA, MIN_PAIRS, OUTLIER_MADS = 0.01, 20, 3.0  # judge_quality's cut-offs (flag_rules states them)
EXACT_COLUMNS = ["agreement", "kappa", "consensus", "self-consistency", "p (above chance)"]


def not_applicable(table: Comparisons | Ratings) -> str | None:
    """Why exact agreement says nothing about ``table``'s judges, with what does; None where it applies
    (comparisons, and ratings whose scores are labels: ``scales.is_categorical``)."""
    if not isinstance(table, Ratings) or not len(table) or is_categorical(table.score, table.scale):
        return None
    score = table.score[~np.isnan(table.score)]
    distinct = len(np.unique(score))
    kind = "whole numbers" if np.all(score == np.round(score)) else "not all whole numbers"
    if table.scale and kind == "whole numbers":
        kind += f" on the declared scale {table.scale}"
    return (f"exact agreement does not apply to these scores: they are continuous ({distinct:,} distinct values, "
            f"{kind}; a label scale has at most {CATEGORICAL_MAX} whole-number points), so two judges' scores "
            "rarely match exactly whatever their quality; nobody is flagged on it. What applies: WMT's quality "
            "control on degraded references and its consistency of repeated items per annotator (humeval judges FILE "
            "with the file's control rows, or --wmt-qc), and between judges interval alpha (humeval agreement FILE)")


def flag_rules(alpha: float = ALPHA, min_pairs: int = MIN_PAIRS, outlier_mads: float = OUTLIER_MADS) -> str:
    """What each flag of ``judge_quality`` means, with its cut-off (the console and the report say it)."""
    return (f"'{NOT_ABOVE_CHANCE}' = agreement with the others not shown above chance (one-sided binomial test of "
            f"P(A) > P(E): p (above chance) ≥ {alpha:g}, the cut-off); 'outlier' = kappa more than {outlier_mads:g} "
            f"median absolute deviations below the median judge's; 'few pairs' = fewer than {min_pairs} pairs shared "
            "with other judges, too few to judge (not flagged, listed last); 'repeat pairs' = the judge's repeated "
            "judgments behind self-consistency.")


def cutoff_line(alpha: float = ALPHA, min_pairs: int = MIN_PAIRS, outlier_mads: float = OUTLIER_MADS) -> str:
    """``flag_rules`` in one console line: the cut-offs of the two flags that drop a judge."""
    return (f"cut-off: '{NOT_ABOVE_CHANCE}' when p (above chance) ≥ {alpha:g} (binomial test of P(A) > P(E), "
            f"judges with ≥ {min_pairs} pairs); 'outlier' when kappa < median − {outlier_mads:g} MADs")


def _quality(counts: LabelCounts, p_e: float, names, alpha: float, min_pairs: int, outlier_mads: float,
             exact: bool = True) -> pd.DataFrame:
    inter = counts.per_judge_inter()
    intra = counts.per_judge_intra()
    consensus = pd.Series(counts.leave_one_out_majority()).groupby(counts.judge).mean()
    judgments = pd.Series(counts.judge).value_counts()
    df = pd.DataFrame({"judgments": judgments})
    df["pairs"] = inter["pairs"]
    df["agreement"] = inter["agree"] / inter["pairs"].replace(0, np.nan)
    df["kappa"] = (df["agreement"] - p_e) / (1 - p_e) if p_e < 1 else np.nan
    df["consensus"] = consensus
    df["self-consistency"] = intra["agree"] / intra["pairs"].replace(0, np.nan)
    df["repeat pairs"] = intra["pairs"].reindex(df.index).fillna(0).astype(np.int64)
    agree = np.round(inter["agree"].reindex(df.index).fillna(0).to_numpy())
    pairs = df["pairs"].fillna(0).to_numpy().astype(np.int64)
    with np.errstate(invalid="ignore"):  # P(X ≥ agree) for X ~ Binomial(pairs, P(E)): binomtest's "greater" p
        above = np.where(agree > 0, bdtrc(agree - 1, pairs, p_e), 1.0)
    df["p (above chance)"] = np.where(pairs > 0, np.minimum(above, 1.0), np.nan)
    enough = df["pairs"].fillna(0) >= min_pairs
    median = df.loc[enough, "kappa"].median()
    mad = (df.loc[enough, "kappa"] - median).abs().median() * 1.4826
    outlier = enough & (df["kappa"] < median - outlier_mads * mad) if mad > 0 else enough & False
    chance = enough & (df["p (above chance)"] >= alpha)
    df["flag"] = np.where(~enough, "few pairs", np.where(chance, NOT_ABOVE_CHANCE, np.where(outlier, "outlier", "")))
    if not exact:  # continuous scores: equal labels measure nothing (not_applicable)
        df[EXACT_COLUMNS] = np.nan
        df["flag"] = np.where(~enough, "few pairs", NOT_APPLICABLE)
    df.index = [names[j] if 0 <= j < len(names) else "(unknown judge)" for j in df.index]
    df.index.name = "judge"
    df["_known"] = df["flag"] == "few pairs"  # unknown reliability goes last, not first
    return df.sort_values(["_known", "kappa", "judgments"], ascending=[True, True, False]).drop(columns="_known")


def judge_quality(table: Comparisons | Ratings, exclude=(), drop_ties: bool = False, expected: str = "observed",
                  alpha: float = ALPHA, min_pairs: int = MIN_PAIRS, outlier_mads: float = OUTLIER_MADS) -> pd.DataFrame:
    """One row per judge, least reliable first (see the module doc for the columns and flags; on
    continuous scores the exact-agreement columns are NaN and nobody is flagged)."""
    if isinstance(table, Comparisons):
        counts, share, _ = ranking_labels(table, exclude, drop_ties)
        p_e = expected_agreement(share, expected, 2 if drop_ties else 3)
        return _quality(counts, p_e, table.judges, alpha, min_pairs, outlier_mads)
    if isinstance(table, Ratings):
        from humeval.agreement.scales import _units, chance_shares
        exact = not_applicable(table) is None
        if exact:
            values, label = np.unique(table.score, return_inverse=True)
        else:  # the pair counts need no labels, and a count per distinct score of a continuous scale (de-en:
            # 5,499) per unit took 12 s, most of it allocating; the exact-agreement columns are NaN anyway
            values, label = np.zeros(1), np.zeros(len(table), dtype=np.int64)
        counts = LabelCounts(_units(table), table.judge.astype(np.int64), label, len(values))
        _, share = chance_shares(table, values, label, expected)
        return _quality(counts, float((share ** 2).sum()), table.judges, alpha, min_pairs, outlier_mads,
                        exact=exact)
    raise TypeError(f"judge_quality takes Comparisons or Ratings, not {type(table).__name__}")


def flagged(quality: pd.DataFrame) -> list[str]:
    """The judges a quality table flags: agreement not shown above chance, or outliers."""
    return [j for j, f in quality["flag"].items() if f in (NOT_ABOVE_CHANCE, "outlier")]


def drop_judges(table: Table, judges) -> Table:
    """The table without the named judges' (or editors') rows: ``drop_judges(c, flagged(judge_quality(c)))``.
    Rows of unknown judges (code -1) and tables without judges stay as they are."""
    for label_set, column in (("judges", "judge"), ("editors", "editor")):
        if label_set in table._labels:
            break
    else:
        return table
    listed = set(judges)
    codes = [i for i, name in enumerate(table._labels[label_set]) if name in listed]
    if not codes:
        return table
    return table.take(~np.isin(table._cols[column], codes)).compact()
