"""The ``humeval`` group: error handling, and commands imported only when they run.

Kept free of numpy, pandas and numba so that ``humeval --help`` and argument errors start fast
(``benchmarks/bench_startup.py``): each command's module is imported when that command is
invoked (or its own ``--help`` is asked for), and the group's own help reads the one-line
summaries from ``COMMANDS`` — ``tests/cli/test_startup.py`` checks them against the commands'
docstrings, so they cannot drift.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys

import click

from humeval.errors import InputError
from humeval.signature import versions  # --version prints the libraries a signature names


class UserError(click.ClickException):
    exit_code = 2

    def show(self, file=None):  # one line, never wrapped: scripts grep it
        click.echo(f"{click.style('error:', fg='red', bold=True)} {self.format_message()}", err=True)


GC_THRESHOLDS = (20_000, 20, 20)  # the garbage collector's for batch commands (``humeval.cli.main``)
DEFAULT_GC_THRESHOLDS = (700, 10, 10)  # Python's own, which ``humeval serve`` restores before serving

# name -> (module in humeval.cli, attribute, the summary `humeval --help` shows: the command's first
# sentence, which tests/cli/test_startup.py checks against its docstring)
COMMANDS = {
    'info': ('data', 'info',
        'What a judgments file holds: per track the systems, judges, items, comparisons, tie rate, and what was skipped and why.'),
    'convert': ('data', 'convert',
        'Convert a judgments file to pairwise comparisons (.parquet, .csv, .tsv, .jsonl).'),
    'simulate': ('data', 'simulate',
        "Simulate a competition with known truth (Hopkins & May's generative model) and write its comparisons."),
    'demo': ('data', 'demo',
        'A tour: simulate a WMT-style campaign (5-way rankings, a few judges answering at random) or read FILE, print the headline tables (the data, a ranking beside the truth, the judges humeval flags) and write the full campaign report (see `humeval report`).'),
    'rank': ('ranking', 'rank',
        "Rank the systems of each track with one model, or several side by side; with --bootstrap, WMT's procedure: score intervals, rank ranges and clusters."),
    'compare-models': ('ranking', 'compare_models',
        "Which model predicts held-out judgments best: Hopkins & May's learning curves."),
    'agreement': ('judges', 'agreement',
        "Annotator agreement per track: inter- and intra-annotator kappa with P(A), P(E) and the number of judgment pairs, like Denkowski & Lavie's Tables 1 and 2."),
    'judges': ('judges', 'judges',
        "Judge quality, least reliable first: judgments, agreement with the other judges (P(A) and kappa), with the leave-one-out majority, self-consistency with its repeat pairs, and a flag (not above chance: agreement not shown above chance, p >= 0.01; outlier: kappa far below the median judge's; n/a: continuous scores, where exact agreement does not apply)."),
    'grm': ('grm', 'grm',
        "Graded-response IRT against a fixed baseline: judge sensitivity, segment difficulty, item information (fit), and the paper's experiments (study)."),
    'complete': ('complete', 'complete',
        'Complete the judge × (item, system) rating matrix: hidden-rating errors of the baselines and soft-impute, the completed matrix, and (--decisions) whether completion lets fewer ratings decide between systems like many (Wisniewski 2013).'),
    'metric': ('metric', 'metric',
        'Automatic metrics: scores (sacrebleu baselines, METEOR-NEXT), HTER, correlation with humans, tuning.'),
    'hmeant': ('hmeant', 'hmeant_command',
        "HMEANT of every annotated output, per system and language, with the role weights used and the two annotators' agreement (Lo & Wu 2011, 2012; Birch et al."),
    'report': ('report', 'report',
        "One report of a campaign per file: the data, which model to trust (held-out perplexity), the ranking with intervals and clusters beside every model's, the preference heatmap, judge agreement and quality, completion for ratings, metric correlations."),
    'ppi': ('ppi', 'ppi',
        'Human and automatic judges together: human-only, judge-only and prediction-powered (PPI++) estimates side by side, with interval widths, the judge\'s weight λ and how many human judgments the judge is worth.'),
    'plan': ('planning', 'plan_command',
        "Plan a campaign from a pilot: fit the model to FILE's judgments, simulate campaigns of each budget from what the pilot says (parametric bootstrap, pilot uncertainty included), and report per budget the expected number of rank clusters, the probability that the top system is identified, the expected correlation with the full-information ranking and the expected held-out perplexity."),
    'active-study': ('planning', 'active_study_command',
        'How many judgments each elicitation strategy needs to reach the correlation with the full-information ranking (and, with --clusters, the number of clusters) that uniformly random pairs reach with the whole budget.'),
    'serve': ('serve', 'serve',
        "Serve a judging campaign: annotators log in and judge in the browser, the campaign's strategy chooses the next task, the organiser watches the ranking and exports the judgments."),
}


def print_versions(ctx, param, value):
    """``humeval --version``: one line, e.g. ``humeval 0.2.0 (numpy 2.4.0, scipy 1.17.0, …)``."""
    if not value or ctx.resilient_parsing:
        return
    found = versions()
    click.echo(f"humeval {found.pop('humeval')} (" + ", ".join(f"{k} {v}" for k, v in found.items()) + ")")
    ctx.exit()


def summary_of(name: str) -> click.Command:
    """A stand-in command carrying only ``name``'s summary: click shortens it as it would the real one."""
    return click.Command(name, help=COMMANDS[name][2])


class Group(click.Group):
    """Turns input errors into one readable line and exit code 2, never a traceback; imports a
    command's module only when it is needed."""

    def invoke(self, ctx):
        if "threads" in ctx.params:  # before the command's module (and numpy, numba) is imported
            from humeval.threads import use_threads
            use_threads(ctx.params["threads"])
        try:
            return super().invoke(ctx)
        except InputError as error:
            raise UserError(str(error)) from None
        except (BrokenPipeError, KeyboardInterrupt):
            sys.exit(130)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort, SystemExit):
            raise
        except Exception as error:  # a bug, not the user's input: one line, the traceback on request
            if os.environ.get("HUMEVAL_DEBUG"):
                raise
            raise UserError(f"{type(error).__name__}: {error} — this is a bug in humeval, not in your data; "
                            "rerun with HUMEVAL_DEBUG=1 for the traceback and report it") from None

    # -- lazy commands ---------------------------------------------------------------------------

    freeze_imports = False  # ``main`` sets it: a one-shot process, not a test runner calling ``cli`` often

    def list_commands(self, ctx):
        return list(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        module, attribute, _ = COMMANDS[name]
        from humeval.cli.common import guard_outputs  # every output option checked, --force added (once)
        from humeval.cli.signing import sign  # every result signed (humeval.signature), once
        command = guard_outputs(sign(getattr(importlib.import_module(f"humeval.cli.{module}"), attribute), name))
        if self.freeze_imports:
            gc.freeze()  # what the command's imports built lives until exit (``humeval.cli.main``)
        return command

    @property
    def commands(self) -> dict:
        """Every command, imported (for code that walks the tree: the examples test, docs)."""
        return {name: self.get_command(None, name) for name in COMMANDS}

    @commands.setter
    def commands(self, value):  # click.Group.__init__ assigns {}; the commands are COMMANDS
        if value:
            raise TypeError("humeval's commands are listed in humeval.cli._group.COMMANDS")

    def format_commands(self, ctx, formatter):  # click's layout, from the summaries (no imports)
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, summary_of(name).get_short_help_str(limit)) for name in COMMANDS]
        with formatter.section("Commands"):
            formatter.write_dl(rows)
