"""``rank PAIRS --joint RATINGS``: comparisons and ratings of the same systems on one scale
(``humeval.ranking.joint``), with each protocol's held-out log-likelihood joined and alone."""

from __future__ import annotations

import json

import click
import pandas as pd

from humeval.cli.common import InputError, err, jsonable, load, out, plural, render
from humeval.cli.signing import stamp
from humeval.data.export import write
from humeval.experiments.joint import HELDOUT_SHARE

REFUSED = (("n_boot", "--bootstrap"), ("board_by", "--board-by"), ("robust_by", "--robustness"),
           ("rank_sets", "--rank-sets"), ("reweight_policy", "--reweight"), ("provisional_below", "--provisional"),
           ("intervals", "--intervals"), ("plot", "--plot"), ("heatmap", "--heatmap"), ("clusters", "--clusters"),
           ("covariates", "--covariates"), ("style_control", "--style-control"), ("protocol", "--protocol"),
           ("wmt_trueskill", "--wmt-trueskill"))


def check_joint_options(ctx: click.Context, model_names: str) -> None:
    """--joint fits the joint model alone: no other model, no bootstrap, boards or intervals (yet)."""
    for name, option in REFUSED:
        if ctx.params.get(name):
            raise click.BadParameter(f"not with {option}: the joint model has no {option.lstrip('-')} yet",
                                     param_hint="--joint")
    if (ctx.get_parameter_source("model_names") == click.core.ParameterSource.COMMANDLINE
            and model_names.strip() != "joint"):
        raise click.BadParameter(f"fits the model 'joint'; --model {model_names} is another one", param_hint="--joint")


def _ratings_by_track(path, comparisons):
    from humeval.experiments.joint import pair_tracks
    judgments = load(path, quiet=True)
    if judgments.ratings is None or not len(judgments.ratings):
        raise InputError(path, None, "holds no ratings (DA, ESA, MQM, Likert or acceptability scores)",
                         "give --joint a ratings file of the same systems")
    try:
        return pair_tracks(comparisons, judgments.ratings)
    except ValueError as error:
        raise InputError(path, None, str(error), "select matching tracks with --track, or give ratings of each") from None


def rank_joint(file, ratings_file, comparisons, l2, random_state, out_file, quiet, as_json):
    """Fit the joint model per track and print (or write) its ranking, the protocols' scales and
    the held-out log-likelihood per protocol."""
    from humeval.report.joint import joint_fit
    ratings = _ratings_by_track(ratings_file, comparisons)
    results, protocols, heldout, warnings = {}, {}, {}, {}
    for track, part in comparisons.by_track().items():
        try:
            results[track], protocols[track], heldout[track], warnings[track] = joint_fit(
                part, ratings[track], l2, random_state, HELDOUT_SHARE)
        except ValueError as error:
            raise InputError(file, None, f"{track}: {error}", "see the message") from None
        # weak evidence is said whatever the output: on stderr, so --json and --quiet keep it too
        for warning in warnings[track]:
            err.print(f"[yellow]warning:[/] {track}: {warning}")
    if out_file:
        frames = [t.reset_index().assign(track=name) for name, t in results.items()]
        write(stamp(pd.concat(frames, ignore_index=True)), out_file)
    if as_json:
        shown = {t: jsonable(stamp(df)) for t, df in results.items()}
        shown["(protocols)"] = {t: jsonable(df.reset_index()) for t, df in protocols.items()}
        shown["(heldout)"] = {t: jsonable(df.reset_index()) for t, df in heldout.items()}
        shown["(warnings)"] = warnings
        click.echo(json.dumps(shown, indent=2))
    elif not quiet:
        for track, table in results.items():
            count = f"{plural(int(table['comparisons'].sum()) // 2, 'comparison')}, {plural(len(ratings[track]), 'rating')}"
            out.print(render(table, f"{track}: joint (Davidson comparisons + ratings, {count})"))
            out.print("  scores: log-odds of the comparisons (Davidson), mean zero; std: from the inverse Hessian of "
                      "the joint fit (normal approximation); each protocol's ratings are offset + slope × score + noise "
                      "(table below)")
            out.print(render(protocols[track], f"{track}: rating protocols on the joint scale"))
            out.print(render(heldout[track], f"{track}: held-out log-likelihood per judgment "
                                             f"({HELDOUT_SHARE:.0%} held out), joint vs the protocol alone"))
            out.print("  gain > 0 (by more than two 'gain se'): the other protocol's judgments improved this protocol's "
                      "predictions; gain < 0: the protocols disagree about the systems, so do not put them on one "
                      "scale; within two 'gain se' of 0: the held-out judgments cannot tell\n")
