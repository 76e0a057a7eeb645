"""``humeval rank`` on a ratings file (DA, ESA, MQM, Likert): WMT's table of system scores,
intervals, pairwise significance and clusters. ``rank`` dispatches here when the file holds
ratings and no comparisons; ``ratings_options`` are the options only this path reads."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pandas as pd

from humeval.cli.common import InputError, Interval, Renamed, err, jsonable, out, print_skips, progress_bar, render
from humeval.cli.signing import signature_field, stamp
from humeval.data.export import write
from humeval.ratings.rank import default_model

NOT_YET = ("mixed", "ordinal")  # the fitted ratings models (name kept: cli/ranking.py imports it)
PROTOCOL_FIXES = {"model_names": "--model", "n_boot": "--bootstrap", "significance": "--significance",
                  "correction": "--correction", "resample": "--resample", "test_resamples": "--test-resamples",
                  "scale_text": "--scale", "exclude_reference": "--exclude-reference", "heldout": "--heldout"}
# the options that shape the ratings procedure only: refused on a file of comparisons (parameter -> option)
RATINGS_ONLY = {"significance": "--significance", "correction": "--correction", "test_resamples": "--test-resamples",
                "scale_text": "--scale", "exclude_reference": "--exclude-reference", "heldout": "--heldout",
                "worker_stats": "--worker-stats", "segment_scores": "--segment-scores", "variant": "--variant"}


def ratings_options(f):
    """Options of ``rank`` that apply to ratings files (``RATINGS_ONLY`` but --protocol, which also names
    the TrueSkill procedures for comparisons); rank's --resample is shared by both kinds."""
    for option in reversed([
        click.option("--protocol", metavar="NAME", default=None,
                     help="Ratings: run one organiser's procedure end to end (humeval.ratings.protocols): wmt-da-toen "
                          "(WMT DA into English 2019–2022: controls in each annotator's z, SYSTEM+REPEAT segment means, "
                          "one-sided rank-sum, WINS clusters), wmt-da-appraise, wmt24-esa, wmt25, google-mqm, humeval (the "
                          "default: --model, "
                          "--significance, ...). Comparisons: wmt15-trueskill, wmt16-trueskill (WMT15/16's TrueSkill "
                          "runs, rank ranges and clusters as their scripts computed them)."),
        click.option("--worker-stats", type=click.Path(exists=True, dir_okay=False), default=None,
                     help="Ratings, --protocol wmt-da-toen: WMT's per-worker mean and sd (*-trk-mean-sd.txt) to recover "
                          "raw scores from a z-score file (default: the one beside the input, if any)."),
        click.option("--segment-scores", type=click.Path(exists=True, dir_okay=False), default=None,
                     help="Ratings, --protocol wmt-da-toen: an official segment-score file (ad-seg-scores-xx-en.csv) "
                          "to compare the computed segments with, row by row (adds its system means as 'official z'; "
                          "default: the one beside the input, if any)."),
        click.option("--variant", default=None, metavar="NAME",
                     help="Ratings: which version of the organisers' scripts the --protocol runs. wmt24-esa: final "
                          "(the default) or 2024-09-13 (the version that wrote WMT24's committed tables); "
                          "wmt-da-appraise: wmt22 (the default) or wmt21 (Appraise's ComputeWMT21Results)."),
        click.option("--significance", type=click.Choice(["wilcoxon", "signed-rank", "paired-bootstrap",
                                                         "permutation"]), default="wilcoxon", show_default=True,
                     help="Ratings files (--model z-mean|raw|mqm|esa|mixed|ordinal; default z-mean, mqm for MQM): pairwise "
                          "test; wilcoxon = WMT's one-sided rank-sum; the others are paired on the segments both "
                          "systems were rated on."),
        click.option("--correction", type=click.Choice(["none", "holm", "bh"]), default="none", show_default=True,
                     help="Ratings: multiple-comparison correction over all pairs."),
        click.option("--test-resamples", default=1000, show_default=True, type=click.IntRange(min=1),
                     help="Ratings: resamples of the paired-bootstrap and permutation tests."),
        click.option("--scale", "scale_text", default=None, type=Interval(),
                     help="Ratings: the declared scale; ratings outside it are an error (default: the file's)."),
        click.option("--exclude-reference", "exclude_reference", cls=Renamed, old=("--no-human",), is_flag=True,
                     help="Ratings: leave the human references (HUMAN*, ref*) out, as agreement and judges do."),
        click.option("--heldout", is_flag=True,
                     help="Ratings: also fit raw, z-mean, mixed (and ordinal on a Likert scale) on 80% of the ratings "
                          "and say which predicts the other 20% best (log-likelihood, RMSE, learning curve)."),
    ]):
        f = option(f)
    return f


