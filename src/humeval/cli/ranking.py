"""Ranking systems (``rank``) and choosing a model by held-out perplexity (``compare-models``)."""

from __future__ import annotations

import json
import warnings
from contextlib import nullcontext
from pathlib import Path

import click
import numpy as np
import pandas as pd

from humeval.cli.common import (
    read_families,
    sampling_options,
    JUDGMENTS_COUNT,
    MAX_CHAINS,
    TRIALS,
    capped_sizes,
    progress_bar,
    CONFIDENCE,
    FIGURE_OUT,
    JOBS,
    SEED,
    TABLE_OUT,
    TRACK_FIGURES_OUT,
    InputError,
    Names,
    Numbers,
    ParamGrid,
    Renamed,
    Resamples,
    Sectioned,
    anonymize_options,
    arena_options,
    apply_both_bad,
    arena_reader,
    common_options,
    comparisons_of,
    count,
    drop_option,
    err,
    execution_options,
    explicit,
    fit_shown,
    group_note,
    jsonable,
    l2_option,
    load,
    models_named,
    needs,
    out,
    plural,
    print_skips,
    pseudonym_salt,
    read_options,
    refuse_unused_prior,
    render,
)
from humeval.cli.signing import signed, stamp
from humeval.cli.ratings import (NOT_YET, PAIRWISE_PROTOCOLS, RATINGS_ONLY, protocol_controls, rank_ratings_command,
                                 ratings_options, refuse_protocol)
from humeval.data.export import write
from humeval.errors import DisconnectedError
from humeval.ranking.base import FitWarning
from humeval.ranking.registry import REGISTRY, model_help, tags

INTERVALS = ("bootstrap", "fisher", "sandwich")
CLUSTERS = ("judge", "item", "group", "category")  # humeval.ranking.analytic.CLUSTER_COLUMNS (not imported: startup)
# what the bootstrap resamples: the pairwise units, the ratings units; 'comparison' and 'segment' are the defaults
PAIR_UNITS = ("comparison", "ranking", "segment", "judge")
RATING_UNITS = ("segment", "judge", "both")
# rank --help: the options under headings, by what they are for (the rest: "Other options")
RANK_SECTIONS = {
    "Input": ("fmt", "encoding", "columns", "outcomes", "delimiter", "tracks", "sql", "keep", "drop_file", "anon",
              "salt", "keep_shared_outputs"),
    "Model and procedure": ("model_names", "protocol", "l2", "chains", "order", "random_state"),
    "Intervals and resampling": ("n_boot", "resample", "confidence", "intervals", "cluster", "rank_sets", "top_k", "robust_by",
                                 "jobs", "backend", "scheduler"),
    "Pairwise files: covariates, weights, boards": ("covariates", "style_control", "standardize", "weight_column",
                                                    "category_column", "both_bad", "reweight_policy",
                                                    "provisional_below", "siblings", "families_file", "joint_file",
                                                    "board_by"),
    "Ratings files (DA, ESA, MQM)": ("significance", "correction", "test_resamples", "scale_text", "exclude_reference",
                                     "heldout", "worker_stats", "segment_scores", "variant"),
    "Output": ("out_file", "plot", "heatmap", "clusters", "as_json", "quiet", "signature", "force"),
}
# options that shape the pairwise procedure only: refused on a ratings file (parameter -> option)
PAIRWISE_ONLY = {"l2": "--l2", "chains": "--chains", "order": "--order", "keep_shared_outputs": "--keep-shared-outputs",
                 "cluster": "--cluster-by", "standardize": "--standardize", "covariates": "--covariates",
                 "style_control": "--style-control", "weight_column": "--weight", "category_column": "--category",
                 "both_bad": "--both-bad", "board_by": "--board-by", "rank_sets": "--rank-sets", "top_k": "--top-k",
                 "reweight_policy": "--reweight", "provisional_below": "--provisional", "siblings": "--siblings",
                 "families_file": "--families", "joint_file": "--joint"}


@click.command(cls=Sectioned, sections=RANK_SECTIONS)
@click.argument("file", type=click.Path())
@read_options
@click.option("--model", "-m", "model_names", default="irt-gaussian", show_default=True, type=Names(),
              help=model_help())
@click.option("--bootstrap", "n_boot", default=0, show_default=True, type=Resamples(),
              help="Bootstrap resamples for score intervals, rank ranges and clusters (WMT used 1000; 0 = off).")
@click.option("--resample", "resample", cls=Renamed, old=("--by",), type=click.Choice([*PAIR_UNITS, "both"]),
              default=None, help="What the bootstrap resamples. Comparisons: comparison (the default; plackett-luce, "
              "fitted on rankings, resamples whole rankings), ranking, segment or judge. Ratings: segment (the "
              "default), judge or both.")
@click.option("--confidence", default=0.95, show_default=True, type=CONFIDENCE,
              help="Coverage of intervals and rank ranges.")
@click.option("--clusters", is_flag=True,
              help="Draw WMT's rank-cluster boundaries as rules in the printed table (needs --bootstrap; ratings "
                   "tables always have them).")
@click.option("--out", "out_file", type=TABLE_OUT, help="Write the table (.csv/.tsv/.jsonl/.parquet).")
@click.option("--plot", type=TRACK_FIGURES_OUT, help="Draw the scores (with intervals when bootstrapping).")
@click.option("--heatmap", type=TRACK_FIGURES_OUT, help="Draw the fitted preference model as a heatmap.")
@click.option("--jobs", "-j", default=1, show_default=True, type=JOBS,
              help="Processes for bootstrap refits, threads for TrueSkill's compiled runs (0 = all cores; "
                   "the numbers do not change).")
@execution_options
@click.option("--random-state", default=0, show_default=True, type=SEED, help="Seed for sampled models and resampling.")
@click.option("--chains", default=1, show_default=True, type=count(1, MAX_CHAINS),
              help="Gibbs chains for irt-gaussian/irt-categorical (spawned seeds, draws pooled); above 1, "
                   "the fit prints max split-R̂ and min bulk ESS.")
@click.option("--order", type=click.Choice(["data", "random", "active"]), default=None,
              help="The order trueskill and elo play the comparisons in: as in the file (default), shuffled, or "
                   "active (Sakaguchi et al. 2014: the next match is the pair whose outcome is least certain, "
                   "as WMT14-16 ran TrueSkill; its bootstrap runs compiled).")
