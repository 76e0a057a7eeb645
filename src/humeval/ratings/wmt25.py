"""WMT25's human ranking (ESA, two waves), as its organisers computed it.

The procedure of ``humeval/08-compute_clusters.py`` in wmt-conference/wmt25-general-mt (the
script that writes ``generated_human_ranking.tex``), on ``data/wmt25-genmt-humeval.jsonl`` as
``humeval.data.readers.wmt25`` reads it (one row per scored output and wave):

1. **Rows.** Every score of the file: no per-annotator standardisation, no control items, no
   annotator filter (the JSONL holds no BAD items; tutorial segments and unrated waves (NaN) are
   left out by the reader). ``refA`` (the human reference) is ranked like a system.
2. **System score** = the mean of all its scores, waves pooled (``statistics.mean`` over the
   non-NaN values); systems sorted by it, best first. Per-domain means (``doc_id``'s second
   ``_#_`` field) are shown beside it.
3. **Pairing.** The script lists each system's scores wave 1 then wave 2 over the same segments
   and compares a (wave1, wave2, wave1, wave2) with b (wave1, wave2, wave2, wave1): every segment
   gives the pairs (a_w, b_v) for all waves w, v both systems have a score in (NaN pairs
   dropped). Here: the cross product of the two systems' scores of each segment, which is the
   same set of pairs for two waves. Each score thus enters twice.
4. **Test.** ``scipy.stats.wilcoxon(a − b, alternative="greater")`` (one-sided signed-rank, zero
   differences dropped, scipy's default method) on those pairs; significant when p < 0.05/2.
5. **Rank range** of the system at position i (1-based, best first): the start walks up from i
   and stops at the first system above that is significantly better (each one that is not lowers
   the start by one); the end walks down from i and stops at the first system below it is
   significantly better than. Range ``start``–``end``.
6. **Clusters**: a cluster ends after position i exactly when every range of the rows 1..i ends
   at or before i and every range of the rows below starts after i.

Not in the script's data path and reported instead: a segment a system lacks in the file (the
script would stop with a KeyError; here its pairs are simply absent) and outputs with more than two
scores (the script reads waves 1 and 2 only; here all are paired: a note says so).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.agreement.scales import signed_rank_p
from humeval.data.tables import Ratings
from humeval.ratings.rank import RatingsRanking

PROTOCOL = "wmt25"
ALPHA = 0.05
SEP = "_#_"
STEPS = (
    "every score of the JSONL (reader: tutorials and unrated waves left out); raw 0–100, no per-annotator "
    "standardisation, no annotator filter; refA ranked like a system",
    "system score = mean of all its scores, both waves pooled; per-domain means beside it",
    "pairs of two systems: per segment every (wave w of a, wave v of b), both waves crossed as the script's "
    "a+a against b + swapped(b) does",
    "one-sided Wilcoxon signed-rank of a − b > 0 (scipy, zeros dropped); significant when p < 0.05/2",
    "rank range: walk up to the first significantly better system, down to the first significantly worse one",
    "a cluster ends after row i when every range above ends by i and every range below starts after i",
)


def pair_differences(a: pd.Series, b: pd.Series) -> np.ndarray:
    """a − b over every pair of scores of the same segment (``a``, ``b``: scores indexed by segment,
    one entry per wave): what 08-compute_clusters.py's ``get_significance`` tests."""
    both = pd.merge(a.rename("a"), b.rename("b"), left_index=True, right_index=True, how="inner")
    return (both["a"] - both["b"]).to_numpy(np.float64)


def one_sided_p(d: np.ndarray) -> float:
    """``scipy.stats.wilcoxon(d, alternative="greater").pvalue`` with scipy ≥ 1.15's default method on
    every scipy (``agreement.scales.signed_rank_p``); 1.0 when no difference is non-zero (scipy gives
    no p then; the script's ``p < 0.025`` is False either way)."""
    return signed_rank_p(d, "greater")


