"""WMT24's human ranking from ESA scores, as its organisers computed it.

The procedure of ``humeval/calculate_clusters.py`` and ``humeval/tools.py`` in
wmt-conference/wmt24-news-systems (Kocmi et al., "Findings of the WMT24 General Machine
Translation Shared Task", 2024, §"Human evaluation"), in two versions of those scripts:

``variant="2024-09-13"`` (commit 71cc027, the one that wrote the committed
``generated_human_ranking.tex``) and ``variant="final"`` (the scripts as they stand after the
2024-09-25 "fixed bug with ranks calculation" and 2024-10-03 "updated calculation of clusters"
commits; the repository commits no table made by them). Both:

1. **Rows.** ``TGT`` rows only; tutorial items, ``#incomplete`` fillers and ``#dup`` repeats are
   left out, and an account's re-rating of an output replaces its earlier score (all done by
   ``humeval.data.readers.esa``). ``BAD`` controls are set aside (counted here when the ratings
   keep them). ``refA`` (the human reference, "HUMAN-A" in the tables) is ranked like a system.
   Scores are raw 0–100: no per-annotator standardisation.
2. **One score per output and wave.** Within a wave, the scores of one output (system, document,
   segment) by several accounts are averaged (``groupby(annot_id).mean``). Waves are kept apart:
   an output scored in two waves counts twice.
3. **System score.** The mean per domain (``literary``, ``news``, ``social``, ``speech``: the
   ``test-en-<domain>_…`` part of the document id), then the unweighted mean of the domain means
   (the tables' "Human" column).
4. **Pairwise test.** For each pair of systems the outputs of the same segment are paired (an
   inner join on document and segment over all waves: an output scored in two waves pairs with
   both scores of the other system); per domain a Wilcoxon signed-rank test of the differences,
   combined over domains by Stouffer's method, z_d = Φ⁻¹(1 − p_d), Z = Σ z_d / √D,
   p = 1 − Φ(Z). 2024-09-13: one-sided p_d ("x better than y"). Final: two-sided p_d put through
   the same one-sided combination (the scripts' own mix), so p(x, y) = p(y, x).
5. **Rank range.** With p < ``alpha`` (0.05): 2024-09-13, wins = systems y with p(x, y) < α and
   losses = systems y with p(y, x) < α; final, a significant pair is a win for the system with the
   higher score and a loss for the other (a tie in score counts as a loss). Range
   ``losses + 1`` – ``n − wins``.
6. **Clusters** (best first). 2024-09-13: walking down the table, a new cluster starts when the
   row's position (its score's rank) exceeds the largest rank-range end seen so far. Final: a
   system and all below it down to the last one it is *not* significantly different from share a
   cluster; a new cluster starts after a system when no system above reaches past it.

WMT24 left out a language pair with fewer than 100 scored outputs per system on average; such a
pair is ranked here with a note saying so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from humeval.agreement.scales import signed_rank_p
from humeval.data.judgments import Judgments
from humeval.data.tables import Ratings

VARIANTS = ("final", "2024-09-13")
PROTOCOL = "wmt24-esa"
MIN_PER_SYSTEM = 100  # calculate_clusters.py: "we are far from enough annotations"
_DOMAIN = re.compile(r"^[^_:]*-([A-Za-z]+)_")


@dataclass
class WMT24Ranking:
    """``table``: systems best first, columns ``score`` (the macro-average over domains), ``n``
    (scored outputs, waves counted apart), ``domain_<name>`` means, ``rank`` ("lo-hi"), ``rank_lo``,
    ``rank_hi``, ``wins``, ``losses``, ``cluster``, ``note``. ``pvalues``: p(row better than
    column) as the variant computes it. ``set_aside``: rows not used, by reason."""

    track: str | None
    table: pd.DataFrame
    pvalues: pd.DataFrame
    variant: str
    alpha: float
    set_aside: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    protocol: str = PROTOCOL

    @property
    def segments_per_system(self) -> float:
        """The tables' title figure: the mean number of scored outputs per system."""
        return float(self.table["n"].mean())


def domain_of(item: str) -> str | None:
    """The domain in a WMT24 item label ``test-en-<domain>_<name>:<segment>``, or in a WMT25-style
    ``<lp>_#_<domain>_#_<document>_#_<segment>`` (None if absent)."""
    if "_#_" in item:
        return item.split("_#_")[1]
    match = _DOMAIN.match(item)
    return match.group(1) if match else None