def rank_ratings_command(file, judgments, model_names, n_boot, confidence, out_file, plot, heatmap,
                         random_state, quiet, as_json, significance="wilcoxon", correction="none",
                         resample="segment", test_resamples=1000, scale_text=None, exclude_reference=False,
                         heldout=False, protocol=None, worker_stats=None, segment_scores=None, rank_sets=False,
                         top_k=None, robust=None, variant=None, encoding="utf-8"):
    """Rank each track of a ratings file and print/write the WMT-style table (with ``rank_sets``,
    the rank confidence sets from its bootstrap resamples)."""
    from humeval.ratings import MODELS, rank_tracks
    ratings = judgments.ratings
    print_skips(judgments.report, quiet or as_json)  # what the reader set aside (control rows, NA scores, …)
    ctx = click.get_current_context()
    given = ctx.get_parameter_source("model_names") != click.core.ParameterSource.DEFAULT
    if rank_sets and (protocol not in (None, "humeval") or model_names in NOT_YET):
        raise click.BadParameter(f"on ratings, rank sets come from humeval's bootstrap of the mean scores, not from "
                                 f"the {protocol + ' protocol' if protocol not in (None, 'humeval') else model_names + ' model'}",
                                 param_hint="--rank-sets")
    if protocol not in (None, "humeval"):
        results = run_protocol(file, judgments, protocol, worker_stats, segment_scores, ctx, variant, encoding)
        return show_results(file, results, {}, out_file, plot, heatmap, quiet, as_json, judgments.report, robust)
    for option, value in (("--worker-stats", worker_stats), ("--segment-scores", segment_scores)):
        if value:
            raise click.BadParameter("applies to --protocol wmt-da-toen", param_hint=option)
    if variant is not None:
        raise click.BadParameter(f"applies to --protocol {' or '.join(_versioned())}", param_hint="--variant")
    model = model_names if given else default_model(ratings)
    choices = ", ".join(MODELS + NOT_YET)
    if model not in MODELS + NOT_YET:
        raise click.BadParameter(f"{model!r} ranks comparisons; for ratings choose one of {choices}",
                                 param_hint="--model")
    try:
        if model in NOT_YET:
            from humeval.ratings.fitted import rank_fitted
            results = rank_tracks(ratings, ranker=rank_fitted, model=model, correction=correction,
                                  confidence=confidence, human=not exclude_reference, scale=scale_text, source=file)
            ignored = [o for o, used in (("--bootstrap", n_boot), ("--significance", significance != "wilcoxon"),
                                         ("--resample", resample != "segment")) if used]
            if ignored:
                for result in results.values():
                    result.notes.append(f"{', '.join(ignored)} not used by the {model} model: its intervals and "
                                        "tests come from its standard errors")
        else:
            results = rank_tracks(ratings, model=model, test=significance, correction=correction, n_boot=n_boot,
                                  resample=resample, confidence=confidence, n_resamples=test_resamples,
                                  human=not exclude_reference, scale=scale_text, random_state=random_state,
                                  source=file)
    except ValueError as error:
        if isinstance(error, InputError):
            raise
        raise InputError(file, None, str(error), "see the message") from None
    why = procedure_reason(judgments, protocol, model, given)
    for result in results.values():
        result.notes.insert(0, why)
        if rank_sets:  # beside the intervals, before WMT's wins and clusters
            from humeval.experiments.rank_sets import add_ratings_rank_sets
            add_ratings_rank_sets(result, confidence, top_k)
    held = heldout_tracks(ratings, random_state, file, quiet or as_json) if heldout else {}
    show_results(file, results, held, out_file, plot, heatmap, quiet, as_json, judgments.report, robust or {})


def procedure_reason(judgments, protocol, model, given) -> str:
    """One line: which procedure ranked the file, and why that one."""
    if protocol == "humeval":
        return f"procedure: humeval ({model}), as --protocol asked"
    line = (f"procedure: humeval ({model}{', as --model asked' if given else ', the default for this file'}); "
            "no --protocol given")
    from humeval.ratings.protocols import organisers  # the report names them from the same declaration
    for theirs in organisers(judgments.report.format if judgments.report is not None else None):
        line += (f"; this file is in the layout of {theirs.title}: --protocol {theirs.name} runs the organisers' own "
                 "procedure")
    return line


# the organisers' procedures for comparisons (humeval.experiments.wmt_trueskill): name -> WMT year
PAIRWISE_PROTOCOLS = {"wmt15-trueskill": 2015, "wmt16-trueskill": 2016}


