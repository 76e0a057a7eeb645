"""humeval for notebooks: the command-line verbs as functions returning result objects.

>>> import humeval
>>> result = humeval.rank("data_RNK.csv", track="Czech-English", model="bt", bootstrap=1000)  # doctest: +SKIP
>>> result.table            # a DataFrame, the table ``humeval rank`` prints    # doctest: +SKIP
>>> result.signature        # how it was made: re-run with ``humeval rank --signature``  # doctest: +SKIP

Each function runs the command of the same name in this process (the same reading, checks and
computation as the CLI: a notebook and a shell give the same numbers) and takes its options as
keyword arguments named as the long options (``bootstrap=1000`` for ``--bootstrap 1000``,
``random_state=0``, ``track=["A", "B"]`` for a repeatable option, ``clusters=True`` for a flag).
``data`` is a file path, a pandas DataFrame (in one of the layouts humeval reads: written to a
temporary CSV first, whose bytes the signature hashes) or a humeval table (``Comparisons``,
``Ratings``, ``Rankings``, ``PostEdits``).
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

import click
import pandas as pd

__all__ = ["Result", "rank", "compare_models", "agreement", "report"]  # humeval.read is humeval.data.read


@dataclass
class Result:
    """What a humeval verb made.

    Attributes
    ----------
    table : pandas.DataFrame
        The result table (what the command prints, at full precision).
    options : dict
        The options it was made with (every option of the command, defaults included).
    signature : str
        The reproducibility signature (``humeval.signature``): the same line ``humeval rank``
        prints under its table; ``humeval rank --signature SIG FILE`` re-runs it.
    command : str
        The ``humeval`` command that made it.
    path : pathlib.Path or None
        The file written, for ``report``.
    """

    table: pd.DataFrame
    options: dict
    signature: str
    command: str
    path: Path | None = None

    def to_json(self) -> str:
        """The table (records, floats at full precision), options and signature as JSON."""
        from humeval.cli.common import jsonable
        options = {k: (str(v) if isinstance(v, Path) else v) for k, v in self.options.items()}
        return json.dumps({"command": self.command, "signature": self.signature, "options": options,
                           "table": jsonable(self.table) if self.table is not None else None,
                           **({"path": str(self.path)} if self.path else {})}, indent=2, default=str)

    def _repr_html_(self) -> str:
        import html
        body = self.table.to_html(float_format=lambda v: f"{v:.4g}") if self.table is not None else ""
        if self.path is not None:
            body += f"<p>written: <code>{html.escape(str(self.path))}</code></p>"
        return f"{body}<p><small>signature: <code>{html.escape(self.signature)}</code></small></p>"

    def __repr__(self) -> str:
        shown = self.table.to_string(max_rows=30) if self.table is not None else str(self.path)
        return f"{shown}\nsignature: {self.signature}"

    def plot(self, ax=None, column: str | None = None):
        """Draw the table's scores (with their interval when it has ``lower``/``upper``) as a
        horizontal chart, best at the top; returns the matplotlib Axes."""
        import matplotlib.pyplot as plt
        table = self.table
        numeric = [c for c in table.columns if table[c].dtype.kind in "fi" and c not in ("lower", "upper")]
        if not numeric:
            raise ValueError("this result has no numeric column to draw")
        column = column or ("score" if "score" in table else numeric[0])
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 0.35 * len(table) + 1))
        labels = [" / ".join(map(str, i)) if isinstance(i, tuple) else str(i) for i in table.index]
        y = range(len(table))[::-1]
        values = table[column].to_numpy(float)
        if {"lower", "upper"} <= set(table.columns):
            lower, upper = table["lower"].to_numpy(float), table["upper"].to_numpy(float)
            ax.errorbar(values, list(y), xerr=[values - lower, upper - values], fmt="o", capsize=3)
        else:
            ax.barh(list(y), values)
        ax.set_yticks(list(y), labels)
        ax.set_xlabel(column)
        ax.set_title(self.signature.split("|data:")[0] + f" {self.command}", fontsize=8)
        return ax


# -- running a command in this process ----------------------------------------------------------

def _input(data, directory: Path) -> str:
    """A path the commands can read: ``data`` itself, or a DataFrame/table written as CSV."""
    if isinstance(data, (str, Path)):
        return str(data)
    if isinstance(data, pd.DataFrame):
        frame = data
    else:
        from humeval.data.export import frame as table_frame
        from humeval.data.tables import Table
        if not isinstance(data, Table):
            raise TypeError(f"data: a path, a DataFrame or a humeval table, not {type(data).__name__}")
        frame = table_frame(data)
    path = directory / "data.csv"
    frame.to_csv(path, index=False)
    return str(path)


def _args(command: click.Command, options: dict) -> list[str]:
    """``--name value`` arguments from keyword options (``model=`` or ``model_names=`` both work)."""
    by_key = {}
    for param in command.params:
        if isinstance(param, click.Option):
            by_key[param.name] = param
            for opt in [*param.opts, *getattr(param, "old", ())]:  # an old spelling (cli.common.Renamed) too
                if opt.startswith("--"):
                    by_key[opt[2:].replace("-", "_")] = param
    args = []
    for key, value in options.items():
        if key not in by_key:
            known = ", ".join(sorted(k for k in by_key if not k.startswith("_")))
            raise TypeError(f"humeval {command.name} has no option {key!r}; it has {known}")
        param = by_key[key]
        flag = max((o for o in param.opts if o.startswith("--")), key=len)
        if param.is_flag:
            if value:
                args.append(flag)
            continue
        if value is None:
            continue
        for item in (value if isinstance(value, (list, tuple)) and param.multiple else [value]):
            if isinstance(item, (list, tuple)):
                item = ",".join(map(str, item))
            args += [flag, str(item)]
    return args


def _run(name: str, inputs: list[str], options: dict, extra: list[str] = ()) -> tuple[dict, dict, str]:
    """Run ``humeval NAME`` here; its parameters, its context's meta and what it printed."""
    from humeval.cli import cli
    command = cli.get_command(None, name)
    args = [*inputs, *_args(command, options), *extra]
    printed = io.StringIO()
    try:
        with command.make_context(name, args) as ctx, contextlib.redirect_stdout(printed):
            command.invoke(ctx)
    except click.ClickException as error:  # a usage error: the message the CLI prints, as a ValueError
        raise ValueError(f"humeval {name}: {error.format_message()}") from None
    return ctx.params, ctx.meta, printed.getvalue()


