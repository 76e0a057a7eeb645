"""Annotator quality control on direct assessment with WMT's control items (Graham et al. 2013, 2017).

WMT mixes quality-control items into every annotator's work (``Ratings.kind``):

- **degraded references** (``BAD_REF``; ``BAD`` in Appraise/ESA exports): a system's output with
  a phrase damaged, shown as if it were an output. Each is paired with the *same annotator's*
  rating of the original it degrades: the same track, criterion, system and segment, rated as
  ``SYSTEM`` (``TGT`` in Appraise); the first such rating in the file when there are several
  (WMT's HIT holds the original and its degraded copy once each). For annotator j with pairs
  (o_k, b_k), d_k = o_k − b_k and the one-sided Wilcoxon signed-rank test of H1 "d > 0"
  (zero differences dropped, scipy's exact distribution for small n, normal approximation
  otherwise: ``scipy.stats.wilcoxon(d, alternative="greater")``, as Appraise's
  ``ComputeAnnotatorMetrics`` does on the same differences; ``agreement.scales.degraded_pvalue``) gives p_j. The annotator
  **passes** when p_j < 0.05 (WMT's threshold; ``alpha``), i.e. reliably scores degraded
  outputs lower than the originals. The test is the same on raw and on z scores: z is an
  increasing affine map per annotator, so it keeps the signs and ranks of d.
  With fewer than 5 non-zero differences no p-value can fall below 0.05 (the smallest exact
  one-sided p is 2^−n): such annotators fail, as in WMT, and the notes say how many.
- **exact repeats** (``REPEAT``; ``CHK`` in Appraise): an output shown again, paired with the
  annotator's first rating of it. Repeat consistency: Pearson r of (first, repeat) over the
  annotator's pairs (n ≥ 3, both sides varying) and the mean absolute difference
  (1/n) Σ |first − repeat|. Reported, not used for the pass/fail flag (WMT's flag is the
  degraded-reference test).

A file without such items gets ``has_controls = False`` and a note saying so: nothing is guessed.
References: Y. Graham, T. Baldwin, A. Moffat, J. Zobel, "Can machine translation systems be
evaluated by the crowd alone", Natural Language Engineering 23(1), 2017; WMT17–21 findings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from humeval.agreement.scales import degraded_pvalue
from humeval.data.tables import Ratings

ALPHA = 0.05
ORIGINAL = ("SYSTEM", "TGT")
DEGRADED = ("BAD_REF", "BAD")
REPEATS = ("REPEAT", "CHK")
MIN_PASSABLE = 5  # 2**-4 = 0.0625 > 0.05: fewer non-zero differences can never pass
KEYS = ["judge", "track", "criterion", "system", "item"]
TEST_SOURCE = ("the test Graham et al. 2017 describe and Appraise's ComputeAnnotatorMetrics runs; WMT's MTurk "
               "to-English filter ran a one-sided paired t-test instead: judges --wmt-qc paired-t")
NO_CONTROLS = ("the file marks no degraded-reference (BAD_REF) or repeat items, so WMT's annotator quality control "
               "cannot be run; nothing is guessed")


@dataclass
class AnnotatorQC:
    """Per annotator (``table``, index ``judge``): ratings of system outputs, degraded-reference
    pairs, the mean drop o − b, the one-sided Wilcoxon p, repeat pairs with their correlation and
    mean absolute difference, and ``flag`` (pass / fail / no pairs). ``pairs``: every control
    paired with its original (columns judge, track, system, item, control, original, score)."""

    table: pd.DataFrame
    pairs: pd.DataFrame
    alpha: float = ALPHA
    has_controls: bool = True
    skipped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def failed(self) -> list[str]:
        """Annotators with degraded-reference pairs who fail the test (for ``--drop-list``)."""
        return [j for j, f in self.table["flag"].items() if f == "fail"] if len(self.table) else []


def kept_by_wmt(n: int, failing: int, verb: str = "fail") -> str:
    """What to say when the file is WMT's kept-workers file (``readers.wmt_da.kept_workers_file``)
    and the recomputed test ``verb``s ``failing`` of its ``n`` annotators."""
    return (f"this is WMT's kept-workers file: WMT's quality control already kept all {n:,} annotators in it. The "
            f"test here, run on this file's rows alone, does not reproduce WMT's decisions on it ({failing:,} {verb} "
            "here; WMT likely tested each worker over all their HITs in the unfiltered dump, which is not published: "
            "see docs/validation.md), so it is no reason to drop a worker WMT kept")


def kind_names(ratings: Ratings) -> np.ndarray:
    """The upper-case kind of every rating ('' where the file does not say)."""
    labels = np.array([k.upper() for k in ratings.kinds] + [""], dtype=object)
    return labels[ratings.kind]


def has_controls(ratings: Ratings) -> bool:
    """Whether any rating is a degraded reference or a repeat."""
    return bool(np.isin(kind_names(ratings), DEGRADED + REPEATS).any())


def system_ratings(ratings: Ratings) -> Ratings:
    """The ratings of system outputs only: rows marked SYSTEM/TGT or unmarked (controls and the
    reference shown as a control, REF, left out)."""
    kinds = kind_names(ratings)
    keep = np.isin(kinds, ORIGINAL + ("",))
    return ratings if keep.all() else ratings.take(keep).compact()


def repeat_rows(ratings: Ratings | None = None, skipped: dict[str, int] | None = None) -> int:
    """How many repeat controls (REPEAT/CHK rows) the file holds: marked in ``ratings`` read with
    their controls, or counted among the reader's ``skipped`` reasons ("quality-control rows of
    type REPEAT …") when they were left out at reading (``--no-controls``)."""
    marked = int(np.isin(kind_names(ratings), REPEATS).sum()) if ratings is not None and len(ratings) else 0
    prefix = "quality-control rows of type "
    dropped = sum(n for reason, n in (skipped or {}).items()
                  if reason.startswith(prefix) and reason[len(prefix):].split(" ")[0].upper() in REPEATS)
    return marked + dropped


