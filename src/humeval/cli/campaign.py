"""Writing the campaign report, shared by ``humeval report`` and ``humeval demo``."""

from __future__ import annotations

from pathlib import Path

from humeval.cli.common import progress_bar


def read_arguments(fmt=None, encoding=None, columns=None, outcomes=None, delimiter=None) -> list[str]:
    """The reading options as command-line words, for the commands a report names."""
    return [word for option, value in (("--format", fmt), ("--encoding", encoding), ("--columns", columns),
                                       ("--outcomes", outcomes), ("--delimiter", delimiter))
            if value for word in (option, value)]


def write_report(judgment_sets, output, fmt, models, n_boot, trials, jobs, random_state, metric_table=None,
                 quiet=False, l2=None, read_args=(), tracks=(), sampling=None, joint=None):
    """Build the report of every (path, judgments) pair, merge them, write ``output``; return it.
    ``read_args``, ``tracks``: the reading options, repeated in every table's command; ``sampling``
    and ``joint``: ``build_report``'s."""

    from humeval.report import RENDERERS, Report, build_report
    reports = []
    with progress_bar(quiet) as bar:
        task = bar.add_task("report", total=None)
        for path, judgments in judgment_sets:
            reports.append(build_report(judgments, str(path), models, n_boot, trials, random_state, jobs,
                                        metric_table if path == judgment_sets[-1][0] else None,
                                        progress=lambda step, p=path: bar.update(task, description=f"{Path(p).name}: {step}"),
                                        l2=l2, read_args=read_args, tracks=tracks, sampling=sampling,
                                        joint=joint))
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