@click.option("--wmt-trueskill", "wmt_trueskill", type=click.Choice(["2015", "2016"]), default=None, hidden=True,
              help="Old spelling of --protocol wmt15-trueskill / wmt16-trueskill (kept for one release). "
"WMT15's or WMT16's TrueSkill ranking exactly as their scripts ran it: --bootstrap runs "
                   "(default 1000) of active-sampling TrueSkill, each on all comparisons (2015) or a resample "
                   "of them (2016), N + 1 matches; cluster.py's rank ranges and clusters; score = mean μ.")
@click.option("--keep-shared-outputs", is_flag=True,
              help="Systems that shared one displayed output tie with each other (as WMT15-16 counted them) "
                   "instead of not being compared.")
@click.option("--intervals", type=click.Choice(INTERVALS), default=None,
              help="Score intervals: bootstrap (the --bootstrap resamples), or analytic ones from the fitted Bradley–"
                   "Terry family model (bt, davidson, rao-kupper): fisher (inverse information) or sandwich (robust; "
                   "with --cluster-by, to judgments clustered by judge or prompt); analytic ones come with "
                   "simultaneous "
                   "intervals (sim_lower, sim_upper: all systems at once).")
@click.option("--standardize", is_flag=True,
              help="Divide each covariate by its root mean square, so coefficients are per RMS unit, as "
                   "--style-control does (e.g. for a file convert --style-control wrote: its cov: columns are "
                   "the raw ratios).")
@click.option("--cluster-by", "cluster", cls=Renamed, old=("--cluster",), type=click.Choice(CLUSTERS), default=None,
              help="With --intervals sandwich: the unit whose comparisons may be correlated (judge, item, group, "
                   "category); the covariance is clustered by it.")
@click.option("--board-by", metavar="COLUMN", default=None,
              help="One board per value of COLUMN besides the overall one, with each system's rank change against "
                   "the overall board: judge, track, item, group, category (the --category column, else a column "
                   "named category) or any label column of a pairwise file (language, category_tag.math_v0.1.math).")
@click.option("--robustness", "robust_by", type=click.Choice(["judgment", "judge"]), is_flag=False,
              flag_value="judgment", default=None,
              help="Worst-case robustness (bt, davidson, rao-kupper): per adjacent pair and for the top system, the "
                   "fewest judgments (or with 'judge', whole judges) whose removal reverses the order, by AMIP, each "
                   "checked by a refit.")
@click.option("--rank-sets", is_flag=True,
              help="Rank confidence sets (Mogstad et al. 2024): per system a rank interval holding for all systems at "
                   "once (stepdown max-|t|), its marginal one and whether it may be the best (top1), from the "
                   "--bootstrap resamples or the analytic covariance of bt, davidson, rao-kupper.")
@click.option("--top-k", "top_k", type=click.IntRange(min=2), default=None, metavar="K",
              help="With --rank-sets, a column topK: whether the system may be among the best K (the confidence set "
                   "for the top K, all such statements holding together; Mogstad et al. 2024's τ-best).")
@sampling_options
@click.option("--joint", "joint_file", type=click.Path(exists=True, dir_okay=False), default=None,
              metavar="RATINGS",
              help="Fit the comparisons and the ratings in RATINGS (DA, ESA, MQM, acceptability: each criterion one "
                   "protocol) of the same systems on one scale (model 'joint': Davidson + a Gaussian per protocol "
                   "with its own offset, slope and noise), and print each protocol's held-out log-likelihood joined "
                   "and alone.")
