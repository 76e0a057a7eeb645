"""Reading, converting and simulating judgments, and the demo."""

from __future__ import annotations

import json
from pathlib import Path

import click

from humeval.cli.common import (
    JUDGMENTS_COUNT,
    MAX_CELLS,
    MAX_ITEMS,
    MAX_JUDGES,
    MAX_JUDGMENTS,
    MAX_RANKINGS,
    MAX_SYSTEMS,
    JOBS,
    PROPORTION,
    REPORT_SUFFIXES,
    SEED,
    TABLE_SUFFIXES,
    OutputPath,
    anonymize_options,
    apply_both_bad,
    arena_options,
    arena_reader,
    check_output,
    common_options,
    count,
    err,
    execution_options,
    explicit,
    jsonable,
    l2_option,
    load,
    needs,
    out,
    print_report,
    pseudonym_salt,
    read_options,
    render,
    skip_lines,
)
from humeval.data.describe import describe
from humeval.data.export import frame, pairwise_frame, write
from humeval.simulate import simulate_competition
from humeval.simulate.battles import ARENA_MODELS, ARENA_SEED, BATTLE_SUFFIXES, write_arena_battles
from humeval.simulate.competition import DESIGNS


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path())
@read_options
@common_options
def info(files, fmt, encoding, columns, outcomes, tracks, delimiter, sql, keep, quiet, as_json):
    """What a judgments file holds: per track the systems, judges, items, comparisons,
    tie rate, and what was skipped and why.

    \b
    Example:
      humeval info data_RNK.csv --track Czech-English
    """
    results = []
    for path in files:
        judgments = load(path, fmt, encoding, columns, outcomes, tracks, quiet or as_json,
                         delimiter=delimiter, sql=sql, keep=keep)
        summary = describe(judgments)
        if as_json:
            results.append({"file": str(path), "format": judgments.report.format, "detail": judgments.report.detail, "rows": judgments.report.rows,
                            "skipped": judgments.report.skipped, "notes": judgments.report.notes,
                            **{k: jsonable(v) for k, v in summary.items()}})
        elif not quiet:
            print_report(judgments.report)
            for kind, df in summary.items():
                out.print(render(df, kind.replace("_", "-")))
            out.print()
    if as_json:
        click.echo(json.dumps(results if len(results) > 1 else results[0], indent=2))


def side_table(output, name: str) -> Path:
    """Where convert writes the ratings or post-edits of a file beside OUTPUT: NAME.ratings.EXT."""
    output = Path(output)
    return output.with_name(f"{output.stem}.{name}{output.suffix}")


def judgments_beside(report_file) -> Path:
    """Where demo writes the simulated judgments beside its report: REPORT.judgments.csv."""
    return Path(report_file).with_suffix(".judgments.csv")


@click.command()
@click.argument("file", type=click.Path())
@click.argument("output", type=OutputPath(TABLE_SUFFIXES, beside=lambda path, params: [
    side_table(path, "ratings"), side_table(path, "post_edits")]))
@read_options
@arena_options
@anonymize_options
@common_options
def convert(file, output, fmt, encoding, columns, outcomes, tracks, delimiter, sql, keep, covariates, style_control,
            weight_column, category_column, both_bad, anon, salt, quiet, as_json):
    """Convert a judgments file to pairwise comparisons (.parquet, .csv, .tsv, .jsonl).

    Ratings and post-edits, when the file holds them, go beside OUTPUT as
    NAME.ratings.EXT and NAME.post_edits.EXT. Arena columns (--weight, --category,
    --covariates, --style-control) are read as `rank` reads them and written as humeval's
    columns weight, category, bothbad and cov:NAME, so reading OUTPUT back needs no options;
    --both-bad loss or drop writes the battles as that policy counts them.

    \b
    Example:
      humeval convert data_RNK.csv wmt10.parquet --anonymize --salt "$SECRET"
      humeval convert battles.json styled.parquet --style-control --category language
    """
    salt = pseudonym_salt(anon, salt)
    reader = arena_reader(covariates, style_control, weight_column, category_column)
    judgments = load(file, fmt, encoding, columns, outcomes, tracks, quiet or as_json, salt=salt, reader=reader,
                     delimiter=delimiter, sql=sql, keep=keep)
    notes = []
    if both_bad != "tie":
        if judgments.comparisons is None:
            raise click.BadParameter("applies to pairwise comparisons; this file holds none", param_hint="--both-bad")
        judgments.comparisons, note = apply_both_bad(judgments.comparisons, both_bad, file, "all tracks")
        notes.append(note)
    output = Path(output)
    written = {}
    for name in ("comparisons", "ratings", "post_edits"):
        table = getattr(judgments, name)
        if table is None:
            continue
        target = output if not written else side_table(output, name)
        written[name] = {"path": str(write(frame(table), target)), "rows": len(table)}
    if judgments.comparisons is not None and judgments.comparisons.covariate_names:
        written["comparisons"]["covariates"] = list(judgments.comparisons.covariate_names)
    if as_json:
        click.echo(json.dumps(written, indent=2))
    elif not quiet:
        for line in skip_lines(judgments.report) if reader else ():
            err.print(line)
        for name, w in written.items():
            covariates_written = w.get("covariates")
            out.print(f"wrote {w['rows']:,} {name.replace('_', '-')} to {w['path']}"
                      + (" (judges pseudonymised)" if anon else "")
                      + (f" with covariates {', '.join(covariates_written)} (columns cov:NAME)"
                         if covariates_written else ""))
        for note in notes:
            if note:
                out.print(f"  {note}")


