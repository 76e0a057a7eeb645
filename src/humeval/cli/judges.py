"""Annotator agreement (``agreement``) and judge quality (``judges``)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from humeval.cli.common import (
    SHARE,
    TEXT_OUT,
    InputError,
    anonymize_options,
    common_options,
    count,
    err,
    jsonable,
    load,
    needs,
    out,
    pseudonym_salt,
    read_options,
    render,
)


def agreement_options(f):
    for option in reversed([
        click.option("--exclude-reference", is_flag=True,
                     help="Leave out the human reference (systems named _ref, ref, reference, human)."),
        click.option("--exclude", "exclude_systems", multiple=True, help="Leave out this system (repeatable)."),
        click.option("--drop-ties", is_flag=True, help="Leave out tied pairs, as some WMT reports did."),
        click.option("--expected", type=click.Choice(["observed", "wmt", "uniform"]), default="observed",
                     show_default=True,
                     help="Chance agreement P(E): from the observed label (or score) shares; WMT's P(=)² + "
                          "2((1 − P(=))/2)² (rankings); or uniform, 1/k over the k labels or scale points, as "
                          "WMT07 defined it (1/3 for rankings, 1/2 with --drop-ties; 1/5 on the five-point "
                          "adequacy and fluency scales; the points of the file's declared scale, else lowest to "
                          "highest score)."),
    ]):
        f = option(f)
    return f


def ranking_options_apply(judgments):
    """--exclude-reference, --exclude, --drop-ties and --expected wmt shape the pairwise labels of
    rankings; on ratings alone they would do nothing (--expected observed/uniform apply to both)."""
    ctx = click.get_current_context()
    needs(ctx, {"exclude_reference": "--exclude-reference", "exclude_systems": "--exclude", "drop_ties": "--drop-ties"},
          judgments.comparisons is not None, "on ratings (they shape the pairwise labels of rankings)")
    if ctx.params.get("expected") == "wmt" and judgments.comparisons is None:
        raise click.BadParameter("WMT's P(E) is for the pairwise labels of rankings; on a scale use observed or "
                                 "uniform (WMT07's 1/k)", param_hint="--expected")


def _excluded(exclude_reference, exclude_systems):
    from humeval.agreement import REFERENCE_NAMES
    return tuple(exclude_systems) + (REFERENCE_NAMES if exclude_reference else ())


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path())
@read_options
@agreement_options
@common_options
def agreement(files, fmt, encoding, columns, outcomes, tracks, delimiter, sql, keep, exclude_reference, exclude_systems,
              drop_ties, expected, quiet, as_json):
    """Annotator agreement per track: inter- and intra-annotator kappa with P(A), P(E) and the
    number of judgment pairs, like Denkowski & Lavie's Tables 1 and 2.

    Rankings: WMT's pairwise <, =, > labels. Scores on small scales: exact-match and linearly
    weighted kappa and ordinal alpha; continuous scores (DA, MQM): interval alpha and the
    correlation of repeated scores.

    \b
    Example:
      humeval agreement data_RNK.csv data_RNK-public.csv --exclude-reference
    """
    results = {}
    for path in files:
        judgments = load(path, fmt, encoding, columns, outcomes, tracks, quiet or as_json,
                         delimiter=delimiter, sql=sql, keep=keep)
        ranking_options_apply(judgments)
        from humeval.agreement import agreement_table
        table = agreement_table(judgments, _excluded(exclude_reference, exclude_systems), drop_ties, expected)
        results[str(path)] = table
        if not (quiet or as_json):
            shown = table.set_index(["track", "judgments", "agreement"]).drop(columns="method")
            shown.index = [" / ".join(map(str, i)) for i in shown.index]
            out.print(render(shown, f"{path}: agreement", "track / judgments / pairs of"))
            methods = sorted(set(table["method"]))
            out.print("  " + "; ".join(methods) + ("; P(E) as WMT" if expected == "wmt" else "")
                      + ("; P(E) uniform over the labels or scale points (WMT07)" if expected == "uniform" else "")
                      + ("; (all): pooled over the tracks" if (table["track"] == "(all)").any() else ""))
            rated = table[(table["judgments"] != "rankings") & table["agreement"].str.startswith("intra")]
            repeats = left_out_repeats(judgments, rated["pairs"].fillna(0).sum(), "agreement")
            if repeats:
                out.print(f"  intra: {repeats}")
            out.print()
    if as_json:
        click.echo(json.dumps({p: json.loads(t.to_json(orient="records")) for p, t in results.items()}, indent=2))


@click.command()
@click.argument("file", type=click.Path())
@read_options
@agreement_options
@click.option("--min-pairs", default=20, show_default=True, type=count(1),
              help="Pairs a judge needs before being judged.")
@click.option("--controls/--no-controls", default=None,
              help="Ratings: keep the quality-control rows (degraded references, repeats) and check annotators "
                   "as WMT does (default: whenever the format's reader can keep them, e.g. wmt-da, esa).")
@click.option("--alpha", default=0.05, show_default=True, type=SHARE,
              help="Ratings with controls: an annotator passes when the degraded-reference test gives p < ALPHA.")
@click.option("--drop-list", type=TEXT_OUT,
              help="Write the flagged judges, one per line (for rank/report/compare-models --drop-judges).")
@click.option("--wmt-qc", "wmt_qc", type=click.Choice(["signed-rank", "rank-sum", "paired-t"]), default=None,
              help="Ratings with controls: WMT's good-annotator filter (humeval.ratings.wmt_qc), the kept "
                   "annotators and all three tests per annotator; the choice names the test that decides "
                   "(paired-t: the paired t-test of Graham's published MTurk scripts, kept at p <= ALPHA).")
@click.option("--all", "show_all", is_flag=True, help="Show every judge, not the 25 least reliable.")
@anonymize_options
@common_options
def judges(file, fmt, encoding, columns, outcomes, tracks, delimiter, sql, keep, exclude_reference, exclude_systems,
           drop_ties, expected, min_pairs, controls, alpha, drop_list, wmt_qc, show_all, anon, salt, quiet, as_json):
    """Judge quality, least reliable first: judgments, agreement with the other judges (P(A) and
    kappa), with the leave-one-out majority, self-consistency with its repeat pairs, and a flag
    (not above chance: agreement not shown above chance, p >= 0.01; outlier: kappa far below the
    median judge's; n/a: continuous scores, where exact agreement does not apply).

    Ratings with quality controls (WMT DA's BAD_REF and REPEAT rows, ESA's BAD rows): per
    annotator, the one-sided Wilcoxon test that degraded outputs get lower scores than their
    originals (fail: p >= 0.05; Graham et al. 2017's test, WMT's MTurk to-English filter ran a
    paired t-test: --wmt-qc paired-t), recomputed on the file's rows, and the consistency of
    repeated ratings. On WMT's kept-workers file (*-good-stnd.csv) the output says that WMT kept
    every annotator in it.

    \b
    Example:
      humeval judges data_RNK-public.csv --drop-list drop.txt
      humeval rank data_RNK-public.csv --drop-judges drop.txt
      humeval judges ad-latest.csv --drop-list failed.txt
    """
    from humeval.agreement import flagged, judge_quality, not_applicable
    from humeval.agreement.judges import cutoff_line
    keep_controls = controls is not False
    judgments = load(file, fmt, encoding, columns, outcomes, tracks, quiet or as_json, pseudonym_salt(anon, salt),
                     controls=keep_controls, delimiter=delimiter, sql=sql, keep=keep)
    table = judgments.comparisons if judgments.comparisons is not None else judgments.ratings
    if table is None:
        raise InputError(file, None, "holds no rankings, comparisons or ratings", "judges needs judgments")
    ranking_options_apply(judgments)
    if judgments.comparisons is None:
        needs(click.get_current_context(), {"alpha": "--alpha"}, keep_controls, "with --no-controls")
        from humeval.data.readers.wmt_da import kept_workers_file
        kept = kept_workers_file(file, judgments.report.format)
        if wmt_qc:
            return _wmt_filter(file, table, wmt_qc, alpha, drop_list, show_all, quiet, as_json, kept)
        done = _rating_controls(file, table, controls, alpha, drop_list, show_all, quiet, as_json, kept)
        if done:
            return
        from humeval.ratings.quality import system_ratings
        table = system_ratings(table)
    quality = judge_quality(table, _excluded(exclude_reference, exclude_systems), drop_ties, expected,
                            min_pairs=min_pairs)
    drop = flagged(quality)
    scope = flag_scope(table, tracks)
    inapplicable = not_applicable(table)
    repeats = left_out_repeats(judgments, quality, "the ratings judged here (--no-controls)")
    if drop_list:
        write_list(drop_list, drop)
    if as_json:
        click.echo(json.dumps({"judges": jsonable(quality), "flagged": drop, "scope": scope,
                               "not applicable": inapplicable, "repeats": repeats}, indent=2))
    elif not quiet:
        shown = quality if show_all else quality.head(25)
        out.print(render(shown, f"{file}: {len(quality)} judges, least reliable first"
                         + ("" if show_all or len(quality) <= 25 else " (first 25; --all for every judge)"), "judge"))
        counts = quality["flag"].value_counts()
        out.print("  flags: " + ", ".join(f"{n} {f or 'none'}" for f, n in counts.items())
                  + (f"; wrote {len(drop)} flagged judges to {drop_list}" if drop_list else ""))
        if inapplicable:
            out.print(f"  {inapplicable}")
        else:
            out.print(f"  {cutoff_line(min_pairs=min_pairs)}")
        if repeats:
            out.print(f"  self-consistency: {repeats}")
        if scope:
            out.print(f"  {scope}")


def left_out_repeats(judgments, intra, where: str) -> str | None:
    """Why no judge has a repeated pair (``intra``: a frame with "repeat pairs", or an Agreement's
    pairs) although the file holds repeat controls the reader left out; None otherwise."""
    from humeval.ratings.quality import repeat_rows, repeats_left_out
    pairs = intra["repeat pairs"].fillna(0).sum() if hasattr(intra, "columns") else intra
    n = repeat_rows(skipped=judgments.report.skipped) if judgments.ratings is not None else 0
    return repeats_left_out(n, where) if n and not pairs else None


def flag_scope(table, tracks) -> str | None:
    """Whether the flags were computed per file (every track pooled) or within the --track given;
    None for a file of one track, where there is nothing to choose."""
    names = [t for t in getattr(table, "tracks", ()) if t]
    if tracks:
        return (f"flags per track: computed within --track {', '.join(tracks)} only; --drop-judges leaves "
                "these judges out of every track it is given")
    if len(names) > 1:
        return (f"flags per file: each judge's agreement pooled over all {len(names):,} tracks; --drop-judges "
                "leaves a flagged judge out of every track (judges --track T flags within one track)")
    return None


def write_list(path, names) -> None:
    Path(path).write_text("".join(f"{j}\n" for j in names), encoding="utf-8")


def _rating_controls(file, ratings, controls, alpha, drop_list, show_all, quiet, as_json, kept=False) -> bool:
    """WMT's annotator quality control when the ratings carry control items; returns False (after
    saying so) when they do not, so generic judge quality follows. ``kept``: the file is WMT's
    kept-workers file (every annotator in it passed WMT's own filter)."""
    from humeval.ratings.quality import annotator_qc, kept_by_wmt
    if controls is False:
        return False
    qc = annotator_qc(ratings, alpha)
    if not qc.has_controls:
        if not (quiet or as_json):
            err.print(f"[yellow]{file}: {qc.notes[0]}; showing generic judge quality instead[/]")
        return False
    failed = qc.failed
    if drop_list:
        write_list(drop_list, failed)
    if as_json:
        click.echo(json.dumps({"judges": jsonable(qc.table), "flagged": failed, "skipped": qc.skipped,
                               "notes": qc.notes, "kept by WMT": kept}, indent=2))
        return True
    if quiet:
        return True
    _print_annotators(qc, f"{file}: {len(qc.table)} annotators, WMT's degraded-reference test recomputed on this file's "
                      "rows (failing first)", show_all,
                      drop_list and f"wrote {len(failed)} failing annotators to {drop_list}",
                      kept and kept_by_wmt(len(qc.table), len(failed)))
    return True


def _print_annotators(qc, title, show_all, wrote, warning=None) -> None:
    """The per-annotator table (first 25 unless ``show_all``), what was skipped, the notes, then
    ``warning`` (in yellow) when given."""
    shown = qc.table if show_all else qc.table.head(25)
    out.print(render(shown, title + ("" if show_all or len(qc.table) <= 25 else " (first 25; --all for every annotator)"),
                     "judge"))
    for reason, n in qc.skipped.items():
        err.print(f"  [yellow]skipped {n:,} {reason}[/]")
    for note in qc.notes:
        out.print(f"  {note}")
    if warning:
        out.print(f"  [yellow]{warning}[/]")
    if wrote:
        out.print(f"  {wrote}")


def _wmt_filter(file, ratings, test, alpha, drop_list, show_all, quiet, as_json, kept=False) -> None:
    """``judges --wmt-qc``: WMT's good-annotator filter, the kept annotators and the test per annotator."""
    from humeval.ratings.quality import kept_by_wmt
    from humeval.ratings.wmt_qc import wmt_quality_control
    qc = wmt_quality_control(ratings, test, alpha)
    if not len(qc.table):
        raise InputError(file, None, "; ".join(qc.notes), "read the file with its control rows (--controls)")
    if drop_list:
        write_list(drop_list, qc.dropped)
    if as_json:
        click.echo(json.dumps({"judges": jsonable(qc.table), "kept": qc.kept, "dropped": qc.dropped,
                               "test": test, "skipped": qc.skipped, "notes": qc.notes, "kept by WMT": kept},
                              indent=2))
        return
    if quiet:
        return
    _print_annotators(qc, f"{file}: WMT's annotator filter ({test}) recomputed on this file's rows, dropped first",
                      show_all, drop_list and f"wrote {len(qc.dropped)} dropped annotators to {drop_list}",
                      kept and kept_by_wmt(len(qc.table), len(qc.dropped), "dropped"))