@arena_options
@l2_option
@drop_option
@anonymize_options
@ratings_options
@common_options
@signed
def rank(file, fmt, encoding, columns, outcomes, tracks, delimiter, sql, keep, model_names, n_boot, resample,
         confidence, clusters, out_file, plot, heatmap, jobs, random_state, l2, chains, order, wmt_trueskill,
         keep_shared_outputs, drop_file, anon, salt, quiet, as_json, intervals, cluster, standardize, board_by,
         covariates, style_control, weight_column, category_column, both_bad, robust_by, rank_sets, reweight_policy,
         provisional_below, joint_file, siblings, families_file, top_k, **ratings_kw):
    """Rank the systems of each track with one model, or several side by side; with
    --bootstrap, WMT's procedure: score intervals, rank ranges and clusters.

    The models and groups are listed under --model (from the model registry); a ratings file (DA,
    ESA, MQM) is ranked by WMT's procedure with the options under "Ratings files".

    \b
    Example:
      humeval rank data_RNK.csv --track Czech-English --model irt-gaussian --plot cz.png
      humeval rank sample-fr-en-train.csv -m trueskill --bootstrap 1000 --clusters --out wmt.csv
      humeval rank battles.json -m bt --intervals sandwich --cluster-by judge
      humeval rank sample-fr-en-train.csv --protocol wmt16-trueskill --bootstrap 40
      humeval rank data_RNK.csv --track Czech-English --model all
      humeval rank data_RNK.csv --track Czech-English -m bt --board-by judge
      humeval rank data_RNK.csv --track Czech-English --joint data_ACC.csv
    """

    from humeval.experiments import bootstrap, wmt_view
    from humeval.experiments.bootstrap import judgment_count, too_few_note
    from humeval.experiments.robustness import fragility, robustness_table
    from humeval.ranking.boards import ANCHOR, drop_system, set_anchor_aside
    from humeval.ratings import MODELS as RATINGS_MODELS
    from humeval.report import plot_abilities, plot_bootstrap, plot_preference_heatmap
    from humeval.report.evidence import few_comparisons_warning, no_interval_note
    if joint_file:
        from humeval.cli.joint import check_joint_options
        check_joint_options(click.get_current_context(), model_names)
        model_names = "joint"
    # pairwise model names are checked before the (possibly long) read; ratings models once the file shows ratings
    models = None if model_names in RATINGS_MODELS + NOT_YET else models_named(model_names, random_state, l2)
    ctx = click.get_current_context()
    analytic = check_interval_options(ctx, intervals, cluster, n_boot)
    needs(ctx, {"top_k": "--top-k"}, rank_sets, "without --rank-sets (the top-K set is one of the rank sets)")
    if models:
        check_rank_options(ctx, models, n_boot, plot, heatmap, analytic, rank_sets)
        if explicit(ctx, "model_names"):  # the default model is checked once the file is known to hold comparisons
            check_analytic(models, analytic, style_control or standardize)
    board_by, category_column = board_column(board_by, category_column)
    if board_by and models:
        check_board_options(models, plot, heatmap, clusters)
    reader = arena_reader(covariates, style_control, weight_column, category_column)
    judgments = load(file, fmt, encoding, columns, outcomes, tracks, quiet or as_json, pseudonym_salt(anon, salt),
                     drop_file, controls=protocol_controls(ratings_kw), reader=reader,
                     delimiter=delimiter, sql=sql, keep=keep, unit=resample)
    if ratings_kw.get("protocol") in PAIRWISE_PROTOCOLS:
        wmt_trueskill = PAIRWISE_PROTOCOLS[ratings_kw["protocol"]]
    ratings_file = judgments.comparisons is None and judgments.ratings is not None
    if not ratings_file:  # the ratings procedure's options would be ignored
        needs(ctx, RATINGS_ONLY, False, "on comparisons (they shape the ratings procedure: DA, ESA, MQM files)")
    if wmt_trueskill:  # one organiser's procedure end to end (humeval.experiments.wmt_trueskill)
        from humeval.cli.wmt_trueskill import rank_wmt_trueskill
        # --order, --board-by and --keep-shared-outputs: rank_wmt_trueskill says what the protocol does instead
        own = ("order", "board_by", "keep_shared_outputs")
        needs(ctx, {**{k: v for k, v in PAIRWISE_ONLY.items() if k not in own}, "robust_by": "--robustness"}, False,
              f"with --protocol wmt{int(wmt_trueskill) % 100}-trueskill (the scripts' TrueSkill runs: no prior, "
              "covariates, weights, clustered covariance, rank sets or robustness)")
        return rank_wmt_trueskill(file, judgments, int(wmt_trueskill), n_boot or 1000, confidence, random_state, jobs,
                                  out_file, quiet, as_json, tracks)
    if ratings_file:  # DA, ESA, MQM: WMT's procedure
        needs(ctx, {k: v for k, v in PAIRWISE_ONLY.items() if k not in ("rank_sets", "top_k")}, False,
              "on ratings (they shape the fit of pairwise comparisons); this file holds ratings")
        needs(ctx, {"rank_sets": "--rank-sets"}, n_boot > 0, "on ratings without --bootstrap N (their rank sets come "
              "from the resamples)")
        needs(ctx, {"jobs": "--jobs"}, False, "on ratings: their bootstrap runs in one process", warn=True)
        if analytic:
            raise click.BadParameter("analytic intervals come from a Bradley–Terry fit of comparisons; ratings get "
                                     "bootstrap intervals (--bootstrap N)", param_hint="--intervals")
        if resample in ("comparison", "ranking"):
            raise click.BadParameter(f"ratings resample segment, judge or both, not {resample}s",
                                     param_hint="--resample")
        if robust_by == "judge":
            raise click.BadParameter("on ratings it finds the fewest ratings that reverse the order of mean "
                                     "scores, not judges: without 'judge'", param_hint="--robustness")
        shown = rank_ratings_command(file, judgments, model_names, n_boot, confidence, out_file, plot, heatmap,
                                     random_state, quiet, as_json, resample=resample or "segment",
                                     rank_sets=rank_sets, top_k=top_k,
                                     robust=ratings_robustness_tables(judgments.ratings) if robust_by else None,
                                     encoding=encoding or "utf-8", **ratings_kw)
        return shown
    refuse_protocol(ratings_kw)
    if resample == "both":
        raise click.BadParameter("'both' (segments and judges at once) is for ratings; comparisons resample "
                                 f"{', '.join(PAIR_UNITS)}", param_hint="--resample")
    unit = resample or "comparison"
    if not models:
        models = models_named(model_names, random_state, l2)  # a ratings model name on comparisons: the error
    check_analytic(models, analytic, style_control or standardize)
    check_robustness(models, robust_by, board_by)
    check_rank_sets(models, rank_sets, n_boot, board_by)
    for model in models.values():
        if tags(model).chains:
            model.set_params(chains=chains)
    refuse_unused_prior(models, l2)
    if chains > 1 and not any(tags(m).chains for m in models.values()):
        raise click.BadParameter(f"applies to the Gibbs models {' and '.join(_tagged('chains'))}",
                                 param_hint="--chains")
    if order is not None:
        ordered = [m for m in models.values() if tags(m).orders]
        if not ordered:
            raise click.BadParameter(f"applies to {' and '.join(_tagged('orders'))} (the models that play comparisons "
                                     "in order)", param_hint="--order")
        unable = [name for name, m in models.items() if tags(m).orders and order not in tags(m).orders]
        if unable:
            raise click.BadParameter(f"{', '.join(unable)} plays {' or '.join(tags(unable[0]).orders)} order; "
                                     "active sampling is TrueSkill's (Sakaguchi et al. 2014)", param_hint="--order")
        for model in ordered:
            model.set_params(order=order)
    if keep_shared_outputs:
        if judgments.rankings is None:
            raise click.BadParameter("applies to rankings; this file holds none", param_hint="--keep-shared-outputs")
        judgments.expand(keep_shared_outputs=True)
    comparisons = comparisons_of(judgments, file)
    print_skips(judgments.report, quiet or as_json, tracks)  # the reader's skips (self-comparisons, empty weights, …)
    if joint_file:
        from humeval.cli.joint import rank_joint
        return rank_joint(file, joint_file, comparisons, l2, random_state, out_file, quiet, as_json)
    check_covariates(models, comparisons)
    if standardize and not comparisons.covariate_names:
        if covariates is not None and covariates.strip().lower() == "none":
            raise click.UsageError("--standardize scales covariates, and --covariates none left them out: drop one")
        raise click.UsageError("--standardize scales covariates, and this file brings none: add --covariates COL,… "
                               "or --style-control, or read a file convert wrote with cov: columns")
    if cluster:
        check_clusters(file, comparisons, cluster)
    if families_file and not siblings:
        raise click.BadParameter("names the variant families that --siblings K counts: add --siblings",
                                 param_hint="--families")
    if board_by and (reweight_policy or provisional_below or siblings):
        raise click.BadParameter("applies to the overall board, not to --board-by boards",
                                 param_hint="--reweight" if reweight_policy else
                                 "--provisional" if provisional_below else "--siblings")
    flag_rule = (provisional_below, siblings, read_families(families_file) if families_file else None)
    if board_by:
        return rank_boards(file, comparisons, models, board_by, both_bad, n_boot, unit, confidence, jobs, random_state,
                           out_file, quiet, as_json, analytic, cluster)
    results, notes, coefficients, robust, robust_notes = {}, {}, {}, {}, {}
    parts = comparisons.by_track()
    policy_notes = {}
    flagged = {}
    for track, part in list(parts.items()):
        part, policy_notes[track] = apply_both_bad(part, both_bad, file, track)
        parts[track], flagged[track] = sampling_policy(part, reweight_policy, flag_rule, weight_column, file)
    for track, part in parts.items():
        suffix = (lambda p: Path(p).with_stem(f"{Path(p).stem}.{track}")) if len(parts) > 1 else Path
        try:
            fitted = {name: fit_shown(model, part, f"{track}: fitting {name}", quiet or as_json)
                      for name, model in models.items()}
        except ValueError as error:  # e.g. a disconnected comparison graph with --l2 0
            raise InputError(file, None, f"{track}: {error}", "see the message") from None
        first = next(iter(fitted.values()))
        scale = first.scale_ if tags(first).fitted_scale else ""
        flags = set_anchor_aside(first.ranking(), scale=scale)[0]
        if n_boot:
            # not on a terminal, a transient bar would leave a blank line behind (rich ends a live display with one)
            with progress_bar(quiet or as_json) as bar:
                task = bar.add_task(f"{track}: {n_boot:,} resamples", total=n_boot)
                with warnings.catch_warnings():  # the fit's warnings were printed above (fit_shown)
                    warnings.simplefilter("ignore", FitWarning)
                    result = bootstrap(first, part, n=n_boot, by=unit, confidence=confidence,
                                       random_state=random_state, jobs=jobs,
                                       progress=lambda done, total: bar.update(task, completed=done))
            table = drop_system(result, ANCHOR).table()
            for column in ("component", "note"):
                if column in flags:
                    table[column] = flags[column]
            notes[track] = [f"scores: {result.scale}" if result.scale else "",
                            f"{n_boot:,} resamples of {result.resampled}s"
                            + (f" ({next(iter(models))} is fitted on whole {result.resampled}s, so --resample {unit} "
                               "resamples them whole)" if result.resampled != unit else "")
                            + f"; {confidence:.0%} intervals; rank range = WMT's trimmed "
                            "range, simultaneous = valid for all systems at once"]
            notes[track] += ([result.score_note()] + [f"{v:,} {k}" for k, v in result.failed.items()]
                             + [result.too_few_note()])
            if plot:
                plot_bootstrap(table, suffix(plot), title=f"{track}: {first!r}, {n_boot:,} bootstrap resamples",
                               scale=result.scale)
        elif len(fitted) == 1:
            table, _ = set_anchor_aside(analytic_table(first, analytic, confidence, cluster, random_state)
                                        if analytic else first.ranking(), scale=scale)
            notes[track] = [f"scores: {scale}"] if scale else []
            if analytic:
                notes[track].append(analytic_note(analytic, confidence, cluster))
                notes[track].append(cluster_note(part, cluster) if cluster else "")
                few = too_few_note(judgment_count(part), confidence)
                notes[track].append(few + "; one cluster" if few else "")
            else:  # say that there are no intervals, and which neighbours are within noise (issue 27)
                notes[track].append(no_interval_note(table, part, next(iter(models))))
            if plot:
                plot_abilities(table, suffix(plot), title=f"{track}: {first!r}")
        else:
            table = pd.DataFrame({name: m.ranking()["rank"] for name, m in fitted.items()})
            table, _ = set_anchor_aside(table, tuple(fitted))
            table = table.loc[table.mean(axis=1).sort_values(kind="stable").index]
            table.index.name = "system"
            for column in ("component", "note"):
                if column in flags:
                    table[column] = flags[column]
            notes[track] = []
        notes[track].append(group_note(first))
        few = few_comparisons_warning(part)
        notes[track].append(f"warning: {few}" if few else "")
        notes[track].append(policy_notes[track])
        notes[track].append(set_anchor_aside(first.ranking(), scale=scale)[1])
        if "note" in flags:
            notes[track].append("note: scores of systems that never lost or never won rest on the prior (Bradley–"
                                "Terry family) or on the model's assumptions; their intervals are wide")
        notes[track] += [tie_bound_note(name, m) for name, m in fitted.items()]
        if chains > 1:
            notes[track] += [f"{name}: {m.convergence()}" for name, m in fitted.items() if tags(m).chains]
        if heatmap and tags(first).preference:
            plot_preference_heatmap(first, suffix(heatmap), title=f"{track}: {first!r}")
        if tags(first).judges:  # Crowd-BT: say who looks adversarial or random
            suspects = first.judges()
            suspects = suspects[suspects["flag"].isin(["adversarial", "random"])]
            notes[track].append(f"judges flagged: {len(suspects)} of {len(first.judge_flags_)}"
                                + (" — " + ", ".join(f"{j} ({f}, η = {r:.2f})" for j, (n, r, f)
                                                    in suspects.head(10).iterrows()) if len(suspects) else ""))
        if flagged[track] is not None:
            table = table.join(flagged[track])
            from humeval.ranking.reweight import provisional_note
            notes[track].append(provisional_note(*flag_rule))
        if reweight_policy:
            notes[track].append(reweight_note(reweight_policy))
        if rank_sets:
            table, note = add_rank_sets(table, first, result if n_boot else None, analytic, confidence, cluster,
                                        random_state, top_k)
            notes[track].append(note)
        results[track] = table
        if robust_by:
            robust[track], robust_notes[track] = robustness_table(first, part, robust_by)
            results[track] = table.join(fragility(robust[track]))
        if comparisons.covariate_names:
            coefficients[track] = coefficient_table(first, analytic, confidence, cluster)
    if out_file:
        frames = [t.reset_index().assign(track=name) for name, t in results.items()]
        write(stamp(pd.concat(frames, ignore_index=True)), out_file)
    if as_json:
        shown = {t: jsonable(stamp(df)) for t, df in results.items()}
        if coefficients:
            shown["(coefficients)"] = {t: jsonable(df) for t, df in coefficients.items()}
        if robust:
            shown["(robustness)"] = {t: jsonable(df) for t, df in robust.items()}
        click.echo(json.dumps(shown, indent=2))
    elif not quiet:
        for track, table in results.items():
            what = next(iter(models)) if len(models) == 1 else "rank by model"
            shown = wmt_view(table).join(table[[c for c in ("rank set", "marginal", "top1", "to flip", "provisional", "family",
                                                               "component", "note")
                                                if c in table]]) if n_boot else table
            breaks = _cluster_breaks(table) if (n_boot and clusters) else ()
            c = parts[track]
            count = (f"{plural(c.weight.sum(), 'comparison')} in {plural(len(c), 'weighted row')}" if c.weighted
                     else plural(len(c), "comparison"))
            out.print(render(shown, f"{track}: {what} ({count})", breaks=breaks))
            for note in notes.get(track, []):
                if note:
                    out.print(f"  {note}")
            out.print()
            if track in coefficients:
                print_coefficients(coefficients[track], track)
            if track in robust:
                out.print(render(robust[track].drop(columns=["row_list", "judge_list"]),  # every one: --json
                                 f"{track}: how many judgments reverse each order"))
                out.print(f"  {robust_notes[track]}\n")


