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
from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable
from rich.text import Text

from humeval.errors import InputError

# pandas and humeval.data are imported where they are used: ``humeval serve`` imports this module
# and starts without them (tests/serve/test_serve_startup.py)

# Piped output is not cut to 80 columns: tables are meant to be read in files and logs too.
out = Console(highlight=False, width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True, highlight=False)

from humeval.cli._group import DEFAULT_GC_THRESHOLDS, GC_THRESHOLDS, Group, UserError  # noqa: F401 (re-exported)


class _NoBar:
    """What ``progress_bar`` gives when no bar is drawn: a rich ``Progress(disable=True)`` still ends
    with a newline on stderr before rich 15 (a blank line in logs, pipes and merged output)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def add_task(self, *args, **kwargs):
        return 0

    def update(self, *args, **kwargs):
        pass

    def advance(self, *args, **kwargs):
        pass


def progress_bar(quiet: bool = False):
    """A transient progress bar on stderr; off with ``quiet`` and when stderr is not a terminal
    (a bar there leaves a blank line in logs and pipes)."""
    if quiet or not err.is_terminal:
        return _NoBar()
    from rich.progress import Progress
    return Progress(console=err, transient=True)


def fit_shown(model, data, label: str, quiet: bool = False, **kwargs):
    """``model.fit(data, **kwargs)`` with a transient progress bar on stderr for the models whose
    fits are long and report their steps (Gibbs sweeps, Crowd-BT's EM, the GRM's optimiser:
    ``humeval.ranking.progress``); Ctrl-C leaves no half-fitted model behind."""
    import warnings


    from humeval.ranking.base import FitWarning, MaterialisedWarning
    from humeval.ranking.progress import ReportsProgress
    with warnings.catch_warnings(record=True) as caught:  # weighted rows repeated, separation: say so, once
        warnings.simplefilter("always", FitWarning)
        if quiet or not isinstance(model, ReportsProgress):
            fitted = model.fit(data, **kwargs)
        else:
            with progress_bar() as bar:
                task = bar.add_task(label, total=None)
                fitted = model.fit(data, progress=lambda done, total: bar.update(task, completed=done, total=total),
                                   **kwargs)
    for warning in caught:
        if not issubclass(warning.category, FitWarning):
            warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
        elif not quiet or not issubclass(warning.category, MaterialisedWarning):  # what is wrong is said always
            err.print(f"[yellow]warning:[/] {escape(str(warning.message))}")
    return fitted



# -- option types: nonsense is refused while the command line is parsed, before any work --------

def count(minimum: int = 1, maximum: int | None = None) -> click.IntRange:
    """A whole number ≥ ``minimum`` and ≤ ``maximum`` (click names the option and the range when
    it is not); the ``MAX_*`` bounds below keep a typo from running out of memory or for days."""
    return click.IntRange(min=minimum, max=maximum)


# Upper bounds on sizes: far above any campaign, far below what exhausts a machine.
MAX_RESAMPLES = 100_000  # bootstrap resamples/permutations: at 100,000 the Monte Carlo error of a 95 % bound
#                          (sqrt(.025 × .975 / B) = 0.0005 in probability) is below any reported digit
MAX_JUDGMENTS = 5_000_000  # simulated comparisons (1,000,000 take ~300 MB and 5 s; simulate --design pairs)
MAX_RANKINGS = 500_000  # simulated 5-way rankings: 10 comparisons each, so the same 5,000,000 comparisons
MAX_SYSTEMS = 10_000
MAX_ITEMS = 10_000_000
MAX_JUDGES = 1_000_000
MAX_CELLS = 50_000_000  # systems × items of a simulated quality matrix (400 MB of float64)
MAX_SIMULATIONS = 10_000  # simulated campaigns per budget (plan): a share's Monte Carlo error < 0.5 points
MAX_TRIALS = 1_000  # random subsets/campaigns per size or strategy
MAX_CHAINS = 64
JUDGMENTS_COUNT = count(1, MAX_JUDGMENTS)
TRIALS = count(1, MAX_TRIALS)


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
        if n > MAX_RESAMPLES:
            self.fail(f"{n:,} is more than {MAX_RESAMPLES:,}: beyond that the Monte Carlo error of a 95 % bound "
                      "(< 0.0005) no longer changes a reported digit, while time and memory grow with N", param, ctx)
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
    Raises ``click.BadParameter`` (exit 2) so it fails while the command line is parsed. Whether
    the path is an input or an existing file is ``check_outputs``' part, once every option is read."""
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
    The value stays a string, as click.Path gives it.

    ``beside(path, params)`` lists the other files the command may write next to it (convert's
    NAME.ratings.EXT, demo's REPORT.judgments.csv); ``per_track`` says one file per track may be
    written as NAME.TRACK.EXT. With ``folder``, the value is a directory the command writes the
    files ``beside`` names into (``serve --demo``). Every command with such an option gets
    ``--force`` and ``check_outputs`` (``guard_outputs``), which refuses, before any work, to
    write over an input or an existing file; ``used(params)`` is false when the command will not
    write it (demo's default report with --no-report)."""

    def __init__(self, suffixes=None, beside=None, per_track: bool = False, folder: bool = False, used=None):
        super().__init__(dir_okay=folder, file_okay=not folder)
        self.suffixes, self.beside, self.per_track, self.folder = suffixes, beside, per_track, folder
        self.used = used

    def convert(self, value, param, ctx):
        value = super().convert(value, param, ctx)
        if self.folder or (param is not None and param.default is not None and value == param.default):
            return value  # a default (demo's report) is checked by the command, when it is used
        try:
            check_output(value, self.suffixes)
        except click.BadParameter as error:
            self.fail(error.message, param, ctx)
        return value


# -- no command writes over its input or an existing file -------------------------------------

FORCE_HELP = ("Overwrite output files that exist (a report humeval wrote is replaced without it; never an input: "
              "that is refused with or without --force).")


def _option_name(param: click.Parameter) -> str:
    return max(param.opts, key=len) if isinstance(param, click.Option) else param.human_readable_name


def _values(value) -> list[str]:
    if value is None or value is False or value is True:
        return []
    if isinstance(value, (tuple, list)):
        return [str(v) for v in value if v is not None]
    return [str(value)]


def _kind(mode: int) -> str | None:
    """What a non-regular file is, for the messages ("a FIFO"), or None for a regular file."""
    import stat
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return None


def _stat(path: str, what: str):
    """``os.stat(path)``, None when nothing is there; a symbolic-link loop or an unreachable path
    is a ``UserError`` naming the option."""
    import errno
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise UserError(f"{what}: {path} is a loop of symbolic links: point it at a real file") from None
        if error.errno in (errno.ENOTDIR, errno.ENAMETOOLONG):
            return None
        raise UserError(f"{what}: cannot read {path}: {error.strerror}") from None


def input_files(command: click.Command, params: dict,
                expand: bool = True) -> list[tuple[str, str, os.stat_result | None]]:
    """(option, path, stat) of every input a command was given: the values of its path parameters
    that are not outputs (FILE, FILES, --drop-judges, --expert, --human, …), the files a glob
    matches, and the existing files named in its text options (``metric tune --data
    NAME=HYP,REF,HUMAN``). A FIFO, a device, a socket or a symbolic-link loop is a ``UserError``
    here, before anything reads it (a FIFO with no writer would wait forever). ``expand=False``
    (a command that writes nothing) skips globbing, which only the output check needs."""
    import glob
    import re
    found = []
    for param in command.params:
        if param.name not in params or isinstance(param.type, OutputPath):
            continue
        what = _option_name(param)
        if isinstance(param.type, click.Path):
            for value in _values(params[param.name]):
                st = _stat(value, what)
                if st is None and glob.has_magic(value) and expand:
                    found += [(what, match, os.stat(match)) for match in glob.glob(value, recursive=True)
                              if os.path.isfile(match)]
                    continue
                if st is not None:
                    kind = _kind(st.st_mode)
                    if kind and kind != "a directory":
                        raise UserError(f"{what}: {value} is {kind}, not a file: humeval reads regular files "
                                        "(save the data to a file and name that)")
                    if kind is None and not os.access(value, os.R_OK):
                        raise UserError(f"{what}: {value} is not readable: check its permissions")
                found.append((what, value, st))
        elif isinstance(param.type, click.types.StringParamType):
            for value in _values(params[param.name]):
                for part in re.split(r"[,=]", value):
                    if part and os.path.isfile(part):
                        found.append((what, part, os.stat(part)))
    return found


def _same(a: str, a_stat, b: str, b_stat) -> bool:
    """Whether two paths name one file: through symbolic links and spellings (``./in.csv``, an
    absolute path) or as hard links (the same device and inode)."""
    if a_stat is not None and b_stat is not None:
        return (a_stat.st_dev, a_stat.st_ino) == (b_stat.st_dev, b_stat.st_ino)
    return os.path.realpath(a) == os.path.realpath(b)


def _inside(path: str, folder: str) -> bool:
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path != folder and path.startswith(folder.rstrip(os.sep) + os.sep)


def output_files(command: click.Command, params: dict) -> list[tuple[str, str, str]]:
    """(option, path, kind) of every file a command may write: each output option's value and
    the files its type's ``beside`` names; kind is "file", or "pattern" for the glob of per-track
    files (NAME.*.EXT), which are checked against the inputs only (the tracks are not known yet)."""
    found = []
    for param in command.params:
        if not isinstance(param.type, OutputPath) or param.name not in params:
            continue
        what, kind = _option_name(param), param.type
        if kind.used is not None and not kind.used(params):
            continue
        for value in _values(params[param.name]):
            if not kind.folder:
                found.append((what, value, "file"))
            if kind.beside is not None:
                found += [(f"{what} (beside {value})", str(side), "file") for side in kind.beside(Path(value), params)]
            if kind.per_track:
                path = Path(value)
                found.append((what, str(path.with_name(f"{path.stem}.*{path.suffix}")), "pattern"))
    return found


def humeval_report(path) -> bool:
    """Whether ``path`` is an HTML report humeval wrote (its generator mark in the first 4 KiB), or
    the judgments written beside one (REPORT.judgments.csv beside such a REPORT.html): files of
    humeval's own that a re-run (``humeval demo`` twice) may replace without --force."""
    from humeval.report.render import GENERATOR
    candidates = [Path(path)]
    if str(path).endswith(".judgments.csv"):
        candidates = [Path(str(path)[:-len(".judgments.csv")] + suffix) for suffix in (".html", ".htm")]
    for candidate in candidates:
        try:
            with open(candidate, "rb") as handle:
                if GENERATOR.encode() in handle.read(4096):
                    return True
        except OSError:
            continue
    return False


def check_outputs(command: click.Command, params: dict, force: bool = False):
    """Refuse, before any work, what would lose data: an output that is one of the inputs (the same
    file through a symbolic link, another spelling or a hard link; a side file included), inside
    an input folder's files, written twice by one command, or an existing file without ``force``;
    an existing output that is not a regular file; an output that cannot be created (tried:
    created and removed at once). Each is a ``UserError`` naming the option, the file and the fix."""
    import fnmatch
    outputs = output_files(command, params)
    inputs = input_files(command, params, expand=bool(outputs))
    seen = {}
    for what, path, kind in outputs:
        if kind == "pattern":
            for source, name, _ in inputs:
                if fnmatch.fnmatch(os.path.realpath(name), os.path.realpath(path)):
                    raise UserError(f"{what}: with several tracks this writes {path} (one file per track), and "
                                    f"{name} is an input ({source}): name the output differently")
            continue
        st = _stat(path, what)
        for source, name, name_stat in inputs:
            if _same(path, st, name, name_stat) or (name_stat is not None and _kind(name_stat.st_mode) == "a directory"
                                                    and st is not None and _inside(path, name)):
                folder = name_stat is not None and _kind(name_stat.st_mode) == "a directory"
                which = (f"a file of the input folder {name}" if folder else "the input" if path == name
                         else f"the same file as the input {name}")
                raise UserError(f"{what}: {path} is {which} ({source}): humeval never writes over an input, "
                                "with or without --force; name another output file")
        key = (st.st_dev, st.st_ino) if st is not None else os.path.realpath(path)
        if key in seen:
            raise UserError(f"{what}: {path} is also written by {seen[key]}: name different files")
        seen[key] = what
        if os.path.islink(path) and st is None:
            raise UserError(f"{what}: {path} is a symbolic link to a missing file: name another output file")
        if st is not None:
            kind_name = _kind(st.st_mode)
            if kind_name:
                raise UserError(f"{what}: {path} is {kind_name}, not a file: name a regular file to write")
            if not force and not humeval_report(path):
                raise UserError(f"{what}: {path} exists: pass --force to overwrite it, or name another file")
            if not os.access(path, os.W_OK):
                raise UserError(f"{what}: cannot write {path}: it is not writable")
            continue
        if not os.path.isdir(os.path.dirname(path) or "."):
            continue  # a side file of a folder output not yet made (serve --demo DIR creates DIR)
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL))
            os.unlink(path)
        except OSError as error:
            raise UserError(f"{what}: cannot create {path} ({error.strerror}): name a file in a writable "
                            "directory") from None


