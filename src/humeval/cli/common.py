"""What every ``humeval`` command shares: the error handling, the reading options and ``load``,
the output options, and rendering of tables. Commands live in the sibling modules, one per task."""

from __future__ import annotations

import functools
import json
import os
import sys
from pathlib import Path

import click
import numpy as np
import pandas as pd
from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable
from rich.text import Text

from humeval.data import FORMATS, read
from humeval.data.readers._io import shown
from humeval.errors import InputError

# Piped output is not cut to 80 columns: tables are meant to be read in files and logs too.
out = Console(highlight=False, width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True, highlight=False)

from humeval.cli._group import DEFAULT_GC_THRESHOLDS, GC_THRESHOLDS, Group, UserError  # noqa: F401 (re-exported)


def progress_bar(quiet: bool = False):
    """A transient progress bar on stderr; off with ``quiet`` and when stderr is not a terminal
    (a bar there leaves a blank line in logs and pipes)."""
    from rich.progress import Progress
    return Progress(console=err, disable=quiet or not err.is_terminal, transient=True)


def fit_shown(model, data, label: str, quiet: bool = False, **kwargs):
    """``model.fit(data, **kwargs)`` with a transient progress bar on stderr for the models whose
    fits are long and report their steps (Gibbs sweeps, Crowd-BT's EM, the GRM's optimiser:
    ``humeval.ranking.progress``); Ctrl-C leaves no half-fitted model behind."""
    import warnings


    from humeval.ranking.base import MaterialisedWarning
    from humeval.ranking.progress import ReportsProgress
    with warnings.catch_warnings(record=True) as caught:  # weighted rows repeated: say how big, once
        warnings.simplefilter("always", MaterialisedWarning)
        if quiet or not isinstance(model, ReportsProgress):
            fitted = model.fit(data, **kwargs)
        else:
            with progress_bar() as bar:
                task = bar.add_task(label, total=None)
                fitted = model.fit(data, progress=lambda done, total: bar.update(task, completed=done, total=total),
                                   **kwargs)
    for warning in caught:
        if not issubclass(warning.category, MaterialisedWarning):
            warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
        elif not quiet:
            err.print(f"[yellow]warning:[/] {escape(str(warning.message))}")
    return fitted



# -- option types: nonsense is refused while the command line is parsed, before any work --------

def count(minimum: int = 1) -> click.IntRange:
    """A whole number ≥ ``minimum`` (click names the option and the range when it is not)."""
    return click.IntRange(min=minimum)


