"""The ``humeval`` command. Subcommands share option names: --format, --encoding, --columns,
--outcomes, --track for reading; --random-state for randomness; --json and --quiet for scripts.

``common`` holds what the commands share (errors, reading options, ``load``, rendering); each
other module holds the commands of one task, listed in ``_group.COMMANDS`` and imported only when
its command runs (``humeval --help`` imports neither numpy nor pandas)."""

from __future__ import annotations

import gc

import click

from humeval.cli._group import GC_THRESHOLDS, Group, print_versions
from humeval.threads import THREADS_HELP


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=print_versions,
              help="Show humeval's version and those of the libraries that change its numbers, then exit.")
@click.option("--threads", type=click.IntRange(min=0), default=None, envvar="HUMEVAL_THREADS", metavar="N",
              help=THREADS_HELP)
def cli(threads):
    """Human judgments of MT (and any generated text) turned into conclusions you can trust.

    \b
    Example:
      humeval demo
      humeval info data_RNK.csv
    """  # --threads is applied by Group.invoke, before the command's module is imported


def main():
    """The console entry point. The imports (click's here, the command's when it is
    looked up) leave hundreds of thousands of long-lived
    objects (pandas, scipy, numba, click): ``gc.freeze`` takes them out of the cyclic garbage
    collector's scans, and collecting the youngest objects every 20,000 allocations instead of
    every 700 cuts the number of passes; only the time spent finding cycles changes (`humeval
    report` on WMT10: ``benchmarks/bench_report.py`` prints it with and without). ``humeval serve``
    goes back to the default thresholds before serving: over days, dead reference cycles (and the
    buffers they hold) would otherwise wait about 28 times longer to be freed."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    Group.freeze_imports = True  # and again after the command's module is imported
    cli(prog_name="humeval")