def guard_outputs(command: click.Command) -> click.Command:
    """Give ``command`` (and every command under a group) that has an output option ``--force``
    and run ``check_outputs`` after the command line is parsed, before the command's own code;
    commands without outputs still get their inputs checked (FIFOs, devices, link loops)."""
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            guard_outputs(sub)
        return command
    if getattr(command, "_outputs_guarded", False) or command.callback is None:
        return command
    writes = any(isinstance(p.type, OutputPath) for p in command.params)
    if writes and not any(p.name == "force" for p in command.params):
        command.params.append(click.Option(["--force"], is_flag=True, help=FORCE_HELP))
    callback = command.callback

    @functools.wraps(callback)
    def guarded(*args, **kwargs):
        force = kwargs.pop("force", False) if writes else False
        check_outputs(command, kwargs, force)
        return callback(*args, **kwargs)

    command.callback = guarded
    command._outputs_guarded = True
    return command


TABLE_OUT = OutputPath(TABLE_SUFFIXES)
FIGURE_OUT = OutputPath(FIGURE_SUFFIXES)
TRACK_FIGURES_OUT = OutputPath(FIGURE_SUFFIXES, per_track=True)  # NAME.TRACK.EXT per track when several
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


class Units(click.ParamType):
    """``--keep``: the unit columns a streamed read keeps (judge, item, group), as a tuple."""

    name = "UNIT,…"

    def convert(self, value, param, ctx):
        if not isinstance(value, str):
            return tuple(value)
        from humeval.data.stream import UNITS
        names = tuple(n.strip() for n in value.split(",") if n.strip())
        wrong = [n for n in names if n not in UNITS]
        if wrong:
            self.fail(f"{', '.join(wrong)}: the unit columns are {', '.join(UNITS)}", param, ctx)
        return names