class Real(click.FloatRange):
    """A finite number in a range (click's FloatRange lets nan through: every comparison with it
    is false)."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not np.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


SEED = click.IntRange(0, 2 ** 32 - 1)  # what numpy's legacy RandomState (used by some models) accepts
JOBS = click.IntRange(min=0)  # 0 = all cores
CONFIDENCE = Real(0, 1, min_open=True, max_open=True)
SHARE = Real(0, 1, min_open=True, max_open=True)  # a share strictly between 0 and 1
PROPORTION = Real(0, 1)  # a share from 0 to 1 inclusive


class Resamples(click.ParamType):
    """Bootstrap resamples: 0 (off) or at least 2 — one resample has no spread, so it gives no
    interval, rank range or cluster."""

    name = "N"

    def __init__(self, off: bool = True):
        self.off = off

    def convert(self, value, param, ctx):
        n = count(0).convert(value, param, ctx)
        if n == 0 and self.off:
            return 0
        if n < 2:
            self.fail(f"{n} is not {'0 (off) or ' if self.off else ''}at least 2: one resample has no spread, so it "
                      "gives no interval, rank range or cluster", param, ctx)
        return n


class Numbers(click.ParamType):
    """A comma-separated list of numbers, each checked against ``kind`` (an IntRange or FloatRange),
    e.g. training sizes ``100,200,400`` or noise shares ``0.1,0.2``; ``empty`` allows ''."""

    def __init__(self, kind: click.ParamType, empty: bool = False, unique: bool = True):
        self.kind, self.empty, self.unique = kind, empty, unique
        self.name = f"{'N' if isinstance(kind, click.IntRange) else 'X'},…"

    def convert(self, value, param, ctx):
        if isinstance(value, list):
            return value
        parts = [p.strip() for p in str(value).split(",")]
        if parts == [""]:
            if self.empty:
                return []
            self.fail("give at least one number", param, ctx)
        if "" in parts:
            self.fail(f"{value!r} has an empty entry: separate numbers by single commas", param, ctx)
        numbers = []
        for part in parts:
            try:
                numbers.append(self.kind.convert(part, param, ctx))
            except click.BadParameter as error:
                self.fail(f"{value!r}: {error.message}", param, ctx)
        if self.unique and len(set(numbers)) < len(numbers):
            self.fail(f"{value!r} repeats a number", param, ctx)
        return numbers


class Interval(click.ParamType):
    """``LO,HI`` with LO < HI, e.g. an ability range ``-1,1``."""

    name = "LO,HI"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        try:
            lo, hi = (float(x) for x in str(value).split(","))
        except ValueError:
            self.fail(f"{value!r}: give two numbers LO,HI, e.g. -1,1", param, ctx)
        if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
            self.fail(f"{value!r}: LO must be below HI, both finite", param, ctx)
        return lo, hi


class Grid(click.ParamType):
    """A parameter grid: ``start:stop:step`` (inclusive, step > 0) or ``a,b,c``, every value in
    [lo, hi]."""

    name = "GRID"

    def __init__(self, lo: float = 0.0, hi: float = float("inf")):
        self.lo, self.hi = lo, hi

    def convert(self, value, param, ctx):
        if not isinstance(value, str):
            return value
        try:
            if ":" in value:
                start, stop, step = (float(x) for x in value.split(":"))
                if not step > 0 or stop < start:
                    self.fail(f"{value!r}: the step must be positive and stop ≥ start", param, ctx)
                grid = np.round(np.arange(start, stop + step / 2, step), 6)
            else:
                grid = np.array([float(x) for x in value.split(",")])
        except ValueError:
            self.fail(f"{value!r}: give start:stop:step or comma-separated values", param, ctx)
        if not (np.isfinite(grid).all() and (grid >= self.lo).all() and (grid <= self.hi).all()):
            self.fail(f"{value!r}: every value must lie in [{self.lo:g}, {self.hi:g}]", param, ctx)
        return grid


class ParamGrid(click.ParamType):
    """``PARAM=V1,V2,…``: a hyperparameter and the finite numbers to try (integers stay
    integers), e.g. ``l2=0.1,1,10`` or ``sigma_obs=0.5,1``."""

    name = "PARAM=V1,…"

    def convert(self, value, param, ctx):
        if not isinstance(value, str):
            return value
        name, sep, values = value.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier():
            self.fail(f"{value!r}: give PARAM=V1,V2,…, e.g. l2=0.1,1,10", param, ctx)
        numbers = []
        for part in values.split(","):
            try:
                number = int(part) if part.strip().lstrip("-").isdigit() else float(part)
            except ValueError:
                self.fail(f"{value!r}: {part!r} is not a number", param, ctx)
            if not np.isfinite(number):
                self.fail(f"{value!r}: {part!r} is not finite", param, ctx)
            numbers.append(number)
        if len(set(numbers)) < len(numbers):
            self.fail(f"{value!r} repeats a value", param, ctx)
        return name, numbers


class Names(click.ParamType):
    """A comma-separated list of names (models, strategies, metrics), at least one."""

    name = "NAME,…"

    def convert(self, value, param, ctx):
        if not isinstance(value, str):
            return value
        names = [n.strip() for n in value.split(",") if n.strip()]
        if not names:
            self.fail("give at least one name", param, ctx)
        return ",".join(names)


class Encoding(click.ParamType):
    name = "CODEC"

    def convert(self, value, param, ctx):
        import codecs
        try:
            codecs.lookup(value)
        except LookupError:
            self.fail(f"unknown encoding {value!r}: use a Python codec name such as utf-8, utf-16 or latin-1",
                      param, ctx)
        return value


# Where outputs go: what each writer supports, checked before any work is done.
TABLE_SUFFIXES = (".parquet", ".csv", ".tsv", ".jsonl")  # humeval.data.export.write
FIGURE_SUFFIXES = (".png", ".pdf", ".svg", ".jpg", ".jpeg", ".eps", ".ps", ".tif", ".tiff")  # matplotlib
REPORT_SUFFIXES = (".html", ".htm", ".md", ".json")


def check_output(path, suffixes=None, what: str = "output") -> Path:
    """Refuse an output path that cannot be written: its directory missing or not a directory, the
    path a directory, or (when ``suffixes`` are given) an ending the writer does not know.
    Raises ``click.BadParameter`` (exit 2) so it fails while the command line is parsed."""
    path = Path(path)
    if path.is_dir():
        raise click.BadParameter(f"{path} is a directory: name a file in it", param_hint=what)
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.exists():
        raise click.BadParameter(f"the directory {parent} does not exist: create it first", param_hint=what)
    if not parent.is_dir():
        raise click.BadParameter(f"{parent} is not a directory", param_hint=what)
    if not os.access(parent, os.W_OK):
        raise click.BadParameter(f"the directory {parent} is not writable", param_hint=what)
    if suffixes and path.suffix.lower() not in suffixes:
        raise click.BadParameter(f"cannot write {path.suffix or 'a file without an ending'}: name it with one of "
                                 f"{', '.join(suffixes)}", param_hint=what)
    return path


class OutputPath(click.Path):
    """A file to write: its directory exists and its ending is one of ``suffixes`` (any when None).
    The value stays a string, as click.Path gives it."""

    def __init__(self, suffixes=None):
        super().__init__(dir_okay=False)
        self.suffixes = suffixes

    def convert(self, value, param, ctx):
        value = super().convert(value, param, ctx)
        if param is not None and param.default is not None and value == param.default:
            return value  # a default (demo's report) is checked by the command, when it is used
        try:
            check_output(value, self.suffixes)
        except click.BadParameter as error:
            self.fail(error.message, param, ctx)
        return value


TABLE_OUT = OutputPath(TABLE_SUFFIXES)
FIGURE_OUT = OutputPath(FIGURE_SUFFIXES)
REPORT_OUT = OutputPath(REPORT_SUFFIXES)
TEXT_OUT = OutputPath()

# --columns keys of the readers that take a mapping: pairwise (a, b, outcome, item, judge, track,
# group) and ratings (item, system, judge, score, track, criterion); both: judge_kind.
COLUMN_KEYS = ("a", "b", "outcome", "item", "judge", "track", "group", "system", "score", "criterion", "judge_kind")
OUTCOME_CODES = {0: "tie", 1: "a wins", 2: "b wins"}


def key_values(text: str | None, what: str, value=str) -> dict | None:
    if not text:
        return None
    if isinstance(text, dict):
        return text
    result = {}
    for part in text.split(","):
        key, sep, val = part.partition("=")
        if not sep or not key.strip() or not val.strip():
            raise click.BadParameter(f"{part!r}: write {what} as KEY=VALUE,KEY=VALUE", param_hint=what)
        if key.strip() in result:
            raise click.BadParameter(f"{key.strip()!r} is given twice", param_hint=what)
        try:
            result[key.strip()] = value(val.strip())
        except ValueError:
            raise click.BadParameter(f"{part!r}: the value must be {value.__name__}", param_hint=what) from None
    return result


def columns_mapping(text) -> dict | None:
    """``--columns``: humeval's column names (``COLUMN_KEYS``) → the file's."""
    mapping = key_values(text, "--columns")
    unknown = sorted(set(mapping or ()) - set(COLUMN_KEYS))
    if unknown:
        raise click.BadParameter(f"unknown key {', '.join(unknown)}; the keys are {', '.join(COLUMN_KEYS)} "
                                 "(a, b, outcome for pairwise files; item, system, score for ratings)",
                                 param_hint="--columns")
    return mapping


def outcome_labels(text) -> dict | None:
    """``--outcomes``: the file's labels → 0 (tie), 1 (a wins), 2 (b wins)."""
    codes = key_values(text, "--outcomes", int)
    wrong = {k: v for k, v in (codes or {}).items() if v not in OUTCOME_CODES}
    if wrong:
        raise click.BadParameter(f"{', '.join(f'{k}={v}' for k, v in wrong.items())}: the codes are 0 (tie), "
                                 "1 (a wins) and 2 (b wins)", param_hint="--outcomes")
    return codes


