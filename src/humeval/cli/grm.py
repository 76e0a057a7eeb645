"""``humeval grm``: the graded response model against a fixed baseline."""

from __future__ import annotations

import json

import click
import numpy as np
import pandas as pd

from humeval.cli.common import (
    JUDGMENTS_COUNT,
    MAX_RESAMPLES,
    TRIALS,
    progress_bar,
    FIGURE_OUT,
    SEED,
    TABLE_OUT,
    InputError,
    Interval,
    Names,
    Numbers,
    Real,
    common_options,
    comparisons_of,
    count,
    fit_shown,
    jsonable,
    load,
    out,
    read_options,
    render,
)
from humeval.data.export import write


@click.group()
def grm():
    """Graded-response IRT against a fixed baseline: judge sensitivity, segment difficulty,
    item information (fit), and the paper's experiments (study)."""


@grm.command("fit")
@click.argument("file", type=click.Path())
@read_options
@click.option("--baseline", help="The fixed baseline system (default: the one whose win share is nearest the mean).")
@click.option("--segments", "n_segments", default=10, show_default=True, type=count(1),
              help="Most informative segments to list.")
@click.option("--theta-range", default="-1,1", show_default=True, type=Interval(),
              help="Ability range for segment information.")
@click.option("--icc", "icc_plot", type=FIGURE_OUT, help="Draw the ICC of the most informative segment.")
@click.option("--information", "info_plot", type=FIGURE_OUT, help="Draw the item information of the listed segments.")
@click.option("--out", "out_file", type=TABLE_OUT, help="Write the system scores (.csv/.jsonl/.parquet).")
@common_options
def grm_fit(file, fmt, encoding, columns, outcomes, tracks, delimiter, sql, keep, baseline, n_segments, theta_range,
            icc_plot, info_plot, out_file, quiet, as_json):
    """Fit the GRM to the comparisons with BASELINE: abilities with standard errors, judges from
    least to most sensitive, and the segments that discriminate best in --theta-range.

    \b
    Example:
      humeval grm fit sample-fr-en-train.csv --baseline newstest2013.fr-en.DCU__primary.2828 --icc icc.png
    """
    from humeval.experiments.grm_study import propose_baseline
    from humeval.ranking import GRM
    from humeval.report import plot_icc, plot_item_information
    comparisons = comparisons_of(load(file, fmt, encoding, columns, outcomes, tracks, quiet or as_json,
                                      delimiter=delimiter, sql=sql, keep=keep), file)
    lo, hi = theta_range
    if (icc_plot or info_plot) and len(comparisons.by_track()) > 1:
        raise click.UsageError(f"--icc and --information draw one track and {file} has "
                               f"{len(comparisons.by_track())}: pick one with --track")
    results = {}
    for track, part in comparisons.by_track().items():
        chosen = baseline or propose_baseline(part)
        try:
            model = fit_shown(GRM(baseline=chosen), part, f"{track}: fitting the GRM", quiet or as_json)
        except ValueError as error:
            raise InputError(file, None, f"{track}: {error}", "pick --baseline among the systems") from None
        top = model.most_informative_segments((lo, hi), n=n_segments)
        results[track] = (model, top)
        if icc_plot:
            b1, b2 = top.iloc[0][["b1", "b2"]]
            plot_icc(b1, b2, 1.0, icc_plot, title=f"{track}: segment {top.index[0]}")
        if info_plot:
            plot_item_information(top.head(5), info_plot,
                                  title=f"{track}: most informative segments, θ in [{lo:g}, {hi:g}]")
    if out_file:  # every track in one file
        write(pd.concat([m.ranking().reset_index().assign(track=t) for t, (m, _) in results.items()],
                        ignore_index=True), out_file)
    if as_json:
        click.echo(json.dumps({t: {"baseline": m.baseline, "dropped": m.n_dropped_, "systems": jsonable(m.ranking()),
                                   "judges": jsonable(m.judge_sensitivity_.sort_values().to_frame()),
                                   "segments": jsonable(top)} for t, (m, top) in results.items()}, indent=2))
        return
    if quiet:
        return
    for track, (model, top) in results.items():
        out.print(render(model.ranking(), f"{track}: GRM against baseline {model.baseline} "
                                          f"({model.n_dropped_:,} comparisons without it left out)"))
        sens = model.judge_sensitivity_.sort_values()
        out.print("  judges, least sensitive first: " + ", ".join(f"{j} {a:.2f}" for j, a in sens.head(8).items())
                  + (" …" if len(sens) > 8 else ""))
        out.print(render(top, f"most informative segments for θ in [{lo:g}, {hi:g}]", "segment"))
        out.print()


