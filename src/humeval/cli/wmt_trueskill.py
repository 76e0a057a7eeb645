"""``rank --protocol wmt15-trueskill|wmt16-trueskill``: WMT15's or WMT16's TrueSkill ranking as the organisers' scripts
computed it (``humeval.experiments.wmt_trueskill``), printed as their cluster tables."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pandas as pd

from humeval.cli.common import InputError, jsonable, out, plural, print_skips, progress_bar, render
from humeval.data.export import write


def rank_wmt_trueskill(file, judgments, year: int, n_runs: int, confidence: float, random_state, jobs: int,
                       out_file, quiet: bool, as_json: bool, tracks=()):
    """Every track of ``judgments`` through ``wmt_trueskill``; the table per track: score (the mean
    μ over the runs, what the rows are sorted by), std, rank range, cluster; rules between clusters."""
    from humeval.experiments.wmt_trueskill import wmt_trueskill
    ctx = click.get_current_context()
    given = ctx.get_parameter_source("model_names") != click.core.ParameterSource.DEFAULT
    if given and ctx.params.get("model_names") != "trueskill":
        raise click.BadParameter("--protocol wmt15-trueskill|wmt16-trueskill runs TrueSkill (WMT's settings): drop --model or give trueskill",
                                 param_hint="--model")
    for option, name in (("plot", "--plot"), ("heatmap", "--heatmap"), ("board_by", "--board-by")):
        if ctx.params.get(option):
            raise click.BadParameter("not drawn with the TrueSkill protocols (its table is the scripts' output)",
                                     param_hint=name)
    for option, name in (("order", "--order"), ("resample", "--resample"), ("intervals", "--intervals")):
        if ctx.get_parameter_source(option) not in (None, click.core.ParameterSource.DEFAULT):
            raise click.BadParameter(f"--protocol wmt{year % 100}-trueskill fixes it (active order; what each run replays is the "
                                     "year's rule)", param_hint=name)
    if judgments.comparisons is None:
        raise InputError(file, None, "holds no pairwise comparisons or rankings",
                         "the TrueSkill protocols rank WMT's ranking files (the WMT15/16 per-pair CSVs)")
    if judgments.rankings is not None:  # WMT15–16 counted systems that shared one output as tied
        judgments.expand(keep_shared_outputs=True)
    print_skips(judgments.report, quiet or as_json, tracks)
    results, notes = {}, {}
    for track, part in judgments.comparisons.by_track().items():
        try:
            with progress_bar(quiet or as_json) as bar:
                task = bar.add_task(f"{track}: {n_runs} WMT{year % 100} TrueSkill runs", total=n_runs)
                result = wmt_trueskill(part, year=year, n=n_runs, confidence=confidence, random_state=random_state,
                                       jobs=jobs, progress=lambda done, total: bar.update(task, completed=done))
        except ValueError as error:
            raise InputError(file, None, f"{track}: {error}", "see the message") from None
        results[track] = result.table()
        notes[track] = [result.note(), f"{plural(len(part), 'comparison')}; systems that shared one displayed "
                        "output count as tied (as WMT15–16 expanded them)"]
    if out_file:
        write(pd.concat([t.reset_index().assign(track=name) for name, t in results.items()], ignore_index=True),
              out_file)
    if as_json:
        click.echo(json.dumps({t: jsonable(df) for t, df in results.items()}, indent=2))
        return
    if quiet:
        return
    for track, table in results.items():
        shown = pd.DataFrame({"score": table["score"], "std": table["std"],
                              "rank": [f"{lo:.0f}" if lo == hi else f"{lo:.0f}–{hi:.0f}"
                                       for lo, hi in zip(table["rank_lo"], table["rank_hi"])],
                              "cluster": table["cluster"]})
        c = table["cluster"].to_numpy()
        breaks = tuple(i for i in range(len(c) - 1) if c[i] != c[i + 1])
        out.print(render(shown, f"{track}: WMT{year % 100} TrueSkill ({Path(file).name})", breaks=breaks))
        for note in notes[track]:
            out.print(f"  {note}")
        out.print()
