"""The ``humeval`` command. Subcommands share option names: --format, --encoding, --columns,
--outcomes, --track for reading; --random-state for randomness; --json and --quiet for scripts.

``common`` holds what the commands share (errors, reading options, ``load``, rendering); each
other module holds the commands of one task and is registered here."""

from __future__ import annotations

import gc

import click

from humeval.cli import complete, data, grm, hmeant, judges, metric, planning, ranking, report, serve
from humeval.cli.common import GC_THRESHOLDS, Group


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="humeval")
def cli():
    """Human judgments of MT (and any generated text) turned into conclusions you can trust.

    \b
    Example:
      humeval demo
      humeval info data_RNK.csv
    """


for command in (data.info, data.convert, data.simulate, data.demo, ranking.rank, ranking.compare_models,
                judges.agreement, judges.judges, grm.grm, complete.complete, metric.metric, hmeant.hmeant_command,
                report.report, planning.plan_command, planning.active_study_command, serve.serve):
    cli.add_command(command)




def main():
    """The console entry point. The imports above leave hundreds of thousands of long-lived
    objects (pandas, scipy, numba, click): ``gc.freeze`` takes them out of the cyclic garbage
    collector's scans, and collecting the youngest objects every 20,000 allocations instead of
    every 700 cuts the number of passes; only the time spent finding cycles changes (`humeval
    report` on WMT10: ``benchmarks/bench_report.py`` prints it with and without). ``humeval serve``
    goes back to the default thresholds before serving: over days, dead reference cycles (and the
    buffers they hold) would otherwise wait about 28 times longer to be freed."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    cli(prog_name="humeval")
