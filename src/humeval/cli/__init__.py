"""The ``humeval`` command. Subcommands share option names: --format, --encoding, --columns,
--outcomes, --track for reading; --random-state for randomness; --json and --quiet for scripts.

``common`` holds what the commands share (errors, reading options, ``load``, rendering); each
other module holds the commands of one task and is registered here."""

from __future__ import annotations

import click

from humeval.cli import complete, data, grm, hmeant, judges, metric, planning, ranking, report, serve
from humeval.cli.common import Group


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
    cli(prog_name="humeval")