def _parsed(function):
    return lambda ctx, param, value: function(value)


def _stash(ctx, param, value):
    """Keep a reading option in ``ctx.meta`` for ``load`` (so commands need no new parameter)."""
    ctx.meta[f"humeval.read.{param.name}"] = value
    return value


def kept_units(text) -> tuple[str, ...]:
    """``--keep``: the unit columns a streamed read keeps (judge, item, group)."""
    from humeval.data.stream import UNITS
    names = tuple(n.strip() for n in (text or "").split(",") if n.strip())
    wrong = [n for n in names if n not in UNITS]
    if wrong:
        raise click.BadParameter(f"{', '.join(wrong)}: the unit columns are {', '.join(UNITS)}", param_hint="--keep")
    return names


def read_options(f):
    for option in reversed([
        click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), help="Input format (default: guessed)."),
        click.option("--encoding", default=None, type=Encoding(), help="Text encoding of the input (default UTF-8)."),
        click.option("--columns", default=None, metavar="K=COL,…", callback=_parsed(columns_mapping),
                     help="Column mapping for pairwise/ratings files, e.g. a=model_a,b=model_b,outcome=winner "
                          f"(keys: {', '.join(COLUMN_KEYS)}); unnamed keys keep the default columns."),
        click.option("--outcomes", default=None, metavar="LABEL=N,…", callback=_parsed(outcome_labels),
                     help="Outcome labels of a pairwise file: 0 tie, 1 a wins, 2 b wins."),
        click.option("--track", "tracks", multiple=True, help="Keep only this track (repeatable)."),
        click.option("--sql", default=None, metavar="QUERY", expose_value=False, callback=_stash,
                     help="Read the rows a DuckDB query returns: FILE is a DuckDB database, or Parquet/CSV files "
                          "the query sees as the view 'battles'; streamed to counts (needs duckdb)."),
        click.option("--keep", default=None, metavar="UNIT,…", expose_value=False,
                     callback=lambda ctx, param, value: _stash(ctx, param, kept_units(value)),
                     help="When streaming a directory, glob or DuckDB query to counts, keep these unit columns "
                          "(judge, item, group); rank --by judge/segment/ranking keeps its own."),
    ]):
        f = option(f)
    return f


