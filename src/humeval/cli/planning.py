"""``humeval plan`` and ``humeval active-study``: how many judgments are enough."""

from __future__ import annotations

import json
from pathlib import Path

import click
import numpy as np
import pandas as pd

from humeval.cli.common import (
    JUDGMENTS_COUNT,
    MAX_SIMULATIONS,
    MAX_SYSTEMS,
    TRIALS,
    progress_bar,
    FIGURE_OUT,
    JOBS,
    SEED,
    TABLE_OUT,
    TRACK_FIGURES_OUT,
    Names,
    Numbers,
    Real,
    common_options,
    comparisons_of,
    count,
    drop_option,
    execution_options,
    jsonable,
    l2_option,
    load,
    models_named,
    needs,
    out,
    read_options,
    refuse_unused_prior,
    render,
)
from humeval.data.export import write
from humeval.errors import InputError


@click.command("plan")
@click.argument("file", type=click.Path())
@read_options
@click.option("--budget", "budgets", default="500,1000,2000,4000,8000", show_default=True,
              type=Numbers(JUDGMENTS_COUNT),
              help="Budgets to plan for: comparisons (pairs design) or rankings (rankings design).")
@click.option("--model", "-m", "model_name", default="bt", show_default=True, help="The model the campaign will be ranked with.")
@click.option("--design", type=click.Choice(["pairs", "rankings"]), default="pairs", show_default=True,
              help="Random pairs, or WMT's random 5-way rankings.")
@click.option("--simulations", default=200, show_default=True, type=count(1, MAX_SIMULATIONS),
              help="Simulated campaigns per budget.")
@click.option("--clusters/--no-clusters", default=True, show_default=True,
              help="Count WMT clusters (100 bootstrap resamples per simulated campaign; the costliest column).")
@click.option("--plot", type=TRACK_FIGURES_OUT, help="Draw each quantity against the budget.")
@click.option("--out", "out_file", type=TABLE_OUT, help="Write every simulated campaign's row.")
@click.option("--jobs", "-j", default=1, show_default=True, type=JOBS, help="Processes (0 = all cores).")
@execution_options
@click.option("--random-state", default=0, show_default=True, type=SEED)
@click.option("--judge-ratio", type=Real(0, 1e6, min_open=True), default=None,
              help="When FILE has human and automatic judges (judge_kind): battles the automatic judge will judge per "
                   "human battle (default: as in FILE).")
@click.option("--target-width", type=Real(0, 1e6, min_open=True), default=None,
              help="With a judge: the 95% interval width (mean over systems, twice ppi's ±) to reach; plan then "
                   "finds how many human judgments (battles, or rated units for a ratings FILE) reach it.")
@click.option("--target-top", type=Real(0, 1, min_open=True, max_open=True), default=None,
              help="With a judge: the P(top identified) to reach (with or instead of --target-width).")
@click.option("--agreement", type=Real(0, 1), default=None,
              help="With --target-*: the judge's agreement instead of the pilot's: the share of battles both decide "
                   "on which it sides with the humans, or for ratings the correlation of its scores with theirs.")
@click.option("--judge-file", "judge_file", type=click.Path(dir_okay=False, exists=True), default=None,
              help="With --target-*: the automatic judge's labels in a file of their own (as ppi --judge-file).")