def read_options(f):
    from humeval.data import FORMATS
    for option in reversed([
        click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), help="Input format (default: guessed)."),
        click.option("--encoding", default=None, type=Encoding(), help="Text encoding of the input (default UTF-8)."),
        click.option("--columns", default=None, metavar="K=COL,…", callback=_parsed(columns_mapping),
                     help="Column mapping for pairwise/ratings files, e.g. a=model_a,b=model_b,outcome=winner "
                          f"(keys: {', '.join(COLUMN_KEYS)}); unnamed keys keep the default columns."),
        click.option("--outcomes", default=None, metavar="LABEL=N,…", callback=_parsed(outcome_labels),
                     help="Outcome labels of a pairwise file: 0 tie, 1 a wins, 2 b wins."),
        click.option("--delimiter", default=None, metavar="CHAR",
                     help="Field delimiter of a pairwise or ratings text file (one character, or tab, comma, "
                          "semicolon, pipe; default: comma for .csv, tab for .tsv)."),
        click.option("--track", "tracks", multiple=True,
                     help="Keep only this track (repeatable; case-insensitive when no track matches exactly)."),
        click.option("--sql", default=None, metavar="QUERY",
                     help="Read the rows a DuckDB query returns: FILE is a DuckDB database, or Parquet/CSV files "
                          "the query sees as the view 'battles'; streamed to counts (needs duckdb)."),
        click.option("--keep", default=None, type=Units(),
                     help="When streaming a directory, glob or DuckDB query to counts, keep these unit columns "
                          "(judge, item, group); rank --resample judge/segment/ranking keeps its own."),
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


