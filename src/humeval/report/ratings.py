"""The campaign report's sections for ratings (DA, ESA, MQM, Likert): the same story as for
rankings, with WMT's procedure for absolute ratings.

1. the controls in the data (system outputs, degraded references, repeats, references per track);
2. the annotators: WMT's quality control (``humeval.ratings.quality``: one-sided Wilcoxon on
   degraded-reference pairs, p < 0.05 passes; repeat consistency), or a note that the file has
   no control items;
3. which model predicts unseen ratings best (``humeval.ratings.heldout``: held-out log score and
   RMSE of raw, z-mean, mixed and ordinal per track);
4. per track, WMT's ranking: system scores with bootstrap intervals, wins and clusters from the
   pairwise tests (``humeval.ratings.rank_tracks``), the scores plot and the head-to-head heatmap.

Completion (Wisniewski 2013) stays in ``campaign._completion_section``. Control rows never reach
the ranking, the agreement or the completion: ``without_controls`` gives the rest of the report
the system ratings only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.report.campaign import Figure, Section, Table, _png, command, headline, is_reference

RANKING_TEST = "wilcoxon"


def without_controls(judgments):
    """``judgments`` whose ratings hold system outputs only (controls left for ``ratings_sections``)."""
    from dataclasses import replace

    from humeval.ratings.quality import system_ratings
    if judgments.ratings is None:
        return judgments
    kept = system_ratings(judgments.ratings)
    return judgments if kept is judgments.ratings else replace(judgments, ratings=kept)


def ratings_sections(ratings, path: str, n_boot: int = 1000, random_state: int = 0, step=None,
                     summary: list | None = None, methods: list | None = None, read_args=(), tracks=(),
                     kept: bool = False, fmt: str | None = None) -> list[Section]:
    """The ratings sections of the campaign report for ``ratings`` as read (controls included);
    ``read_args`` and ``tracks`` (the reading options) are repeated in every table's command;
    ``kept``: the file is WMT's kept-workers file (``readers.wmt_da.kept_workers_file``); ``fmt``:
    the reader format, to name the organiser's protocol for their own files."""
    step = step or (lambda _: None)
    summary = summary if summary is not None else []
    methods = methods if methods is not None else []
    step("ratings: annotator quality control")
    where = {"read_args": tuple(read_args), "tracks": tuple(tracks)}
    sections = [annotator_section(ratings, path, summary, methods, where, kept)]
    step("ratings: which model predicts unseen ratings")
    sections.append(model_section(ratings, path, summary, random_state, where))
    sections += ranking_sections(ratings, path, n_boot, random_state, step, summary, methods, where, fmt)
    return sections


def control_counts(ratings) -> pd.DataFrame:
    """Ratings per track and kind (SYSTEM, BAD_REF, REPEAT, REF; 'unmarked' where the file does not say)."""
    from humeval.ratings.quality import kind_names
    kinds = np.where(kind_names(ratings) == "", "unmarked", kind_names(ratings))
    tracks = np.array(list(ratings.tracks) + ["(no track)"], dtype=object)[ratings.track]
    table = pd.crosstab(pd.Series(tracks, name="track"), pd.Series(kinds, name="kind"))
    table.columns.name = None
    return table