def ratings_robustness_tables(ratings) -> dict:
    """Per track (and criterion, named as the ranking names them), the fewest ratings of system
    outputs (quality controls left out, as the ranking leaves them) whose removal reverses each
    adjacent pair of mean scores."""
    from humeval.experiments.robustness import ratings_robustness
    from humeval.ratings import rank_tracks
    from humeval.ratings.quality import system_ratings
    return {track: ratings_robustness(part).set_index("conclusion")
            for track, part in rank_tracks(system_ratings(ratings), ranker=lambda part: part).items()}


def sampling_policy(part, policy, rule, weight_column, file):
    """(the comparisons reweighted by --reweight, the --provisional/--siblings columns or None)."""
    from humeval.ranking.reweight import provisional_flags, reweight
    flags = provisional_flags(part, *rule)
    if policy:
        if policy.startswith("propensity") and not weight_column:
            raise click.BadParameter("propensity reads each comparison's sampling probability from the --weight "
                                     "column: add --weight COLUMN", param_hint="--reweight")
        try:
            part = reweight(part, policy)
        except ValueError as error:
            raise InputError(file, None, str(error), "give probabilities in (0, 1] in the --weight column") from None
    return part, flags


def reweight_note(policy) -> str:
    from humeval.ranking.reweight import parse_policy
    name, floor = parse_policy(policy)
    return (f"weights: each comparison of a pair 1/max(pair count, {floor:g}) (arena-rank), rescaled to the number "
            "of comparisons" if name == "pairs" else
            "weights: 1/sampling probability (the --weight column), rescaled to the number of comparisons")


