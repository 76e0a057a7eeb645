"""Named procedures: one organiser's way from a ratings file to a ranking, run end to end.

``PROTOCOLS`` maps a name to a ``Protocol``: a one-line title, the documented steps, the source,
and ``ranker``, the function that runs it on the ratings of one track (a ``Ratings`` table) and
returns a ``RatingsRanking``. ``run(name, ratings, **options)`` runs it on every track and stamps
each result with the protocol's name, so every output says which procedure produced it.

- ``humeval``: humeval's configurable ranking (``rank_ratings``: --model, --significance,
  --correction, clusters "all-below"); what ``rank`` runs when no protocol is named.
- ``wmt-da-toen``: WMT's to-English direct assessment as run 2019–2022 (``wmt_da_toen``).

Registering another procedure (e.g. a plain function ``esa_wmt24.rank(ratings, **options)``
returning a ``RatingsRanking``)::

    register(Protocol("esa-wmt24", "WMT24 ESA (Kocmi et al. 2024)", steps=("…", "…"),
                      source="WMT24 findings", ranker=esa_wmt24.rank))

``needs_controls=True`` asks the reader to keep quality-control rows (``Ratings.kind``);
``options`` names the keyword options the ranker accepts beyond ``ratings`` and ``source``;
``variants`` the versions of the organisers' scripts the ranker's ``variant`` option takes (the
first its default); ``formats`` the reader formats (``humeval.data.FORMATS``) whose files are the organiser's own, so
that ``rank`` and ``report``, run without a protocol on such a file, say which one reproduces the
organiser's numbers (``organisers``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from humeval.data.tables import Ratings
from humeval.errors import InputError
from humeval.ratings.aggregate import _build, znorm
from humeval.ratings.clusters import clusters, wins
from humeval.ratings.quality import DEGRADED, ORIGINAL, REPEATS, kind_names
from humeval.ratings.rank import RatingsRanking, rank_ratings, rank_tracks
from humeval.ratings.significance import rank_sum


@dataclass(frozen=True)
class Protocol:
    """One named procedure: ``ranker(ratings_of_one_track, source=..., **options) -> RatingsRanking``."""

    name: str
    title: str
    steps: tuple[str, ...]
    source: str
    ranker: Callable[..., RatingsRanking]
    needs_controls: bool = False
    options: tuple[str, ...] = ()
    formats: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()

    def __post_init__(self):
        if bool(self.variants) != ("variant" in self.options):
            raise ValueError(f"protocol {self.name}: a 'variant' option needs its variants named, and variants "
                             f"a 'variant' option")


PROTOCOLS: dict[str, Protocol] = {}


def organisers(fmt: str | None) -> list[Protocol]:
    """The protocols whose organisers wrote files of reader format ``fmt`` (``Protocol.formats``)."""
    return [p for p in PROTOCOLS.values() if fmt and fmt in p.formats]


def register(protocol: Protocol) -> Protocol:
    """Add ``protocol`` to ``PROTOCOLS`` under its name (a second one of the same name replaces it)."""
    PROTOCOLS[protocol.name] = protocol
    return protocol


def get(name: str) -> Protocol:
    if name not in PROTOCOLS:
        raise ValueError(f"unknown protocol {name!r}; choose one of {', '.join(PROTOCOLS)}")
    return PROTOCOLS[name]


def run(name: str, ratings: Ratings, **options) -> dict[str, RatingsRanking]:
    """Run protocol ``name`` on each track (and criterion) of ``ratings``; results named as
    ``rank_tracks`` names them, each with ``protocol`` set to ``name``."""
    protocol = get(name)
    unknown = sorted(set(options) - set(protocol.options) - {"source"})
    if unknown:
        raise ValueError(f"protocol {name} takes no option {', '.join(unknown)}"
                         + (f" (it takes {', '.join(protocol.options)})" if protocol.options else ""))
    results = rank_tracks(ratings, ranker=protocol.ranker, **options)
    for result in results.values():
        result.protocol = name
    return results


# ---------------------------------------------------------------- WMT DA to-English, 2019–2022

CONTROLS = DEGRADED + REPEATS + ("REF",)
SEGMENT_KINDS = ORIGINAL + REPEATS + ("",)  # what a segment score averages ('' = the file does not say)
WMT_DA_TOEN_STEPS = (
    "standardise each annotator over ALL their rows of the pair, quality controls included (SYSTEM, REPEAT, "
    "BAD_REF, REF): z = (x − mean) / sd, sample sd (n − 1); a file that already holds z-scores (WMT's "
    "*-good-stnd.csv) is used as given, and raw = z·sd + mean from WMT's *-trk-mean-sd.txt",
    "segment score of (system, segment) = mean of its SYSTEM and REPEAT ratings (z and raw)",
    "system score = mean of its segment scores (z and raw); systems ordered by z",
    "one-sided Wilcoxon rank-sum (Mann–Whitney U, normal approximation with tie and continuity correction, R's "
    "wilcox.test(alternative='greater')) between two systems' segment z-scores, as written to WMT's segment file "
    "(15 significant digits)",
    "WINS_k = number of systems k beats at p < 0.05 (any system, above or below it); a cluster ends after "
    "system k exactly when WINS_k equals the number of systems below k",
)


def significant15(values: np.ndarray) -> np.ndarray:
    """``values`` rounded to 15 significant digits (R's ``write.table``/``print`` default)."""
    return np.array([float(f"{v:.15g}") for v in np.asarray(values, dtype=np.float64)])


def wmt_da_toen(ratings: Ratings, worker_stats: pd.DataFrame | None = None, segment_scores: pd.DataFrame | None = None,
                alpha: float = 0.05, source: str = "ratings", given_segments: pd.DataFrame | None = None
                ) -> RatingsRanking:
    """WMT's to-English DA ranking of one track as run 2019–2022 (``WMT_DA_TOEN_STEPS``).

    ``ratings`` must keep the control rows (``read(..., controls=True)``); their ``kind`` says
    SYSTEM / REPEAT / BAD_REF / REF. ``worker_stats`` (``read_worker_stats``: judge → mean, sd)
    turns a z-score file back into raw scores; on a raw file it is compared with the per-worker
    mean and sd computed here. ``segment_scores`` (``read_segment_scores``: an official segment
    file) is compared row by row with the segments computed here, and the official system means
    over its rows are added as ``official z`` / ``official raw``.

    Ratings without annotators or controls in z (a segment file, format ``wmt-da-seg``) are segment
    scores already: steps 3–5 run on them as given (``ranked_segment_file``); ``given_segments``
    (``read_segment_scores`` of that same file) adds each segment's RAW.SCR and N.
    Sources: Graham et al. (2017); WMT19–22 findings; wmt22-news-systems/humaneval/DA scripts' outputs.
    """
    kinds = kind_names(ratings)
    if _segment_file(ratings, kinds):
        if worker_stats is not None:
            raise InputError(source, None, "these are segment scores without annotators: worker statistics do not "
                             "apply", "leave --worker-stats out (a segment file's raw means are its RAW.SCR)")
        result = ranked_segment_file(ratings, given_segments, alpha)
        if segment_scores is not None:
            compare_segments(result, segment_scores)
        return result
    score = np.asarray(ratings.score, dtype=np.float64)
    skipped: dict[str, int] = {}
    notes: list[str] = []
    keep = np.isfinite(score) & (ratings.system >= 0) & (ratings.item >= 0)
    _count(skipped, "ratings without a number, system or segment", (~keep).sum())
    if ratings.scale != "z" and not np.isin(kinds, CONTROLS).any():  # a z file is not standardised here
        notes.append("the ratings carry no control rows (REPEAT, BAD_REF, REF): each annotator is standardised over "
                     "the rows given; WMT standardises over the controls too (read the file with its controls)")
    workers = None
    if ratings.scale == "z":
        z = score
        notes.append("the file holds z-scores already (WMT's *-good-stnd.csv): used as given, not standardised again")
        if worker_stats is None:
            raw = np.full(len(score), np.nan)
            notes.append("raw means unavailable: the file holds z-scores only; give WMT's per-worker mean and sd "
                         "(*-trk-mean-sd.txt, --worker-stats) to recover raw = z·sd + mean")
        else:
            raw = _unstandardise(ratings, z, keep, worker_stats, source)
            notes.append("raw = z·sd + mean with each worker's mean and sd from the worker-stats file")
    else:
        raw = score
        z, ok, why = znorm(score, ratings.judge, keep)  # over ALL rows: SYSTEM, REPEAT, BAD_REF, REF
        for reason, n in why.items():
            _count(skipped, reason, n)
        keep &= ok
        workers = worker_table(ratings, score, keep)
        notes.append(f"z: each of {len(workers)} annotators standardised over all their rows, controls included")
        if worker_stats is not None:
            notes.append(_compare_workers(workers, worker_stats))
    controls = keep & ~np.isin(kinds, SEGMENT_KINDS)
    for name in sorted(set(kinds[controls])):
        _count(skipped, f"{name} rows: in each annotator's mean and sd, not in segment scores", (controls & (kinds == name)).sum())
    rated = keep & np.isin(kinds, SEGMENT_KINDS)
    agg = _build(ratings, "z-mean", rated, raw, z, 1.0, skipped, notes)
    segments = pd.DataFrame({"system": np.array(agg.systems, dtype=object)[agg.cell_system],
                             "item": np.array(agg.items, dtype=object)[agg.cell_item],
                             "raw": agg.cell_raw, "z": agg.cell_value, "n": agg.cell_count})
    result = rank_segments(segments, alpha)
    result.skipped, result.notes = dict(skipped), notes + result.notes
    if worker_stats is None and ratings.scale == "z":
        result.table = result.table.drop(columns="raw")
    if segment_scores is not None:
        compare_segments(result, segment_scores)
    return result


def _segment_file(ratings: Ratings, kinds: np.ndarray) -> bool:
    """Whether ``ratings`` are segment scores (a ``wmt-da-seg`` file): z-scores without annotators or
    controls, one per (system, segment)."""
    if ratings.scale != "z" or (ratings.judge >= 0).any() or np.isin(kinds, CONTROLS).any():
        return False
    keys = ratings.system.astype(np.int64) * (len(ratings.items) + 1) + ratings.item
    return len(np.unique(keys)) == len(keys)


def ranked_segment_file(ratings: Ratings, given: pd.DataFrame | None, alpha: float = 0.05) -> RatingsRanking:
    """Steps 3–5 of ``wmt_da_toen`` on a file of segment scores (one z per system and segment, no
    annotators). ``given`` (``read_segment_scores`` of the same file) supplies RAW.SCR and N per
    segment; without it (WMT17–19's ``LP DATA SYSTEM SID HUMAN``) the raw and ratings columns are
    left out, and the table counts segments only."""
    keep = np.isfinite(ratings.score) & (ratings.system >= 0) & (ratings.item >= 0)
    skipped: dict[str, int] = {}
    _count(skipped, "scores without a number, system or segment", (~keep).sum())
    segments = pd.DataFrame({"system": np.array(ratings.systems, dtype=object)[ratings.system[keep]],
                             "item": np.array(ratings.items, dtype=object)[ratings.item[keep]].astype(str),
                             "z": np.asarray(ratings.score, dtype=np.float64)[keep]})
    notes = ["the file holds segment scores (no annotators): each is the mean z of a (system, segment) as the file "
             "gives it; WMT standardised each annotator and averaged the SYSTEM and REPEAT ratings before writing it"]
    matched = None
    if given is not None:
        rows = given.assign(item=lambda d: d["item"].astype(str)).drop_duplicates(["system", "item"])
        matched = segments.merge(rows[["system", "item", "raw", "n"]], on=["system", "item"], how="left")
        if matched[["raw", "n"]].isna().any().any():
            notes.append(f"{int(matched[['raw', 'n']].isna().any(axis=1).sum()):,} segment scores have no RAW.SCR or N "
                         "in the file: raw means and rating counts left out")
            matched = None
    if matched is not None:
        segments = matched
        zeros = int(((segments["raw"] == 0) & (segments["z"] == 0)).sum())
        notes.append("raw = the file's RAW.SCR; ratings = the sum of its N over the system's segments (WMT's N.ALL)")
        if zeros:
            notes.append(f"{zeros:,} segments have RAW.SCR = Z.SCR = 0 exactly (WMT22 wrote such rows for segments "
                         "with no judgment in its *-good-stnd.csv); counted, as WMT's system scores count them")
    else:
        segments = segments.assign(raw=np.nan, n=1)
        notes.append("the file gives no raw score or count of ratings per segment: no raw column, and the table "
                     "counts segments, not ratings")
    result = rank_segments(segments, alpha, given=True)
    if matched is None:
        result.table = result.table.drop(columns=["raw", "ratings"])
    result.skipped, result.notes = skipped, notes + result.notes
    return result


def rank_segments(segments: pd.DataFrame, alpha: float = 0.05, given: bool = False) -> RatingsRanking:
    """Steps 3–5 of ``wmt_da_toen`` on segment scores (columns system, item, raw, z, n: ours, or
    an official ``ad-seg-scores`` file as ``read_segment_scores`` gives it, ``given=True``)."""
    codes, systems = pd.factorize(segments["system"], sort=True)
    k = len(systems)
    n_seg = np.bincount(codes, minlength=k)
    z = np.bincount(codes, segments["z"].to_numpy(np.float64), k) / n_seg
    raw = np.bincount(codes, segments["raw"].to_numpy(np.float64), k) / n_seg
    # WMT ran the test on the segment scores as written to its segment file (15 significant digits):
    # ties between the printed values decide the tie correction, which moves p by up to 0.4 % otherwise
    p = rank_sum(codes, significant15(segments["z"].to_numpy(np.float64)), k)
    order = np.lexsort((np.arange(k), -z))
    significant = p < alpha
    table = pd.DataFrame({"segments": n_seg, "ratings": np.bincount(codes, segments["n"].to_numpy(np.float64), k)
                          .astype(np.int64), "raw": raw, "z": z, "wins": wins(significant)},
                         index=pd.Index(list(systems), name="system")).iloc[order]
    table["cluster"] = clusters(significant, order, "wins")
    names = [systems[i] for i in order]
    pv = pd.DataFrame(p[np.ix_(order, order)], index=pd.Index(names, name="system"), columns=names)
    made = "" if given else "segment score = mean of the SYSTEM and REPEAT ratings; "
    notes = [f"{made}system = mean of its {int(n_seg.sum()):,} segment scores",
             "one-sided Wilcoxon rank-sum on segment z-scores (15 significant digits, as WMT's segment file holds them)",
             f"clusters: WMT's WINS rule, a cluster ends after a system that significantly beats (p < {alpha:g}) as many "
             "systems as there are below it"]
    return RatingsRanking(table, pv, "z-mean", "z", "wilcoxon", alpha, {}, notes, "wmt-da-toen",
                          segments.reset_index(drop=True))


def compare_segments(result: RatingsRanking, official: pd.DataFrame) -> pd.DataFrame:
    """Compare ``result.segments`` with an official segment file (``read_segment_scores``),
    row by row; add ``official z`` (and ``official raw``) system means over the official rows to
    ``result.table`` and notes saying exactly what differs. Returns the merged rows."""
    ours = result.segments.assign(item=lambda d: d["item"].astype(str))
    theirs = official.assign(item=lambda d: d["item"].astype(str))
    check_segment_file(ours, theirs, official.attrs.get("path", "the segment-score file"))
    theirs = theirs[theirs["system"].isin(ours["system"].unique())]
    merged = ours.merge(theirs, on=["system", "item"], how="outer", suffixes=("", "_official"), indicator=True)
    both = merged[merged["_merge"] == "both"]
    only_official = merged[merged["_merge"] == "right_only"]
    only_ours = merged[merged["_merge"] == "left_only"]
    dz = float(np.abs(both["z"] - both["z_official"]).max()) if len(both) else 0.0
    line = (f"official segment file: {len(both):,} of our {len(ours):,} segment rows found in it, |Δz| ≤ {dz:.1e}")
    if both["raw"].notna().any():
        line += f", |Δraw| ≤ {float(np.abs(both['raw'] - both['raw_official']).max()):.1e}"
    line += f", N differs in {int((both['n'] != both['n_official']).sum())}"
    result.notes.append(line)
    if len(only_official):
        zeros = only_official[(only_official["z_official"] == 0) & (only_official["raw_official"] == 0)]
        per = only_official.groupby("system").size().sort_values(ascending=False)
        result.notes.append(
            f"the official segment file has {len(only_official):,} rows with no judgment in this file "
            f"({len(zeros):,} of them RAW.SCR = Z.SCR = 0; {', '.join(f'{s} {n}' for s, n in per.items())}); "
            "WMT's system scores, p-values and clusters count them, these do not")
    if len(only_ours):
        result.notes.append(f"{len(only_ours):,} of our segment rows are missing from the official segment file")
    means = theirs.groupby("system")[["z", "raw"]].mean()
    table = result.table
    table["official z"] = means["z"].reindex(table.index)
    if "raw" in table:
        table["official raw"] = means["raw"].reindex(table.index)
    gap = float(np.abs(table["z"] - table["official z"]).max())
    result.notes.append(f"system z vs the official segment file's system means: max |Δz| = {gap:.2g}")
    return merged


# Share of the judgments' (system, segment) keys a segment file may lack and still be compared. WMT22's
# files of the same pair lack none (cs-en 0 of 16,008, de-en 0 of 17,139, ja-en 0 of 23,259 keys); another
# pair's file lacks 78–95 % of them (cs-en judgments with de-en's file: 12,461 of 16,008, 9 of 12 systems).
MISSING_KEYS = 0.01


def check_segment_file(ours: pd.DataFrame, theirs: pd.DataFrame, path) -> None:
    """Refuse an official segment file that does not hold the judgments' segments (another language
    pair's or year's file): an ``InputError`` when more than ``MISSING_KEYS`` of our (system,
    segment) keys are not in it."""
    keys = pd.MultiIndex.from_frame(theirs[["system", "item"]])
    lacking = ~pd.MultiIndex.from_frame(ours[["system", "item"]]).isin(keys)
    if lacking.sum() <= MISSING_KEYS * len(ours):
        return
    systems = sorted(set(ours["system"]) - set(theirs["system"]))
    named = f" ({', '.join(systems[:3])}{', …' if len(systems) > 3 else ''})" if systems else ""
    raise InputError(path, None, f"its systems and segments do not match the judgments': it lacks "
                     f"{len(systems)} of their {ours['system'].nunique()} systems{named} and {int(lacking.sum()):,} "
                     f"of their {len(ours):,} (system, segment) keys (more than {MISSING_KEYS:.0%} missing)",
                     "give the ad-seg-scores file of the same language pair and year as the judgments")


def _unstandardise(ratings, z, keep, worker_stats, source) -> np.ndarray:
    judges = np.array(list(ratings.judges) + [""], dtype=object)[ratings.judge]
    stats = worker_stats.reindex(pd.Index(ratings.judges, name="judge"))
    missing = [j for j in np.unique(judges[keep & (ratings.judge >= 0)]) if pd.isna(stats.loc[j, "sd"])]
    if missing or (keep & (ratings.judge < 0)).any():
        raise InputError(source, None, f"{len(missing)} worker(s) not in the worker-stats file (e.g. "
                         f"{', '.join(missing[:3]) or 'ratings without a worker id'})",
                         "give the *-trk-mean-sd.txt of the same language pair")
    mean = np.append(stats["mean"].to_numpy(), np.nan)[ratings.judge]
    sd = np.append(stats["sd"].to_numpy(), np.nan)[ratings.judge]
    raw = z * sd + mean
    check_whole(raw, judges, keep, worker_stats.attrs.get("path", "the worker-stats file"))
    return raw


# How far z·sd + mean may lie from a whole number (the 0–100 slider) with the right worker statistics.
# WMT's z are written to 15 significant digits (|z| < 10: error ≤ 5e-15) and sd < 50, so float error is
# below 2.5e-13; measured with ad-<xxen>-trk-mean-sd.txt: max 2.0e-13 (cs-en, de-en), 2.2e-13 (ja-en).
# 1e-6 also admits z written with 9 significant digits. The wrong file (…-no-refs.txt) leaves every row
# off: median 0.23 (cs-en), 0.25 (de-en, ja-en), max 0.50, 98 % of the rows beyond 0.01.
WHOLE = 1e-6


def check_whole(raw: np.ndarray, judges: np.ndarray, keep: np.ndarray, path) -> None:
    """Refuse worker statistics under which the recovered raw scores are not whole numbers (to
    ``WHOLE``): they are not the mean and sd the z-scores were made with (another pair's file, or
    WMT's ``*-no-refs.txt``), and the raw means would be silently wrong."""
    off = np.abs(raw - np.round(raw))
    bad = keep & ~(off <= WHOLE)
    if not bad.any():
        return
    workers = np.unique(judges[bad])
    raise InputError(path, None, f"raw = z·sd + mean is not a whole number (the 0–100 slider) for {int(bad.sum()):,} of "
                     f"{int(keep.sum()):,} ratings, of {len(workers)} workers (e.g. {', '.join(map(str, workers[:3]))}; "
                     f"median distance {float(np.median(off[bad])):.2g}, tolerance {WHOLE:g}): these are not the mean "
                     "and sd the z-scores were made with",
                     "give the *-trk-mean-sd.txt of the same language pair (not *-no-refs.txt); without worker "
                     "statistics the ranking by z stands and the raw column is left out")


def worker_table(ratings: Ratings, score: np.ndarray, keep: np.ndarray) -> pd.DataFrame:
    """Per annotator (index ``judge``): ratings ``n``, ``mean`` and sample ``sd`` of ``score`` over
    the ``keep`` rows (all of them, controls included, in ``wmt_da_toen``): WMT's trk-mean-sd."""
    frame = pd.DataFrame({"judge": np.array(ratings.judges, dtype=object)[ratings.judge[keep]], "score": score[keep]})
    return frame.groupby("judge")["score"].agg(n="size", mean="mean", sd="std")


def _compare_workers(workers: pd.DataFrame, stats: pd.DataFrame) -> str:
    shared = workers.index.intersection(stats.index)
    if not len(shared):
        return "worker-stats file: none of its workers rated here"
    dm = float(np.abs(workers.loc[shared, "mean"] - stats.loc[shared, "mean"]).max())
    ds = float(np.abs(workers.loc[shared, "sd"] - stats.loc[shared, "sd"]).max())
    return (f"per-worker mean and sd over all rows vs the worker-stats file ({len(shared)} of {len(workers)} workers): "
            f"max |Δmean| = {dm:.1e}, max |Δsd| = {ds:.1e}")


def _count(skipped: dict, reason: str, n) -> None:
    if int(n) > 0:
        skipped[reason] = skipped.get(reason, 0) + int(n)


def _humeval(ratings: Ratings, source: str = "ratings", **options) -> RatingsRanking:
    return rank_ratings(ratings, source=source, **options)


register(Protocol(
    "humeval", "humeval's configurable ranking of ratings (z-mean, raw, mqm or esa; chosen test; all-below clusters)",
    steps=("per the model: z per annotator over the system rows (controls left out), or raw/MQM/ESA scores as given",
           "segment score = mean of the (system, segment) ratings; system score = mean of its segment scores",
           "every ordered pair tested (rank-sum by default), optionally corrected (Holm, BH)",
           "clusters: a boundary where every system above is significantly better than every system below"),
    source="humeval.ratings.rank.rank_ratings", ranker=_humeval,
    options=("model", "test", "correction", "alpha", "n_boot", "resample", "confidence", "n_resamples", "human",
             "human_pattern", "scale", "redup", "cluster_rule", "random_state")))

register(Protocol(
    "wmt-da-toen", "WMT direct assessment into English as run 2019–2022 (crowd DA on MTurk)",
    steps=WMT_DA_TOEN_STEPS,
    source="Graham et al. (2017); WMT19–22 findings; wmt-conference/wmt22-news-systems humaneval/DA outputs",
    ranker=wmt_da_toen, needs_controls=True, options=("worker_stats", "segment_scores", "alpha", "given_segments"),
    formats=("wmt-da", "wmt-da-seg")))


# ---------------------------------------------------------------- WMT24 ESA and Google's MQM

def _wmt24_esa(ratings: Ratings, source: str = "ratings", variant: str = "final", alpha: float = 0.05
               ) -> RatingsRanking:
    """``esa_wmt24.wmt24_esa`` on one track (one file = one wave) as a ``RatingsRanking``."""
    from humeval.ratings.esa_wmt24 import wmt24_esa
    result = wmt24_esa(ratings, variant=variant, alpha=alpha)
    return RatingsRanking(result.table, result.pvalues, "esa", "score",
                          "Wilcoxon signed-rank per domain, Stouffer-combined", alpha, dict(result.set_aside),
                          list(result.notes) + [wmt24_variant_note(variant)], "wmt24-esa")


def _esa_variants() -> tuple[str, ...]:
    from humeval.ratings.esa_wmt24 import VARIANTS
    return VARIANTS


def wmt24_variant_note(variant: str) -> str:
    """Which version of WMT24's scripts ran, how to run the other, and why neither need meet the
    committed tables on one wave's file."""
    ran = ("the scripts after the 2024-09-25 rank fix and the 2024-10-03 cluster update; --variant 2024-09-13 "
           "(variant='2024-09-13') runs the version that wrote the committed generated_human_ranking.tex"
           if variant == "final" else
           "commit 71cc027, the version that wrote the committed generated_human_ranking.tex; --variant final "
           "runs the scripts as they stand")
    return (f"variant {variant} of WMT24's scripts ran ({ran}); the committed tables also counted waves 0–1 "
            "(not published) and the ESA files as they were before their 2024-11-29 re-issue, so one wave's "
            "file need not reproduce them")


def _google_mqm(ratings: Ratings, source: str = "ratings") -> RatingsRanking:
    """``mqm_google.google_mqm`` on one track as a ``RatingsRanking`` (no test: Google's tables
    give the means only)."""
    from humeval.ratings.mqm_google import google_mqm
    result = google_mqm(ratings)
    names = list(result.table.index)
    pvalues = pd.DataFrame(np.nan, index=pd.Index(names, name="system"), columns=names)
    return RatingsRanking(result.table, pvalues, "mqm", "mqm", "none", 0.05, dict(result.set_aside),
                          list(result.notes), "google-mqm")


register(Protocol(
    "wmt24-esa", "WMT24 error span annotation (ESA, Appraise), the organisers' ranking scripts",
    steps=("TGT rows only: tutorials, #incomplete, #dup and BAD controls set aside; an account's re-rating replaces "
           "its earlier score", "raw 0–100 scores, no per-annotator standardisation; one score per output and wave",
           "system score = unweighted mean of its per-domain means",
           "per-domain Wilcoxon signed-rank on the outputs both systems have, Stouffer-combined",
           "the scripts' rank-range and cluster rules (variant 'final', or '2024-09-13' for the committed tables)"),
    source="wmt-conference/wmt24-news-systems humeval/calculate_clusters.py, tools.py (humeval.ratings.esa_wmt24)",
    ranker=_wmt24_esa, needs_controls=True, options=("variant", "alpha"), variants=_esa_variants()))  # no formats: the esa reader takes
# any ESA export (Appraise's current one, a plain CSV with spans), not only WMT24's, so no ESA file is claimed as WMT24's

register(Protocol(
    "google-mqm", "Google's MQM (Freitag et al. 2021): weighted error counts averaged over raters, then segments",
    steps=("weights: Major 5, Minor 1, Minor Fluency/Punctuation 0.1, Major Non-translation 25, Neutral 0",
           "per (system, segment): mean over its raters of the weighted error count",
           "system MQM = mean over its rated segments; lower is better (no significance test in Google's tables)"),
    source="Freitag et al. (2021), google/wmt-mqm-human-evaluation (humeval.ratings.mqm_google)",
    ranker=_google_mqm))


# ---------------------------------------------------------------- WMT25

def _wmt25(ratings: Ratings, source: str = "ratings", alpha: float = 0.05) -> RatingsRanking:
    from humeval.ratings.wmt25 import wmt25
    return wmt25(ratings, source=source, alpha=alpha)


def _wmt25_steps() -> tuple[str, ...]:
    from humeval.ratings.wmt25 import STEPS
    return STEPS


register(Protocol(
    "wmt25", "WMT25 ESA ranking (two waves crossed, one-sided Wilcoxon at 0.025, rank-range clusters)",
    steps=_wmt25_steps(), source="wmt-conference/wmt25-general-mt humeval/08-compute_clusters.py "
    "(humeval.ratings.wmt25)", ranker=_wmt25, options=("alpha",), formats=("wmt25-jsonl",)))


# ---------------------------------------------------------------- WMT DA out of English via Appraise (WMT20–22)

def _wmt_da_appraise(ratings: Ratings, source: str = "ratings", variant: str = "wmt22", alpha: float = 0.05
                     ) -> RatingsRanking:
    from humeval.ratings.wmt_da_appraise import wmt_da_appraise
    return wmt_da_appraise(ratings, source=source, variant=variant, alpha=alpha)


def _wmt_da_appraise_steps() -> tuple[str, ...]:
    from humeval.ratings.wmt_da_appraise import STEPS
    return STEPS


def _wmt_da_appraise_variants() -> tuple[str, ...]:
    from humeval.ratings.wmt_da_appraise import VARIANTS
    return VARIANTS


register(Protocol(
    "wmt-da-appraise", "WMT source-based DA out of English in Appraise (WMT21–22): z per annotator, matched "
    "Mann–Whitney wins, running-minimum clusters",
    steps=_wmt_da_appraise_steps(), source="wmt-conference/wmt22-news-systems humaneval/DA+SQM/make_rankings.py "
    "(variant wmt22); AppraiseDev/Appraise Campaign/management/commands/ComputeWMT21Results.py (variant wmt21)",
    ranker=_wmt_da_appraise, needs_controls=True, options=("variant", "alpha"), variants=_wmt_da_appraise_variants()))