BOTH_BAD = ("tie", "loss", "drop")  # humeval.ranking.boards.POLICIES (not imported: the CLI starts faster)


def arena_options(f):
    """Arena columns of a pairwise file (``humeval.data.readers.arena``): --covariates,
    --style-control, --weight, --category, and --both-bad (what a "tie (bothbad)" counts as)."""
    for option in reversed([
        click.option("--covariates", default=None, metavar="COL,…",
                     help="Numeric columns fitted jointly with the abilities (style control): each COL holds a "
                          "feature difference a − b; COL_A/COL_B takes the difference of two columns; nested "
                          "fields are named with dots (conv_metadata.sum_assistant_a_tokens). A file humeval "
                          "wrote brings its covariates (columns cov:NAME); 'none' leaves them out."),
        click.option("--style-control", is_flag=True,
                     help="FastChat's style covariates from an arena file's conv_metadata: length, headers, lists, "
                          "bold, each (a − b)/(a + b + 1), fitted per RMS unit (not centred: 0 = no style difference)."),
        click.option("--weight", "weight_column", default=None, metavar="COL",
                     help="A column of battle weights (finite, ≥ 0; empty cells and 0 are skipped and counted)."),
        click.option("--category", "category_column", default=None, metavar="COL",
                     help="A label column (category, language, …) read as the comparisons' category."),
        click.option("--both-bad", type=click.Choice(BOTH_BAD), default="tie", show_default=True,
                     help="What an arena's 'tie (bothbad)' counts as: a tie, a loss for both against an anchor "
                          "system '(both bad)', or nothing (drop)."),
    ]):
        f = option(f)
    return f


def arena_reader(covariates=None, style_control=False, weight_column=None, category_column=None) -> dict:
    """The reader options (``load(reader=…)``) of the arena options that were given."""
    if covariates is not None and covariates.strip().lower() == "none":
        if style_control:
            raise click.BadParameter("'none' leaves the covariates out; --style-control adds some: pick one",
                                     param_hint="--covariates")
        return {"covariates": False, **arena_reader(None, False, weight_column, category_column)}
    options = {"covariates": covariates, "style": style_control or None, "weight": weight_column,
               "category": category_column}
    return {k: v for k, v in options.items() if v}


def common_options(f):
    f = click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors (and --json output).")(f)
    return click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")(f)


