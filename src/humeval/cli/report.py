"""``humeval report``: one self-contained report of a campaign, as HTML, Markdown or JSON."""

from __future__ import annotations

import json
from pathlib import Path

import click

from humeval.cli.common import (
    TRIALS,
    JOBS,
    REPORT_SUFFIXES,
    SEED,
    Names,
    OutputPath,
    Resamples,
    anonymize_options,
    common_options,
    count,
    drop_option,
    execution_options,
    l2_option,
    load,
    needs,
    out,
    pseudonym_salt,
    read_families,
    read_options,
    sampling_options,
    refuse_unused_prior,
)
from humeval.cli.campaign import read_arguments, write_report
from humeval.errors import InputError
from humeval.ranking.registry import DEFAULT_MODELS, model_help


def check_report_format(output, report_format) -> str:
    """The format to write: --report-format, else the output's suffix (.html/.htm, .md, .json);
    a suffix that contradicts --report-format, or an unknown one without it, is an error."""
    suffix = Path(output).suffix.lower()
    by_suffix = {".html": "html", ".htm": "html", ".md": "md", ".json": "json"}.get(suffix)
    if report_format is None and by_suffix is None:
        raise click.BadParameter(f"cannot tell the report format from {suffix or 'a name without an ending'}: "
                                 f"name it with one of {', '.join(REPORT_SUFFIXES)} or pass --report-format",
                                 param_hint="--out")
    if report_format and by_suffix and by_suffix != report_format:
        raise click.UsageError(f"--report-format {report_format} contradicts the {suffix} ending of {output}")
    return report_format or by_suffix


METRIC_RESAMPLES = 200  # permutations for the metrics table's clusters: enough to separate them, fast


@click.command("report")
@click.argument("files", nargs=-1, required=True, type=click.Path())
@read_options
@click.option("--out", "-o", "--output", "output", required=True, type=OutputPath(),
              help="Where to write the report (report.html, report.md, report.json).")
@click.option("--report-format", "report_format", type=click.Choice(["html", "md", "json"]), default=None,
              help="html (self-contained, printable), md or json (default: from the output's suffix, else html).")
@click.option("--model", "-m", "model_names",
              default=",".join(DEFAULT_MODELS), show_default=True, type=Names(),
              help=model_help("Preference models compared by held-out perplexity: names"))
@click.option("--bootstrap", "n_boot", default=1000, show_default=True, type=Resamples(off=False),
              help="Bootstrap resamples per track (at least 2).")
@click.option("--trials", default=2, show_default=True, type=TRIALS,
              help="Random training subsets per size (learning curves).")
@click.option("--metric-scores", "metric_files", multiple=True, type=click.Path(dir_okay=False),
              help="WMT metric score files to correlate with --human (repeatable).")
@click.option("--human", "human_file", type=click.Path(dir_okay=False), help="WMT DA scores for --metric-scores.")
@click.option("--details", type=click.Path(dir_okay=False), help="Segment ids → document and segment (seg level).")
@click.option("--jobs", "-j", default=1, show_default=True, type=JOBS,
              help="Processes for learning curves and refits (0 = all cores).")
@sampling_options
@click.option("--joint", "joint_file", type=click.Path(exists=True, dir_okay=False), default=None, metavar="RATINGS",
              help="Ratings (DA, ESA, MQM: each criterion one protocol) of the same systems: the report adds the "
                   "joint model's ranking of comparisons and ratings on one scale and each protocol's held-out "
                   "log-likelihood joined and alone (does joining help), as rank --joint.")
@execution_options
@click.option("--random-state", default=0, show_default=True, type=SEED,
              help="Seed for subsets, sampled models and resampling.")