def repeats_left_out(n: int, where: str = "agreement") -> str:
    """The sentence that says why ``n`` repeat controls give no intra-annotator pair in ``where``."""
    return (f"the file's {n:,} REPEAT rows (outputs shown again to the same annotator) are quality controls, left "
            f"out of {where}; each annotator's consistency on them (repeat pairs, r, |diff|) is in WMT's annotator "
            "quality control: humeval judges FILE with its control rows (the default)")


def control_pairs(ratings: Ratings) -> tuple[pd.DataFrame, dict[str, int]]:
    """Every degraded-reference and repeat rating beside the same annotator's first rating of
    the original (same track, criterion, system, segment). Returns (pairs, skipped counts)."""
    kinds = kind_names(ratings)
    df = pd.DataFrame({k: getattr(ratings, k) for k in KEYS})
    df["kind"], df["score"] = kinds, np.asarray(ratings.score, dtype=np.float64)
    df = df[(df.judge >= 0) & (df.system >= 0) & (df.item >= 0)]
    originals = df[df.kind.isin(ORIGINAL)].drop_duplicates(KEYS, keep="first")
    controls = df[df.kind.isin(DEGRADED + REPEATS)]
    merged = controls.merge(originals[KEYS + ["score"]].rename(columns={"score": "original"}), on=KEYS, how="left")
    skipped: dict[str, int] = {}
    for names, label in ((DEGRADED, "degraded-reference"), (REPEATS, "repeat")):
        lost = int((merged.kind.isin(names) & merged.original.isna()).sum())
        if lost:
            skipped[f"{label} items whose original the same annotator did not rate (unpaired)"] = lost
    merged = merged[merged.original.notna()]
    out = pd.DataFrame({
        "judge": [ratings.judges[j] for j in merged.judge],
        "track": [ratings.tracks[t] if t >= 0 else "" for t in merged.track],
        "system": [ratings.systems[s] for s in merged.system],
        "item": [ratings.items[i] for i in merged.item],
        "control": np.where(merged.kind.isin(DEGRADED), "BAD_REF", "REPEAT"),
        "original": merged.original.to_numpy(),
        "score": merged.score.to_numpy(),
    })
    if not ratings.higher_is_better:  # error scores: orient so that "lower" means worse
        out["original"], out["score"] = -out["original"], -out["score"]
    return out, skipped