def anonymize_options(f):
    """--anonymize and --salt: judge, editor and annotator ids replaced by stable pseudonyms as soon
    as the data is read, so no output carries them."""
    f = click.option("--salt", default=None,
                     help="Secret mixed into the pseudonyms (keep it to reproduce them; needs --anonymize).")(f)
    return click.option("--anonymize", "anon", is_flag=True,
                        help="Replace judge/editor/annotator ids by stable pseudonyms in every output.")(f)


def pseudonym_salt(anon: bool, salt: str | None) -> str | None:
    """The salt to anonymise with, or None when --anonymize is off (--salt alone is an error)."""
    if salt is not None and not anon:
        raise click.UsageError("--salt does nothing without --anonymize")
    return (salt or "") if anon else None


def drop_option(f):
    return click.option("--drop-judges", "drop_file", type=click.Path(exists=True, dir_okay=False),
                        help="Leave out the judges listed in this file (one per line, e.g. from "
                             "`humeval judges --drop-list`) before anything is fitted.")(f)


def execution_options(f):
    """``--backend`` and ``--scheduler`` for a command with ``--jobs``: where its independent tasks
    (refits, trials, simulated campaigns) run. The command runs inside
    ``humeval.experiments.parallel.execution``; with a cluster backend and no ``--jobs``, the tasks
    use every worker of the cluster. A missing package or an unreachable scheduler is one line,
    exit 2."""
    from humeval.experiments.parallel import BACKENDS

    @functools.wraps(f)
    def run(*args, backend, scheduler, **kwargs):
        from humeval.experiments.parallel import ExecutionError, execution
        if backend != "local" and not explicit(click.get_current_context(), "jobs"):
            kwargs["jobs"] = 0
        try:
            with execution(backend, scheduler, workers=kwargs["jobs"]):
                return f(*args, **kwargs)
        except ExecutionError as error:
            raise UserError(str(error)) from None

    run = click.option("--scheduler", metavar="ADDRESS", default=None,
                       help="With --backend dask or ray: a running cluster's scheduler (tcp://HOST:8786 for Dask, "
                            "HOST:6379 or auto for Ray); without it a cluster of --jobs workers starts here.")(run)
    return click.option("--backend", type=click.Choice(BACKENDS), default="local", show_default=True,
                        help="Where the tasks run: local processes (--jobs of them), or a Dask or Ray cluster "
                             "(pip install 'humeval[dask]' or 'humeval[ray]'; --jobs then caps the tasks in "
                             "flight, default all workers).")(run)


def explicit(ctx: click.Context, name: str) -> bool:
    """Whether the user gave the option ``name`` (a parameter name), not its default."""
    source = ctx.get_parameter_source(name)
    return source is not None and source not in (click.core.ParameterSource.DEFAULT,
                                                 click.core.ParameterSource.DEFAULT_MAP)


def needs(ctx: click.Context, given: dict[str, str], condition: bool, reason: str, warn: bool = False):
    """Refuse options that would be silently ignored: ``given`` maps parameter names to option
    names; when ``condition`` is false and the user gave any of them, exit 2 saying ``reason``
    (or, with ``warn``, print a warning for harmless ones such as --jobs and go on)."""
    if condition:
        return
    named = [option for name, option in given.items() if explicit(ctx, name)]
    if named:
        message = f"{' and '.join(named)} {'does' if len(named) == 1 else 'do'} nothing {reason}"
        if not warn:
            raise click.UsageError(message)
        err.print(f"[yellow]warning:[/] {message}")