def check_rank_sets(models, rank_sets, n_boot, board_by):
    """--rank-sets needs resamples (--bootstrap) or one model with an analytic covariance."""
    if not rank_sets:
        return
    if board_by:
        raise click.BadParameter("applies to the overall board, not to --board-by boards", param_hint="--rank-sets")
    first = next(iter(models.values()))
    if not n_boot and (len(models) != 1 or not tags(first).analytic):
        raise click.BadParameter("needs --bootstrap N, or one model with an analytic covariance (-m "
                                 f"{', '.join(_tagged('analytic'))})", param_hint="--rank-sets")


def add_rank_sets(table, model, result, analytic, confidence, cluster, random_state, top_k=None):
    """The table with the rank-set columns (from the resamples, else the analytic covariance; ``top_k``:
    a topK column beside top1) and the note."""
    from humeval.agreement.rankings import REFERENCE_NAMES
    from humeval.experiments.rank_sets import bootstrap_rank_sets, model_rank_sets, rank_set_columns, rank_set_note
    from humeval.ranking.boards import ANCHOR
    aside = (ANCHOR, *REFERENCE_NAMES)
    tau = (1, top_k) if top_k else (1,)
    if result is not None:
        try:
            sets, source = bootstrap_rank_sets(result, confidence, aside, tau), f"{result.n} resamples"
        except ValueError as error:  # too few resamples fitted every system
            return table, f"rank sets: none ({error}); more judgments or --bootstrap resamples give them"
    else:
        kind = analytic or "fisher"
        sets = model_rank_sets(model, kind, confidence, tau, clusters=cluster, random_state=random_state,
                               leave_out=aside)
        source = f"the {kind} covariance" + (f" clustered by {cluster}" if cluster else "")
    return table.join(rank_set_columns(sets)), rank_set_note(confidence, source, top_k)


def check_robustness(models, robust_by, board_by):
    """--robustness needs one model of the Bradley–Terry family (its influence functions) and one board."""
    if robust_by is None:
        return
    from humeval.experiments.robustness import FAMILIES
    if len(models) != 1 or type(next(iter(models.values()))).__name__ not in FAMILIES:
        raise click.BadParameter("needs one model of the Bradley–Terry family (-m bt, davidson or rao-kupper): "
                                 "its influence functions find the judgments", param_hint="--robustness")
    if board_by:
        raise click.BadParameter("applies to the overall board, not to --board-by boards", param_hint="--robustness")


def _tagged(tag: str) -> list[str]:
    """The registered models whose tag ``tag`` is set (for messages)."""
    return [name for name, (_, t) in REGISTRY.items() if getattr(t, tag)]


def check_rank_options(ctx, models, n_boot, plot, heatmap, analytic=None, rank_sets=False):
    """Refuse option combinations that would do nothing (or something else than asked)."""
    if n_boot and len(models) > 1:
        raise click.BadParameter("bootstrap one model at a time", param_hint="--model")
    needs(ctx, {"clusters": "--clusters", "resample": "--resample"}, n_boot > 0,
          "without --bootstrap (clusters and rank ranges come from the resamples)")
    needs(ctx, {"confidence": "--confidence"}, n_boot > 0 or analytic is not None or rank_sets,  # the sets' too
          "without --bootstrap, analytic --intervals or --rank-sets (it is the coverage of their intervals or sets)")
    needs(ctx, {"jobs": "--jobs", "backend": "--backend", "scheduler": "--scheduler"}, n_boot > 0,
          "without --bootstrap (only the resamples run in parallel)", warn=True)
    if len(models) > 1 and (plot or heatmap):
        raise click.UsageError(f"{'--plot' if plot else '--heatmap'} draws one model; {len(models)} were given "
                               "(the side-by-side table has ranks only): pick one with --model")
    if heatmap:
        (name, model), = models.items()
        if not tags(model).preference:
            raise click.UsageError(f"--heatmap draws a preference distribution, and {name} is a heuristic without "
                                   "one: use a model such as bt, trueskill or irt-gaussian")


def check_interval_options(ctx, intervals, cluster, n_boot) -> str | None:
    """The analytic kind asked for (fisher, sandwich) or None; refuses --intervals bootstrap
    without resamples, analytic intervals beside a bootstrap, and --cluster-by without sandwich."""
    if intervals == "bootstrap" and not n_boot:
        raise click.UsageError("--intervals bootstrap needs --bootstrap N (the resamples), e.g. --bootstrap 1000")
    if intervals in ("fisher", "sandwich") and n_boot:
        raise click.UsageError(f"--intervals {intervals} and --bootstrap {n_boot} both give the intervals: pick one "
                               "(--intervals bootstrap to keep the resamples)")
    if cluster and intervals != "sandwich":
        raise click.UsageError("--cluster-by applies to --intervals sandwich (the cluster-robust covariance)")
    return intervals if intervals in ("fisher", "sandwich") else None


