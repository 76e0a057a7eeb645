"""``humeval report``: one self-contained report of a campaign, as HTML, Markdown or JSON."""

from __future__ import annotations

import json
from pathlib import Path

import click

from humeval.cli.common import (
    TRIALS,
    progress_bar,
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
    read_options,
)
from humeval.errors import InputError
from humeval.ranking.registry import DEFAULT_MODELS, model_help


def read_arguments(fmt=None, encoding=None, columns=None, outcomes=None) -> list[str]:
    """The reading options as command-line words, for the commands a report names."""
    return [word for option, value in (("--format", fmt), ("--encoding", encoding), ("--columns", columns),
                                       ("--outcomes", outcomes)) if value for word in (option, value)]


def write_report(judgment_sets, output, fmt, models, n_boot, trials, jobs, random_state, metric_table=None,
                 quiet=False, l2=None, read_args=(), tracks=()):
    """Build the report of every (path, judgments) pair, merge them, write ``output``; return it.
    ``read_args``, ``tracks``: the reading options, repeated in every table's command."""

    from humeval.report import RENDERERS, Report, build_report
    reports = []
    with progress_bar(quiet) as bar:
        task = bar.add_task("report", total=None)
        for path, judgments in judgment_sets:
            reports.append(build_report(judgments, str(path), models, n_boot, trials, random_state, jobs,
                                        metric_table if path == judgment_sets[-1][0] else None,
                                        progress=lambda step, p=path: bar.update(task, description=f"{Path(p).name}: {step}"),
                                        l2=l2, read_args=read_args, tracks=tracks))
    if len(reports) == 1:
        report = reports[0]
    else:
        report = Report("humeval report: " + ", ".join(r.source for r in reports), ", ".join(r.source for r in reports),
                        [], list(dict.fromkeys(m for r in reports for m in r.methods)),
                        {k: v for r in reports for k, v in r.references.items()})
        for r in reports:
            for section in r.sections:
                section.title = f"{Path(r.source).name} — {section.title}"
                report.sections.append(section)
            report.summary += [f"{Path(r.source).name}: {s}" for s in r.summary]
    from humeval.cli.signing import current
    report.signature = current()  # the running command's (report's, demo's)
    Path(output).write_text(RENDERERS[fmt](report), encoding="utf-8")
    return report


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
@execution_options
@click.option("--random-state", default=0, show_default=True, type=SEED,
              help="Seed for subsets, sampled models and resampling.")
@l2_option
@drop_option
@anonymize_options
@common_options
def report(files, fmt, encoding, columns, outcomes, tracks, output, report_format, model_names, n_boot, trials,
           metric_files, human_file, details, jobs, random_state, l2, drop_file, anon, salt, quiet, as_json):
    """One report of a campaign per file: the data, which model to trust (held-out perplexity),
    the ranking with intervals and clusters beside every model's, the preference heatmap, judge
    agreement and quality, completion for ratings, metric correlations. Every table names the
    command that prints the same numbers.

    \b
    Example:
      humeval report data_RNK.csv --track Czech-English -o cz-en.html
      humeval report mqm_ted_ende.tsv -o mqm.md
      humeval report data_RNK.csv --track Czech-English -o shared.html --anonymize --salt "$SECRET"
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
                             "mt-metrics-eval), wins: metrics each one beats significantly.",
                             f"humeval metric correlate {' '.join(metric_files)} --human {human_file}"
                             + (f" --details {details}" if details else "")
                             + f" --significance permutation --resamples {METRIC_RESAMPLES}"
                             + f" --random-state {random_state}",
                             "metric")
    quiet = quiet or as_json
    sets = [(path, load(path, fmt, encoding, columns, outcomes, tracks, quiet, salt, drop_file, controls=True)) for path in files]
    if not any(j.comparisons is not None or j.ratings is not None for _, j in sets):
        raise InputError(files[0], None, "holds no rankings, comparisons or ratings", "report needs judgments")
    result = write_report(sets, output, fmt_out, models, n_boot, trials, jobs, random_state, metric_table, quiet, l2,
                          read_arguments(fmt, encoding, columns, outcomes), tracks)
    if as_json:
        click.echo(json.dumps({"output": str(output), "format": fmt_out, "summary": result.summary}, indent=2))
    elif not quiet:
        for line in result.summary:
            out.print(f"  {line}")
        out.print(f"wrote the report to {output} ({fmt_out})")