def apply_both_bad(part, policy, file, track):
    """One track's comparisons with both-bad ties counted by ``policy``, and the note saying how."""
    from humeval.ranking.boards import both_bad
    try:
        return both_bad(part, policy)
    except ValueError as error:
        raise InputError(file, None, f"{track}: {error}", "see the message") from None


def common_options(f):
    f = click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors (and --json output).")(f)
    return click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")(f)


def anonymize_options(f):
    """--anonymize and --salt: judge, editor and annotator ids replaced by stable pseudonyms as soon
    as the data is read, so no output carries them."""
    f = click.option("--salt", default=None,
                     help="Secret mixed into the pseudonyms (keep it to reproduce them; needs --anonymize; without it a random one is drawn and the pseudonyms are not reproducible).")(f)
    return click.option("--anonymize", "anon", is_flag=True,
                        help="Replace judge/editor/annotator ids by stable pseudonyms in every output.")(f)


def pseudonym_salt(anon: bool, salt: str | None) -> str | None:
    """The salt to anonymise with, or None when --anonymize is off (--salt alone is an error).

    Without a salt (unset or empty) the pseudonyms would be SHA-256 of the bare ids, which anyone
    holding the ids can recompute: a random 128-bit salt is drawn instead and the user is told
    that those pseudonyms cannot be reproduced (pass --salt to get the same ones again)."""
    if salt is not None and not anon:
        raise click.UsageError("--salt does nothing without --anonymize")
    if not anon:
        return None
    if not salt:
        import secrets
        err.print(f"note: --anonymize {'with an empty --salt' if salt == '' else 'without --salt'}: drew a random "
                  "secret salt, so the pseudonyms cannot be traced back to the ids, but they are not reproducible "
                  "(another run gives other ones); pass --salt SECRET to get the same pseudonyms across runs and files")
        return secrets.token_hex(16)
    return salt


class InputFile(click.Path):
    """An existing file to read: a symbolic-link loop is named as one (click says "does not
    exist"); FIFOs and devices are refused by ``check_outputs``' input pass."""

    def __init__(self):
        super().__init__(exists=True, dir_okay=False)

    def convert(self, value, param, ctx):
        try:
            _stat(str(value), _option_name(param) if param is not None else "FILE")
        except UserError as error:
            self.fail(error.message.split(": ", 1)[1], param, ctx)
        return super().convert(value, param, ctx)


def drop_option(f):
    return click.option("--drop-judges", "drop_file", type=InputFile(),
                        help="Leave out the judges listed in this file (one per line, e.g. from "
                             "`humeval judges --drop-list`) before anything is fitted.")(f)


def third_party_notes(loggers, modules=(), restore: bool = True):
    """Catch what third-party ``loggers`` would print on stderr while a command runs (sacrebleu:
    "That's 100 lines that end in a tokenized period …"; Dask's ``distributed``: garbage-collection
    and large-graph warnings), and the Python warnings raised from ``modules``; return the
    function that puts the loggers back and prints them, at the end, as one line of ours per
    distinct message with how often it was said. Without ``restore`` the loggers stay caught after
    that (a cluster that shuts down at exit would otherwise print its last words raw)."""
    import logging
    import warnings
    records: list = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = records.append
    saved = []
    for name in loggers:
        logger = logging.getLogger(name)
        saved.append((logger, logger.propagate, list(logger.handlers)))
        logger.handlers, logger.propagate = [handler], False
    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        origin = next((m for m in modules if f"{m}/" in filename.replace("\\", "/") or f"{m}." in filename), None)
        if origin is None:
            return shown(message, category, filename, lineno, file, line)
        records.append(logging.makeLogRecord({"name": origin, "msg": str(message), "levelno": logging.WARNING}))

    if modules:
        warnings.showwarning = show

    def finish():
        if restore:
            for logger, propagate, handlers in saved:
                logger.handlers, logger.propagate = handlers, propagate
        if modules:
            warnings.showwarning = shown
        print_third_party(records)
        records.clear()
    return finish