def _signature(name: str, params: dict, meta: dict, path: str) -> str:
    """The signature the command made (``humeval.cli.signing.sign`` signs every command)."""
    from humeval.cli.signing import of
    return of(meta)


def _plain(params: dict) -> dict:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in params.items()
            if type(v).__name__ != "Sentinel"}


# -- the verbs ------------------------------------------------------------------------------------

def rank(data, **options) -> Result:
    """Rank the systems, as ``humeval rank`` (every option of it as a keyword).

    Returns a :class:`Result` whose ``table`` is the ranking (one row per system, a ``track``
    column; with ``bootstrap=N``: score, interval, rank range and cluster).

    Examples
    --------
    >>> humeval.rank("data_RNK.csv", track="Czech-English", model="bt", bootstrap=200)  # doctest: +SKIP
    """
    with tempfile.TemporaryDirectory() as directory:
        path = _input(data, Path(directory))
        out = Path(directory) / "rank.parquet"
        params, meta, _ = _run("rank", [path], options, ["--out", str(out), "--quiet"])
        table = pd.read_parquet(out)
    signature = table.pop("signature").iloc[0] if "signature" in table else _signature("rank", params, meta, path)
    index = [c for c in ("system",) if c in table]
    table = table.set_index(index) if index else table
    return Result(table, _plain({k: v for k, v in params.items() if k not in ("out_file", "quiet")}), signature,
                  "rank")


def compare_models(data, **options) -> Result:
    """Which model predicts held-out judgments best, as ``humeval compare-models``: the table
    holds every trial's held-out perplexity (model, size, trial, perplexity, track);
    ``table.groupby(["track", "model", "size"]).perplexity.mean()`` gives the learning curves
    the command prints."""
    with tempfile.TemporaryDirectory() as directory:
        path = _input(data, Path(directory))
        out = Path(directory) / "trials.parquet"
        params, meta, _ = _run("compare-models", [path], options, ["--out", str(out), "--quiet"])
        table = pd.read_parquet(out).drop(columns="signature")  # the command's signature: the result's
    return Result(table, _plain({k: v for k, v in params.items() if k not in ("out_file", "quiet")}),
                  _signature("compare-models", params, meta, path), "compare-models")


def agreement(data, **options) -> Result:
    """Annotator agreement per track, as ``humeval agreement``: kappa, P(A), P(E) and pairs."""
    with tempfile.TemporaryDirectory() as directory:
        path = _input(data, Path(directory))
        params, meta, printed = _run("agreement", [path], options, ["--json"])
    (records,) = json.loads(printed).values()
    params = {**params, "file": path}
    return Result(pd.DataFrame(records).drop(columns="signature"), _plain({k: v for k, v in params.items() if k != "as_json"}),
                  _signature("agreement", params, meta, path), "agreement")


def report(data, out, **options) -> Result:
    """Write the campaign report, as ``humeval report`` (``out``: .html, .md or .json); the
    result's ``path`` is the file, its ``table`` the report's ranking when it wrote JSON, else
    None. In Jupyter an HTML report shows inline."""
    with tempfile.TemporaryDirectory() as directory:
        path = _input(data, Path(directory))
        params, meta, _ = _run("report", [path], options, ["--out", str(out), "--quiet"])
        signature = _signature("report", {**params, "file": path}, meta, path)
    return _Report(None, _plain({k: v for k, v in params.items() if k != "quiet"}), signature, "report", Path(out))


class _Report(Result):
    def _repr_html_(self) -> str:
        import html
        if self.path.suffix.lower() in (".html", ".htm"):
            page = html.escape(self.path.read_text(encoding="utf-8"), quote=True)
            return (f'<iframe srcdoc="{page}" style="width:100%;height:600px;border:0"></iframe>'
                    f"<p><small>signature: <code>{html.escape(self.signature)}</code></small></p>")
        return super()._repr_html_()

    def plot(self, ax=None, column=None):
        raise ValueError("a report draws its own figures: open result.path")