def protocol_controls(ratings_kw) -> bool:
    """Whether the protocol named in ``rank``'s ratings options needs the reader's control rows
    (an unknown name is refused here, before the file is read)."""
    name = ratings_kw.get("protocol")
    if name in (None, "humeval") or name in PAIRWISE_PROTOCOLS:
        return False
    from humeval.ratings.protocols import PROTOCOLS
    if name not in PROTOCOLS:
        raise click.BadParameter(f"unknown protocol {name!r}; choose one of {', '.join([*PROTOCOLS, *PAIRWISE_PROTOCOLS])}",
                                 param_hint="--protocol")
    return PROTOCOLS[name].needs_controls


def refuse_protocol(ratings_kw) -> None:
    """``--protocol`` on a file of comparisons: an error, not a silent no-op."""
    if ratings_kw.get("protocol"):
        raise click.BadParameter("protocols rank ratings files (DA, ESA, MQM); this file holds comparisons",
                                 param_hint="--protocol")


def _versioned() -> list[str]:
    """The protocols that run more than one version of their organisers' scripts (``--variant``)."""
    from humeval.ratings.protocols import PROTOCOLS
    return [p.name for p in PROTOCOLS.values() if p.variants]


def run_protocol(file, judgments, name, worker_stats, segment_scores, ctx, variant=None, encoding="utf-8") -> dict:
    """``humeval.ratings.protocols.run`` with the files the protocol reads beside the ratings
    (``encoding``: the input's, which WMT's companion files share)."""
    from humeval.data.readers.wmt_da import (has_segment_counts, read_segment_scores, read_worker_stats,
                                             segment_scores_beside, worker_stats_beside)
    from humeval.ratings.protocols import PROTOCOLS, run
    protocol_controls({"protocol": name})  # refuses an unknown name
    fixed = [flag for param, flag in PROTOCOL_FIXES.items()
             if ctx.get_parameter_source(param) not in (None, click.core.ParameterSource.DEFAULT)]
    if fixed:
        raise click.BadParameter(f"{', '.join(fixed)}: the {name} protocol fixes its own steps (see "
                                 "docs/validation.md); drop them or use --protocol humeval", param_hint="--protocol")
    accepted = PROTOCOLS[name].options
    options, found = {}, None
    if "worker_stats" in accepted:
        found = worker_stats or worker_stats_beside(file)
        options["worker_stats"] = read_worker_stats(found, encoding) if found else None
    elif worker_stats:
        raise click.BadParameter(f"the {name} protocol reads no worker statistics", param_hint="--worker-stats")
    if segment_scores and "segment_scores" not in accepted:
        raise click.BadParameter(f"the {name} protocol compares no segment file", param_hint="--segment-scores")
    beside, unused = None, None
    if not segment_scores and "segment_scores" in accepted:
        # the official segment file of the same pair, as the worker statistics are found: its
        # comparison says where and why WMT's published numbers differ (its zero-score rows); a
        # file found, not named, that cannot be compared is left out with a note, never an error
        beside = segment_scores_beside(file)
        if beside:
            try:
                options["segment_scores"] = read_segment_scores(beside, encoding)
            except InputError as error:
                beside, unused = None, error
    elif segment_scores:
        options["segment_scores"] = read_segment_scores(segment_scores, encoding)
    if variant is not None:
        choices = PROTOCOLS[name].variants
        if not choices:
            raise click.BadParameter(f"the {name} protocol has one version; --variant applies to "
                                     f"{' and '.join(_versioned())}", param_hint="--variant")
        if variant not in choices:
            raise click.BadParameter(f"{variant!r}: the {name} protocol has {', '.join(choices)}",
                                     param_hint="--variant")
        options["variant"] = variant
    if "given_segments" in accepted and judgments.report is not None and judgments.report.format == "wmt-da-seg":
        # a segment file's own RAW.SCR and N per segment (its ratings hold the Z.SCR only)
        options["given_segments"] = (read_segment_scores(file, encoding) if has_segment_counts(file, encoding)
                                     else None)
    try:
        try:
            results = run(name, judgments.ratings, source=file, **options)
        except InputError as error:
            if not beside or error.path != str(beside):
                raise
            beside, unused = None, error  # the file beside the input is another pair's: rank without it
            options.pop("segment_scores")
            results = run(name, judgments.ratings, source=file, **options)
    except ValueError as error:
        if isinstance(error, InputError):
            raise
        raise InputError(file, None, str(error), "see the message") from None
    why = f"procedure: {name}, as --protocol asked: {PROTOCOLS[name].title}"
    for result in results.values():
        result.notes.insert(0, why)
        if found and not worker_stats:
            result.notes.insert(1, f"worker mean and sd read from {found} (found beside the input)")
        if beside:
            result.notes.append(f"official segment scores read from {beside} (found beside the input; "
                                "--segment-scores names another): the 'official z' and 'official raw' columns")
        if unused is not None:
            result.notes.append(f"the segment file beside the input, {unused.path}, is not compared: "
                                f"{unused.problem}")
    return results


