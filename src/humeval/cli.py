"""The ``humeval`` command. Subcommands share option names: --format, --encoding, --columns,
--outcomes, --track for reading; --random-state for randomness; --json and --quiet for scripts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
import numpy as np
import pandas as pd
from rich.console import Console
from rich.table import Table as RichTable

from humeval.data import FORMATS, read
from humeval.data.anonymize import anonymize
from humeval.data.describe import describe
from humeval.data.export import frame, pairwise_frame, write
from humeval.errors import InputError
from humeval.simulate import simulate_competition
from humeval.simulate.competition import DESIGNS

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


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="humeval")
def cli():
    """Human judgments of MT (and any generated text) turned into conclusions you can trust.

    \b
    Example:
      humeval demo
      humeval info data_RNK.csv
    """


# -- shared options ---------------------------------------------------------------------------

def _pairs(text: str | None, what: str, value=str) -> dict | None:
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
        options["columns"] = _pairs(columns, "--columns")
    if outcomes:
        options["outcomes"] = _pairs(outcomes, "--outcomes", int)
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

def render(df: pd.DataFrame, title: str, index_name: str | None = None) -> RichTable:
    table = RichTable(title=title, title_justify="left", show_edge=False, header_style="bold")
    table.add_column(index_name or df.index.name or "")
    for column in df.columns:
        table.add_column(str(column), justify="right")
    percent = [("rate" in str(c) or "share" in str(c)) for c in df.columns]
    for key, row in df.iterrows():
        table.add_row(str(key), *(_cell(v, p) for v, p in zip(row, percent)))
    return table


def _cell(value, percent: bool = False) -> str:
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


def _jsonable(df: pd.DataFrame) -> list[dict]:
    return json.loads(df.reset_index().to_json(orient="records"))


# -- commands ---------------------------------------------------------------------------------

@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@read_options
@common_options
def info(files, fmt, encoding, columns, outcomes, tracks, quiet, as_json):
    """What a judgments file holds: per track the systems, judges, items, comparisons,
    tie rate, and what was skipped and why.

    \b
    Example:
      humeval info data_RNK.csv --track Czech-English
    """
    results = []
    for path in files:
        judgments = load(path, fmt, encoding, columns, outcomes, tracks, quiet or as_json)
        summary = describe(judgments)
        if as_json:
            results.append({"file": str(path), "format": judgments.report.format, "rows": judgments.report.rows,
                            "skipped": judgments.report.skipped, "notes": judgments.report.notes,
                            **{k: _jsonable(v) for k, v in summary.items()}})
        elif not quiet:
            print_report(judgments.report)
            for kind, df in summary.items():
                out.print(render(df, kind.replace("_", "-")))
            out.print()
    if as_json:
        click.echo(json.dumps(results if len(results) > 1 else results[0], indent=2))


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("output", type=click.Path(dir_okay=False))
@read_options
@click.option("--anonymize", "anon", is_flag=True, help="Replace judge/editor names by stable pseudonyms.")
@click.option("--salt", default="", help="Secret mixed into the pseudonyms (keep it to reproduce them).")
@common_options
def convert(file, output, fmt, encoding, columns, outcomes, tracks, anon, salt, quiet, as_json):
    """Convert a judgments file to pairwise comparisons (.parquet, .csv, .tsv, .jsonl).

    Ratings and post-edits, when the file holds them, go beside OUTPUT as
    NAME.ratings.EXT and NAME.post_edits.EXT.

    \b
    Example:
      humeval convert data_RNK.csv wmt10.parquet --anonymize --salt "$SECRET"
    """
    judgments = load(file, fmt, encoding, columns, outcomes, tracks, quiet or as_json)
    output = Path(output)
    written = {}
    for name in ("comparisons", "ratings", "post_edits"):
        table = getattr(judgments, name)
        if table is None:
            continue
        if anon:
            table = anonymize(table, salt)
        target = output if not written else output.with_name(f"{output.stem}.{name}{output.suffix}")
        written[name] = {"path": str(write(frame(table), target)), "rows": len(table)}
    if as_json:
        click.echo(json.dumps(written, indent=2))
    elif not quiet:
        for name, w in written.items():
            out.print(f"wrote {w['rows']:,} {name.replace('_', '-')} to {w['path']}"
                      + (" (judges pseudonymised)" if anon else ""))


def simulation_options(f):
    for option in reversed([
        click.option("--systems", default=12, show_default=True, help="Number of systems."),
        click.option("--items", default=500, show_default=True, help="Number of source segments."),
        click.option("--judges", default=20, show_default=True, help="Number of judges."),
        click.option("--judgments", default=2000, show_default=True,
                     help="Comparisons (pairs, baseline designs) or rankings (rankings design)."),
        click.option("--design", type=click.Choice(DESIGNS), default="rankings", show_default=True),
        click.option("--random-judges", default=0.1, show_default=True, help="Share of judges answering at random."),
        click.option("--random-state", default=0, show_default=True, help="Seed."),
    ]):
        f = option(f)
    return f


@cli.command()
@click.argument("output", type=click.Path(dir_okay=False))
@simulation_options
@click.option("--truth", type=click.Path(dir_okay=False), help="Also write the true abilities (CSV).")
@common_options
def simulate(output, systems, items, judges, judgments, design, random_judges, random_state, truth,
             quiet, as_json):
    """Simulate a competition with known truth (Hopkins & May's generative model) and write
    its comparisons.

    \b
    Example:
      humeval simulate sim.parquet --design pairs --judgments 5000 --truth truth.csv
    """
    sim = simulate_competition(n_systems=systems, n_items=items, n_judges=judges, n_judgments=judgments,
                               design=design, random_judges=random_judges, random_state=random_state)
    write(pairwise_frame(sim.comparisons), output)
    if truth:
        sim.truth.abilities.to_frame().to_csv(truth)
    if as_json:
        click.echo(json.dumps({"comparisons": len(sim.comparisons), "output": str(output),
                               "abilities": sim.truth.abilities.round(6).to_dict()}, indent=2))
    elif not quiet:
        out.print(f"wrote {len(sim.comparisons):,} comparisons to {output}"
                  + (f" and the true abilities to {truth}" if truth else ""))


@cli.command()
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@read_options
@simulation_options
@common_options
def demo(file, fmt, encoding, columns, outcomes, tracks, systems, items, judges, judgments, design,
         random_judges, random_state, quiet, as_json):
    """A tour: simulate a WMT-style campaign (5-way rankings, a few random judges) or read FILE,
    and print what humeval can tell about it.

    \b
    Example:
      humeval demo
      humeval demo ../shared/data/wmt10-rankings/wmt10/data_RNK.csv --track Czech-English
    """
    truth = None
    if file:
        data = load(file, fmt, encoding, columns, outcomes, tracks, quiet or as_json)
    else:
        from humeval.data.judgments import Judgments, ReadReport
        sim = simulate_competition(n_systems=systems, n_items=items, n_judges=judges, n_judgments=judgments,
                                   design=design, random_judges=random_judges, random_state=random_state)
        report = ReadReport("simulated campaign", f"simulation ({design}, seed {random_state})",
                            rows=judgments)
        report.notes.append(f"{len(sim.truth.random_judges)} of {judges} judges answer at random: "
                            f"{', '.join(sim.truth.random_judges) or 'none'}")
        data = Judgments(report, rankings=sim.rankings, comparisons=sim.comparisons)
        truth = sim.truth.abilities
    summary = describe(data)
    standings = {}
    if data.comparisons is not None:
        for name, part in data.comparisons.by_track().items():
            table = part.tally().sort_values("win_share", ascending=False)
            if truth is not None:
                table["true ability"] = truth.reindex(table.index).to_numpy()
            standings[name] = table
    if as_json:
        click.echo(json.dumps({"source": data.report.path, **{k: _jsonable(v) for k, v in summary.items()},
                               "standings": {k: _jsonable(v) for k, v in standings.items()}}, indent=2))
        return
    if quiet:
        return
    print_report(data.report)
    for kind, df in summary.items():
        out.print(render(df, kind.replace("_", "-")))
    for name, table in standings.items():
        out.print()
        out.print(render(table, f"{name}: systems by share of non-tied wins (Bojar 2011)"))
        if truth is not None:
            rho = table["win_share"].rank().corr(table["true ability"].rank())
            out.print(f"Spearman correlation of win share with the true abilities: {rho:.3f}")
    if data.ratings is not None and data.comparisons is None:
        for name, part in data.ratings.by_track().items():
            df = part.to_pandas().groupby("system", observed=True)["score"].agg(["count", "mean", "std"])
            out.print(render(df.sort_values("mean", ascending=not part.higher_is_better),
                             f"{name}: mean score per system"))


def main():
    cli(prog_name="humeval")


if __name__ == "__main__":
    main()