def check_analytic(models, analytic, standardize):
    """Analytic intervals and style control need the Bradley–Terry family (bt, davidson,
    rao-kupper); style control and --standardize standardise the covariates (``standardize``)."""
    if analytic:
        if len(models) > 1:
            raise click.BadParameter("analytic intervals are for one model at a time", param_hint="--model")
        unable = [name for name, m in models.items() if not tags(m).analytic]
        if unable:
            raise click.BadParameter(f"{', '.join(unable)} has no analytic intervals: use "
                                     f"{', '.join(_tagged('analytic'))}, or --bootstrap", param_hint="--intervals")
    if standardize:
        for model in models.values():
            if "standardize" in model.get_params():
                model.set_params(standardize=True)


def analytic_table(model, kind, confidence, cluster, random_state) -> pd.DataFrame:
    """Per system, best first: score, std, the pointwise interval (lower, upper) and the
    simultaneous one (sim_lower, sim_upper, over the real systems: a both-bad anchor is left out of
    its critical value) from the model's analytic covariance, rank, and the WMT cluster from
    normal draws of the scores (``analytic_clusters``: the report's analytic cluster columns)."""
    from humeval.experiments.clusters import analytic_clusters
    from humeval.ranking.boards import ANCHOR, analytic_intervals
    cov = model.covariance(kind, cluster)  # once, for the intervals and the clusters
    table = analytic_intervals(model, kind, confidence, cluster, random_state, cov=cov)
    ranking = model.ranking()
    table = table.join(ranking[[c for c in ("rank", "component", "note") if c in ranking]])
    table["cluster"] = analytic_clusters(model, kind, cov, confidence, random_state, leave_out=(ANCHOR,))
    return table.loc[ranking.index]


def check_clusters(file, comparisons, cluster):
    """--cluster-by COLUMN needs that column: when no comparison has a label there (no judge column,
    no --category), the clusters would silently be the single comparisons — an error instead."""
    if (getattr(comparisons, cluster) >= 0).any():
        return
    column, give = {"judge": ("no judge column (or every judge cell is empty)", "map one with --columns judge=COL"),
                    "item": ("no item column (or every item cell is empty)", "map one with --columns item=COL"),
                    "group": ("no ranking/group column", "map one with --columns group=COL"),
                    "category": ("no category (none is read without --category)", "give --category COLUMN")}[cluster]
    raise InputError(file, None, f"{column}: --cluster-by {cluster} needs one",
                     f"{give}, or drop --cluster-by for the comparison-level sandwich")


def cluster_note(comparisons, cluster) -> str:
    """How many clusters the sandwich had (a comparison without a label is a cluster of its own,
    as ``humeval.ranking.analytic.cluster_codes`` counts it), and a warning below 10."""
    codes = getattr(comparisons, cluster)
    alone = int((codes < 0).sum())
    g = len(np.unique(codes[codes >= 0])) + alone
    said = f"{plural(g, 'cluster')} by {cluster}"
    if alone:
        said += f" ({plural(alone, 'comparison')} without a {cluster}, each a cluster of its own)"
    from humeval.ranking.analytic import MIN_CLUSTERS
    if g < MIN_CLUSTERS:
        said += (f"; a cluster-robust covariance from so few clusters (G = {g}, fewer than {MIN_CLUSTERS}) is unreliable: "
                 "its intervals tend to be too narrow")
    return said


def analytic_note(kind, confidence, cluster) -> str:
    what = {"fisher": "inverse Fisher information", "sandwich": "sandwich (robust) covariance"}[kind]
    by = f", clustered by {cluster}" if cluster else ""
    return (f"{confidence:.0%} intervals from the {what}{by}; sim_lower/sim_upper hold for all systems at once "
            "(max-|t|); cluster = WMT rank clusters from 1,000 normal draws of the scores")


def coefficient_table(model, analytic, confidence, cluster) -> pd.DataFrame:
    """The covariate coefficients (style control) with intervals: analytic, fisher unless the
    sandwich was asked for."""
    if not tags(model).covariates:
        return pd.DataFrame()
    kind = analytic or "fisher"
    table = model.coefficients(kind, confidence, cluster if kind == "sandwich" else None)
    table.attrs["standardized"] = bool(model.standardize and model.covariate_names_)
    table.attrs["scale"] = tags(model).scale  # log-odds, probit units: the link's
    return table


def tie_bound_note(name: str, model) -> str:
    """A note when a tie model's parameter stopped at its bound (|log ν|, |log η| = ``TIE_BOUND``),
    else "". At the upper bound the comparisons do not pin it down and its interval means nothing;
    at the lower bound there are (almost) no ties and the model is Bradley–Terry's."""
    from humeval.ranking.bradley_terry import TIE_BOUND
    if not tags(model).tie_parameter or abs(model.log_tie_) < TIE_BOUND - 1e-9:
        return ""
    tie, log_tie = model.tie_name_, model.log_tie_
    if log_tie > 0:
        return (f"note: {name}'s tie parameter stopped at its bound (log {tie} = {log_tie:+g}): these comparisons "
                "do not pin it down (too few, or ties explained by nothing else); its interval means nothing and the "
                "scores rest on that bound — try another tie model or more comparisons")
    return (f"note: {name}'s tie parameter is at its lower bound (log {tie} = {log_tie:+g}): the comparisons have "
            "(almost) no ties, so the model is Bradley–Terry's (bt gives the same ranking)")


def print_coefficients(table: pd.DataFrame, track: str):
    if table.empty:
        return
    unit = "per RMS unit: covariates standardised" if table.attrs.get("standardized") else "per unit, covariates as read"
    out.print(render(table, f"{track}: covariate coefficients ({table.attrs.get('scale', 'log-odds')} {unit})"))
    out.print("  the scores above hold the covariates at zero (no difference in style); a positive coefficient "
              "means judges favour the side with more of it")
    out.print()


LABEL_BOARDS = ("judge", "track", "item", "group")  # Comparisons' own label columns; any other is read as category


def board_column(board_by: str | None, category_column: str | None) -> tuple[str | None, str | None]:
    """(the Comparisons column the boards split by, the file column to read as category): --board-by
    judge/track/item/group use the table's own columns; any other name is a column of the file,
    read as the category (``category`` itself: the --category column, else the file's "category")."""
    if not board_by or board_by in LABEL_BOARDS:
        return board_by, category_column
    if category_column and board_by not in ("category", category_column):
        raise click.UsageError(f"--board-by {board_by} and --category {category_column} name two columns: boards split "
                               "by one (give --board-by category to split by the --category column)")
    return "category", category_column or board_by


def check_board_options(models, plot, heatmap, clusters):
    """Boards show one model, as tables."""
    if len(models) > 1:
        raise click.BadParameter("boards are built with one model at a time", param_hint="--model")
    for given, name in ((plot, "--plot"), (heatmap, "--heatmap"), (clusters, "--clusters")):
        if given:
            raise click.UsageError(f"{name} does not apply with --board-by (the boards are tables; --out writes them)")