def load(path, fmt=None, encoding=None, columns=None, outcomes=None, tracks=(), quiet=False, salt=None,
         drop_file=None, controls=False, reader=None):
    """Read ``path`` with the reading options; pseudonymise people when ``salt`` is not None
    (--anonymize); leave out the judges listed in ``drop_file`` (--drop-judges); with ``controls``,
    keep quality-control rows (degraded references, repeats) where the format's reader can;
    ``reader`` holds further options of the format's reader (the arena columns, ``arena_reader``).
    A directory, glob, DuckDB database or --sql is streamed to weighted counts, keeping the
    unit columns --keep names and the one rank --by resamples."""
    from humeval.data.stream import is_dataset, is_duckdb_file
    ctx = click.get_current_context(silent=True)
    meta = ctx.meta if ctx is not None else {}
    streamed = is_dataset(path) or is_duckdb_file(path) or meta.get("humeval.read.sql") is not None
    options = {"controls": True} if controls and not streamed and reads_controls(path, fmt, encoding) else {}
    options.update(reader or {})
    if streamed:
        options["sql"] = meta.get("humeval.read.sql")
        by = {"judge": "judge", "segment": "item", "ranking": "group"}.get(ctx.params.get("by") if ctx else None)
        keep = set(meta.get("humeval.read.keep") or ()) | ({by} if by else set())
        if keep:
            options["keep"] = tuple(sorted(keep))
    if encoding:
        options["encoding"] = encoding
    if columns:
        options["columns"] = columns_mapping(columns)
    if outcomes:
        options["outcomes"] = outcome_labels(outcomes)
    if quiet:
        result = read(path, fmt, **options)
    else:
        with err.status(f"reading {path} …"):
            result = read(path, fmt, **options)
    result = restrict(result, tracks) if tracks else result
    if salt is not None:
        from humeval.data.anonymize import anonymize_judgments
        result = anonymize_judgments(result, salt)
    if drop_file:
        result = drop_listed(result, drop_file, quiet)
    if ctx is not None and ctx.info_name in ROW_COMMANDS:
        result = single_comparisons(result, ctx.info_name, quiet)
    return result


# commands that draw single comparisons (training subsets, held-out splits, simulated campaigns)
ROW_COMMANDS = ("compare-models", "plan", "active-study")
MAX_ROWS = 50_000_000  # weighted rows expanded to at most this many comparisons in memory (1.9 GB)


def single_comparisons(judgments, command: str, quiet: bool = False):
    """``judgments`` with weighted comparisons (streamed counts, arena weights) expanded to one
    row per comparison (``as_rows``): ``command`` splits, subsamples or replays single comparisons,
    which a row standing for k battles is not. Fractional weights, or more than ``MAX_ROWS``
    comparisons, are a ``UserError`` saying what to do."""
    c = judgments.comparisons
    if c is None or not c.weighted:
        return judgments
    from humeval.ranking.base import as_rows, integral
    total = float(c.weight.sum())
    if not integral(c.weight):
        raise UserError(f"{command} draws single comparisons, and the comparisons carry fractional weights; "
                        "it cannot split a weighted row: drop --weight, or use rank (which fits weighted counts)")
    if total > MAX_ROWS:
        raise UserError(f"{command} draws single comparisons and would need the {total:,.0f} comparisons the "
                        f"{len(c):,} streamed rows stand for in memory (more than {MAX_ROWS:,}): select a "
                        "part with --sql (e.g. a sample: SELECT * FROM battles USING SAMPLE 1%) or --track")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = as_rows(c, command)
    if not quiet:
        err.print(f"note: {command} draws single comparisons: the {len(c):,} weighted rows are expanded to "
                  f"{len(rows):,} comparisons ({rows.nbytes / 2 ** 20:,.1f} MB)")
    judgments.comparisons = rows
    return judgments


def reads_controls(path, fmt=None, encoding=None) -> bool:
    """Whether the reader of ``path``'s format (given or guessed) can keep quality-control rows."""
    import inspect

    from humeval.data.readers import READERS, guess_format
    name = fmt or guess_format(path, encoding or "utf-8")[0]
    return "controls" in inspect.signature(READERS[name]).parameters


def read_judge_list(path) -> list[str]:
    """One judge per line; blank lines and lines starting with # are skipped."""
    from humeval.data.readers._io import read_text
    return [line.strip() for line in read_text(path).splitlines() if line.strip() and not line.startswith("#")]