def rank_ranges(significant: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(start, end) per row, rows best first; ``significant[i, j]``: row i significantly beats row j."""
    k = len(significant)
    lo, hi = np.arange(1, k + 1), np.arange(1, k + 1)
    for i in range(k):
        for j in range(i - 1, -1, -1):  # nearest first: the script walks systems[:i][::-1]
            if significant[j, i]:
                break
            lo[i] -= 1
        for j in range(i + 1, k):
            if significant[i, j]:
                break
            hi[i] += 1
    return lo, hi


def cluster_ends(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Cluster number (1 = best) per row: ``does_cluster_end_here(i)`` is all(hi[:i] <= i) and
    all(lo[i:] > i) for i = 1 .. k − 1."""
    k = len(lo)
    cluster, current = np.ones(k, dtype=np.int64), 1
    for i in range(1, k):
        if (hi[:i] <= i).all() and (lo[i:] > i).all():
            current += 1
        cluster[i] = current
    return cluster


def wmt25(ratings: Ratings, source: str = "ratings", alpha: float = ALPHA) -> RatingsRanking:
    """WMT25's ranking of one language pair (see the module doc); ``alpha`` is the two-sided level,
    the script's one-sided threshold being ``alpha / 2`` = 0.025."""
    score = np.asarray(ratings.score, dtype=np.float64)
    keep = np.isfinite(score) & (ratings.system >= 0) & (ratings.item >= 0)
    skipped = {"ratings without a number, system or segment": int((~keep).sum())} if (~keep).any() else {}
    df = pd.DataFrame({"system": np.asarray(ratings.systems, dtype=object)[ratings.system[keep]],
                       "item": np.asarray(ratings.items, dtype=object)[ratings.item[keep]], "score": score[keep]})
    df["domain"] = [str(i).split(SEP)[1] if str(i).count(SEP) >= 1 else "" for i in df["item"]]
    notes = ["WMT25 (08-compute_clusters.py): raw scores, waves pooled, no annotator filter or standardisation"]
    per_output = df.groupby(["system", "item"]).size()
    if (per_output > 2).any():
        notes.append(f"{int((per_output > 2).sum()):,} outputs have more than two scores: WMT25 had two waves and "
                     "its script reads waves 1 and 2 only; here every score is paired (cross product)")
    missing = df["system"].nunique() * df["item"].nunique() - len(per_output)
    if missing:
        notes.append(f"{missing:,} (system, segment) outputs have no score in the file: WMT25's script assumes every "
                     "system in every segment (it would stop with a KeyError); here such a segment gives no pairs")
    means = df.groupby("system")["score"].mean()
    # sorted(..., key=mean, reverse=True) over a set of names: ties in the mean fall in arbitrary (set) order
    # in the script; here ties are broken by name
    order = sorted(means.index, key=lambda s: (-means[s], s))
    ties = int(means.duplicated(keep=False).sum())
    if ties:
        notes.append(f"{ties} systems share a mean with another: the script orders ties arbitrarily, here by name")
    k = len(order)
    by_system = {s: part.set_index("item")["score"] for s, part in df.groupby("system")}
    p = np.full((k, k), np.nan)
    for i, a in enumerate(order):
        for j, b in enumerate(order):
            if i != j:
                p[i, j] = one_sided_p(pair_differences(by_system[a], by_system[b]))
    significant = p < alpha / 2  # get_significance: pvalue < 0.05/2, a one-sided test at half the level
    lo, hi = rank_ranges(significant)
    table = pd.DataFrame({"score": means.loc[order].to_numpy(),
                          "n": df.groupby("system").size().loc[order].to_numpy()},
                         index=pd.Index(order, name="system"))
    for domain, part in df.groupby("domain"):
        if domain:
            table[f"domain_{domain}"] = part.groupby("system")["score"].mean().reindex(order).to_numpy()
    table["rank"] = [f"{a}-{b}" for a, b in zip(lo, hi)]
    table["rank_lo"], table["rank_hi"] = lo, hi
    table["cluster"] = cluster_ends(lo, hi)
    pv = pd.DataFrame(p, index=pd.Index(order, name="system"), columns=order)
    notes += [f"pairs: per segment both systems' scores crossed (wave w of one with wave v of the other); one-sided "
              f"Wilcoxon signed-rank, significant at p < {alpha / 2:g} (the script's 0.05/2)",
              "rank range: up to the first significantly better system above, down to the first significantly worse "
              "below; a cluster ends where no range crosses"]
    return RatingsRanking(table, pv, "esa", "score", "wilcoxon signed-rank, waves crossed", alpha / 2, skipped, notes,
                          PROTOCOL)