def check_covariates(models, comparisons):
    """Covariates (--covariates, --style-control) need a model that fits them jointly: the
    Bradley–Terry family (a ``covariates`` parameter)."""
    if not comparisons.covariate_names:
        return
    unable = [name for name, m in models.items() if not tags(m).covariates]
    if unable:
        raise click.BadParameter(f"{', '.join(unable)} cannot fit covariates ({', '.join(comparisons.covariate_names)}):"
                                 f" style control needs {', '.join(_tagged('covariates'))} (--covariates none leaves out "
                                 "the covariates a file humeval wrote carries)", param_hint="--model")


def rank_boards(file, comparisons, models, board_by, policy, n_boot, unit, confidence, jobs, random_state, out_file,
                quiet, as_json, analytic=None, cluster=None):
    """``rank --board-by``: per track (all tracks pooled when the boards are the tracks) the overall
    board and one per value of ``board_by``, each with rank changes; bootstrap or analytic
    intervals per board."""
    from humeval.experiments import bootstrap
    from humeval.ranking.boards import ANCHOR, OVERALL, drop_system, leaderboards
    (name, model), = models.items()
    fitted_boards = []  # the boards' fitted models, the overall board's first (leaderboards fits it first)

    def board_table(fitted, part):
        fitted_boards.append(fitted)
        if analytic:
            return analytic_table(fitted, analytic, confidence, cluster, random_state)
        if not n_boot:
            return fitted.ranking()
        result = bootstrap(fitted, part, n=n_boot, by=unit, confidence=confidence, random_state=random_state,
                           jobs=jobs)
        return drop_system(result, ANCHOR).table()[["score", "lower", "upper", "rank_lo", "rank_hi"]]

    parts = {"(all tracks)": comparisons} if board_by == "track" else comparisons.by_track()
    frames, notes, coefficients = [], {}, {}
    for track, part in parts.items():
        part, policy_note = apply_both_bad(part, policy, file, track)
        fitted_boards.clear()
        try:
            with err.status(f"{track}: fitting {name} per board") if not (quiet or as_json) else nullcontext():
                long, notes[track] = leaderboards(model, part, board_by, board_table)
        except ValueError as error:
            raise InputError(file, None, f"{track}: {error}", "see the message") from None
        overall = fitted_boards[0]
        scale = overall.scale_ if tags(overall).fitted_scale else ""
        notes[track] = [f"scores: {scale}" if scale else "", policy_note, *notes[track]]
        if part.covariate_names:
            coefficients[track] = coefficient_table(overall, analytic, confidence, cluster)
        if n_boot:
            notes[track].append(f"{n_boot:,} resamples of {unit}s per board; {confidence:.0%} intervals")
        if analytic:
            notes[track].append(analytic_note(analytic, confidence, cluster) + " (per board)")
            notes[track].append("overall board: " + cluster_note(part, cluster) if cluster else "")
        frames.append(long.assign(track=track))
    table = pd.concat(frames, ignore_index=True)
    if out_file:
        write(stamp(table), out_file)
    if as_json:
        click.echo(json.dumps(jsonable(stamp(table).set_index("board")), indent=2))
        return
    if quiet:
        return
    for (track, board), shown in table.groupby(["track", "board"], sort=False):
        shown = shown.set_index("system").drop(columns=["board", "track", "overall_rank"])
        shown["rank_change"] = [_change(v) for v in shown["rank_change"]]
        n = shown["comparisons"].sum() / 2  # each comparison counts for both its systems
        last = [c for c in ("comparisons", "component", "note") if c in shown]
        shown = shown[[c for c in shown if c not in last] + last]
        out.print(render(shown.rename(columns={"rank_change": "Δ rank"}),
                         f"{track}: {name}, board {board} ({plural(n, 'comparison')})"))
        out.print()
    for track, lines in notes.items():
        for note in lines:
            if note:
                out.print(f"  {note}")
    out.print("  Δ rank = overall rank − rank on the board (+2: two places higher on this board than overall)")
    for track, table in coefficients.items():
        out.print()
        print_coefficients(table, f"{track}, board {OVERALL}")


def _change(value) -> str:
    if pd.isna(value):
        return "-"
    return f"+{value:g}" if value > 0 else ("0" if value == 0 else f"{value:g}")


def _cluster_breaks(table: pd.DataFrame) -> tuple[int, ...]:
    c = table["cluster"].to_numpy()
    return tuple(i for i in range(len(c) - 1) if c[i] != c[i + 1])


@click.command("compare-models")
@click.argument("file", type=click.Path())
@read_options
@click.option("--model", "-m", "model_names", default="preference", show_default=True, type=Names(),
              help=model_help("Preference models to compare: names"))
@click.option("--sizes", default="100,200,400,800,1600,3200", show_default=True, type=Numbers(JUDGMENTS_COUNT),
              help="Training sizes.")
@click.option("--trials", default=5, show_default=True, type=TRIALS, help="Random training subsets per size.")
@click.option("--sample", type=click.Choice(["comparison", "ranking"]), default="comparison", show_default=True,
              help="Draw training subsets as single comparisons (Hopkins & May) or as whole rankings until they "
                   "hold the size in comparisons (what a model fitted on rankings, plackett-luce, needs).")
@click.option("--min-test", default=2000, show_default=True, type=count(1),
              help="Least comparisons in each track's test set (Hopkins & May used 2,000).")
@click.option("--expert", type=click.Path(dir_okay=False),
              help="Train on FILE but test on this file's test split (Hopkins & May's Figure 5).")
@click.option("--plot", type=FIGURE_OUT, help="Draw the learning curves.")
@click.option("--out", "out_file", type=TABLE_OUT, help="Write every trial's perplexity (CSV/Parquet/JSONL).")
@click.option("--jobs", "-j", default=1, show_default=True, type=JOBS, help="Processes for the trials (0 = all cores).")
@execution_options
@click.option("--random-state", default=0, show_default=True, type=SEED, help="Seed for subsets and sampled models.")
@click.option("--tune-on", type=Names(), help="Development tracks (comma-separated): grid-search --grid on them by "
                                              "held-out perplexity, then compare the tuned model on the other tracks.")
@click.option("--grid", "grid", multiple=True, type=ParamGrid(),
              help="With --tune-on: a hyperparameter and its values, e.g. l2=0.1,1,10 (repeat for more).")