@l2_option
@drop_option
@common_options
def plan_command(file, fmt, encoding, columns, outcomes, tracks, delimiter, sql, keep, budgets, model_name, design,
                 simulations, clusters, plot, out_file, jobs, random_state, judge_ratio, target_width, target_top,
                 agreement, judge_file, l2, drop_file, quiet, as_json):
    """Plan a campaign from a pilot: fit the model to FILE's judgments, simulate campaigns of each
    budget from what the pilot says (parametric bootstrap, pilot uncertainty included), and report
    per budget the expected number of rank clusters, the probability that the top system is
    identified, the expected correlation with the full-information ranking and the expected
    held-out perplexity. One table per track.

    \b
    Example:
      humeval plan pilot.csv --budget 1000,4000 --simulations 50 --plot plan.png
    """

    targeted = target_width is not None or target_top is not None
    needs(click.get_current_context(), {"budgets": "--budget", "model_name": "--model", "design": "--design",
                                        "clusters": "--clusters", "plot": "--plot", "out_file": "--out",
                                        "jobs": "--jobs", "l2": "--l2", "drop_file": "--drop-judges"},
          not targeted, "with --target-width/--target-top (they search the human budget by PPI++ campaigns)")
    if targeted:
        return _target_plan(file, (fmt, encoding, columns, outcomes, tracks, quiet or as_json), delimiter, sql, keep,
                            judge_file, judge_ratio, agreement, target_width, target_top, simulations, random_state,
                            as_json, quiet)
    if agreement is not None or judge_file is not None:
        raise click.UsageError("--agreement and --judge-file go with --target-width or --target-top")
    from humeval.experiments.planning import plan
    from humeval.report import plot_plan
    budget_list = budgets
    if len(models_named(model_name, random_state)) != 1:  # an unknown model fails before the pilot is read
        raise click.BadParameter(f"{model_name!r}: plan for one model", param_hint="--model")
    refuse_unused_prior([model_name], l2)
    comparisons = comparisons_of(load(file, fmt, encoding, columns, outcomes, tracks, quiet or as_json, None,
                                      drop_file, delimiter=delimiter, sql=sql, keep=keep, single="plan"),
                                 file)
    with_judge = _judge_plan(comparisons, file, budget_list, judge_ratio, quiet or as_json)
    if with_judge is not None:
        comparisons = with_judge[0]  # the plan's simulations start from the human judgments alone
    results, frames = {}, []
    with progress_bar(quiet or as_json) as bar:
        for track, part in comparisons.by_track().items():
            task = bar.add_task(f"{track}: simulating campaigns", total=len(budget_list) * simulations)
            try:
                result = plan(part, model_name, budget_list, design, simulations,
                              cluster_resamples=100 if clusters else 0, random_state=random_state, jobs=jobs,
                              progress=lambda done, total, t=task: bar.update(t, completed=done), l2=l2)
            except ValueError as error:
                raise click.BadParameter(str(error), param_hint="--model") from None
            results[track] = result.table
            frames.append(result.trials.assign(track=track))
    if out_file:
        write(pd.concat(frames, ignore_index=True), out_file)
    if plot:
        for track, table in results.items():
            path = plot if len(results) == 1 else Path(plot).with_stem(f"{Path(plot).stem}.{track}")
            plot_plan(table, path, title=f"{track}: what each budget buys ({model_name}, {design})")
    if as_json:
        extra = {"with_judge": jsonable(with_judge[1].reset_index())} if with_judge is not None else {}
        click.echo(json.dumps({**{t: jsonable(df) for t, df in results.items()}, **extra}, indent=2))
    elif not quiet:
        for track, table in results.items():
            out.print(render(table, f"{track}: planned from a pilot of {len(comparisons.by_track()[track]):,} comparisons "
                             f"({simulations} simulated campaigns per budget, {model_name}, {design})", "budget"))
        if with_judge is not None:
            out.print(render(with_judge[1], with_judge[2], "budget"))
            for line in with_judge[3]:
                out.print(f"  {line}")


def _judge_plan(comparisons, file, budgets, judge_ratio, quiet):
    """When the pilot says who judged (human and one automatic judge): (human comparisons, the
    table of human battles each budget needs with the judge, its title, notes), else None."""
    from humeval.cli.common import split_judges
    from humeval.experiments.ppi_plan import judge_worth
    kinds = [str(k).strip().lower() for k in comparisons.judge_kinds]
    if "human" not in kinds or len(kinds) < 2 or (comparisons.judge_kind < 0).all():
        if judge_ratio is not None:
            raise click.BadParameter("needs a pilot with human and automatic judges (a judge_kind column)",
                                     param_hint="--judge-ratio")
        return None
    human_rows, judge_rows, name = split_judges(comparisons, file, "human", None, quiet)
    human, judge = comparisons.take(human_rows), comparisons.take(judge_rows)
    table = judge_worth(human, judge, None if judge_ratio is None else [judge_ratio], path=file)
    ratio = judge_ratio if judge_ratio is not None else table.attrs["pilot_ratio"]
    row = table.loc[round(ratio, 2) if judge_ratio is None else ratio]
    worth, n = float(row["worth"]), table.attrs["n"]
    needed = np.ceil(np.asarray(budgets, float) / worth).astype(int)
    frame = pd.DataFrame({"human battles with the judge": needed, "judge battles": np.ceil(needed * ratio).astype(int),
                          "human battles saved": np.asarray(budgets, int) - needed},
                         index=pd.Index(list(budgets), name="budget"))
    title = (f"With {name} judging {ratio:g} battles per human battle: human battles each budget still needs "
             "(the same precision of the abilities)")
    notes = [f"{n:,.0f} human battles with {name} are worth {worth * n:,.0f} human battles alone (×{worth:.2f}, "
             f"PPI++ λ = {row['lambda']:.2f}; Bradley–Terry abilities, from the pilot's human and judge battles).",
             "the plan above simulates the human battles only."]
    others = [f"{r:g} → ×{w:.2f}" for r, w in table["worth"].items() if r != round(ratio, 2)]
    if others:
        notes.append("worth of a human battle at other judge battles per human battle: " + ", ".join(others))
    return human, frame, title, notes