def drop_listed(judgments, path, quiet=False):
    """``judgments`` without the judges (or editors) listed in ``path``: says how many judgments
    went and warns of listed judges the data does not have."""
    from humeval.agreement.judges import drop_judges
    listed = read_judge_list(path)
    found, removed = set(), {}
    for name, table in judgments.tables().items():
        people = table.judges if hasattr(table, "judges") else getattr(table, "editors", ())
        found |= set(listed) & set(people)
        kept = drop_judges(table, listed)
        if len(kept) < len(table):
            removed[name] = len(table) - len(kept)
            setattr(judgments, name, kept)
    if removed and not any(len(t) for t in judgments.tables().values()):
        raise InputError(judgments.report.path, None, f"every judgment is by a judge listed in {path}",
                         "nothing is left to rank: check the list")
    missing = [j for j in listed if j not in found]
    if not quiet:
        what = ", ".join(f"{n:,} {name.replace('_', '-')}" for name, n in removed.items()) or "nothing"
        err.print(f"--drop-judges: left out {len(found)} of {len(listed)} listed judges ({what})")
    if missing:
        err.print(f"[yellow]warning:[/] --drop-judges: {len(missing)} listed judge{'s' if len(missing) > 1 else ''} "
                  f"not in {judgments.report.path}: {', '.join(missing[:10])}{' …' if len(missing) > 10 else ''}"
                  " (pseudonyms need the same --anonymize --salt as the list was made with)")
    judgments.report.notes.append(f"left out the judges listed in {path}: "
                                  + (", ".join(f"{n:,} {k.replace('_', '-')}" for k, n in removed.items()) or "none found"))
    return judgments


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
    table = RichTable(title=plain(title), title_justify="left", show_edge=False, header_style="bold")
    table.add_column(plain(index_name or df.index.name or ""))
    for column in df.columns:
        table.add_column(plain(column), justify="right")
    percent = [("rate" in str(c) or "share" in str(c)) for c in df.columns]
    for position, (key, row) in enumerate(df.iterrows()):
        table.add_row(plain(key), *(plain(cell(v, p)) for v, p in zip(row, percent)), end_section=position in breaks)
    return table


def plain(value) -> Text:
    """Text from the user's data for rich: no markup ("[/]" in a label is text), control
    characters escaped."""
    return Text(shown(value, None))


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
    out.print(f"[bold]{escape(shown(report.path))}[/]: {plural(report.rows, 'row')} read as {escape(report.format)}")
    for note in report.notes:
        out.print(f"  {escape(shown(note))}")
    for line in skip_lines(report):
        out.print(f"  {line}")


def plural(n, noun: str, nouns: str | None = None) -> str:
    """``n`` and the noun in the number it takes: "1 comparison", "2 comparisons", "1,109 rows",
    "12.5 comparisons" (a weighted count: 6 significant digits); ``nouns`` when the plural is not
    noun + "s"."""
    whole = float(n) == round(float(n))
    number = f"{int(round(float(n))):,}" if whole else f"{float(n):,.6g}"
    return f"{number} {noun if whole and abs(float(n)) == 1 else (nouns or noun + 's')}"


def skip_lines(report) -> list[str]:
    """One rich line per reason a reader skipped rows: how many, and where some were."""
    return [f"[yellow]{escape(text)}[/]" for text in report.skip_texts()]


def print_skips(report, quiet: bool = False, tracks=()):
    """The reader's skips (``skip_lines``) on stderr, unless ``quiet``: what ``rank`` and its
    boards say before their tables, so nothing is dropped silently. The reader counts over the
    whole file, so with ``--track`` each line says so."""
    if quiet or report is None:
        return
    for line in skip_lines(report):
        err.print(line.replace("[/]", " [dim](in the whole file, before --track)[/][/]") if tracks else line)


def jsonable(df: pd.DataFrame) -> list[dict]:
    """Records of ``df`` (index included) for ``--json``; floats at full precision (pandas'
    ``to_json`` keeps 10 digits: a p-value of 3.8e-41 would print as 0), NaN and inf as null."""
    frame = df.reset_index()
    records = json.loads(frame.to_json(orient="records"))
    for column in frame.columns:
        if frame[column].dtype.kind == "f":
            values = frame[column].to_numpy(np.float64)
            for record, value in zip(records, values):
                record[str(column)] = float(value) if np.isfinite(value) else None
    return records



def l2_option(f):
    """``--l2``/``--prior``: the precision of the Gaussian prior of the models that have one."""
    return click.option(
        "--l2", "--prior", "l2", type=Real(min=0), default=None, metavar="λ",
        help="Precision λ of the Gaussian prior on the abilities of bt, davidson, rao-kupper and crowd-bt "
             "(penalty λ/2·Σ(θ − mean θ)²; default 1, the N(0, 1) prior of Hopkins & May's IRT: a system that never "
             "lost, or a group never compared with the rest, gets a finite, wide score). 0 = maximum likelihood, which refuses such data.")(f)


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