def check_simulation(design: str, systems: int, k: int = 5, items: int = 0, judgments: int = 0):
    """Refuse a simulated campaign the design cannot show, or one too big for memory: more than
    ``MAX_RANKINGS`` rankings (each is k(k−1)/2 comparisons) or ``MAX_CELLS`` systems × items."""
    if design == "rankings" and systems < k:
        raise click.BadParameter(f"{systems} systems: the rankings design shows {k} at a time; give at least {k} "
                                 "or --design pairs", param_hint="--systems")
    if design == "rankings" and judgments > MAX_RANKINGS:
        raise click.BadParameter(f"{judgments:,} rankings of {k} systems are {judgments * k * (k - 1) // 2:,} "
                                 f"comparisons: give at most {MAX_RANKINGS:,} (or --design pairs, up to "
                                 f"{MAX_JUDGMENTS:,})", param_hint="--judgments")
    if systems * items > MAX_CELLS:
        raise click.BadParameter(f"{systems:,} systems × {items:,} items is more than {MAX_CELLS:,} simulated "
                                 "qualities (one per system and item): give fewer", param_hint="--items")


def simulation_options(designs=DESIGNS, seed_help: str | None = None):
    """The options that shape a simulated campaign; ``designs`` are the --design choices and
    ``seed_help`` replaces --random-state's help (and its shown default)."""
    def decorate(f):
        for option in reversed([
            click.option("--systems", default=12, show_default=True, type=count(2, MAX_SYSTEMS),
                         help="Number of systems (at least 5 for the rankings design)."),
            click.option("--items", default=500, show_default=True, type=count(1, MAX_ITEMS),
                         help="Number of source segments."),
            click.option("--judges", default=20, show_default=True, type=count(1, MAX_JUDGES),
                         help="Number of judges."),
            click.option("--judgments", default=2000, show_default=True, type=JUDGMENTS_COUNT,
                         help="Comparisons (pairs, baseline designs) or rankings (rankings design)."),
            click.option("--design", type=click.Choice(designs), default="rankings", show_default=True),
            click.option("--random-judges", default=0.1, show_default=True, type=PROPORTION,
                         help="Share of judges answering at random."),
            click.option("--random-state", default=0, show_default=seed_help is None, type=SEED,
                         help=seed_help or "Seed."),
        ]):
            f = option(f)
        return f
    return decorate


@click.command()
@click.argument("output", type=OutputPath(tuple(dict.fromkeys(TABLE_SUFFIXES + BATTLE_SUFFIXES))))
@simulation_options(DESIGNS + ("battles",), "Seed.  [default: 0; 18 with --design battles: the arena tutorial's battles.json]")
@click.option("--battles", "n_battles", default=4000, show_default=True, type=JUDGMENTS_COUNT,
              help="Battles to write (--design battles).")