def print_third_party(records) -> None:
    """One line per distinct (library, first line of the message), with how often it was said;
    sacrebleu's three-line tokenized-period warning becomes one line saying what to do."""
    from humeval.report.render import number
    counts: dict[tuple[str, str], int] = {}
    for record in records:
        key = (record.name.split(".")[0], (record.getMessage().strip().splitlines() or [""])[0])
        counts[key] = counts.get(key, 0) + 1
    tokenized = any("tokenized period" in message for _, message in counts)
    for (name, message), n in counts.items():
        if tokenized and ("forgot to detokenize" in message or "If you insist" in message):
            continue  # sacrebleu's two follow-up lines of the tokenized-period warning: said in ours
        hint = (": if the outputs are tokenized, detokenize them (BLEU tokenizes again and would score lower); if "
                "they are not, ignore this" if "tokenized period" in message else "")
        times = f" ({number(n, 'count')} times)" if n > 1 else ""
        err.print(f"note: {name}: {message}{times}{hint}", markup=False, highlight=False)


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
        # Dask and Ray log and warn on stderr (garbage collection, large graphs): one line of ours each, at the end
        finish = third_party_notes(("distributed", "dask", "ray"), ("distributed", "dask", "ray"), restore=False) \
            if backend != "local" else None
        try:
            with execution(backend, scheduler, workers=kwargs["jobs"]):
                return f(*args, **kwargs)
        except ExecutionError as error:
            raise UserError(str(error)) from None
        finally:
            if finish is not None:
                finish()

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


OLD = "\0old"  # the parser's destination of an option's old spellings (``Renamed``)


class Renamed(click.Option):
    """An option with old spellings (``old``) that still parse, for one release, but appear in no
    help text and no error hint; using one prints a note naming the new spelling.

    ``click.option("--resample", "resample", cls=Renamed, old=("--by",))``"""

    def __init__(self, param_decls, old=(), **attrs):
        super().__init__(param_decls, **attrs)
        self.old = tuple(old)

    def add_to_parser(self, parser, ctx):
        super().add_to_parser(parser, ctx)
        name, opts, secondary = self.name, self.opts, self.secondary_opts
        self.name, self.opts, self.secondary_opts = name + OLD, list(self.old), []
        try:  # the old spellings under their own destination, so consume_value knows which was used
            super().add_to_parser(parser, ctx)
        finally:
            self.name, self.opts, self.secondary_opts = name, opts, secondary

    def consume_value(self, ctx, opts):
        if self.name not in opts and self.name + OLD in opts:
            new = max(self.opts, key=len)
            err.print(f"note: {' / '.join(self.old)} is now spelled {new} (the old spelling goes in the next release)",
                      highlight=False, soft_wrap=True)
            opts = {**opts, self.name: opts[self.name + OLD]}
        return super().consume_value(ctx, opts)


class Sectioned(click.Command):
    """A command whose ``--help`` lists its options under headings: ``sections`` maps a heading to
    the parameter names under it, in order; options in no section come
    last under "Other options" (tests/cli/test_vocabulary.py checks rank places every one)."""

    def __init__(self, *args, sections: dict[str, tuple[str, ...]] = (), **kwargs):
        super().__init__(*args, **kwargs)
        self.sections = dict(sections)

    def format_options(self, ctx, formatter):
        helping = self.get_help_option(ctx)
        records = {p.name: p.get_help_record(ctx) for p in self.get_params(ctx)
                   if isinstance(p, click.Option) and p is not helping}
        placed = {name for names in self.sections.values() for name in names}
        groups = [(title, [records[n] for n in names if n in records]) for title, names in self.sections.items()]
        groups.append(("Other options", [r for n, r in records.items() if n not in placed]))
        if helping is not None:  # -h/--help closes the last heading that has options
            last = next(rows for _, rows in reversed(groups) if any(rows))
            last.append(helping.get_help_record(ctx))
        for title, rows in groups:
            rows = [r for r in rows if r is not None]  # hidden options have no record
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def read(path, fmt=None, **options):
    """``humeval.data.read``, imported on first use (``load`` calls it by this name)."""
    from humeval.data import read as read_judgments
    return read_judgments(path, fmt, **options)


