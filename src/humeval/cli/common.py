"""What every ``humeval`` command shares: the error handling, the reading options and ``load``,
the output options, and rendering of tables. Commands live in the sibling modules, one per task."""

from __future__ import annotations

import json
import os
import sys

import click
import numpy as np
import pandas as pd
from rich.console import Console
from rich.table import Table as RichTable

from humeval.data import FORMATS, read
from humeval.errors import InputError

# Piped output is not cut to 80 columns: tables are meant to be read in files and logs too.
out = Console(highlight=False, width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True, highlight=False)

class UserError(click.ClickException):
    exit_code = 2

    def show(self, file=None):  # one line, never wrapped: scripts grep it
        click.echo(f"{click.style('error:', fg='red', bold=True)} {self.format_message()}", err=True)


class Group(click.Group):
    """Turns input errors into one readable line and exit code 2, never a traceback."""

    def invoke(self, ctx):
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




def fit_shown(model, data, label: str, quiet: bool = False, **kwargs):
    """``model.fit(data, **kwargs)`` with a transient progress bar on stderr for the models whose
    fits are long and report their steps (Gibbs sweeps, Crowd-BT's EM, the GRM's optimiser:
    ``humeval.ranking.progress``); Ctrl-C leaves no half-fitted model behind."""
    from rich.progress import Progress

    from humeval.ranking.progress import ReportsProgress
    if quiet or not isinstance(model, ReportsProgress):
        return model.fit(data, **kwargs)
    with Progress(console=err, transient=True) as bar:
        task = bar.add_task(label, total=None)
        return model.fit(data, progress=lambda done, total: bar.update(task, completed=done, total=total), **kwargs)


# -- shared options ---------------------------------------------------------------------------

def key_values(text: str | None, what: str, value=str) -> dict | None:
    if not text:
        return None
    result = {}
    for part in text.split(","):
        key, sep, val = part.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{part!r}: write {what} as KEY=VALUE,KEY=VALUE")
        try:
            result[key.strip()] = value(val.strip())
        except ValueError:
            raise click.BadParameter(f"{part!r}: the value must be {value.__name__}") from None
    return result


def read_options(f):
    for option in reversed([
        click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), help="Input format (default: guessed)."),
        click.option("--encoding", default=None, help="Text encoding of the input (default UTF-8)."),
        click.option("--columns", default=None, metavar="K=COL,…",
                     help="Column mapping for pairwise/ratings files, e.g. a=model_a,b=model_b,outcome=winner."),
        click.option("--outcomes", default=None, metavar="LABEL=N,…",
                     help="Outcome labels of a pairwise file: 0 tie, 1 a wins, 2 b wins."),
        click.option("--track", "tracks", multiple=True, help="Keep only this track (repeatable)."),
    ]):
        f = option(f)
    return f


def common_options(f):
    f = click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors (and --json output).")(f)
    return click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")(f)


def load(path, fmt=None, encoding=None, columns=None, outcomes=None, tracks=(), quiet=False):
    options = {}
    if encoding:
        options["encoding"] = encoding
    if columns:
        options["columns"] = key_values(columns, "--columns")
    if outcomes:
        options["outcomes"] = key_values(outcomes, "--outcomes", int)
    if quiet:
        result = read(path, fmt, **options)
    else:
        with err.status(f"reading {path} …"):
            result = read(path, fmt, **options)
    return restrict(result, tracks) if tracks else result


def restrict(judgments, tracks):
    """Keep only the named tracks in every table; an unknown track is an error naming the known ones."""
    known = set()
    for name, table in judgments.tables().items():
        parts = table.by_track()
        known |= set(parts)
        kept = [parts[t] for t in tracks if t in parts]
        setattr(judgments, name, type(table).concat(kept) if kept else None)
    unknown = [t for t in tracks if t not in known]
    if unknown:
        raise InputError(judgments.report.path, None, f"no track named {', '.join(unknown)}",
                         f"the tracks are: {', '.join(sorted(known))}")
    return judgments


# -- rendering --------------------------------------------------------------------------------

def render(df: pd.DataFrame, title: str, index_name: str | None = None, breaks=()) -> RichTable:
    """A rich table of a DataFrame; ``breaks`` are row positions after which a rule is drawn."""
    table = RichTable(title=title, title_justify="left", show_edge=False, header_style="bold")
    table.add_column(index_name or df.index.name or "")
    for column in df.columns:
        table.add_column(str(column), justify="right")
    percent = [("rate" in str(c) or "share" in str(c)) for c in df.columns]
    for position, (key, row) in enumerate(df.iterrows()):
        table.add_row(str(key), *(cell(v, p) for v, p in zip(row, percent)), end_section=position in breaks)
    return table


def cell(value, percent: bool = False) -> str:
    if isinstance(value, (float, np.floating)):
        if np.isnan(value):
            return "-"
        if percent:
            return f"{value:.1%}"
        return f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, (int, np.integer)):
        return f"{value:,}"
    return str(value)


def print_report(report):
    out.print(f"[bold]{report.path}[/]: {report.rows:,} rows read as {report.format}")
    for note in report.notes:
        out.print(f"  {note}")
    for reason, n in report.skipped.items():
        lines = report.examples.get(reason)
        at = f" (e.g. line {', '.join(map(str, lines))})" if lines else ""
        out.print(f"  [yellow]skipped {n:,} {reason}{at}[/]")


def jsonable(df: pd.DataFrame) -> list[dict]:
    return json.loads(df.reset_index().to_json(orient="records"))



def l2_option(f):
    """``--l2``/``--prior``: the precision of the Gaussian prior of the models that have one."""
    return click.option(
        "--l2", "--prior", "l2", type=click.FloatRange(min=0), default=None, metavar="λ",
        help="Precision λ of the Gaussian prior on the abilities of bt, davidson, rao-kupper and crowd-bt "
             "(penalty λ/2·Σ(θ − mean θ)²; default 0.01 (crowd-bt: 1), weak: a system that never lost, or a group never compared "
             "with the rest, gets a finite, wide score). 0 = maximum likelihood, which refuses such data.")(f)


def group_note(model) -> str:
    """A line naming the components of a fitted model's comparison graph ("" when connected)."""
    groups = model.groups() if hasattr(model, "groups") else []
    if len(groups) < 2:
        return ""
    shown = "; ".join("{" + ", ".join(g[:6]) + (", …" if len(g) > 6 else "") + "}" for g in groups[:6])
    more = f" and {len(groups) - 6} more" if len(groups) > 6 else ""
    return (f"the comparisons fall into {len(groups)} groups never compared with each other ({shown}{more}): "
            "scores and ranks compare nothing across groups (column 'component')")


def models_named(names: str, random_state, l2=None):
    from humeval.ranking import HEURISTICS, HOPKINS_MAY, PREFERENCE_MODELS, make_model
    informative = tuple(m for m in PREFERENCE_MODELS if "uniform" not in m)  # the uniforms rank nobody
    chosen = {"all": informative + HEURISTICS, "preference": PREFERENCE_MODELS, "hopkins-may": HOPKINS_MAY}.get(names)
    try:
        return {n: make_model(n, random_state, l2) for n in (chosen or names.split(","))}
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--model") from None


def comparisons_of(judgments, path):
    if judgments.comparisons is None:
        raise InputError(path, None, "holds no pairwise comparisons or rankings",
                         "rank takes ranking or pairwise files; ratings come with their own commands")
    return judgments.comparisons