@click.option("--truth", type=OutputPath((".csv",)), help="Also write the true abilities (CSV).")
@common_options
def simulate(output, systems, items, judges, judgments, design, random_judges, random_state, n_battles, truth,
             quiet, as_json):
    """Simulate a competition with known truth (Hopkins & May's generative model) and write
    its comparisons. With --design battles, write arena battles in FastChat's clean_battle
    layout instead (seven models; winner with "tie (bothbad)"; language, category,
    category_tag and the conv_metadata style counts; judges favour longer answers): the file
    the arena tutorial's examples read (docs/tutorials/arena.md), as .json (a JSON array, as FastChat
    writes it), .jsonl, .parquet, .csv or .tsv.

    \b
    Example:
      humeval simulate sim.parquet --design pairs --judgments 5000 --truth truth.csv
      humeval simulate battles.json --design battles
    """
    ctx = click.get_current_context()
    battles = design == "battles"
    needs(ctx, {"n_battles": "--battles"}, battles, "without --design battles (--judgments counts the others)")
    needs(ctx, {"systems": "--systems", "items": "--items", "judges": "--judges", "judgments": "--judgments",
                "random_judges": "--random-judges", "truth": "--truth"}, not battles,
          "with --design battles: its models, users and prompts are fixed (--battles counts the battles)")
    check_output(output, BATTLE_SUFFIXES if battles else TABLE_SUFFIXES, "OUTPUT")
    if battles:
        seed = random_state if explicit(ctx, "random_state") else ARENA_SEED
        write_arena_battles(output, n_battles, seed)
        if as_json:
            click.echo(json.dumps({"battles": n_battles, "output": str(output), "random_state": seed,
                                   "models": list(ARENA_MODELS)}, indent=2))
        elif not quiet:
            out.print(f"wrote {n_battles:,} arena battles (FastChat's clean_battle layout, seed {seed}) to {output}")
        return
    check_simulation(design, systems, items=items, judgments=judgments)
    sim = simulate_competition(n_systems=systems, n_items=items, n_judges=judges, n_judgments=judgments,
                               design=design, random_judges=random_judges, random_state=random_state)
    write(pairwise_frame(sim.comparisons), output)
    if truth:
        sim.truth.abilities.to_frame().to_csv(truth)
    if as_json:
        click.echo(json.dumps({"comparisons": len(sim.comparisons), "output": str(output),
                               "abilities": sim.truth.abilities.round(6).to_dict(),
                               "random_judges": list(sim.truth.random_judges)}, indent=2))
    elif not quiet:
        out.print(f"wrote {len(sim.comparisons):,} comparisons to {output}"
                  + (f" and the true abilities to {truth}" if truth else ""))


@click.command()
@click.argument("file", required=False, type=click.Path())
@read_options
@simulation_options()
@click.option("--report", "report_file", default="humeval-report.html", show_default=True,
              type=OutputPath(REPORT_SUFFIXES, used=lambda params: not params.get("no_report"),
                              beside=lambda path, params: [] if params.get("file") else [judgments_beside(path)]),
              help="Where to write the campaign report (.html, .md or .json).")
@click.option("--no-report", is_flag=True, help="Print the tables only.")
@click.option("--jobs", "-j", default=1, show_default=True, type=JOBS,
              help="Processes for the report's refits (0 = all cores).")