def _target_plan(file, options, delimiter, sql, keep, judge_file, judge_ratio, agreement, target_width, target_top,
                 simulations, random_state, as_json, quiet):
    """``plan --target-width/--target-top``: the fewest human judgments that, with the judge, reach
    the targets in simulated campaigns (``experiments.ppi_plan.human_budget``)."""
    from humeval.cli.common import split_judges
    from humeval.cli.judged import ratings_series as _series, with_judge_file
    from humeval.data.tables import Ratings
    from humeval.experiments import ppi_plan as PP
    fmt, encoding, columns, outcomes, tracks, quiet_read = options
    judgments = load(file, fmt, encoding, columns, outcomes, tracks, quiet_read, delimiter=delimiter, sql=sql,
                     keep=tuple(sorted(set(keep or ()) | {"item"})))
    table = judgments.ratings if judgments.ratings is not None and judgments.comparisons is None else \
        judgments.comparisons
    if table is None:
        raise InputError(file, None, "holds neither battles nor ratings", "plan takes a pairwise or ratings file")
    if len({table.tracks[t] for t in np.unique(table.track) if t >= 0}) > 1:
        raise click.BadParameter(f"{file} has several tracks; plan one at a time", param_hint="--track")
    name = None
    if judge_file is not None:
        table, name = with_judge_file(table, file, judge_file, None, "human", options, delimiter, sql, keep)
    kinds = [str(k).strip().lower() for k in table.judge_kinds]
    ratings = isinstance(table, Ratings)
    if "human" in kinds and len(kinds) > 1 and not (table.judge_kind < 0).all():
        human_rows, judge_rows, name = split_judges(table, file, "human", name, quiet_read)
        human, judge = table.take(human_rows), table.take(judge_rows)
    elif agreement is None or judge_ratio is None:
        raise click.UsageError("without the judge's labels (a judge_kind column or --judge-file), give its "
                               "--agreement and --judge-ratio")
    else:
        human, judge, name = table, None, "the judge"
    try:
        if ratings:
            pilot = PP.ratings_pilot(_series(human), None if judge is None else _series(judge), file, agreement,
                                     judge_ratio)
        else:
            pilot = PP.battles_pilot(human, judge, file, agreement, judge_ratio)
        result = PP.human_budget(pilot, target_width, target_top, simulations, random_state)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--agreement") from None
    answer, unit = result.attrs["answer"], "rated units" if ratings else "battles"
    if as_json:
        click.echo(json.dumps({"answer": answer, "agreement": pilot.agreement, "judge_per_human": pilot.ratio,
                               "kind": pilot.kind, "calibration": result.attrs["calibration"],
                               "simulated": jsonable(result.reset_index())}, indent=2))
        return
    if quiet:
        return
    measure = "correlation with the humans" if ratings else "agreement on battles both decide"
    out.print(render(result, f"{file}: simulated campaigns with {name} ({measure} {pilot.agreement:.2f}, "
                     f"{pilot.ratio:g} judge {unit} per human one; {simulations} per budget)", "human"))
    goal = " and ".join(([f"a mean 95% interval width of {target_width:g}"] if target_width is not None else []) +
                        ([f"P(top identified) {target_top:g}"] if target_top is not None else []))
    if answer is None:
        out.print(f"  {goal} is not reached with up to 10,000,000 human {unit}.")
    else:
        row = result.loc[answer]
        out.print(f"  {goal}: {answer:,} human {unit} with {name} on {int(row['judge']):,} more (median width "
                  f"{row['width']:.3g} ± {row['width_se']:.2g} Monte-Carlo se; the humans alone at the same number: "
                  f"{row['human-only width']:.3g}).")
    out.print("  width: PPI++ (" + ("Bradley–Terry abilities" if not ratings else "system means") +
              "), mean over systems of the 95% interval's width as humeval ppi computes it; median "
              f"over the simulated campaigns, × {result.attrs['calibration']:.2f}: the pilot's own width over the "
              "simulated one at the pilot's size.")
    if not np.isfinite(result[["width", "human-only width"]].to_numpy()).all():
        out.print("  inf: in at least half of that budget's simulated campaigns there is no interval to measure: a "
                  "system no human battle reaches, or a fit without a finite maximum (a system the humans never "
                  "saw lose or win); such a PPI++ fit counts as not identifying the top.")