@l2_option
@drop_option
@common_options
def compare_models(file, fmt, encoding, columns, outcomes, tracks, delimiter, sql, keep, model_names, sizes, trials,
                   sample, min_test, expert, plot, out_file, jobs, random_state, tune_on, grid, l2, drop_file, quiet,
                   as_json):
    """Which model predicts held-out judgments best: Hopkins & May's learning curves.

    Per track, the test set is Hopkins & May's (comparisons of rarely judged segments, at least
    2000), each model is trained on random training subsets of each size, and the perplexity on
    the test set is averaged over trials and tracks. Lower is better; the uniform model scores 3.

    \b
    Example:
      humeval compare-models data_RNK.csv --track Czech-English --trials 2 --plot curves.png
      humeval compare-models data_RNK-public.csv --expert data_RNK.csv --track Czech-English --trials 2 --plot fig5.png
      humeval compare-models data_RNK.csv -m bt --tune-on Czech-English --grid l2=0.1,1,10 --trials 1 --sizes 400
      humeval compare-models data_RNK.csv --track Czech-English -m bt,plackett-luce --sample ranking --sizes 100,1600

    \b
    With --tune-on, one model's --grid is searched on the development tracks (each trained on its
    whole training split), the grid's perplexities and the chosen values are printed, and the
    learning curves are drawn for the tuned model on the remaining tracks.

    \b
    With --sample ranking, a training subset is whole rankings (the comparisons of one k-way
    ranking) drawn until it holds the size in comparisons; the printout gives the mean subset size.
    """

    from humeval.experiments import mean_curve, track_curves
    from humeval.report import plot_learning_curve
    models = models_named(model_names, random_state, l2)
    refuse_unused_prior(models, l2)
    not_preference = [n for n, m in models.items() if not tags(m).preference]
    if not_preference:
        raise click.BadParameter(f"{', '.join(not_preference)} are heuristics without a preference "
                                 "distribution, so they have no perplexity", param_hint="--model")
    size_list = sizes
    data = comparisons_of(load(file, fmt, encoding, columns, outcomes, tracks, quiet or as_json, None, drop_file,
                               delimiter=delimiter, sql=sql, keep=keep, single="compare-models"), file)
    if len(data) and (data.item < 0).all():
        raise InputError(file, None, "no comparison names its source segment",
                         "the test set is the comparisons of rarely judged segments: map the segment column with "
                         "--columns item=COL")
    if sample == "ranking" and len(data) and (data.group < 0).all():
        raise InputError(file, None, "--sample ranking draws whole rankings, and no comparison here belongs to one "
                         "(pairwise judgments, or a ranking id not mapped)",
                         "use --sample comparison, or map the ranking id with --columns group=COL")
    if tune_on or grid:
        data, models, tuning = _tuned(data, models, tune_on, grid, min_test, random_state, jobs, file,
                                      quiet or as_json)
    test_source = comparisons_of(load(expert, fmt, encoding, columns, outcomes, tracks, quiet or as_json, None,
                                      drop_file, delimiter=delimiter, sql=sql, keep=keep, single="compare-models"),
                                 expert) \
        if expert else data
    with progress_bar(quiet or as_json) as bar:
        task = bar.add_task("learning curves", total=None)
        try:
            curve = track_curves(data, models, size_list, trials, random_state, jobs,
                                 progress=lambda done, total: bar.update(task, completed=done, total=total),
                                 expert=test_source if expert else None, min_test=min_test, unit=sample)
        except DisconnectedError as error:  # only with --l2 0: the default prior fits any subset
            raise InputError(file, None, f"a training subset cannot be fitted: {error}",
                             "leave out --l2 0 (the default prior keeps every score finite)") from None
        except ValueError as error:
            raise InputError(file, None, str(error), "check --expert and --track") from None
    if capped_sizes(curve) and not (quiet or as_json):
        err.print(capped_sizes(curve))
    tests = curve.groupby("track")["test"].first()
    table = mean_curve(curve).sort_values(size_list[-1], kind="stable")  # best first, as the report's table
    verdict = None
    if len(models) > 1 and not expert:  # each model against the best, paired by test comparison
        from humeval.report.verdict import item_losses, paired_verdict, verdict_lines
        with nullcontext() if quiet or as_json else err.status("the verdict: per-comparison losses at the largest "
                                                                   "size …"):
            losses = item_losses(data, models, size_list, trials, random_state, min_test, sample)
        verdict = paired_verdict(losses, str(table.index[0]))
    drawn = "whole rankings" if sample == "ranking" else "random comparisons"
    if out_file:
        write(curve.assign(sample=sample), out_file)
    if plot:
        where = f"{len(tests)} track{'s' if len(tests) > 1 else ''}"
        plot_learning_curve(curve, plot, title=f"Held-out perplexity, mean over {where} and {trials} trials"
                            + (" (expert test set)" if expert else "") + f"; training: {drawn}")
    if as_json:
        shown = {"tracks": list(tests.index), "sample": sample, "mean_perplexity": jsonable(table)}
        if verdict is not None:
            shown["verdict"] = json.loads(verdict.to_json(orient="index"))  # model → its paired gap
        if tune_on:
            shown["tuning"] = {"grid": jsonable(tuning.table), "chosen": tuning.best}
        click.echo(json.dumps(shown, indent=2))
    elif not quiet:
        from humeval.report.render import number
        table.columns = [str(c) for c in table.columns]
        out.print(render(table.map(lambda v: number(v, "decimal")),  # the report's 3 decimals
                         f"mean test perplexity by training size, best first ({len(tests)} track"
                         f"{'s' if len(tests) > 1 else ''}, {trials} trials)", "model"))
        sizes_of_test = ", ".join(f"{t} {n:,}" for t, n in tests.items())
        out.print(f"test sets: {sizes_of_test}")
        fallback = sorted(curve.loc[curve["split"] != "segments", "track"].unique())
        if fallback:
            out.print(f"  {', '.join(map(str, fallback))}: {curve['split'][curve['split'] != 'segments'].iloc[0]}, "
                      "not Hopkins & May's least-judged segments")
        trained = curve.groupby("size")["train"].mean()
        out.print(f"training subsets: {drawn}" + (" until they hold the size; mean comparisons " + ", ".join(
            f"{size}: {n:,.0f}" for size, n in trained.items()) if sample == "ranking" else ""))
        if verdict is not None:
            row = verdict.iloc[0]
            out.print(f"verdict at {size_list[-1]:,} training comparisons: each model against the best, paired over "
                      f"{number(int(row['test']), 'count')} test comparisons"
                      + (f" (standard errors clustered by their {number(int(row['units']), 'count')} rankings):"
                         if row["units"] < row["test"] else ":"))
            for line in verdict_lines(verdict.loc[[str(m) for m in table.index]], table[str(size_list[-1])]):
                out.print(f"  {line}")


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