def annotator_section(ratings, path: str, summary: list, methods: list, where=None, kept: bool = False) -> Section:
    """The ratings by kind and WMT's degraded-reference test per annotator; on WMT's kept-workers
    file (``kept``) the failures are not offered for dropping: WMT kept every annotator in it."""
    from humeval.ratings.quality import TEST_SOURCE, annotator_qc, kept_by_wmt
    section = Section("Ratings: annotators and their quality controls")
    section.tables.append(Table("Ratings by kind", control_counts(ratings),
                                "System outputs and the quality-control items mixed into the annotators' work "
                                "(BAD_REF: a degraded output; REPEAT: an output shown again; REF: the reference).",
                                command("info", path, **(where or {})), "track"))
    qc = annotator_qc(ratings)
    if not qc.has_controls:
        section.notes += qc.notes
        return section
    shown = qc.table if len(qc.table) <= 40 else qc.table.head(40)
    section.tables.append(Table(
        f"Annotators: WMT's degraded-reference test on this file's rows ({len(qc.table)} annotators, failing first"
        + ("" if len(qc.table) <= 40 else "; first 40") + ")", shown,
        "Each degraded output is paired with the same annotator's first rating of the original (same system and "
        f"segment); one-sided Wilcoxon signed-rank test of original − degraded > 0 per annotator, pass when p < "
        f"{qc.alpha:g} ({TEST_SOURCE}). Repeat r and |diff|: Pearson correlation and mean absolute difference of "
        "first and repeated scores (Graham et al. 2017).",
        command("judges", path, "--all", *(() if kept else ("--drop-list", "failed.txt")), **(where or {})), "judge"))
    section.notes += qc.notes + [f"skipped {n:,} {reason}" for reason, n in qc.skipped.items()]
    failed = qc.failed
    tested = int((qc.table["flag"] != "no pairs").sum())
    named = ": " + ", ".join(failed[:20]) + (" …" if len(failed) > 20 else "") if failed else ""
    if kept:  # WMT's filter kept every annotator of this file: a failure here is no reason to drop one
        section.notes.append(f"{len(failed)} annotators fail{named}; {kept_by_wmt(len(qc.table), len(failed))}")
        summary.append(f"{len(failed)} of {tested} annotators fail the degraded-reference test recomputed on this file's "
                       f"rows, but WMT's quality control kept all {len(qc.table)} (the file holds its kept workers): the "
                       "test does not reproduce WMT's decisions here (docs/validation.md).")
    else:
        section.notes.append(f"{len(failed)} annotators fail{named}"
                             + (f"; {command('rank', path, '--drop-judges', 'failed.txt', **(where or {}))} ranks "
                                "without them" if failed else ""))
        summary.append(f"{len(failed)} of {tested} annotators with degraded-reference pairs fail WMT's quality control.")
    methods.append("Annotator quality control (Graham et al. 2017): one-sided Wilcoxon signed-rank test that an "
                   f"annotator scores degraded outputs lower than the originals; p < {qc.alpha:g} passes (WMT's MTurk "
                   "to-English filter ran a paired t-test instead).")
    return section


def model_section(ratings, path: str, summary: list, random_state: int = 0, where=None) -> Section:
    """Which model predicts unseen ratings best (raw, z-mean, mixed, ordinal), judged on held-out
    ratings (``humeval.ratings.heldout.compare_models``, one trial per training size) like
    compare-models judges the pairwise models; one table per track."""
    from humeval.ratings.heldout import compare_models
    from humeval.ratings.quality import system_ratings
    section = Section("Ratings: which model predicts unseen ratings best")
    for track, part in system_ratings(ratings).by_track().items():
        try:
            result = compare_models(part, trials=1, random_state=random_state, source=path)
        except ValueError as error:  # InputError included: too few ratings to hold some out
            section.notes.append(f"{track}: no comparison ({error})")
            continue
        section.tables.append(Table(
            f"{track}: held-out {result.measure} per rating (higher is better) and RMSE", result.table,
            " ".join(result.notes), command("rank", path, "--heldout", **_track(where, track)), "model"))
        section.notes.append(f"{track}: {result.best} predicts unseen ratings best")
        summary.append(f"{track}: {result.best} predicts held-out ratings best.")
    return section