def check_active_options(ctx, file, design, budget, batch, checkpoint):
    """Refuse options the chosen study would ignore, and sizes that do not fit the budget."""
    if design == "baseline":
        if file:
            raise click.UsageError("--design baseline simulates its campaigns: it reads no FILE")
        needs(ctx, {"checkpoint": "--checkpoint", "clusters": "--clusters",
                    "spread": "--spread", "ties": "--ties"}, False, "with --design baseline (random against "
              "most-informative segments, measured at eight points)")
        needs(ctx, {"jobs": "--jobs", "backend": "--backend", "scheduler": "--scheduler"}, False,
              "with --design baseline (its campaigns run here, one after the other)", warn=True)
    needs(ctx, {"systems": "--systems", "spread": "--spread", "ties": "--ties"}, not file,
          "with FILE: they shape the simulated systems, which FILE's judgments replace")
    for name, value in (("--batch", batch), ("--checkpoint", checkpoint)):
        if value is not None and value > budget:
            raise click.BadParameter(f"{value:,} is more than the budget ({budget:,})", param_hint=name)


@click.command("active-study")
@click.argument("file", required=False, type=click.Path())
@read_options
@click.option("--strategies", default="uniform,rankings,trueskill,bt-order,bt-outcome", show_default=True, type=Names(),
              help="Strategies to compare; the first is the baseline of the savings. With --design baseline: "
                   "random, information, 'uncertainty (online)', 'uncertainty (refit)', 'random (online)' "
                   "(default the first three).")
@click.option("--budget", default=4000, show_default=True, type=JUDGMENTS_COUNT,
              help="Judgments (pairwise comparisons) per campaign.")
@click.option("--batch", default=100, show_default=True, type=count(1), help="Judgments asked for at once.")
@click.option("--checkpoint", default=None, type=count(1), help="Measure every this many judgments (default budget/16).")
@click.option("--trials", default=20, show_default=True, type=TRIALS, help="Campaigns per strategy.")
@click.option("--clusters", is_flag=True, help="Also count WMT clusters at each checkpoint (100 resamples).")
@click.option("--systems", default=20, show_default=True, type=count(2, MAX_SYSTEMS),
              help="Simulated systems (without FILE).")
@click.option("--spread", default=1.0, show_default=True, type=Real(0, 100, min_open=True),
              help="SD of the simulated abilities (log-odds).")
@click.option("--ties", default=0.15, show_default=True, type=Real(0, 1, max_open=True),
              help="Simulated tie rate.")
@click.option("--design", type=click.Choice(["pairs", "baseline"]), default="pairs", show_default=True,
              help="baseline: the GRM design against a fixed baseline (simulated): random judgments, most-informative "
                   "segments, or the least certain system first, refitted or updated online.")
@click.option("--plot", type=FIGURE_OUT, help="Draw the curves.")
@click.option("--out", "out_file", type=TABLE_OUT, help="Write every checkpoint of every campaign.")
@click.option("--jobs", "-j", default=1, show_default=True, type=JOBS,
              help="Processes for the campaigns (0 = all cores; --design pairs).")