def load(path, fmt=None, encoding=None, columns=None, outcomes=None, tracks=(), quiet=False, salt=None,
         drop_file=None, controls=False, reader=None, *, delimiter=None, sql=None, keep=(), unit=None, single=None):
    """Read ``path``; everything that changes the reading is a parameter (nothing is read from
    click's context, so a second file a command reads gets only what it is given).

    Parameters
    ----------
    fmt, encoding, columns, outcomes, delimiter, tracks
        The reading options (--format, --encoding, --columns, --outcomes, --delimiter, --track).
    quiet
        No status line, no notes.
    salt
        Pseudonymise people with this salt (--anonymize); None leaves the ids.
    drop_file
        Leave out the judges listed in this file (--drop-judges).
    controls
        Keep quality-control rows (degraded references, repeats) where the format's reader can.
    reader
        Further options of the format's reader (the arena columns, ``arena_reader``).
    sql, keep
        A directory, glob, DuckDB database or ``sql`` query is streamed to weighted counts,
        keeping the unit columns ``keep`` names (--sql, --keep).
    unit
        The bootstrap's unit (rank --resample): a streamed read keeps its column too.
    single
        The name of a command that draws single comparisons (compare-models, plan,
        active-study): weighted rows are expanded to one row per comparison
        (``single_comparisons``).
    """
    from humeval.data.stream import is_dataset, is_duckdb_file
    streamed = is_dataset(path) or is_duckdb_file(path) or sql is not None
    options = {"controls": True} if controls and not streamed and reads_controls(path, fmt, encoding) else {}
    options.update(reader or {})
    if streamed:
        options["sql"] = sql
        kept = set(keep or ()) | ({UNIT_COLUMNS[unit]} if unit in UNIT_COLUMNS else set())
        if kept:
            options["keep"] = tuple(sorted(kept))
    if encoding:
        refuse_encoding(path)
        options["encoding"] = encoding
    if delimiter is not None:
        options["delimiter"] = delimiter
    if columns:
        options["columns"] = columns_mapping(columns)
    if outcomes:
        options["outcomes"] = outcome_labels(outcomes)
    if quiet:
        result = read(path, fmt, **options)
    else:
        with err.status(f"reading {path} …"):
            result = read(path, fmt, **options)
    if salt is not None:
        from humeval.data.anonymize import anonymize_judgments
        result = anonymize_judgments(result, salt)
    # the people of the whole file, before --track: a listed judge who judged only other tracks is named as such
    everyone = people_by_table(result) if drop_file and tracks else None
    result = restrict(result, tracks) if tracks else result
    if drop_file:
        result = drop_listed(result, drop_file, quiet, everyone, tracks)
    if single:
        result = single_comparisons(result, single, quiet)
    return result


# the bootstrap's unit (rank --resample) -> the comparisons' column a streamed read keeps for it
UNIT_COLUMNS = {"judge": "judge", "segment": "item", "ranking": "group"}


def refuse_encoding(path):
    """--encoding with a Parquet file (or a directory or glob of them) would be ignored: Parquet
    stores its text as UTF-8, so say so instead (exit 2)."""
    from humeval.data.readers._arrow import kind_of
    text = str(path)
    parquet = text.lower().rstrip("/").endswith((".parquet", ".pq")) or (
        os.path.isfile(text) and kind_of(text) == "parquet")
    if not parquet and os.path.isdir(text):
        from itertools import islice
        names = list(islice((n for _, _, files in os.walk(text) for n in files if not n.startswith((".", "_"))), 1000))
        parquet = bool(names) and all(n.lower().endswith((".parquet", ".pq")) for n in names)
    if parquet:
        raise click.BadParameter(f"{text} is Parquet, whose text is always UTF-8: --encoding applies to text files "
                                 "(CSV, TSV, JSON); drop it", param_hint="--encoding")


def capped_sizes(curve) -> str:
    """A note naming the training sizes some track could not fill (its training split is
    smaller, so its subsets took all of it: column 'train' of the curve), or ""."""
    if curve is None or not len(curve) or not {"size", "train"} <= set(curve.columns):
        return ""
    short = curve[curve["train"] < curve["size"]]
    if not len(short):
        return ""
    where = short.groupby("track")["train"].max() if "track" in short.columns else short["train"].agg(["max"])
    sizes = sorted(int(n) for n in short["size"].unique())
    return (f"note: --sizes {', '.join(f'{n:,}' for n in sizes)}: the training split holds fewer comparisons ("
            + ", ".join(f"{t}: {int(n):,}" for t, n in where.items())
            + "), so those columns are trained on all of it, not on the size they name")


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


def people_by_table(judgments) -> dict[str, set]:
    """The judges (or editors) named in each table of ``judgments``."""
    return {name: set(table.judges if hasattr(table, "judges") else getattr(table, "editors", ()))
            for name, table in judgments.tables().items()}


def drop_listed(judgments, path, quiet=False, everyone=None, tracks=()):
    """``judgments`` without the judges (or editors) listed in ``path``: says how many judgments
    went, names listed judges who judged only in tracks other than ``tracks`` (``everyone``: the
    people of the whole file before --track, from ``people_by_table``) and warns of listed judges
    the file does not have at all."""
    from humeval.agreement.judges import drop_judges
    listed = read_judge_list(path)
    found, removed = set(), {}
    for name, people in people_by_table(judgments).items():
        table = getattr(judgments, name)
        found |= set(listed) & people
        kept = drop_judges(table, listed)
        if len(kept) < len(table):
            removed[name] = len(table) - len(kept)
            setattr(judgments, name, kept)
    if removed and not any(len(t) for t in judgments.tables().values()):
        raise InputError(judgments.report.path, None, f"every judgment is by a judge listed in {path}",
                         "nothing is left to rank: check the list")
    elsewhere_all = set().union(*everyone.values()) if everyone else set()
    elsewhere = [j for j in listed if j not in found and j in elsewhere_all]
    missing = [j for j in listed if j not in found and j not in elsewhere_all]
    if not quiet:
        what = ", ".join(f"{n:,} {name.replace('_', '-')}" for name, n in removed.items()) or "nothing"
        err.print(f"--drop-judges: left out {len(found)} of {len(listed)} listed judges ({what})")
    if elsewhere and not quiet:
        err.print(f"note: --drop-judges: {len(elsewhere)} listed judge{'s' if len(elsewhere) > 1 else ''} "
                  f"judged in {judgments.report.path} but not in --track {', '.join(tracks)}: "
                  f"{', '.join(elsewhere[:10])}{' …' if len(elsewhere) > 10 else ''} (nothing of theirs to leave out here)")
    if missing:
        err.print(f"[yellow]warning:[/] --drop-judges: {len(missing)} listed judge{'s' if len(missing) > 1 else ''} "
                  f"not in {judgments.report.path}: {', '.join(missing[:10])}{' …' if len(missing) > 10 else ''}"
                  " (pseudonyms need the same --anonymize --salt as the list was made with)")
    judgments.report.notes.append(f"left out the judges listed in {path}: "
                                  + (", ".join(f"{n:,} {k.replace('_', '-')}" for k, n in removed.items()) or "none found"))
    return judgments