def ranking_sections(ratings, path: str, n_boot: int, random_state: int, step, summary: list,
                     methods: list, where=None, fmt: str | None = None) -> list[Section]:
    """The ratings rankings by humeval's default procedure (WMT-style, not an organiser's
    protocol); on an organiser's own file (``fmt``) each section names the protocol that
    reproduces their numbers (``rank --protocol``)."""
    from humeval.ratings.rank import default_model
    from humeval.ratings import rank_tracks
    from humeval.ratings.protocols import organisers
    from humeval.report.ratings_plot import plot_scores, plot_significance_heatmap
    from humeval.ratings.quality import system_ratings
    system = system_ratings(ratings)
    model = default_model(system)
    theirs = organisers(fmt)
    step(f"ratings: ranking ({model}, {n_boot:,} bootstrap resamples)")
    sections = []
    try:
        results = rank_tracks(system, model=model, test=RANKING_TEST, n_boot=n_boot, random_state=random_state,
                              source=path)
    except ValueError as error:  # InputError included: no track can be ranked
        return [Section("Ratings: ranking", notes=[f"no ranking: {error}"])]
    parts = rank_tracks(system, ranker=lambda part: part)  # the same tracks and criteria, unranked
    for track, result in results.items():
        s = Section(f"{track}: ranking from ratings")
        n = int(result.table["ratings"].sum())
        sets = ()
        if result.samples is not None:  # rank confidence sets beside WMT's clusters, as rank --rank-sets prints them
            from humeval.experiments.rank_sets import add_ratings_rank_sets
            add_ratings_rank_sets(result)
            sets = ("--rank-sets",)
        s.tables.append(Table(
            f"{track}: {result.model} ({n:,} ratings), clusters by {result.test}", result.table,
            "Per system: segments and ratings; the score averaged per segment, then per system (z: each annotator's "
            "ratings standardised first); lo/hi: bootstrap percentile interval over segments; wins: systems it beats "
            f"(one-sided p < {result.alpha:g}); cluster: groups drawn from the wins as WMT draws them. This is "
            "humeval's default procedure, not an organiser's protocol. " + " ".join(result.notes),
            command("rank", path, "--model", result.model, "--bootstrap", n_boot, "--significance", result.test,
                    *sets, "--random-state", random_state, **_track(where, track.split(" / ")[0])), "system"))
        s.notes += [f"skipped {count:,} {reason}" for reason, count in result.skipped.items()]
        s.notes += [f"not {p.name}: this file is in the layout of {p.title}; its numbers come from "
                    f"`{command('rank', path, '--protocol', p.name, **_track(where, track.split(' / ')[0]))}`"
                    for p in theirs]
        if track in parts:
            s.tables.append(fragility_table(parts[track], result.table.index, path, track, summary, where))
        title = f"{track}: {result.model}"
        s.figures.append(Figure(f"{track}: scores with intervals", _png(plot_scores(result.table, result.score,
                                                                                    title=title)),
                                "system scores with bootstrap intervals, clusters marked"))
        s.figures.append(Figure(f"{track}: head to head", _png(plot_significance_heatmap(result.pvalues, title=title,
                                                                                        alpha=result.alpha)),
                                "one-sided p-values, green where the row system is significantly better"))
        clusters = int(result.table["cluster"].max()) if len(result.table) else 0
        summary.append(f"{track}: {headline(result.table.index)} by {result.model}, "
                       f"{clusters} clusters.")
        sections.append(s)
    scales = {"mqm": "MQM: Freitag et al. 2021", "esa": "ESA: Kocmi et al. 2024", "z-mean": "DA: Graham et al. 2017",
              "raw": "DA: Graham et al. 2017"}
    sources = sorted({scales[r.model] for r in results.values() if r.model in scales})
    methods.append("Ratings ranking, humeval's default procedure in WMT's style (not any organiser's exact protocol: "
                   "`humeval rank --protocol` runs those): segment means, then system means (z-normalised per "
                   "annotator for DA); one-sided Wilcoxon rank-sum test for every pair of systems; clusters where "
                   "every system above a line beats every system below it"
                   + (f" ({'; '.join(sources)})." if sources else "."))
    return sections


def fragility_table(part, order, path: str, track: str, summary: list, where=None) -> Table:
    """The fewest ratings whose removal reverses each adjacent pair of mean scores
    (``experiments.robustness.ratings_robustness``: exact, from prefix sums of the sorted scores,
    as ``humeval rank FILE --robustness`` prints it); the caption says where the order of raw means
    differs from the ranking ``order`` above (a z-normalised or segment-averaged model may order
    systems otherwise), and ``summary`` gets rank 1's line."""
    from humeval.experiments.robustness import RATINGS_NOTE, ratings_robustness
    from humeval.report.render import number, share
    table = ratings_robustness(part).set_index("conclusion").drop(columns="row_list")  # every row: rank --json
    table["dropped"] = table["dropped"].astype("Int64")
    by_mean = [c.split(" > ")[0] for c in table.index] + ([table.index[-1].split(" > ")[1]] if len(table) else [])
    same = [str(s) for s in order] == by_mean
    caption = (RATINGS_NOTE + "; – where no drop reverses the order (every rating of one system beats every rating "
               "of the other, and one of each must stay). "
               + ("The order of raw means is the ranking's above." if same else
                  "The order of raw means differs from the ranking above (" + " > ".join(map(str, order))
                  + "): the fragility is that of the raw means' order, by the conclusion column."))
    # rank 1 among the systems: a human reference (is_reference) is no contestant; the pair of the
    # two best systems is adjacent whatever the reference's place, and its count does not depend on it
    pairs = [c for c in table.index if not any(is_reference(s) for s in c.split(" > "))]
    if pairs:
        top, n = table.loc[pairs[0]], len(part)
        leader = pairs[0].split(" > ")[0]
        among = " among the systems" if len(pairs) < len(table) else ""
        summary.append(f"{track}: rank 1 by mean rating{among}, {leader}, falls by dropping "
                       f"{number(top['dropped'], 'count')} of {number(n, 'count')} ratings ({share(top['share'])})"
                       if pd.notna(top["dropped"])
                       else f"{track}: no drop of ratings puts the runner-up level with {leader}'s mean")
    return Table(f"{track}: how many ratings reverse each order of mean scores", table, caption,
                 command("rank", path, "--robustness", **_track(where, track.split(" / ")[0])), "conclusion",
                 {"gap": "decimal", "share": "percent"})


def _track(where, track: str) -> dict:
    """The reading options with ``--track`` naming this track only."""
    return {"read_args": (where or {}).get("read_args", ()), "tracks": (track,) if track != "(no track)" else ()}