@execution_options
@click.option("--random-state", default=0, show_default=True, type=SEED)
@l2_option
@common_options
def active_study_command(file, fmt, encoding, columns, outcomes, tracks, delimiter, sql, keep, strategies, budget,
                         batch, checkpoint, trials, clusters, systems, spread, ties, design, plot, out_file, jobs,
                         random_state, l2, quiet, as_json):
    """How many judgments each elicitation strategy needs to reach the correlation with the
    full-information ranking (and, with --clusters, the number of clusters) that uniformly random
    pairs reach with the whole budget. Without FILE: simulated abilities; with FILE: its real
    judgments, resampled pair by pair (a track at a time: use --track), the reference being the
    Bradley-Terry ranking of all of them.

    \b
    Example:
      humeval active-study --systems 20 --budget 2000 --trials 3 --plot active.png
      humeval active-study data_RNK.csv --track Czech-English --budget 2000 --trials 3
    """

    from humeval.active import RealJudgments, SimulatedPairs, active_study, baseline_study, make_strategy, savings
    from humeval.report import plot_active_study
    check_active_options(click.get_current_context(), file, design, budget, batch, checkpoint)
    checkpoint = checkpoint or max(batch, budget // 16)
    with progress_bar(quiet or as_json) as bar:
        task = bar.add_task("campaigns", total=None)
        report = lambda done, total: bar.update(task, completed=done, total=total)  # noqa: E731
        if design == "baseline":
            from humeval.simulate import simulate_grm
            _, truth = simulate_grm(n_systems=min(systems, 12), random_state=random_state)
            given = click.get_current_context().get_parameter_source("strategies").name != "DEFAULT"
            names = ([n.strip() for n in strategies.split(",") if n.strip()] if given
                     else ["random", "information", "uncertainty (online)"])
            try:
                curves = baseline_study(truth, budget, max(batch, budget // 8), max(1, min(trials, 5)),
                                        random_state=random_state, progress=report, strategies=names)
            except ValueError as error:
                raise click.BadParameter(str(error), param_hint="--strategies") from None
            source = "simulated GRM design against a fixed baseline"
        else:
            try:
                chosen = {make_strategy(n.strip()).name: make_strategy(n.strip()) for n in strategies.split(",") if n.strip()}
            except ValueError as error:
                raise click.BadParameter(str(error), param_hint="--strategies") from None
            names = list(chosen)
            if file:
                from humeval.ranking import make_model
                comparisons = comparisons_of(load(file, fmt, encoding, columns, outcomes, tracks, quiet or as_json,
                                                  delimiter=delimiter, sql=sql, keep=keep, single="active-study"),
                                             file)
                parts = comparisons.by_track()
                if len(parts) > 1:
                    raise click.BadParameter(f"{file} has {len(parts)} tracks; choose one with --track", param_hint="--track")
                (track, part), = parts.items()
                if budget > len(part):
                    raise click.BadParameter(f"the track has {len(part):,} judgments; ask for fewer", param_hint="--budget")
                environment = RealJudgments(part)
                reference = make_model("bt", 0, l2).fit(part).scores_.reindex(part.systems).to_numpy(dtype=float)
                source = f"{track}: {len(part):,} real judgments resampled"
            else:
                rng = np.random.default_rng(random_state)
                environment = SimulatedPairs(rng.normal(0, spread, systems), ties)
                reference = None
                source = f"{systems} simulated systems, abilities N(0, {spread}²), ties {ties:.0%}"
            curves = active_study(environment, chosen, budget, batch, checkpoint, trials, reference, clusters,
                                  random_state, progress=report, jobs=jobs, **({} if l2 is None else {"l2": l2}))
    if out_file:
        write(curves, out_file)
    if plot:
        plot_active_study(curves, plot, title=source)
    mean = curves.groupby(["judgments", "strategy"])["spearman"].mean().unstack("strategy")[names]
    table = savings(curves, names[0])
    extra = {"clusters": savings(curves, names[0], "clusters")} if "clusters" in curves else {}
    if as_json:
        click.echo(json.dumps({"source": source, "savings": jsonable(table), "curves": jsonable(mean),
                               **{k: jsonable(v) for k, v in extra.items()}}, indent=2))
        return
    if quiet:
        return
    # eight checkpoints spread over the budget, and every checkpoint the savings tables cite
    cited = {int(v) for frame in (table, *extra.values()) for v in frame.iloc[:, 1].dropna()}
    rows = set(np.unique(np.linspace(0, len(mean) - 1, min(len(mean), 8)).astype(int))) | \
        {i for i, n in enumerate(mean.index) if int(n) in cited}
    shown = mean.iloc[sorted(rows)]
    out.print(render(shown, f"{source}: mean Spearman ρ with the reference ranking ({trials} campaigns each; the "
                            "checkpoints the tables below cite included)", "judgments"))
    out.print(render(_as_shares(table), f"Judgments needed to reach {names[0]}'s final correlation ({names[0]}: the "
                                        "baseline, its whole budget)", "strategy"))
    for name, frame in extra.items():
        out.print(render(_as_shares(frame), f"Judgments needed to reach {names[0]}'s final number of {name}",
                         "strategy"))


def _as_shares(frame):
    """The savings table with the saving written as the report writes shares (``number``: "6.2%")."""
    from humeval.report.render import number
    return frame.assign(saving=frame["saving"].map(lambda v: number(v, "percent")))