@execution_options
@l2_option
@common_options
def demo(file, fmt, encoding, columns, outcomes, tracks, delimiter, sql, keep, systems, items, judges, judgments,
         design, random_judges, random_state, report_file, no_report, jobs, l2, quiet, as_json):
    """A tour: simulate a WMT-style campaign (5-way rankings, a few judges answering at random) or
    read FILE, print the headline tables (the data, a ranking beside the truth, the judges
    humeval flags) and write the full campaign report (see `humeval report`). The simulated
    judgments are written beside the report (REPORT.judgments.csv), so the commands the report
    names run on them.

    \b
    Example:
      humeval demo
      humeval demo data_RNK.csv --track Czech-English
    """
    ctx = click.get_current_context()
    needs(ctx, {"systems": "--systems", "items": "--items", "judges": "--judges", "judgments": "--judgments",
                "design": "--design", "random_judges": "--random-judges"}, not file,
          "with FILE: they shape the simulated campaign, which FILE replaces")
    needs(ctx, {"fmt": "--format", "encoding": "--encoding", "columns": "--columns", "outcomes": "--outcomes",
                "tracks": "--track"}, bool(file), "without FILE: they say how to read it")
    needs(ctx, {"report_file": "--report", "jobs": "--jobs", "backend": "--backend", "scheduler": "--scheduler"},
          not no_report, "with --no-report")
    if not file:
        check_simulation(design, systems, items=items, judgments=judgments)
    if not no_report:
        check_output(report_file, REPORT_SUFFIXES, "--report")
    truth, source = None, file
    if file:
        data = load(file, fmt, encoding, columns, outcomes, tracks, quiet or as_json,
                    delimiter=delimiter, sql=sql, keep=keep)
    else:
        from humeval.data.judgments import Judgments, ReadReport
        sim = simulate_competition(n_systems=systems, n_items=items, n_judges=judges, n_judgments=judgments,
                                   design=design, random_judges=random_judges, random_state=random_state)
        note = (f"simulated ({design}, seed {random_state}); {len(sim.truth.random_judges)} of {judges} judges answer "
                f"at random: {', '.join(sim.truth.random_judges) or 'none'}")
        if no_report:
            data = Judgments(ReadReport("simulated campaign", "simulation", rows=judgments,
                                        detail=f"{design}, seed {random_state}"), rankings=sim.rankings, comparisons=sim.comparisons)
        else:  # written beside the report and read back, so the report's commands print its numbers
            source = str(judgments_beside(report_file))
            write(pairwise_frame(sim.comparisons), source)
            data = load(source, quiet=True)
        data.report.notes.append(note)
        truth = sim.truth.abilities
    summary = describe(data)
    flagged_judges, quality = [], None
    table = data.comparisons if data.comparisons is not None else data.ratings
    if table is not None and table.judges:
        from humeval.agreement import flagged, judge_quality
        quality = judge_quality(table)
        flagged_judges = flagged(quality)
    model = None
    written = None
    built = None
    if not no_report and (data.comparisons is not None or data.ratings is not None):
        from humeval.cli.campaign import read_arguments, write_report
        from humeval.report.campaign import DEFAULT_MODELS
        fmt_out = {".md": "md", ".json": "json"}.get(Path(report_file).suffix.lower(), "html")
        built = write_report([(source, data)], report_file, fmt_out, DEFAULT_MODELS, 1000, 2, jobs, random_state,
                             quiet=quiet or as_json, l2=l2, tracks=tracks,
                             read_args=read_arguments(fmt, encoding, columns, outcomes, delimiter))
        model = built.ranking_model
        written = str(report_file)
    # the terminal ranking uses the report's model (the best by held-out perplexity with a quick
    # bootstrap, or its fallback when none is singled out), so the two agree, with the report's
    # bootstrap rank ranges and clusters; without a report, IRT-Gaussian (Hopkins & May 2013)
    from humeval.ranking import make_model
    model = model or "irt-gaussian"
    standings = {}
    if data.comparisons is not None:
        for name, part in data.comparisons.by_track().items():
            fitted = make_model(model, random_state, l2).fit(part)
            table = part.tally()[["comparisons", "win_share"]]
            table[model] = fitted.scores_
            if getattr(fitted, "scores_std_", None) is not None:
                table["± sd"] = fitted.scores_std_
            view = built.rankings.get(name) if built is not None else None
            if view is not None:  # systems whose rank ranges overlap are not ordered by the data
                table["rank"] = view["rank"].reindex(table.index)
                table["cluster"] = view["cluster"].reindex(table.index)
            table = table.sort_values(model, ascending=False)
            if truth is not None:
                table["true ability"] = truth.reindex(table.index).to_numpy()
            standings[name] = table
    if as_json:
        click.echo(json.dumps({"source": data.report.path, **{k: jsonable(v) for k, v in summary.items()},
                               "standings": {k: jsonable(v) for k, v in standings.items()}, "model": model,
                               "flagged_judges": flagged_judges, "report": written,
                               "judgments_file": source if written and not file else None}, indent=2))
        return
    if quiet:
        return
    print_report(data.report)
    for kind, df in summary.items():
        out.print(render(df, kind.replace("_", "-")))
    for name, table in standings.items():
        out.print()
        if not written:
            why = "Hopkins & May 2013; without --no-report, the report picks the model by held-out perplexity"
        elif built.ranking_recommended:
            why = "the report's model: the best by held-out perplexity with a quick bootstrap"
        else:
            why = ("the report's ranking model, not a recommendation: held-out perplexity does not single out one "
                   "model, see the report")
        from humeval.report.campaign import CONFIDENCE
        ranks = (f", rank = {CONFIDENCE:.0%} bootstrap rank range, cluster = systems whose ranges overlap (WMT)"
                 if "rank" in table else "")
        out.print(render(table, f"{name}: systems by {model} ({why}) beside the share of non-tied wins (Bojar 2011)"
                         + ranks))
        if truth is not None:
            for column in ("win_share", model):
                rho = table[column].rank().corr(table["true ability"].rank())
                out.print(f"Spearman correlation of {column} with the true abilities: {rho:.3f}")
    if data.ratings is not None and data.comparisons is None:
        for name, part in data.ratings.by_track().items():
            df = part.to_pandas().groupby("system", observed=True)["score"].agg(["count", "mean", "std"])
            out.print(render(df.sort_values("mean", ascending=not part.higher_is_better),
                             f"{name}: mean score per system"))
    if quality is not None:
        out.print()
        out.print(render(quality.head(8), "Least reliable judges (agreement with the others; see `humeval judges`)",
                         "judge"))
        line = f"flagged: {', '.join(map(str, flagged_judges)) or 'none'}"
        if truth is not None:
            line += f"; the simulation's random judges: {', '.join(sim.truth.random_judges) or 'none'}"
        out.print(line)
    if written:
        out.print(f"\nThe full report (which model to trust, rankings with intervals and clusters, heatmaps, "
                  f"agreement): {Path(written).resolve()}")
        if not file:
            out.print(f"The simulated judgments it was computed from: {Path(source).resolve()} (the report's "
                      "commands read it)")
    elif standings:
        out.print("\nNext: `humeval compare-models FILE` tells which model predicts held-out judgments best.")