def restrict(judgments, tracks):
    """Keep only the named tracks in every table; a name without an exact match takes the one
    track equal to it but for case; an unknown track is an error naming the known ones."""
    parts = {name: table.by_track() for name, table in judgments.tables().items()}
    known = set().union(*parts.values())
    wanted = []
    for track in tracks:
        folded = [k for k in sorted(known) if k.casefold() == track.casefold()]
        if track not in known and len(folded) > 1:
            raise InputError(judgments.report.path, None, f"track {track} matches {', '.join(folded)} but for case",
                             "name the track exactly")
        wanted.append(track if track in known or not folded else folded[0])
    unknown = [t for t in wanted if t not in known]
    if unknown:
        raise InputError(judgments.report.path, None, f"no track named {', '.join(unknown)}",
                         f"the tracks are: {', '.join(sorted(known))}")
    for name, table in judgments.tables().items():
        kept = [parts[name][t] for t in wanted if t in parts[name]]
        setattr(judgments, name, type(table).concat(kept) if kept else None)
    return judgments


# -- rendering --------------------------------------------------------------------------------

def render(df: pd.DataFrame, title: str, index_name: str | None = None, breaks=()) -> RichTable:
    """A rich table of a DataFrame; ``breaks`` are row positions after which a rule is drawn.
    Counted (``signing.table_drawn``): the command's signature is printed under its tables."""
    from humeval.cli.signing import table_drawn
    table_drawn()
    table = RichTable(title=plain(title), title_justify="left", show_edge=False, header_style="bold")
    table.add_column(plain(index_name or df.index.name or ""))
    for column in df.columns:
        table.add_column(plain(column), justify="right")
    # the report's number format (``humeval.report.render``): each column's kind from its name and dtype
    from humeval.report.render import column_kind
    kinds = [column_kind(c, df[c]) for c in df.columns]
    for position, (key, row) in enumerate(df.iterrows()):
        table.add_row(plain(key), *(plain(cell(v, kind=k)) for v, k in zip(row, kinds)), end_section=position in breaks)
    return table


def plain(value) -> Text:
    """Text from the user's data for rich: no markup ("[/]" in a label is text), control
    characters escaped."""
    from humeval.data.readers._io import shown
    return Text(shown(value, None))


def cell(value, percent: bool = False, kind: str | None = None) -> str:
    """One table cell as the report writes it (``humeval.report.render.number``; ``kind`` one of
    its kinds, ``percent`` for "percent"); a missing number is "-"."""
    import pandas as pd

    from humeval.report.render import number
    if value is pd.NA:  # a missing count in an Int64 column
        return "-"
    if isinstance(value, (float, np.floating)):
        if np.isnan(value):
            return "-"
        if percent or kind == "percent":
            return number(value, "percent")
        return number(value, kind if kind in ("decimal", "p") else "score")
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return f"{value:,}"
    return str(value)


def print_report(report):
    from humeval.data.readers._io import shown
    out.print(f"[bold]{escape(shown(report.path))}[/]: {plural(report.rows, 'row')} read as {escape(report.described)}")
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
    """Records of ``df`` for ``--json`` at full float precision (``humeval.report.render.records``,
    which the report's JSON uses too)."""
    from humeval.report.render import records
    return records(df)



def l2_option(f):
    """``--l2``/``--prior``: the precision of the Gaussian prior of the models that have one (tag ``prior``)."""
    from humeval.ranking.registry import REGISTRY
    with_prior = [name for name, (_, t) in REGISTRY.items() if t.prior]
    return click.option(
        "--l2", "--prior", "l2", type=Real(min=0), default=None, metavar="λ",
        help=f"Precision λ of the Gaussian prior on the abilities of {', '.join(with_prior[:-1])} and {with_prior[-1]} "
             "(penalty λ/2·Σ(θ − mean θ)²; default 1, the N(0, 1) prior of Hopkins & May's IRT: a system that never "
             "lost, or a group never compared with the rest, gets a finite, wide score). 0 = maximum likelihood, which refuses such data.")(f)


def refuse_unused_prior(names, l2) -> None:
    """--l2 given while none of the chosen models (names) has a Gaussian prior (tag ``prior``): it
    would change nothing, so it is refused naming the models that have one."""
    from humeval.ranking.registry import REGISTRY, tags
    names = list(names)
    if l2 is None or any(tags(name).prior for name in names):
        return
    with_prior = [name for name, (_, t) in REGISTRY.items() if t.prior]
    raise click.BadParameter(f"{', '.join(names)} {'has' if len(names) == 1 else 'have'} no Gaussian prior: it "
                             f"applies to {', '.join(with_prior)}", param_hint="--l2")


