"""``humeval rank`` on a ratings file (DA, ESA, MQM, Likert): WMT's table of system scores,
intervals, pairwise significance and clusters. ``rank`` dispatches here when the file holds
ratings and no comparisons; ``ratings_options`` are the options only this path reads."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pandas as pd

from humeval.cli.common import InputError, Interval, err, jsonable, out, progress_bar, render
from humeval.data.export import write
from humeval.ratings.rank import default_model

NOT_YET = ("mixed", "ordinal")  # the fitted ratings models (name kept: cli/ranking.py imports it)


def ratings_options(f):
    """Options of ``rank`` that apply to ratings files."""
    for option in reversed([
        click.option("--significance", type=click.Choice(["wilcoxon", "signed-rank", "paired-bootstrap",
                                                         "permutation"]), default="wilcoxon", show_default=True,
                     help="Ratings files (--model z-mean|raw|mqm|esa|mixed|ordinal; default z-mean, mqm for MQM): pairwise "
                          "test; wilcoxon = WMT's one-sided rank-sum; the others are paired on the segments both "
                          "systems were rated on."),
        click.option("--correction", type=click.Choice(["none", "holm", "bh"]), default="none", show_default=True,
                     help="Ratings: multiple-comparison correction over all pairs."),
        click.option("--resample", type=click.Choice(["segment", "judge", "both"]), default="segment",
                     show_default=True, help="Ratings: what --bootstrap resamples."),
        click.option("--test-resamples", default=1000, show_default=True, type=click.IntRange(min=1),
                     help="Ratings: resamples of the paired-bootstrap and permutation tests."),
        click.option("--scale", "scale_text", default=None, type=Interval(),
                     help="Ratings: the declared scale; ratings outside it are an error (default: the file's)."),
        click.option("--no-human", is_flag=True, help="Ratings: leave human references (HUMAN*, ref*) out."),
        click.option("--heldout", is_flag=True,
                     help="Ratings: also fit raw, z-mean, mixed (and ordinal on a Likert scale) on 80% of the ratings "
                          "and say which predicts the other 20% best (log-likelihood, RMSE, learning curve)."),
    ]):
        f = option(f)
    return f


def rank_ratings_command(file, judgments, model_names, n_boot, confidence, out_file, plot, heatmap,
                         random_state, quiet, as_json, significance="wilcoxon", correction="none",
                         resample="segment", test_resamples=1000, scale_text=None, no_human=False,
                         heldout=False):
    """Rank each track of a ratings file and print/write the WMT-style table."""
    from humeval.ratings import MODELS, rank_tracks
    from humeval.ratings.plot import plot_scores, plot_significance_heatmap
    ratings = judgments.ratings
    given = click.get_current_context().get_parameter_source("model_names") != click.core.ParameterSource.DEFAULT
    model = model_names if given else default_model(ratings)
    choices = ", ".join(MODELS + NOT_YET)
    if model not in MODELS + NOT_YET:
        raise click.BadParameter(f"{model!r} ranks comparisons; for ratings choose one of {choices}",
                                 param_hint="--model")
    try:
        if model in NOT_YET:
            from humeval.ratings.fitted import rank_fitted
            results = rank_tracks(ratings, ranker=rank_fitted, model=model, correction=correction,
                                  confidence=confidence, human=not no_human, scale=scale_text, source=file)
            ignored = [o for o, used in (("--bootstrap", n_boot), ("--significance", significance != "wilcoxon"),
                                         ("--resample", resample != "segment")) if used]
            if ignored:
                for result in results.values():
                    result.notes.append(f"{', '.join(ignored)} not used by the {model} model: its intervals and "
                                        "tests come from its standard errors")
        else:
            results = rank_tracks(ratings, model=model, test=significance, correction=correction, n_boot=n_boot,
                                  resample=resample, confidence=confidence, n_resamples=test_resamples,
                                  human=not no_human, scale=scale_text, random_state=random_state,
                                  source=file)
    except ValueError as error:
        if isinstance(error, InputError):
            raise
        raise InputError(file, None, str(error), "see the message") from None
    held = heldout_tracks(ratings, random_state, file, quiet or as_json) if heldout else {}
    for track, result in results.items():
        suffix = (lambda p: Path(p).with_stem(f"{Path(p).stem}.{_safe(track)}")) if len(results) > 1 else Path
        title = f"{track}: {result.model}, {result.test}"
        if heatmap:
            plot_significance_heatmap(result.pvalues, suffix(heatmap), title=title, alpha=result.alpha)
        if plot:
            plot_scores(result.table, result.score, suffix(plot), title=title)
    if out_file:
        frames = [r.table.reset_index().assign(track=name) for name, r in results.items()]
        write(pd.concat(frames, ignore_index=True), out_file)
    if as_json:
        click.echo(json.dumps({t: {"model": r.model, "test": r.test, "table": jsonable(r.table),
                                   "pvalues": jsonable(r.pvalues), "skipped": r.skipped, "notes": r.notes}
                               | ({"heldout": {"best": held[t].best, "measure": held[t].measure,
                                               "table": jsonable(held[t].table),
                                               "curve": jsonable(held[t].curve)}} if t in held else {})
                               for t, r in results.items()}, indent=2))
    elif not quiet:
        for track, result in results.items():
            print_ranking(track, result)
            if track in held:
                print_heldout(track, held[track])


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
    clusters = table["cluster"].to_numpy()
    breaks = tuple(i for i in range(len(clusters) - 1) if clusters[i] != clusters[i + 1])
    n = int(table["ratings"].sum())
    what = "raw mean of the file's z scores" if result.model == "raw" and result.score == "z" else result.model
    out.print(render(table, f"{track}: {what} ({n:,} ratings), clusters by {result.test}", breaks=breaks))
    for reason, count in result.skipped.items():
        err.print(f"  [yellow]skipped {count:,} {reason}[/]")
    for note in result.notes:
        out.print(f"  {note}")
    out.print()


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)