@l2_option
@drop_option
@anonymize_options
@common_options
def report(files, fmt, encoding, columns, outcomes, tracks, delimiter, sql, keep, output, report_format, model_names,
           n_boot, trials, metric_files, human_file, details, reweight_policy, provisional_below, siblings, families_file,
           joint_file, jobs, random_state, l2, drop_file, anon, salt, quiet, as_json):
    """One report of a campaign per file: the data, which model to trust (held-out perplexity),
    the ranking with intervals and clusters beside every model's, the preference heatmap, judge
    agreement and quality, completion for ratings, metric correlations. Every table names the
    command that prints the same numbers.

    \b
    Example:
      humeval report data_RNK.csv --track Czech-English -o cz-en.html
      humeval report mqm_ted_ende.tsv -o mqm.md
      humeval report data_RNK.csv --track Czech-English -o shared.html --anonymize --salt "$SECRET"
      humeval report battles.json -o arena.html --reweight pairs:50 --siblings 3
      humeval report data_RNK.csv --track Czech-English --joint data_ACC.csv -o joint.html
    """
    from humeval.metaeval.table import correlation_table
    from humeval.report import Table
    salt = pseudonym_salt(anon, salt)
    fmt_out = check_report_format(output, report_format)
    needs(click.get_current_context(), {"human_file": "--human", "details": "--details"}, bool(metric_files),
          "without --metric-scores")
    from humeval.ranking import expand, make_model, tags
    models = expand(model_names)  # group names (preference, default, …) stand for their members
    for name in models:
        try:
            make_model(name, 0)
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="--model") from None
        if not tags(name).preference:
            raise click.BadParameter(f"{name} has no preference distribution, so no perplexity", param_hint="--model")
    refuse_unused_prior(models, l2)
    from humeval.report.sampling import SamplingOptions
    if reweight_policy and reweight_policy.strip().lower().startswith("propensity"):
        raise click.BadParameter("the report weighs pairs (pairs[:FLOOR]); propensity reads sampling probabilities "
                                 "from a --weight column, which rank reads: humeval rank FILE --weight COL "
                                 "--reweight propensity", param_hint="--reweight")
    if families_file and not siblings:
        raise click.BadParameter("names the variant families that --siblings K counts: add --siblings",
                                 param_hint="--families")
    sampling = SamplingOptions(reweight_policy, provisional_below, siblings, families_file,
                               read_families(families_file) if families_file else None)
    metric_table = None
    if metric_files:
        if not human_file:
            raise click.BadParameter("--metric-scores needs --human (the DA scores)", param_hint="--human")
        level, table, _ = correlation_table(metric_files, human_file, details, significance="permutation",
                                            n_resamples=METRIC_RESAMPLES, random_state=random_state)
        metric_table = Table(f"{level}-level correlation with {Path(human_file).name}", table,
                             "Pearson r, Kendall τ-b (and pairwise accuracy at system level) of each metric with the "
                             "human scores on the outputs both score; Williams' test p-value that the top metric "
                             "correlates better (Graham & Baldwin 2014); rank: WMT's significance clusters of the "
                             f"metrics by Pearson r (permutation test, {METRIC_RESAMPLES} resamples, as "
                             "mt-metrics-eval), wins: metrics each one beats significantly."
                             + "".join(f" {note[0].upper()}{note[1:]}." for note in table.attrs.get("notes", [])
                                       if "outlier" in note or note.startswith("left out")),
                             f"humeval metric correlate {' '.join(metric_files)} --human {human_file}"
                             + (f" --details {details}" if details else "")
                             + f" --significance permutation --test-resamples {METRIC_RESAMPLES}"
                             + f" --random-state {random_state}",
                             "metric")
    quiet = quiet or as_json
    sets = [(path, load(path, fmt, encoding, columns, outcomes, tracks, quiet, salt, drop_file, controls=True,
                        delimiter=delimiter, sql=sql, keep=keep)) for path in files]
    if not any(j.comparisons is not None or j.ratings is not None for _, j in sets):
        raise InputError(files[0], None, "holds no rankings, comparisons or ratings", "report needs judgments")
    given = [o for o, v in (("--reweight", reweight_policy), ("--provisional", provisional_below),
                            ("--siblings", siblings)) if v]
    if given and not any(j.comparisons is not None for _, j in sets):
        raise click.BadParameter("weighs and flags the systems of comparisons, and the report's files hold ratings "
                                 "only", param_hint=given[0])
    joint = None
    if joint_file:
        if not any(j.comparisons is not None for _, j in sets):
            raise click.BadParameter("fits ratings with comparisons, and the report's files hold none",
                                     param_hint="--joint")
        ratings = load(joint_file, fmt=None, quiet=True, salt=salt).ratings
        if ratings is None or not len(ratings):
            raise InputError(joint_file, None, "holds no ratings (DA, ESA, MQM, Likert or acceptability scores)",
                             "give --joint a ratings file of the same systems")
        joint = (joint_file, ratings)
    result = write_report(sets, output, fmt_out, models, n_boot, trials, jobs, random_state, metric_table, quiet, l2,
                          read_arguments(fmt, encoding, columns, outcomes, delimiter), tracks, sampling, joint)
    if as_json:
        click.echo(json.dumps({"output": str(output), "format": fmt_out, "summary": result.summary}, indent=2))
    elif not quiet:
        for line in result.summary:
            out.print(f"  {line}")
        out.print(f"wrote the report to {output} ({fmt_out})")