def wmt24_esa(waves, track: str | None = None, variant: str = "final", alpha: float = 0.05) -> WMT24Ranking:
    """Rank one language pair's systems from ESA scores as WMT24's organisers did (module doc).

    Parameters
    ----------
    waves : Ratings, Judgments, or a sequence of them, one per annotation wave
        As ``humeval.read`` gives them for WMT24's ``esa_generalMT2024_wave*.csv`` (items
        ``<doc_id>:<segment>``). Waves are kept apart as WMT24 does (step 2 of the module doc);
        a single table is one wave.
    track : str, optional
        The language pair (e.g. ``"en-cs"``); needed when the ratings hold several.
    variant : {"final", "2024-09-13"}
        Which version of the organisers' scripts (module doc).
    alpha : float
        The level of the pairwise tests.

    Returns
    -------
    WMT24Ranking
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant {variant!r}: use one of {', '.join(VARIANTS)}")
    frames, set_aside, notes = _rows(waves, track)
    data = pd.concat(frames, ignore_index=True)
    track = data["track"].iloc[0]
    if data["domain"].isna().any():
        missing = int(data["domain"].isna().sum())
        notes.append(f"{missing:,} scored outputs have no WMT24 document id (test-<lang>-<domain>_…), so their "
                     "domain is unknown: they form one domain of their own")
        data["domain"] = data["domain"].fillna("(unknown)")
    per_domain = data.groupby(["system", "domain"], observed=True)["score"].mean().unstack()
    score = per_domain.mean(axis=1)  # unweighted mean of the domain means (NaN domains skipped, as pandas)
    n = data.groupby("system", observed=True).size()
    order = score.sort_values(ascending=False, kind="stable").index.tolist()
    p = _pvalues(data, order, variant)
    significant = p < alpha
    s = score.loc[order].to_numpy()
    k = len(order)
    if variant == "2024-09-13":
        wins = significant.sum(axis=1)
        losses = significant.sum(axis=0)
    else:  # a significant pair is a win for the higher score, else a loss (tools.get_ranks)
        higher = s[:, None] > s[None, :]
        wins = (significant & higher).sum(axis=1)
        losses = (significant & ~higher).sum(axis=1)
    lo, hi = losses + 1, k - wins
    cluster = _clusters_dated(score.loc[order], hi) if variant == "2024-09-13" else _clusters_final(p, alpha)
    table = pd.DataFrame({"score": s, "n": n.loc[order].to_numpy()}, index=pd.Index(order, name="system"))
    for domain in per_domain.columns:
        table[f"domain_{domain}"] = per_domain.loc[order, domain].to_numpy()
    table["rank"] = [f"{a}-{b}" for a, b in zip(lo, hi)]
    table["rank_lo"], table["rank_hi"] = lo, hi
    table["wins"], table["losses"], table["cluster"] = wins, losses, cluster
    table["note"] = ["human reference (HUMAN-A in WMT24's tables)" if name.startswith("ref") else ""
                     for name in order]
    if n.mean() < MIN_PER_SYSTEM:
        notes.append(f"{n.mean():.1f} scored outputs per system on average: WMT24 did not rank pairs with fewer "
                     f"than {MIN_PER_SYSTEM}")
    if (lo > hi).any():
        notes.append("some rank ranges are empty (start after end): the variant's wins and losses overlap")
    notes.append(f"WMT24 ESA ({variant} scripts): raw scores, mean per domain then over domains; Wilcoxon "
                 f"signed-rank per domain ({'one-sided' if variant == '2024-09-13' else 'two-sided'}), "
                 f"Stouffer-combined; significant at p < {alpha:g}")
    pv = pd.DataFrame(p, index=pd.Index(order, name="system"), columns=order)
    return WMT24Ranking(track, table, pv, variant, alpha, set_aside, notes)


def wmt24_esa_tracks(waves, variant: str = "final", alpha: float = 0.05) -> dict[str, WMT24Ranking]:
    """``wmt24_esa`` for every language pair in ``waves``, by track."""
    tracks = sorted({t for r in _tables(waves) for t in r.tracks})
    return {t: wmt24_esa(waves, t, variant, alpha) for t in tracks}


def _tables(waves) -> list[Ratings]:
    if isinstance(waves, (Ratings, Judgments)) or not isinstance(waves, Sequence):
        waves = [waves]
    out = []
    for wave in waves:
        ratings = wave.ratings if isinstance(wave, Judgments) else wave
        if not isinstance(ratings, Ratings):
            raise TypeError(f"expected Ratings or Judgments (one per wave), got {type(wave).__name__}")
        out.append(ratings)
    return out


def _rows(waves, track):
    """Per wave: one score per (system, item) of ``track`` (step 2); what was set aside; notes."""
    set_aside: dict[str, int] = {}
    notes: list[str] = []
    for wave in (waves if isinstance(waves, Sequence) and not isinstance(waves, (Ratings, Judgments)) else [waves]):
        if isinstance(wave, Judgments):
            for reason, count in wave.report.skipped.items():  # the reader counts over all pairs of its file
                key = f"{reason} (reader, all pairs of the file)"
                set_aside[key] = set_aside.get(key, 0) + count
    tables = _tables(waves)
    tracks = sorted({t for r in tables for t in r.tracks})
    if track is None:
        if len(tracks) > 1:
            raise ValueError(f"the ratings hold {len(tracks)} language pairs ({', '.join(tracks)}): name one "
                             "with track=, or use wmt24_esa_tracks")
        track = tracks[0] if tracks else None
    frames = []
    averaged = 0
    for number, ratings in enumerate(tables):
        # label columns are pandas categories: every groupby here passes observed=True (pandas 2's default,
        # observed=False, adds a group for each unused label, such as the systems of other tracks)
        df = ratings.to_pandas()
        if track is not None:
            df = df[df["track"] == track]
        if df.empty:
            continue
        controls = df["kind"].notna() & (df["kind"] != "SYSTEM")
        for kind, count in df.loc[controls, "kind"].astype(str).value_counts().items():
            set_aside[f"{kind} control rows (WMT24 ranks TGT rows only)"] = (
                set_aside.get(f"{kind} control rows (WMT24 ranks TGT rows only)", 0) + int(count))
        df = df[~controls]
        grouped = df.groupby(["system", "item"], sort=False, observed=True)["score"]
        averaged += int((grouped.size() > 1).sum())
        one = grouped.mean().reset_index()
        one["wave"] = number
        one["track"] = track
        one["domain"] = [domain_of(str(i)) for i in one["item"]]
        frames.append(one)
    if not frames:
        raise ValueError(f"no system ratings{f' of {track}' if track else ''} to rank")
    if averaged:
        notes.append(f"{averaged:,} outputs scored by several accounts in one wave: their scores averaged, as WMT24")
    if len(frames) > 1:
        keys = [set(zip(f["system"], f["item"])) for f in frames]
        again = len(set.union(*keys)) < sum(map(len, keys))
        if again:
            notes.append("outputs scored in more than one wave count once per wave, as WMT24")
    return frames, set_aside, notes


def _pvalues(data: pd.DataFrame, order: list[str], variant: str) -> np.ndarray:
    """p[i, j]: WMT24's Stouffer-combined Wilcoxon p of "order[i] better than order[j]"."""
    alternative = "greater" if variant == "2024-09-13" else "two-sided"
    by_system = {name: g[["item", "domain", "score"]] for name, g in data.groupby("system", observed=True)}
    k = len(order)
    p = np.full((k, k), np.nan)
    for i in range(k):
        for j in range(i + 1, k):
            x, y = by_system[order[i]], by_system[order[j]]
            # inner join on the segment: an output scored in two waves pairs with every score of the other
            joined = x.merge(y[["item", "score"]], on="item", suffixes=("_x", "_y"))
            d = (joined["score_x"] - joined["score_y"]).to_numpy()
            domains = joined["domain"].to_numpy()
            p[i, j] = _stouffer(d, domains, alternative)
            p[j, i] = _stouffer(-d, domains, alternative)
    return p