def repeat_consistency(first: np.ndarray, repeat: np.ndarray) -> tuple[float, float]:
    """(Pearson r, mean |first − repeat|); r is NaN below 3 pairs or when a side is constant."""
    first, repeat = np.asarray(first, dtype=np.float64), np.asarray(repeat, dtype=np.float64)
    if len(first) == 0:
        return np.nan, np.nan
    mad = float(np.mean(np.abs(first - repeat)))
    if len(first) < 3 or np.ptp(first) == 0 or np.ptp(repeat) == 0:
        return np.nan, mad
    return float(np.corrcoef(first, repeat)[0, 1]), mad


def annotator_qc(ratings: Ratings, alpha: float = ALPHA) -> AnnotatorQC:
    """WMT's annotator quality control on one ratings table (see the module doc)."""
    if not has_controls(ratings):
        return AnnotatorQC(pd.DataFrame(columns=["flag"]).rename_axis("judge"), pd.DataFrame(), alpha, False,
                           notes=[NO_CONTROLS])
    pairs, skipped = control_pairs(ratings)
    kinds = kind_names(ratings)
    known = ratings.judge >= 0
    rated = pd.Series(np.bincount(ratings.judge[known & np.isin(kinds, ORIGINAL)], minlength=len(ratings.judges)),
                      index=list(ratings.judges))
    rows = []
    for judge in rated.index:
        mine = pairs[pairs.judge == judge]
        bad = mine[mine.control == "BAD_REF"]
        rep = mine[mine.control == "REPEAT"]
        if not len(bad) and not len(rep) and not rated[judge]:
            continue
        p = degraded_pvalue(bad.original, bad.score) if len(bad) else np.nan
        r, mad = repeat_consistency(rep.original, rep.score)
        rows.append({"judge": judge, "ratings": int(rated[judge]), "bad-ref pairs": len(bad),
                     "mean drop": float((bad.original - bad.score).mean()) if len(bad) else np.nan,
                     "p (degraded lower)": p, "repeat pairs": len(rep), "repeat r": r, "repeat |diff|": mad,
                     "flag": "no pairs" if not len(bad) else ("pass" if p < alpha else "fail")})
    table = pd.DataFrame(rows).set_index("judge")
    order = {"fail": 0, "pass": 1, "no pairs": 2}
    table = table.assign(_o=table.flag.map(order)).sort_values(["_o", "p (degraded lower)"], ascending=[True, False])
    table = table.drop(columns="_o")
    notes = [f"degraded references: one-sided Wilcoxon signed-rank test per annotator of original − degraded > 0; "
             f"pass when p < {alpha:g} ({TEST_SOURCE})"]
    nonzero = pairs[pairs.control == "BAD_REF"].assign(d=lambda f: f.original != f.score).groupby("judge").d.sum()
    few = int(((nonzero > 0) & (nonzero < MIN_PASSABLE)).sum())
    if few:
        notes.append(f"{few} annotator(s) have fewer than {MIN_PASSABLE} degraded-reference pairs with a difference: "
                     f"no test of so few pairs can reach p < {alpha:g}, so they fail as in WMT")
    counts = table.flag.value_counts()
    notes.append("annotators: " + ", ".join(f"{counts.get(f, 0)} {f}" for f in ("pass", "fail", "no pairs")))
    return AnnotatorQC(table, pairs, alpha, True, skipped, notes)