def show_results(file, results, held, out_file, plot, heatmap, quiet, as_json, report=None, robust=None) -> None:
    """Print, write and draw the rankings of every track (``robust``: per track the table of
    ``rank --robustness``, printed after the rankings, in --json as "robustness")."""
    robust = robust or {}
    from humeval.report.ratings_plot import plot_scores, plot_significance_heatmap
    for track, result in results.items():
        suffix = (lambda p: Path(p).with_stem(f"{Path(p).stem}.{_safe(track)}")) if len(results) > 1 else Path
        title = f"{track}: {result.protocol}, {result.model}, {result.test}"
        if heatmap:
            plot_significance_heatmap(result.pvalues, suffix(heatmap), title=title, alpha=result.alpha)
        if plot:
            plot_scores(result.table, result.score, suffix(plot), title=title)
    if out_file:
        frames = [r.table.reset_index().assign(track=name, protocol=r.protocol) for name, r in results.items()]
        write(stamp(pd.concat(frames, ignore_index=True)), out_file)
    if as_json:
        read = {"read_skipped": dict(report.skipped)} if report is not None and report.skipped else {}
        click.echo(json.dumps({t: {"protocol": r.protocol, "model": r.model, "test": r.test, "table": jsonable(r.table),
                                   "pvalues": jsonable(r.pvalues), "skipped": r.skipped, "notes": r.notes} | read | signature_field()
                               | ({"heldout": {"best": held[t].best, "measure": held[t].measure,
                                               "table": jsonable(held[t].table),
                                               "curve": jsonable(held[t].curve)}} if t in held else {})
                               | ({"robustness": jsonable(robust[t].reset_index())} if t in robust else {})
                               for t, r in results.items()}, indent=2))
    elif not quiet:
        for track, result in results.items():
            print_ranking(track, result)
            if track in held:
                print_heldout(track, held[track])
        from humeval.experiments.robustness import RATINGS_NOTE
        for track, table in robust.items():
            out.print(render(table.drop(columns="row_list"), f"{track}: how many ratings reverse each order of mean scores"))
            out.print(f"  {RATINGS_NOTE}\n")

def heldout_tracks(ratings, random_state, file, quiet=False) -> dict:
    """``compare_models`` per track (and criterion), named as ``rank_tracks`` names them, with a
    progress bar (off with ``quiet``)."""
    from humeval.ratings import compare_models, rank_tracks
    try:
        with progress_bar(quiet) as bar:
            task = bar.add_task("held-out ratings", total=None)
            return rank_tracks(ratings, ranker=lambda part: compare_models(
                part, random_state=random_state, source=file,
                progress=lambda done, total: bar.update(task, completed=done, total=total)))
    except ValueError as error:
        if isinstance(error, InputError):
            raise
        raise InputError(file, None, str(error), "see the message") from None


def print_heldout(track: str, held) -> None:
    """Which model predicts held-out ratings best, with the learning curve (like compare-models)."""
    table = held.table.join(held.curve.rename(columns=lambda size: f"n={size:,}"))
    out.print(render(table, f"{track}: held-out ratings ({held.n_test:,}), {held.measure} per rating"))
    for note in held.notes:
        out.print(f"  {note}")
    out.print(f"  [bold]{held.best}[/] predicts the held-out ratings best")
    out.print()


def print_ranking(track: str, result) -> None:
    """The table with a rule at each cluster boundary, then the skips and notes."""
    table = result.table
    clusters = table["cluster"].to_numpy() if "cluster" in table else [0] * len(table)  # google-mqm has none
    breaks = tuple(i for i in range(len(clusters) - 1) if clusters[i] != clusters[i + 1])
    # protocols name the count differently; a segment file without counts of ratings has segments only
    counted = next((column for column in ("ratings", "n", "segments") if column in table), None)
    noun = {"ratings": "ratings", "n": "scored outputs", "segments": "segments"}.get(counted)
    size = f" ({int(table[counted].sum()):,} {noun})" if counted else ""
    what = "raw mean of the file's z scores" if result.model == "raw" and result.score == "z" else result.model
    what = result.protocol if result.protocol != "humeval" else what  # the humeval procedure is named in the notes
    how = f"clusters by {result.test}" if result.test != "none" else "no significance test"
    out.print(render(table, f"{track}: {what}{size}, {how}", breaks=breaks))
    for reason, count in result.skipped.items():
        err.print(f"  [yellow]skipped {count:,} {reason}[/]")
    for note in result.notes:
        out.print(f"  {note}")
    out.print()


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)