def _stouffer(d: np.ndarray, domains: np.ndarray, alternative: str) -> float:
    if len(d) == 0:
        return np.nan
    z = []
    for domain in pd.unique(domains):
        # scipy.stats.wilcoxon's p with scipy ≥ 1.15's default method on every scipy; all-zero differences give p = 1
        z.append(stats.norm.ppf(1 - signed_rank_p(d[domains == domain], alternative)))
    return float(1 - stats.norm.cdf(np.sum(z) / np.sqrt(len(z))))


def _clusters_dated(score: pd.Series, hi: np.ndarray) -> np.ndarray:
    """2024-09-13: a new cluster when the row's position exceeds the largest range end so far."""
    position = score.rank(ascending=False).to_numpy()  # pandas' average rank, as calculate_clusters.py
    out, current, cutoff = [], 1, 1
    for pos, end in zip(position, hi):
        if pos > cutoff:
            current += 1
        out.append(current)
        cutoff = max(cutoff, end)
    return np.array(out)


def _clusters_final(p: np.ndarray, alpha: float) -> np.ndarray:
    """Final scripts (tools.get_clusters): rows best first; a system stays in the cluster while some
    system at or above it is not significantly different (p > alpha) from a system below it."""
    k = len(p)
    out, current, until = [], 1, -1
    for i in range(k):
        if until <= i:
            until = -1
        for j in range(i + 1, k):
            if p[i, j] > alpha:  # NaN p (no shared segments) is not "> alpha", as in the scripts
                until = max(j, until)
        out.append(current)
        if until == -1:
            current += 1
    return np.array(out)
