"""Ranking systems (``rank``) and choosing a model by held-out perplexity (``compare-models``)."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pandas as pd

from humeval.cli.common import (
    CONFIDENCE,
    FIGURE_OUT,
    JOBS,
    SEED,
    TABLE_OUT,
    InputError,
    Names,
    Numbers,
    ParamGrid,
    Resamples,
    anonymize_options,
    common_options,
    comparisons_of,
    count,
    drop_option,
    err,
    fit_shown,
    group_note,
    jsonable,
    l2_option,
    load,
    models_named,
    needs,
    out,
    pseudonym_salt,
    read_options,
    render,
)
from humeval.cli.ratings import NOT_YET, rank_ratings_command, ratings_options
from humeval.data.export import write
from humeval.errors import DisconnectedError


@click.command()
@click.argument("file", type=click.Path())
@read_options
@click.option("--model", "-m", "model_names", default="irt-gaussian", show_default=True, type=Names(),
              help="A model name, several separated by commas, 'preference' or 'all'.")
@click.option("--bootstrap", "n_boot", default=0, show_default=True, type=Resamples(),
              help="Bootstrap resamples for score intervals, rank ranges and clusters (WMT used 1000; 0 = off).")
@click.option("--by", type=click.Choice(["comparison", "ranking", "segment", "judge"]), default="comparison",
              show_default=True, help="What the bootstrap resamples: single comparisons or whole units.")
@click.option("--confidence", default=0.95, show_default=True, type=CONFIDENCE,
              help="Coverage of intervals and rank ranges.")
@click.option("--clusters", is_flag=True, help="Draw WMT's cluster boundaries in the printed table (needs --bootstrap).")
@click.option("--out", "out_file", type=TABLE_OUT, help="Write the table (.csv/.tsv/.jsonl/.parquet).")
@click.option("--plot", type=FIGURE_OUT, help="Draw the scores (with intervals when bootstrapping).")
@click.option("--heatmap", type=FIGURE_OUT, help="Draw the fitted preference model as a heatmap.")
@click.option("--jobs", "-j", default=1, show_default=True, type=JOBS,
              help="Processes for bootstrap refits (0 = all cores).")
@click.option("--random-state", default=0, show_default=True, type=SEED, help="Seed for sampled models and resampling.")
@click.option("--chains", default=1, show_default=True, type=count(1),
              help="Gibbs chains for irt-gaussian/irt-categorical (spawned seeds, draws pooled); above 1, "
                   "the fit prints max split-R̂ and min bulk ESS.")
@click.option("--order", type=click.Choice(["data", "random", "active"]), default=None,
              help="The order trueskill and elo play the comparisons in: as in the file (default), shuffled, or "
                   "active (Sakaguchi et al. 2014: the next match is the pair whose outcome is least certain, "
                   "as WMT14-16 ran TrueSkill; its bootstrap runs compiled).")
@click.option("--keep-shared-outputs", is_flag=True,
              help="Systems that shared one displayed output tie with each other (as WMT15-16 counted them) "
                   "instead of not being compared.")
@l2_option
@drop_option
@anonymize_options
@ratings_options
@common_options
def rank(file, fmt, encoding, columns, outcomes, tracks, model_names, n_boot, by, confidence, clusters, out_file,
         plot, heatmap, jobs, random_state, l2, chains, order, keep_shared_outputs, drop_file, anon, salt,
         quiet, as_json, **ratings_kw):
    """Rank the systems of each track with one model, or several side by side; with
    --bootstrap, WMT's procedure: score intervals, rank ranges and clusters.

    \b
    Models: trueskill, bt, davidson, rao-kupper, elo, crowd-bt (TrueSkill and Bradley-Terry
    family); irt-gaussian, irt-categorical, independent-pairs, independent-students[:asymmetric|
    arithmetic|geometric], uniform, adjusted-uniform (Hopkins & May); orig-wmt, bojar,
    expected-wins, feedback-arc, most-probable-ranking, mc-playoffs (heuristics).

    \b
    Example:
      humeval rank data_RNK.csv --track Czech-English --model irt-gaussian --plot cz.png
      humeval rank sample-fr-en-train.csv -m trueskill --bootstrap 1000 --clusters --out wmt.csv
      humeval rank data_RNK.csv --track Czech-English --model all
    """
    from rich.progress import Progress

    from humeval.experiments import bootstrap, wmt_view
    from humeval.ratings import MODELS as RATINGS_MODELS
    from humeval.report import plot_abilities, plot_bootstrap, plot_preference_heatmap
    # pairwise model names are checked before the (possibly long) read; ratings models once the file shows ratings
    models = None if model_names in RATINGS_MODELS + NOT_YET else models_named(model_names, random_state, l2)
    if models:
        check_rank_options(click.get_current_context(), models, n_boot, plot, heatmap)
    judgments = load(file, fmt, encoding, columns, outcomes, tracks, quiet or as_json, pseudonym_salt(anon, salt),
                     drop_file)
    if judgments.comparisons is None and judgments.ratings is not None:  # DA, ESA, MQM: WMT's procedure
        return rank_ratings_command(file, judgments, model_names, n_boot, confidence, out_file, plot, heatmap,
                                    random_state, quiet, as_json, **ratings_kw)
    if not models:
        models = models_named(model_names, random_state, l2)  # a ratings model name on comparisons: the error
    for model in models.values():
        if hasattr(model, "chains"):
            model.chains = chains
    if chains > 1 and not any(hasattr(m, "chains") for m in models.values()):
        raise click.BadParameter("applies to the Gibbs models irt-gaussian and irt-categorical", param_hint="--chains")
    if order is not None:
        ordered = [m for m in models.values() if hasattr(m, "orders")]
        if not ordered:
            raise click.BadParameter("applies to trueskill and elo (the models that play comparisons in order)",
                                     param_hint="--order")
        unable = [name for name, m in models.items() if hasattr(m, "orders") and order not in m.orders]
        if unable:
            raise click.BadParameter(f"{', '.join(unable)} plays {' or '.join(models[unable[0]].orders)} order; "
                                     "active sampling is TrueSkill's (Sakaguchi et al. 2014)", param_hint="--order")
        for model in ordered:
            model.set_params(order=order)
    if keep_shared_outputs:
        if judgments.rankings is None:
            raise click.BadParameter("applies to rankings; this file holds none", param_hint="--keep-shared-outputs")
        judgments.expand(keep_shared_outputs=True)
    comparisons = comparisons_of(judgments, file)
    results, notes = {}, {}
    parts = comparisons.by_track()
    for track, part in parts.items():
        suffix = (lambda p: Path(p).with_stem(f"{Path(p).stem}.{track}")) if len(parts) > 1 else Path
        try:
            fitted = {name: fit_shown(model, part, f"{track}: fitting {name}", quiet or as_json)
                      for name, model in models.items()}
        except ValueError as error:  # e.g. a disconnected comparison graph with --l2 0
            raise InputError(file, None, f"{track}: {error}", "see the message") from None
        first = next(iter(fitted.values()))
        flags = first.ranking().reindex(list(first.systems_))
        if n_boot:
            with Progress(console=err, disable=quiet or as_json, transient=True) as bar:
                task = bar.add_task(f"{track}: {n_boot} resamples", total=n_boot)
                result = bootstrap(first, part, n=n_boot, by=by, confidence=confidence, random_state=random_state,
                                   jobs=jobs, progress=lambda done, total: bar.update(task, completed=done))
            table = result.table()
            for column in ("component", "note"):
                if column in flags:
                    table[column] = flags[column]
            notes[track] = [f"scores: {result.scale}" if result.scale else "",
                            f"{n_boot} resamples of {by}s; {confidence:.0%} intervals; rank range = WMT's trimmed "
                            "range, simultaneous = valid for all systems at once"]
            notes[track] += [f"{v:,} {k}" for k, v in result.failed.items()]
            if plot:
                plot_bootstrap(table, suffix(plot), title=f"{track}: {first!r}, {n_boot} bootstrap resamples",
                               scale=result.scale)
        elif len(fitted) == 1:
            table = first.ranking()
            notes[track] = [f"scores: {first.scale_}"] if getattr(first, "scale_", None) else []
            if plot:
                plot_abilities(table, suffix(plot), title=f"{track}: {first!r}")
        else:
            table = pd.DataFrame({name: m.ranking()["rank"] for name, m in fitted.items()})
            table = table.loc[table.mean(axis=1).sort_values(kind="stable").index]
            table.index.name = "system"
            for column in ("component", "note"):
                if column in flags:
                    table[column] = flags[column]
            notes[track] = []
        notes[track].append(group_note(first))
        if "note" in flags:
            notes[track].append("note: scores of systems that never lost or never won rest on the prior (Bradley–"
                                "Terry family) or on the model's assumptions; their intervals are wide")
        if chains > 1:
            notes[track] += [f"{name}: {m.convergence()}" for name, m in fitted.items() if hasattr(m, "convergence")]
        if heatmap and hasattr(first, "predict_proba"):
            plot_preference_heatmap(first, suffix(heatmap), title=f"{track}: {first!r}")
        if hasattr(first, "judges"):  # Crowd-BT: say who looks adversarial or random
            suspects = first.judges()
            suspects = suspects[suspects["flag"].isin(["adversarial", "random"])]
            notes[track].append(f"judges flagged: {len(suspects)} of {len(first.judge_flags_)}"
                                + (" — " + ", ".join(f"{j} ({f}, η = {r:.2f})" for j, (n, r, f)
                                                    in suspects.head(10).iterrows()) if len(suspects) else ""))
        results[track] = table
    if out_file:
        frames = [t.reset_index().assign(track=name) for name, t in results.items()]
        write(pd.concat(frames, ignore_index=True), out_file)
    if as_json:
        click.echo(json.dumps({t: jsonable(df) for t, df in results.items()}, indent=2))
    elif not quiet:
        for track, table in results.items():
            what = next(iter(models)) if len(models) == 1 else "rank by model"
            shown = wmt_view(table).join(table[[c for c in ("component", "note") if c in table]]) if n_boot else table
            breaks = _cluster_breaks(table) if (n_boot and clusters) else ()
            out.print(render(shown, f"{track}: {what} ({len(parts[track]):,} comparisons)", breaks=breaks))
            for note in notes.get(track, []):
                if note:
                    out.print(f"  {note}")
            out.print()


def check_rank_options(ctx, models, n_boot, plot, heatmap):
    """Refuse option combinations that would do nothing (or something else than asked)."""
    if n_boot and len(models) > 1:
        raise click.BadParameter("bootstrap one model at a time", param_hint="--model")
    needs(ctx, {"clusters": "--clusters", "by": "--by", "confidence": "--confidence"}, n_boot > 0,
          "without --bootstrap (clusters, intervals and rank ranges come from the resamples)")
    needs(ctx, {"jobs": "--jobs"}, n_boot > 0, "without --bootstrap (only the resamples run in parallel)", warn=True)
    if len(models) > 1 and (plot or heatmap):
        raise click.UsageError(f"{'--plot' if plot else '--heatmap'} draws one model; {len(models)} were given "
                               "(the side-by-side table has ranks only): pick one with --model")
    if heatmap:
        (name, model), = models.items()
        if not hasattr(model, "predict_proba"):
            raise click.UsageError(f"--heatmap draws a preference distribution, and {name} is a heuristic without "
                                   "one: use a model such as bt, trueskill or irt-gaussian")


def _cluster_breaks(table: pd.DataFrame) -> tuple[int, ...]:
    c = table["cluster"].to_numpy()
    return tuple(i for i in range(len(c) - 1) if c[i] != c[i + 1])


@click.command("compare-models")
@click.argument("file", type=click.Path())
@read_options
@click.option("--model", "-m", "model_names", default="preference", show_default=True, type=Names(),
              help="Preference models to compare: names separated by commas, 'hopkins-may' for the paper's "
                   "eight, or 'preference' for all.")
@click.option("--sizes", default="100,200,400,800,1600,3200", show_default=True, type=Numbers(count(1)),
              help="Training sizes.")
@click.option("--trials", default=5, show_default=True, type=count(1), help="Random training subsets per size.")
@click.option("--min-test", default=2000, show_default=True, type=count(1),
              help="Least comparisons in each track's test set (Hopkins & May used 2,000).")
@click.option("--expert", type=click.Path(dir_okay=False),
              help="Train on FILE but test on this file's test split (Hopkins & May's Figure 5).")
@click.option("--plot", type=FIGURE_OUT, help="Draw the learning curves.")
@click.option("--out", "out_file", type=TABLE_OUT, help="Write every trial's perplexity (CSV/Parquet/JSONL).")
@click.option("--jobs", "-j", default=1, show_default=True, type=JOBS, help="Processes for the trials (0 = all cores).")
@click.option("--random-state", default=0, show_default=True, type=SEED, help="Seed for subsets and sampled models.")
@click.option("--tune-on", type=Names(), help="Development tracks (comma-separated): grid-search --grid on them by "
                                              "held-out perplexity, then compare the tuned model on the other tracks.")
@click.option("--grid", "grid", multiple=True, type=ParamGrid(),
              help="With --tune-on: a hyperparameter and its values, e.g. l2=0.1,1,10 (repeat for more).")
@l2_option
@drop_option
@common_options
def compare_models(file, fmt, encoding, columns, outcomes, tracks, model_names, sizes, trials, min_test, expert, plot,
                   out_file, jobs, random_state, tune_on, grid, l2, drop_file, quiet, as_json):
    """Which model predicts held-out judgments best: Hopkins & May's learning curves.

    Per track, the test set is Hopkins & May's (comparisons of rarely judged segments, at least
    2000), each model is trained on random training subsets of each size, and the perplexity on
    the test set is averaged over trials and tracks. Lower is better; the uniform model scores 3.

    \b
    Example:
      humeval compare-models data_RNK.csv --track Czech-English --trials 2 --plot curves.png
      humeval compare-models data_RNK-public.csv --expert data_RNK.csv --track Czech-English --trials 2 --plot fig5.png
      humeval compare-models data_RNK.csv -m bt --tune-on Czech-English --grid l2=0.1,1,10 --trials 1 --sizes 400

    \b
    With --tune-on, one model's --grid is searched on the development tracks (each trained on its
    whole training split), the grid's perplexities and the chosen values are printed, and the
    learning curves are drawn for the tuned model on the remaining tracks.
    """
    from rich.progress import Progress

    from humeval.experiments import mean_curve, track_curves
    from humeval.report import plot_learning_curve
    models = models_named(model_names, random_state, l2)
    not_preference = [n for n, m in models.items() if not hasattr(m, "predict_proba")]
    if not_preference:
        raise click.BadParameter(f"{', '.join(not_preference)} are heuristics without a preference "
                                 "distribution, so they have no perplexity", param_hint="--model")
    size_list = sizes
    data = comparisons_of(load(file, fmt, encoding, columns, outcomes, tracks, quiet or as_json, None, drop_file), file)
    if len(data) and (data.item < 0).all():
        raise InputError(file, None, "no comparison names its source segment",
                         "the test set is the comparisons of rarely judged segments: map the segment column with "
                         "--columns item=COL")
    if tune_on or grid:
        data, models, tuning = _tuned(data, models, tune_on, grid, min_test, random_state, jobs, file,
                                      quiet or as_json)
    test_source = comparisons_of(load(expert, fmt, encoding, columns, outcomes, tracks, quiet or as_json, None,
                                      drop_file), expert) \
        if expert else data
    with Progress(console=err, disable=quiet or as_json, transient=True) as bar:
        task = bar.add_task("learning curves", total=None)
        try:
            curve = track_curves(data, models, size_list, trials, random_state, jobs,
                                 progress=lambda done, total: bar.update(task, completed=done, total=total),
                                 expert=test_source if expert else None, min_test=min_test)
        except DisconnectedError as error:  # only with --l2 0: the default prior fits any subset
            raise InputError(file, None, f"a training subset cannot be fitted: {error}",
                             "leave out --l2 0 (the default prior keeps every score finite)") from None
        except ValueError as error:
            raise InputError(file, None, str(error), "check --expert and --track") from None
    tests = curve.groupby("track")["test"].first()
    table = mean_curve(curve).sort_values(size_list[-1], ascending=False)
    if out_file:
        write(curve, out_file)
    if plot:
        where = f"{len(tests)} track{'s' if len(tests) > 1 else ''}"
        plot_learning_curve(curve, plot, title=f"Held-out perplexity, mean over {where} and {trials} trials"
                            + (" (expert test set)" if expert else ""))
    if as_json:
        shown = {"tracks": list(tests.index), "mean_perplexity": jsonable(table)}
        if tune_on:
            shown["tuning"] = {"grid": jsonable(tuning.table), "chosen": tuning.best}
        click.echo(json.dumps(shown, indent=2))
    elif not quiet:
        table.columns = [str(c) for c in table.columns]
        out.print(render(table, f"mean test perplexity by training size ({len(tests)} track"
                         f"{'s' if len(tests) > 1 else ''}, {trials} trials)",
                         "model"))
        sizes_of_test = ", ".join(f"{t} {n:,}" for t, n in tests.items())
        out.print(f"test sets: {sizes_of_test}")


def _tuned(data, models, tune_on, grid, min_test, random_state, jobs, file, quiet):
    """compare-models --tune-on: the grid search on the development tracks, printed; returns the
    other tracks, the tuned model and the ``Tuning``."""
    from humeval.experiments import tune
    from humeval.experiments.tuning import label, select_tracks
    if not (tune_on and grid):
        raise click.UsageError("--tune-on and --grid go together: the grid is searched on the development tracks")
    if len(models) != 1:
        raise click.BadParameter(f"tune one model at a time ({len(models)} given)", param_hint="--model")
    (name, model), = models.items()
    dev = tune_on.split(",")
    try:
        result = tune(model, data, dict(grid), tracks=dev, random_state=random_state, jobs=jobs, min_test=min_test)
    except ValueError as error:
        raise InputError(file, None, str(error), "check --tune-on, --grid and --model") from None
    if not quiet:
        shown = result.table.drop(columns=list(dict(grid)))
        shown = shown.map(lambda v: f"{v:.4f}")  # grid points often differ in the third decimal
        out.print(render(shown, f"{name}: held-out perplexity on {', '.join(dev)} (whole training split)"))
        out.print(f"chosen: {label(result.best)}")
    others = [t for t in data.tracks if t not in dev and (data.track == data.tracks.index(t)).any()]
    if not others:
        raise InputError(file, None, "every track was used for tuning: none is left to evaluate on",
                         "leave at least one track out of --tune-on")
    return select_tracks(data, others), {f"{name} ({label(result.best)})": result.model}, result
