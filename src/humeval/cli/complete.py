"""``humeval complete``: matrix completion of missing ratings (Wisniewski 2013)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from humeval.cli.common import (
    TRIALS,
    FIGURE_OUT,
    SEED,
    SHARE,
    TABLE_OUT,
    InputError,
    common_options,
    count,
    jsonable,
    load,
    needs,
    out,
    progress_bar,
    read_options,
    render,
)
from humeval.data.export import write


@click.command()
@click.argument("file", type=click.Path())
@read_options
@click.option("--criterion", help="Which criterion to complete when the file has several.")
@click.option("--holdout", default=0.1, show_default=True, type=SHARE,
              help="Share of known ratings hidden to measure errors.")
@click.option("--trials", default=3, show_default=True, type=TRIALS)
@click.option("--out", "out_file", type=TABLE_OUT,
              help="Write the completed judge × (item | system) matrix (soft-impute; .csv/.parquet/.jsonl).")
@click.option("--decisions", is_flag=True, help="Run the decision study (one rating, + completion, all ratings).")
@click.option("--common", default=5, show_default=True, type=count(1),
              help="Shared columns every working judge rates (decisions).")
@click.option("--plot", type=FIGURE_OUT, help="Draw the decision study (needs --decisions).")
@click.option("--random-state", default=0, show_default=True, type=SEED)
@common_options
def complete(file, fmt, encoding, columns, outcomes, tracks, delimiter, sql, keep, criterion, holdout, trials, out_file,
             decisions, common, plot, random_state, quiet, as_json):
    """Complete the judge × (item, system) rating matrix: hidden-rating errors of the baselines and
    soft-impute, the completed matrix, and (--decisions) whether completion lets fewer ratings
    decide between systems like many (Wisniewski 2013).

    \b
    Example:
      humeval complete sxs_mqm_generalMT2023_ende.3ratingsPerSegment.tsv.tar.gz --trials 1 --decisions --plot d.png
    """
    from humeval.completion import (
        AdditiveBaseline,
        GlobalMean,
        ItemMean,
        JudgeMean,
        RatingMatrix,
        SoftImpute,
        completion_error,
        decision_study,
    )
    needs(click.get_current_context(), {"plot": "--plot", "common": "--common"}, decisions, "without --decisions")
    judgments = load(file, fmt, encoding, columns, outcomes, tracks, quiet or as_json,
                     delimiter=delimiter, sql=sql, keep=keep)
    r = judgments.ratings
    if r is None:
        raise InputError(file, None, "holds no ratings", "complete needs absolute scores (DA, MQM, adequacy, …)")
    if criterion:
        if criterion not in r.criteria:
            raise InputError(file, None, f"no criterion {criterion!r}", f"the criteria are: {', '.join(r.criteria)}")
        r = r.take(r.criterion == r.criteria.index(criterion)).compact()
    elif len(r.criteria) > 1:
        raise InputError(file, None, f"{len(r.criteria)} criteria ({', '.join(r.criteria)})", "pick one with --criterion")
    if (r.judge < 0).any():
        raise InputError(file, None, f"{int((r.judge < 0).sum()):,} ratings have no judge id: completion needs to know "
                         "who gave each score", "use a file with judge ids (MLQE-PE's DA files have none)")
    duplicates = RatingMatrix(r).duplicates  # a judge's repeated ratings of one cell count as their mean
    methods = {"global mean": GlobalMean(), "item mean": ItemMean(), "judge mean": JudgeMean(),
               "judge bias + item": AdditiveBaseline(), "soft-impute": SoftImpute(random_state=random_state)}
    with progress_bar(quiet or as_json) as bar:
        task = bar.add_task("hidden-rating errors", total=trials * len(methods))
        errors = completion_error(methods, r, holdout, trials, random_state,
                                  progress=lambda done, total: bar.update(task, completed=done, total=total))
        if decisions:
            bar.update(task, description="decision study", completed=0, total=trials)
            study = decision_study(r, SoftImpute(random_state=random_state), common=common, trials=trials,
                                   random_state=random_state,
                                   progress=lambda done, total: bar.update(task, completed=done, total=total))
        else:
            study = None
        if out_file:
            bar.update(task, description="the completed matrix", completed=0, total=None)
            write(SoftImpute(random_state=random_state).fit(r).complete().reset_index(), out_file)
    if plot and study is not None:
        from humeval.report import plot_decision_study
        plot_decision_study(study, plot, title=f"{Path(file).name}: decisions against the reference judges")
    if as_json:
        click.echo(json.dumps({"errors": jsonable(errors), "decisions": jsonable(study) if study is not None else None,
                               "duplicates averaged": duplicates}, indent=2))
        return
    if quiet:
        return
    if duplicates:
        out.print(f"note: averaged {duplicates:,} repeated ratings of one (item, system) by the same judge")
    out.print(render(errors, f"{file}: error on {holdout:.0%} hidden ratings (mean of {trials} trials)", "method"))
    if study is not None:
        out.print(render(study, "decisions between systems: share of pairs decided as the reference judges decide",
                         "condition"))
    if out_file:
        out.print(f"wrote the completed matrix to {out_file}")