@grm.command("study")
@click.argument("file", type=click.Path())
@read_options
@click.option("--baselines", default="auto", show_default=True, type=Names(),
              help="Baselines for the GRM: names separated by commas, 'all', or 'auto' (the proposed one, the "
                   "strongest and the weakest).")
@click.option("--budgets", default="800,1600,3200,6400", show_default=True, type=Numbers(JUDGMENTS_COUNT),
              help="Training budgets (comparisons).")
@click.option("--trials", default=3, show_default=True, type=TRIALS)
@click.option("--noise", default="0.1,0.2,0.3,0.4,0.5", show_default=True,
              type=Numbers(Real(0, 1, max_open=True), empty=True),
              help="Shares of random judges, each in [0, 1) ('' to skip).")
@click.option("--gold-resamples", default=1000, show_default=True, type=count(1, MAX_RESAMPLES),
              help="Bootstrap TrueSkill runs for the gold scores.")
@click.option("--baseline-by-metric", "metric_file", type=click.Path(exists=True, dir_okay=False),
              help="System-level automatic-metric scores (a WMT .sys.score file, or a CSV with columns system, "
                   "score): the paper's Fig. 4 — each baseline's metric score beside the GRM's agreement, and with "
                   "--baselines auto the system nearest the metric mean is a baseline too.")
@click.option("--two-stage/--no-two-stage", default=True, show_default=True,
              help="Also fit Baba & Kashima's two-stage model with each baseline (the paper's TSt).")