def group_note(model) -> str:
    """A line naming the components of a fitted model's comparison graph ("" when connected)."""
    groups = model.groups()  # every Ranker records its components
    if len(groups) < 2:
        return ""
    shown = "; ".join("{" + ", ".join(g[:6]) + (", …" if len(g) > 6 else "") + "}" for g in groups[:6])
    more = f" and {len(groups) - 6} more" if len(groups) > 6 else ""
    return (f"the comparisons fall into {len(groups)} groups never compared with each other ({shown}{more}): "
            "scores and ranks compare nothing across groups (column 'component')")


def models_named(names: str, random_state, l2=None):
    from humeval.ranking import expand, make_model
    try:
        return {n: make_model(n, random_state, l2) for n in expand(names)}  # group names stand for their members
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--model") from None


def comparisons_of(judgments, path):
    if judgments.comparisons is None:
        raise InputError(path, None, "holds no pairwise comparisons or rankings",
                         "rank takes ranking or pairwise files; ratings come with their own commands")
    return judgments.comparisons


def split_judges(table, path, human_label, judge_name, quiet):
    """Rows judged by humans and by the chosen automatic judge; a file without judge_kind, without
    humans, or naming several automatic judges and no --judge, is an error."""
    kinds = np.asarray(table.judge_kinds, dtype=object)
    if not len(kinds) or (table.judge_kind < 0).all():
        raise InputError(path, None, "the file does not say who judged (no judge_kind column)",
                         "add a judge_kind column: 'human' or the automatic judge's name (or --columns judge_kind=COL)")
    human_codes = [i for i, k in enumerate(kinds) if k.strip().lower() == human_label.lower()]
    others = [k for i, k in enumerate(kinds) if i not in human_codes]
    if not human_codes:
        raise InputError(path, None, f"no judge_kind is '{human_label}' (found: {', '.join(kinds)})",
                         "mark human judgments 'human', or pass --human-label")
    if judge_name is None:
        if len(others) != 1:
            raise InputError(path, None, f"{'no automatic judge' if not others else 'several automatic judges'} "
                             f"in judge_kind ({', '.join(others) or 'only ' + human_label})",
                             "pass --judge NAME to pick one" if others else "add the automatic judge's rows")
        judge_name = others[0]
    elif judge_name not in others:
        raise InputError(path, None, f"no automatic judge named '{judge_name}' (judge_kind has: {', '.join(others)})",
                         "pass one of these to --judge")
    human_rows = np.flatnonzero(np.isin(table.judge_kind, human_codes))
    judge_rows = np.flatnonzero(table.judge_kind == kinds.tolist().index(judge_name))
    unmarked = int((table.judge_kind < 0).sum())
    if unmarked and not quiet:
        out.print(f"  {unmarked:,} rows without a judge_kind left out")
    return human_rows, judge_rows, judge_name


def policy_of(value):
    """--reweight's value checked while the command line is parsed (rank and report)."""
    if value is None:
        return None
    from humeval.ranking.reweight import parse_policy
    try:
        parse_policy(value)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--reweight") from None
    return value


def read_families(path) -> dict:
    """--families: system → family from a CSV with columns system,family (rank and report)."""
    import pandas as pd
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (ValueError, UnicodeDecodeError) as error:
        raise InputError(path, None, f"not a CSV table ({error})", "write columns system,family") from None
    missing = [c for c in ("system", "family") if c not in frame.columns]
    if missing:
        raise InputError(path, 1, f"no column {' or '.join(missing)} (columns: {', '.join(map(str, frame.columns))})",
                         "give a CSV with a header system,family: one row per system")
    return dict(zip(frame["system"].astype(str), frame["family"].astype(str)))


def sampling_options(f):
    """--reweight, --provisional, --siblings, --families: uneven sampling (rank and report)."""
    options = (
        click.option("--reweight", "reweight_policy", metavar="POLICY",
                     callback=lambda ctx, param, value: policy_of(value),
                     help="Uneven sampling: 'pairs[:FLOOR]' weighs each comparison of a pair 1/max(pair count, FLOOR) "
                          "(arena-rank's, FLOOR 50); 'propensity' (rank) reads the --weight column as each "
                          "comparison's sampling probability and weighs it 1/p. Weights are rescaled to the number of "
                          "comparisons; the bootstrap resamples comparisons with their weights."),
        click.option("--provisional", "provisional_below", type=count(1), default=None, metavar="N",
                     help="Flag systems with fewer than N comparisons as provisional (counted before any --reweight)."),
        click.option("--siblings", type=count(2), default=None, metavar="K",
                     help="Flag as provisional every system whose variant family (several versions of one model: "
                          "gpt-4-0314, gpt-4-0613) has K or more variants on the board: the best of many tried "
                          "variants scores high by luck (the 'Leaderboard Illusion'). Families from --families, else "
                          "guessed from the names (trailing dates, build numbers, v2, preview/exp/latest); a family "
                          "column shows them."),
        click.option("--families", "families_file", type=click.Path(exists=True, dir_okay=False), default=None,
                     metavar="FILE", help="With --siblings: a CSV with columns system,family naming each system's "
                                          "variant family (systems it does not name are their own family)."),
    )
    for option in reversed(options):
        f = option(f)
    return f
