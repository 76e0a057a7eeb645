"""Ranking systems (``rank``) and choosing a model by held-out perplexity (``compare-models``)."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pandas as pd

from humeval.cli.common import (
    InputError,
    common_options,
    comparisons_of,
    err,
    jsonable,
    load,
    models_named,
    out,
    read_options,
    render,
)
from humeval.data.export import write


@click.command()
@click.argument("file", type=click.Path(dir_okay=False))
@read_options
@click.option("--model", "-m", "model_names", default="irt-gaussian", show_default=True,
              help="A model name, several separated by commas, 'preference' or 'all'.")
@click.option("--bootstrap", "n_boot", default=0, show_default=True,
              help="Bootstrap resamples for score intervals, rank ranges and clusters (WMT used 1000).")
@click.option("--by", type=click.Choice(["comparison", "ranking", "segment", "judge"]), default="comparison",
              show_default=True, help="What the bootstrap resamples: single comparisons or whole units.")
@click.option("--confidence", default=0.95, show_default=True, help="Coverage of intervals and rank ranges.")
@click.option("--clusters", is_flag=True, help="Draw WMT's cluster boundaries in the printed table.")
@click.option("--out", "out_file", type=click.Path(dir_okay=False), help="Write the table (.csv/.tsv/.jsonl/.parquet).")
@click.option("--plot", type=click.Path(dir_okay=False), help="Draw the scores (with intervals when bootstrapping).")
@click.option("--heatmap", type=click.Path(dir_okay=False), help="Draw the fitted preference model as a heatmap.")
@click.option("--jobs", "-j", default=1, show_default=True, help="Processes for bootstrap refits (0 = all cores).")
@click.option("--random-state", default=0, show_default=True, help="Seed for sampled models and resampling.")
@common_options
def rank(file, fmt, encoding, columns, outcomes, tracks, model_names, n_boot, by, confidence, clusters, out_file,
         plot, heatmap, jobs, random_state, quiet, as_json):
    """Rank the systems of each track with one model, or several side by side; with
    --bootstrap, WMT's procedure: score intervals, rank ranges and clusters.

    \b
    Models: trueskill, bt, davidson, rao-kupper, elo, crowd-bt (TrueSkill and Bradley-Terry
    family); irt-gaussian, irt-categorical, independent-pairs, independent-students[:asymmetric|
    arithmetic|geometric], uniform, adjusted-uniform (Hopkins & May); orig-wmt, bojar,
    expected-wins, feedback-arc (heuristics).

    \b
    Example:
      humeval rank data_RNK.csv --track Czech-English --model irt-gaussian --plot cz.png
      humeval rank sample-fr-en-train.csv -m trueskill --bootstrap 1000 --clusters --out wmt.csv
      humeval rank data_RNK.csv --track Czech-English --model all
    """
    from rich.progress import Progress

    from humeval.experiments import bootstrap, wmt_view
    from humeval.report import plot_abilities, plot_bootstrap, plot_preference_heatmap
    comparisons = comparisons_of(load(file, fmt, encoding, columns, outcomes, tracks, quiet or as_json), file)
    models = models_named(model_names, random_state)
    if n_boot and len(models) > 1:
        raise click.BadParameter("bootstrap one model at a time", param_hint="--model")
    results, notes = {}, {}
    parts = comparisons.by_track()
    for track, part in parts.items():
        suffix = (lambda p: Path(p).with_stem(f"{Path(p).stem}.{track}")) if len(parts) > 1 else Path
        try:
            fitted = {name: model.fit(part) for name, model in models.items()}
        except ValueError as error:  # e.g. a disconnected comparison graph
            raise InputError(file, None, f"{track}: {error}", "see the message") from None
        first = next(iter(fitted.values()))
        if n_boot:
            with Progress(console=err, disable=quiet or as_json, transient=True) as bar:
                task = bar.add_task(f"{track}: {n_boot} resamples", total=n_boot)
                result = bootstrap(first, part, n=n_boot, by=by, confidence=confidence, random_state=random_state,
                                   jobs=jobs, progress=lambda done, total: bar.update(task, completed=done))
            table = result.table()
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
            notes[track] = []
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
            shown = wmt_view(table) if n_boot else table
            breaks = _cluster_breaks(table) if (n_boot and clusters) else ()
            out.print(render(shown, f"{track}: {what} ({len(parts[track]):,} comparisons)", breaks=breaks))
            for note in notes.get(track, []):
                if note:
                    out.print(f"  {note}")
            out.print()


def _cluster_breaks(table: pd.DataFrame) -> tuple[int, ...]:
    c = table["cluster"].to_numpy()
    return tuple(i for i in range(len(c) - 1) if c[i] != c[i + 1])


@click.command("compare-models")
@click.argument("file", type=click.Path(dir_okay=False))
@read_options
@click.option("--model", "-m", "model_names", default="preference", show_default=True,
              help="Preference models to compare: names separated by commas, 'hopkins-may' for the paper's "
                   "eight, or 'preference' for all.")
@click.option("--sizes", default="100,200,400,800,1600,3200", show_default=True, help="Training sizes.")
@click.option("--trials", default=5, show_default=True, help="Random training subsets per size.")
@click.option("--min-test", default=2000, show_default=True,
              help="Least comparisons in each track's test set (Hopkins & May used 2,000).")
@click.option("--expert", type=click.Path(dir_okay=False),
              help="Train on FILE but test on this file's test split (Hopkins & May's Figure 5).")
@click.option("--plot", type=click.Path(dir_okay=False), help="Draw the learning curves.")
@click.option("--out", "out_file", type=click.Path(dir_okay=False), help="Write every trial's perplexity (CSV/Parquet/JSONL).")
@click.option("--jobs", "-j", default=1, show_default=True, help="Processes for the trials (0 = all cores).")
@click.option("--random-state", default=0, show_default=True, help="Seed for subsets and sampled models.")
@common_options
def compare_models(file, fmt, encoding, columns, outcomes, tracks, model_names, sizes, trials, min_test, expert, plot,
                   out_file, jobs, random_state, quiet, as_json):
    """Which model predicts held-out judgments best: Hopkins & May's learning curves.

    Per track, the test set is Hopkins & May's (comparisons of rarely judged segments, at least
    2000), each model is trained on random training subsets of each size, and the perplexity on
    the test set is averaged over trials and tracks. Lower is better; the uniform model scores 3.

    \b
    Example:
      humeval compare-models data_RNK.csv --track Czech-English --trials 2 --plot curves.png
      humeval compare-models data_RNK-public.csv --expert data_RNK.csv --track Czech-English --trials 2 --plot fig5.png
    """
    from rich.progress import Progress

    from humeval.experiments import mean_curve, track_curves
    from humeval.report import plot_learning_curve
    models = models_named(model_names, random_state)
    not_preference = [n for n, m in models.items() if not hasattr(m, "predict_proba")]
    if not_preference:
        raise click.BadParameter(f"{', '.join(not_preference)} are heuristics without a preference "
                                 "distribution, so they have no perplexity", param_hint="--model")
    try:
        size_list = [int(x) for x in sizes.split(",")]
    except ValueError:
        raise click.BadParameter(f"{sizes!r}: give whole numbers separated by commas", param_hint="--sizes") from None
    data = comparisons_of(load(file, fmt, encoding, columns, outcomes, tracks, quiet or as_json), file)
    test_source = comparisons_of(load(expert, fmt, encoding, columns, outcomes, tracks, quiet or as_json), expert) \
        if expert else data
    with Progress(console=err, disable=quiet or as_json, transient=True) as bar:
        task = bar.add_task("learning curves", total=None)
        try:
            curve = track_curves(data, models, size_list, trials, random_state, jobs,
                                 progress=lambda done, total: bar.update(task, completed=done, total=total),
                                 expert=test_source if expert else None, min_test=min_test)
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
        click.echo(json.dumps({"tracks": list(tests.index), "mean_perplexity": jsonable(table)}, indent=2))
    elif not quiet:
        table.columns = [str(c) for c in table.columns]
        out.print(render(table, f"mean test perplexity by training size ({len(tests)} track"
                         f"{'s' if len(tests) > 1 else ''}, {trials} trials)",
                         "model"))
        sizes_of_test = ", ".join(f"{t} {n:,}" for t, n in tests.items())
        out.print(f"test sets: {sizes_of_test}")