@click.option("--plot", type=FIGURE_OUT, help="Draw the budget study.")
@click.option("--random-state", default=0, show_default=True, type=SEED)
@common_options
def grm_study(file, fmt, encoding, columns, outcomes, tracks, delimiter, sql, keep, baselines, budgets, trials, noise,
              gold_resamples, metric_file, two_stage, plot, random_state, quiet, as_json):
    """The GRM paper's experiments: correlation and nDCG with bootstrap-TrueSkill gold scores by
    budget (GRM per baseline, Expected Wins, IRT-Gaussian, active TrueSkill), baseline balance, and
    robustness to random judges.

    \b
    Example:
      humeval grm study sample-fr-en-train.csv --budgets 400,800 --trials 1 --noise 0.2 --gold-resamples 200 --plot grm-study.png
    """

    from humeval.experiments.grm_study import (baseline_balance, baseline_by_metric, budget_study, gold_scores,
                                               noise_study, propose_baseline)
    from humeval.report import plot_budget_study
    comparisons = comparisons_of(load(file, fmt, encoding, columns, outcomes, tracks, quiet or as_json,
                                      delimiter=delimiter, sql=sql, keep=keep), file)
    parts = comparisons.by_track()
    if len(parts) > 1:
        raise InputError(file, None, f"{len(parts)} tracks: the study runs on one", "pick one with --track")
    (track, c), = parts.items()
    budget_list = budgets
    tally = c.tally().win_share.sort_values()
    metric = _metric_scores(metric_file, c.systems) if metric_file else None
    auto = [propose_baseline(c)] + ([propose_baseline(metric_scores=metric)] if metric is not None else [])
    chosen = {"all": list(c.systems), "auto": list(dict.fromkeys(auto + [tally.index[-1], tally.index[0]]))}.get(
        baselines, baselines.split(","))
    unknown = [b for b in chosen if b not in c.systems]
    if unknown:
        raise click.BadParameter(f"unknown systems {unknown}", param_hint="--baselines")
    with progress_bar(quiet or as_json) as bar:
        task = bar.add_task("gold scores (bootstrap TrueSkill)", total=gold_resamples)
        gold = gold_scores(c, n=gold_resamples, random_state=random_state,
                           progress=lambda done, total: bar.update(task, completed=done, total=total))
        bar.update(task, description="budget study", completed=0, total=None)
        study = budget_study(c, gold, chosen, budget_list, trials, random_state,
                             progress=lambda done, total: bar.update(task, completed=done, total=total),
                             two_stage=two_stage)
        shares = noise
        noisy = None
        if shares:
            bar.update(task, description="noisy judges", completed=0)
            noisy = noise_study(c, gold, [propose_baseline(c)], shares, max(budget_list), trials, random_state,
                                progress=lambda done, total: bar.update(task, completed=done, total=total))
    table = study.groupby(["model", "baseline", "budget"])[["pearson", "ndcg"]].mean().unstack("budget")
    balance = baseline_balance(c, study).dropna(subset=["pearson"]) if len(chosen) else None
    by_metric = baseline_by_metric(metric, study) if metric is not None else None
    if plot:
        plot_budget_study(study, plot, title=f"{track}: agreement with bootstrap-TrueSkill gold scores")
    if as_json:
        click.echo(json.dumps({"budget_study": json.loads(study.to_json(orient="records")),
                               "baseline_balance": jsonable(balance) if balance is not None else [],
                               "noise": json.loads(noisy.to_json(orient="split")) if noisy is not None else None,
                               "baseline_by_metric": jsonable(by_metric) if by_metric is not None else None},
                              indent=2))
        return
    if quiet:
        return
    flat = table.copy()
    flat.columns = [f"{metric} {budget}" for metric, budget in flat.columns]
    flat.index = [f"{m} ({b.split('.')[2] if b.count('.') >= 2 else b})" if b else m for m, b in flat.index]
    out.print(render(flat, f"{track}: Pearson r and nDCG with the gold, by budget (mean of {trials} trials)", "model"))
    if balance is not None:
        out.print(render(balance, "GRM by baseline: the baseline's win/tie/loss shares and the GRM's agreement at "
                                  f"{max(budget_list)} comparisons", "baseline"))
    if by_metric is not None:
        out.print(render(by_metric, f"GRM by the baseline's metric score (the paper's Fig. 4; {max(budget_list)} "
                                    "comparisons), nearest the mean first", "baseline"))
    if noisy is not None:
        models = ["GRM", "IRT-Gaussian (H&M)", "Expected Wins"]
        shown = pd.concat({m: noisy[("pearson", m)] for m in models}, axis=1)
        shown.columns = [f"r {m}" for m in models]
        for m in models:
            shown[f"nDCG {m}"] = noisy[("ndcg", m)]
        out.print(render(shown, "with a share of judges answering at random (GRM with the proposed baseline; "
                                "--json has the differences)", "random judges"))


def _metric_scores(path, systems) -> pd.Series:
    """System-level metric scores from a WMT ``.sys.score`` file (tab-separated) or a CSV with
    columns ``system`` and ``score``, restricted to ``systems``; none of them scored is an error."""
    from humeval.data.readers._io import first_line, read_bytes
    from humeval.data.readers.wmt_metrics import read_metric_scores
    if "\t" in first_line(read_bytes(path)):
        _, level, scores = read_metric_scores(path)
        if level != "sys":
            raise InputError(path, 1, "segment-level scores", "give system-level scores (a .sys.score file)")
    else:
        try:
            frame = pd.read_csv(path)
        except (ValueError, UnicodeDecodeError) as error:
            raise InputError(path, None, f"not a CSV table ({error})", "write columns system,score") from None
        if not {"system", "score"} <= set(frame.columns):
            raise InputError(path, 1, f"columns {list(frame.columns)}", "name the columns system and score")
        numbers = pd.to_numeric(frame["score"], errors="coerce")
        bad = numbers.isna() | ~np.isfinite(numbers.fillna(0))
        if bad.any():
            raise InputError(path, int(np.argmax(bad.to_numpy())) + 2, f"score {frame['score'][bad].iloc[0]!r} is not a "
                             "finite number", "write a number")
        scores = pd.Series(numbers.to_numpy(), index=frame["system"].astype(str))
    scores = scores[scores.index.isin(systems)]
    if scores.empty:
        raise InputError(path, None, "no score for any system of the comparisons",
                         "the system names must be those of the comparisons file")
    return scores
