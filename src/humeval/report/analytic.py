"""The report's check of the bootstrap against the analytic intervals of the Bradley–Terry family
(``humeval.ranking.analytic``): per system the bootstrap's percentile interval, the Fisher one
(inverse information, score ± z σ) and the sandwich one clustered by judge (by ranking group when
the file names no judges), their widths relative to the bootstrap's, and the WMT rank cluster each
analytic covariance gives; then which systems disagree and what that means.

Disagreement (per system): an analytic interval whose width w_a differs from the bootstrap's
w_b by more than ``TOLERANCE`` (|w_a / w_b − 1| > 25 %), or an analytic rank cluster other than
the bootstrap's. The analytic rank clusters come from ``CLUSTER_DRAWS`` draws of the scores from
N(score, Cov) ranked and trimmed exactly as bootstrap resamples are (``BootstrapResult.table``,
Koehn 2012), seeded, so they are reproducible.

What a disagreement means: the bootstrap of the report resamples single comparisons, as Fisher's
information treats them — independent. A sandwich interval clustered by judge that is wider than
both says the judgments of one judge are correlated (judges' own tastes): the comparison
bootstrap and Fisher are then too narrow, and the intervals to use are those of a bootstrap that
resamples whole judges (``humeval rank --resample judge``; whole rankings, ``--resample ranking``, when the
sandwich clusters by ranking), of which the sandwich is the analytic counterpart
(``correlated_unit`` says when; the report then ranks by that bootstrap too). A Fisher interval
that differs from the bootstrap's while the data are not clustered says the likelihood is far
from normal for that system — few comparisons, a score pulled towards the prior, or a lopsided
record — where the percentile bootstrap is the better guide.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.experiments.clusters import analytic_clusters

from humeval.report.render import number

TOLERANCE = 0.25
WHY = {"judge": "a judge's own taste", "ranking": "one judge ordered them at one sitting"}


def cluster_column(comparisons) -> str | None:
    """What the sandwich clusters by: ``judge`` when the comparisons name at least
    ``MIN_CLUSTERS`` judges, else ``group`` (the k-way ranking a pair was expanded from) when
    there are that many rankings, else None (each comparison alone): a cluster-robust covariance
    from fewer clusters is unreliable, and so is a bootstrap of that few units."""
    from humeval.ranking.analytic import MIN_CLUSTERS
    for column in ("judge", "group"):
        labels = np.asarray(getattr(comparisons, column))
        if len(np.unique(labels[labels >= 0])) >= MIN_CLUSTERS:
            return column
    return None


def compare_intervals(model, comparisons, boot: pd.DataFrame, confidence: float = 0.95,
                      random_state=0) -> tuple[pd.DataFrame, str | None, list[str]]:
    """(table, clusters, disagreeing systems): per system of ``boot`` (``BootstrapResult.table()``,
    best first) the bootstrap, Fisher and sandwich intervals, the analytic widths over the
    bootstrap's, and the clusters; ``clusters`` is what the sandwich clustered by."""
    clusters = cluster_column(comparisons)
    from humeval.ranking.analytic import intervals
    cov_f, cov_s = model.covariance("fisher"), model.covariance("sandwich", clusters)  # each computed once
    fisher = intervals(model, "fisher", confidence, cov=cov_f).reindex(boot.index)
    sandwich = intervals(model, "sandwich", confidence, clusters=clusters, cov=cov_s).reindex(boot.index)
    width = (boot["upper"] - boot["lower"]).to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio_f = (fisher["upper"] - fisher["lower"]).to_numpy() / width
        ratio_s = (sandwich["upper"] - sandwich["lower"]).to_numpy() / width
    table = pd.DataFrame({"score": boot["score"], "boot lower": boot["lower"], "boot upper": boot["upper"],
                          "fisher lower": fisher["lower"], "fisher upper": fisher["upper"],
                          "sandwich lower": sandwich["lower"], "sandwich upper": sandwich["upper"],
                          "fisher/boot width": ratio_f, "sandwich/boot width": ratio_s,
                          "boot cluster": boot["cluster"],
                          "fisher cluster": analytic_clusters(model, "fisher", cov_f, confidence, random_state)
                          .reindex(boot.index),
                          "sandwich cluster": analytic_clusters(model, "sandwich", cov_s, confidence, random_state)
                          .reindex(boot.index)}, index=boot.index)
    fisher_off = (np.abs(ratio_f - 1) > TOLERANCE) | (table["fisher cluster"] != table["boot cluster"]).to_numpy()
    sandwich_off = (np.abs(ratio_s - 1) > TOLERANCE) | (table["sandwich cluster"] != table["boot cluster"]).to_numpy()
    table.attrs.update(fisher_off=[str(x) for x in boot.index[fisher_off]],
                       sandwich_off=[str(x) for x in boot.index[sandwich_off]])
    off = fisher_off | sandwich_off
    return table, clusters, [str(s) for s in boot.index[off]]


def _listed(systems: list[str], total: int, shown: int = 12) -> str:
    """The systems named, at most ``shown`` of them and how many more; "all N systems" when every
    one of the ``total`` is named."""
    if len(systems) == total and total > shown:
        return f"all {total} systems"
    return ", ".join(systems[:shown]) + (f" and {len(systems) - shown} more" if len(systems) > shown else "")


def correlated_unit(table: pd.DataFrame, clusters: str | None) -> str | None:
    """The unit whose judgments are correlated, as ``bootstrap``'s ``by`` names it ("judge", or
    "ranking" when the sandwich clustered by ranking), when the sandwich disagrees with the
    bootstrap for some system and its median width over the bootstrap's exceeds
    1 + ``TOLERANCE`` / 2: the comparison bootstrap is then too narrow and the intervals to use
    resample whole units. None otherwise (no clusters, or a sandwich as narrow as the bootstrap)."""
    if not clusters or not table.attrs.get("sandwich_off"):
        return None
    if not table["sandwich/boot width"].median() > 1 + TOLERANCE / 2:
        return None
    return "ranking" if clusters == "group" else clusters


def disagreement_note(table: pd.DataFrame, clusters: str | None, disagree: list[str]) -> str:
    """One paragraph: where the analytic and bootstrap intervals disagree (width off by more than
    ``TOLERANCE`` or another rank cluster), and what it means."""
    by = {"judge": "by judge", "group": "by ranking (fewer than 10 judges in the file)",
          None: "per comparison (fewer than 10 judges or rankings in the file to cluster by)"}[clusters]
    if not disagree:
        return (f"Analytic and bootstrap intervals agree: Fisher and sandwich (clustered {by}) widths are within "
                f"{TOLERANCE:.0%} of the bootstrap's for every system, with the same rank clusters.")
    fisher_off, sandwich_off = table.attrs["fisher_off"], table.attrs["sandwich_off"]
    text = (f"Analytic and bootstrap intervals disagree (width off by more than {TOLERANCE:.0%} or another rank "
            f"cluster) for {len(disagree)} of {len(table)} systems. Median width over the bootstrap's: Fisher "
            f"{number(table['fisher/boot width'].median(), 'decimal')}, sandwich clustered {by} "
            f"{number(table['sandwich/boot width'].median(), 'decimal')}.")
    unit = correlated_unit(table, clusters)
    if sandwich_off:
        text += (f" Sandwich: {_listed(sandwich_off, len(table))}. " + (
            f"Comparisons that share a {unit} are correlated ({WHY.get(unit, 'a shared source')}), which the "
            "comparison bootstrap and Fisher's information both treat as independent: their intervals are too "
            "narrow. Use a bootstrap "
            f"that resamples whole {unit}s (humeval rank --resample {unit}), of which the sandwich is the analytic "
            "counterpart." if unit else
            "The robust covariance sees a model that misfits those systems' records (or, for clusters only, systems "
            "on a cluster boundary)."))
    if fisher_off:
        text += (f" Fisher: {_listed(fisher_off, len(table))}. The likelihood is not normal there (few comparisons, a "
                 "score pulled towards the prior, a lopsided record) and a bootstrap is the better guide than "
                 "Fisher's normal approximation; where only the clusters differ, the systems sit on a boundary either "
                 "method may draw.")
    return text
