"""``humeval ppi``: human and automatic judges together (prediction-powered inference, PPI++).

A command of its own rather than ``rank --ppi``: it needs two kinds of judge (a ``judge_kind``
column, or WMT DA beside a metric's segment scores), and none of rank's models, protocols or
bootstrap options apply to it.
"""

from __future__ import annotations

import json

import click
import numpy as np
import pandas as pd

from humeval.cli.common import (CONFIDENCE, SEED, SHARE, TABLE_OUT, Resamples, common_options, err, jsonable, load, out,
                                print_skips, read_options, render, split_judges)
from humeval.cli.judged import ratings_series as _series, with_judge_file
from humeval.data.tables import Ratings
from humeval.errors import InputError


@click.command("ppi")
@click.argument("file", required=False, type=click.Path())
@click.option("--judge", "judge_name", help="The automatic judge to combine with the humans, when the judge_kind "
              "column names several.")
@click.option("--human-label", default="human", show_default=True,
              help="The judge_kind value of human judgments.")
@click.option("--da", "da_file", type=click.Path(dir_okay=False, exists=True),
              help="Instead of FILE: WMT segment-level DA scores (the human part), with --details and --metric.")
@click.option("--details", type=click.Path(dir_okay=False, exists=True),
              help="WMT details file: DA segment ids → document and segment.")
@click.option("--metric", "metric_file", type=click.Path(dir_okay=False, exists=True),
              help="Segment-level metric scores, the automatic judge of a ratings FILE (MQM, ESA, DA) or of --da: a "
                   "WMT <METRIC>.seg.score file, or a table with the columns system, segment (or item, seg_id) and "
                   "score.")
@click.option("--refset", help="Reference set of --metric when it has several (default: the file's first).")
@click.option("--hold-out", "hold_out", type=SHARE, default=None,
              help="With --metric: keep the human scores of only this share of the units (a pre-annotation "
                   "campaign replayed), and show the all-human means beside the estimates.")
@click.option("--confidence", type=CONFIDENCE, default=0.95, show_default=True, help="Coverage of the intervals.")
@click.option("--random-state", type=SEED, default=0, show_default=True, help="Seed of --hold-out, --bootstrap and "
              "the audit's bootstrap.")
@click.option("--bootstrap", "n_boot", type=Resamples(), default=0, show_default=True,
              help="Also percentile intervals of the human-only and combined estimates from N resamples of the "
                   "prediction-powered bootstrap (human–judge pairs and judge-only units resampled apart, λ re-tuned "
                   "in each; 0 = off: the sandwich intervals only).")
@click.option("--differences", is_flag=True, help="Ratings: also the combined difference of every pair of system "
              "means with its interval and p-value, and WMT-style clusters from them.")
@click.option("--model", "-m", "model", type=click.Choice(["bt", "davidson"]), default="bt", show_default=True,
              help="Battles: Bradley–Terry with ties counted ½, or Davidson's ties model (ties an outcome of their own).")
@click.option("--audit", is_flag=True, help="Battles: also audit the judge against the humans (agreement, kappa, "
              "position and covariate biases, calibration, the systems it lifts or sinks), each with an interval.")
@click.option("--covariates", default=None, metavar="COL,…",
              help="With --audit: numeric columns of a battles file (a − b, or COL_A/COL_B for the difference of "
                   "two) whose larger value the audit checks the judge prefers more than the humans (length: verbosity).")
@click.option("--family", default=None, metavar="NAME",
              help="With --audit: the name the judge's own systems contain, for its self-preference (default: the "
                   "judge's name up to its first non-letter, e.g. gpt for gpt-4.1; '' for none).")
@click.option("--reliability", "reliability_png", type=click.Path(dir_okay=False), default=None,
              help="With --audit: draw the reliability diagram (the judge's probability against the humans' choices) "
                   "to this PNG.")
@click.option("--rank-sets", "rank_sets", is_flag=True,
              help="Battles: also the rank sets with simultaneous coverage (Chatzi et al. 2024) from the win "
                   "probabilities by the humans, the judge and PPI++, and the WMT-style clusters of the combined sets.")
@click.option("--judge-file", "judge_file", type=click.Path(dir_okay=False, exists=True), default=None,
              help="The automatic judge's labels in a file of their own (any format humeval reads, read with the "
                   "same options): FILE's judgments are then all human, matched to these by item and system pair; "
                   "--judge names the judge (default: the file's name).")
@click.option("--out", "out_file", type=TABLE_OUT, help="Write the table (with interval bounds).")
@read_options
@common_options
def ppi(file, judge_name, human_label, da_file, details, metric_file, refset, hold_out, confidence, random_state,
        n_boot, differences, model, audit, covariates, family, reliability_png, rank_sets, judge_file, out_file, fmt,
        encoding, columns, outcomes, tracks, delimiter, sql, keep, as_json, quiet):
    """Human and automatic judges together: human-only, judge-only and prediction-powered (PPI++)
    estimates side by side, with interval widths, the judge's weight λ and how many human
    judgments the judge is worth.

    FILE holds pairwise battles (Bradley–Terry abilities) or ratings (system means) with a
    judge_kind column: "human" or an automatic judge's name (or, with --judge-file, FILE is the
    humans' and the judge's labels are in a file of their own). With --metric, a ratings FILE
    (MQM, ESA, DA; or WMT DA by --da/--details) is the human part and a metric's segment scores
    the automatic judge. The combined intervals stay valid
    whatever the judge's bias (Angelopoulos et al. 2023; PPI++: Angelopoulos, Duchi & Zrnic 2023;
    battles: Boyeau et al. 2024); judge-only intervals ignore that bias and are shown for contrast.

    \b
    Example:
      humeval ppi --da ad-seg-scores-de-en.csv --details input/de-en.details.txt --metric seg-level/chrF.seg.score.de-en.tsv --hold-out 0.2
    """
    if (file is None) == (da_file is None):
        raise click.UsageError("give FILE (with a judge_kind column, or ratings with --metric) or --da with "
                               "--details and --metric")
    if audit and (metric_file is not None or as_json):
        raise click.UsageError("--audit goes with a battles FILE and the printed tables" + (_RATINGS_AUDIT if metric_file
                                                                                           else ""))
    if rank_sets and (metric_file is not None or as_json):
        raise click.UsageError("--rank-sets goes with a battles FILE and the printed tables")
    if differences and as_json:
        raise click.UsageError("--differences goes with the printed tables")
    from humeval.experiments import ppi as P
    if da_file is not None or metric_file is not None:
        if judge_file is not None:
            raise click.UsageError("--metric is the judge: give it or --judge-file, not both")
        human, human_name = _human_scores(file, da_file, details, metric_file, human_label,
                                          (fmt, encoding, columns, outcomes, tracks, quiet or as_json),
                                          delimiter, sql, keep)
        _metric_judge(P, human, human_name, da_file or file, metric_file, refset, hold_out, confidence,
                      random_state, out_file, as_json, n_boot, differences)
        return
    if hold_out is not None:
        raise click.UsageError("--hold-out goes with --metric")
    for name, value in (("--covariates", covariates), ("--family", family), ("--reliability", reliability_png)):
        if value is not None and not audit:
            raise click.UsageError(f"{name} goes with --audit")
    keep = tuple(sorted(set(keep or ()) | {"item"}))  # a streamed dataset keeps the item: battles are matched by it
    judgments = load(file, fmt, encoding, columns, outcomes, tracks, quiet,
                     reader={"covariates": covariates} if covariates else None, delimiter=delimiter, sql=sql, keep=keep)
    print_skips(judgments.report, quiet)
    table = judgments.ratings if judgments.ratings is not None and judgments.comparisons is None else \
        judgments.comparisons
    if table is None:
        raise InputError(file, None, "holds neither battles nor ratings", "ppi takes a pairwise or ratings file")
    if judge_file is not None:
        table, judge_name = with_judge_file(table, file, judge_file, judge_name, human_label,
                                            (fmt, encoding, columns, outcomes, tracks, quiet), delimiter, sql, keep)
    human_rows, judge_rows, judge_label = split_judges(table, file, human_label, judge_name, quiet)
    title = f"{file}: humans and {judge_label}"
    if isinstance(table, Ratings):
        if audit or rank_sets or model != "bt":
            raise click.UsageError("--audit, --rank-sets and --model go with battles; this file holds ratings"
                                   + (_RATINGS_AUDIT if audit else ""))
        h, j = _series(table.take(human_rows)), _series(table.take(judge_rows))
        means = P.system_means(h, j, confidence, path=file)
        boot = _means_bootstrap(h, j, n_boot, confidence, random_state, file)
        _means(means, title, None, out_file, as_json, boot, confidence)
        _extras(means, boot, differences, title, confidence, n_boot, as_json)
    else:
        if differences:
            raise click.UsageError("--differences goes with ratings (system means); this file holds battles")
        fit = P.ppi_davidson if model == "davidson" else P.ppi_bradley_terry
        result = fit(table.take(human_rows), table.take(judge_rows), path=file)
        boot = P.bootstrap_battles(result["ppi"], n_boot, confidence, random_state, file) if n_boot else None
        _battles(result, title, confidence, out_file, as_json, boot)
        _extras(None, boot, False, title, confidence, n_boot, as_json)
        if rank_sets:
            from humeval.experiments.ppi_ranks import ppi_rank_sets
            _rank_sets(ppi_rank_sets(table.take(human_rows), table.take(judge_rows), confidence, path=file), title,
                       confidence)
        if audit:
            from humeval.experiments.judge_audit import audit as audit_judge, reliability_of
            humans, judged = table.take(human_rows), table.take(judge_rows)
            summary, per_system = audit_judge(humans, judged, random_state=random_state, path=file, family=family)
            out.print(render(summary, f"{judge_label} against the humans (95% intervals)", "measure"))
            _twice_note(summary)
            out.print(render(per_system, f"{judge_label}: mean verdict for each system minus the humans' "
                             "(positive: the judge favours it)", "system"))
            diagram = reliability_of(humans, judged, path=file)
            out.print(render(diagram, f"{judge_label}: reliability (its P(a preferred) against the humans' "
                             "frequency of preferring a; Wilson 95% intervals)", "bin"))
            if reliability_png:
                from humeval.report.judges import plot_reliability
                plot_reliability(diagram, reliability_png, f"{judge_label}: reliability")
                out.print(f"  wrote {reliability_png}")


_RATINGS_AUDIT = ("; a judge of ratings is audited against the humans by the meta-evaluation: humeval metric correlate "
                  "SCORES --human RATINGS (Pearson, Kendall τ, tie-calibrated accuracy; --bootstrap N for intervals)")


def _human_scores(file, da_file, details, metric_file, human_label, options, delimiter, sql, keep):
    """The human part of a ratings-and-metric campaign, scores indexed by (item, system), and what
    to call it: WMT DA (--da with --details), or any ratings FILE a reader gives (MQM, ESA, DA
    tables; its human rows when it has a judge_kind column)."""
    if metric_file is None:
        raise click.UsageError("--da needs --details and --metric" if da_file else "FILE with --metric")
    if da_file is not None:
        if details is None:
            raise click.UsageError("--da needs --details and --metric")
        from humeval.data.readers.wmt_metrics import read_da_scores
        return read_da_scores(da_file, details)[1], "DA"
    fmt, encoding, columns, outcomes, tracks, quiet = options
    judgments = load(file, fmt, encoding, columns, outcomes, tracks, quiet, delimiter=delimiter, sql=sql, keep=keep)
    print_skips(judgments.report, quiet)
    ratings = judgments.ratings
    if ratings is None:
        raise InputError(file, None, "holds no ratings: a metric judges rated segments",
                         "give a ratings file (MQM, ESA, DA) as FILE, or battles with a judge_kind column without --metric")
    if len({ratings.tracks[t] for t in np.unique(ratings.track) if t >= 0}) > 1:
        raise InputError(file, None, "holds several tracks, whose segment ids repeat", "choose one with --track")
    if len(ratings.judge_kinds) and (ratings.judge_kind >= 0).any():
        human = [i for i, k in enumerate(ratings.judge_kinds) if k.strip().lower() == human_label.lower()]  # as split_judges
        ratings = ratings.take(np.isin(ratings.judge_kind, human))
    criteria = sorted({ratings.criteria[c] for c in np.unique(ratings.criterion) if c >= 0})
    if len(criteria) > 1:
        raise InputError(file, None, f"holds several criteria ({', '.join(criteria)}) whose scores cannot be averaged",
                         "keep one criterion's rows")
    return _series(ratings), (criteria[0] if criteria else "ratings")


def _metric_judge(P, human, human_name, human_path, metric_file, refset, hold_out, confidence, random_state,
                  out_file, as_json, n_boot=0, differences=False):
    """System means by the humans, a segment-level metric and PPI++ (``--metric``)."""
    from humeval.data.readers.wmt_metrics import read_segment_scores
    name, judge = read_segment_scores(metric_file, refset=refset)
    unscored = sorted(set(human.index.get_level_values(1)) - set(judge.index.get_level_values(1)))
    _same_segment_ids(human, judge, human_path, metric_file)
    if hold_out is None and not len(judge.index.difference(human.groupby(level=[0, 1]).mean().index)):
        raise InputError(metric_file, None, "scores no unit (segment, system) the humans did not score: nothing "
                         "for the judge to add", "pass --hold-out SHARE to replay a campaign in which humans score "
                         "only that share of the units, or score more units with the metric")
    full = None
    if hold_out is not None:
        shared = human.groupby(level=[0, 1]).mean().index.intersection(judge.index)
        if not len(shared):
            P.units(human, judge, human_path)  # the error naming both parts
        full = human.groupby(level=[0, 1]).mean().reindex(shared).groupby(level=1).mean()
        judge = judge.loc[shared]  # the replayed campaign: the units humans rated, all scored by the judge
        human = P.hold_out(human, judge, hold_out, random_state)
    table = P.system_means(human, judge, confidence, path=human_path)
    title = f"{human_path} ({human_name}) with {name} as the judge"
    boot = _means_bootstrap(human, judge, n_boot, confidence, random_state, human_path)
    _means(table, title, full, out_file, as_json, boot, confidence)
    _extras(table, boot, differences, title, confidence, n_boot, as_json)
    unscored = [s for s in unscored if s not in table.attrs["unjudged"]]  # already named by _means
    if unscored and not as_json:
        out.print(f"  left out (the judge scored none of their units): {', '.join(map(str, unscored))}")


def _same_segment_ids(human, judge, human_path, metric_file):
    """An error that says why when the humans' segment ids cannot meet a WMT metric file's: its
    items are DOCID:SEG, and a WMT DA segment-score file read as FILE numbers segments over the
    whole test set (its SID), which only --da with --details maps to documents."""
    items = lambda s: set(map(str, s.index.get_level_values(0)))  # noqa: E731
    theirs, ours = items(judge), items(human)
    if theirs & ours or not all(":" in i for i in theirs) or any(":" in i for i in ours):
        return
    raise InputError(human_path, None, f"its segment ids (e.g. {min(ours, key=len)}) and those of {metric_file} "
                     f"(DOCID:SEG, e.g. {min(theirs)}) never meet",
                     "for WMT DA segment scores pass them as --da FILE with --details (the WMT details file maps "
                     "each SID to its document and segment); otherwise write the segment column as DOCID:SEG")


def _means(table, title, full, out_file, as_json, boot=None, confidence=0.95):
    left_out, dropped = table.attrs.get("left_out", []), table.attrs.get("human_only_units", 0)
    from humeval.experiments.ppi import percent_span, small_sample_coverage
    few = small_sample_coverage(table, confidence)
    table = _with_bootstrap(table, boot)
    shown = pd.DataFrame({"human": table.human, "±": table.width_human / 2, "judge": table.judge,
                          "± ": table.judge_hi - table.judge, "combined": table.ppi, "±  ": table.width_ppi / 2,
                          "λ": table.lam, "n": table.n, "N": table.N, "worth": table.effective_n})
    if full is not None:
        table = table.assign(all_humans=full.reindex(table.index))
        shown.insert(0, "all humans", table.all_humans)
    if out_file:
        from humeval.data.export import write
        write(table.reset_index(), out_file)
    if as_json:
        click.echo(json.dumps(jsonable(table.reset_index()), indent=2))
        return
    out.print(render(shown, f"{title}: system means (± half-width)", "system"))
    n, worth = int(table.n.sum()), float(table.effective_n.sum())
    out.print(f"  {n:,} human-scored units shared with the judge, {int(table.N.sum()):,} judge-only; the combined "
              f"means are as precise as {worth:,.0f} human-scored units alone (the judge is worth {worth - n:+,.0f}).")
    if len(few):
        out.print(f"  warning: too few human-scored units for normal intervals: {', '.join(map(str, few.index))} "
                  f"(n = {', '.join(str(int(table.n[s])) for s in few.index)}); even for normally distributed scores "
                  f"their intervals cover only {percent_span(few)}, not {confidence:.0%} (Student's t): "
                  "collect more human scores for them (a larger --hold-out).")
    if dropped:
        out.print(f"  {dropped:,} human-scored units the judge did not score are left out.")
        out.print(_alone_note(int(table.all_human_n.sum()), "units", float(table.width_all_human.mean()),
                              float(table.width_ppi.mean()), "score the units humans scored"))
    out.print("  judge: the judge's own mean, on its scale and with its bias — for contrast, not for conclusions.")
    if table.attrs.get("unjudged"):
        out.print(f"  left out (the judge scored none of their units): {', '.join(map(str, table.attrs['unjudged']))}")
    if left_out:
        out.print(f"  left out (fewer than 2 human-scored units shared with the judge, or no judge-only unit): "
                  f"{', '.join(map(str, left_out))}")


def _battles(result, title, confidence, out_file, as_json, boot=None):
    frames = {k: v.intervals(confidence) for k, v in result.items()}
    ppi = result["ppi"]
    from humeval.experiments.ppi import bounded
    unbounded = [k for k, v in result.items() if not bounded(v.scores.to_numpy())]
    for kind in unbounded:  # an ability that ran off: no maximum, so neither its score nor its interval is one
        who = {"human": "the humans alone", "judge": "the judge alone", "ppi": "the combined (PPI++) fit"}[kind]
        err.print(f"[yellow]warning:[/] {who}: the abilities have no finite maximum (they spread over "
                  f"{np.ptp(result[kind].scores.to_numpy()):,.0f} logits: a system that never lost or never won in "
                  f"these battles), so those scores and intervals are not estimates; more battles of the systems "
                  f"at the ends would give them one")
    table = pd.concat({k: f for k, f in frames.items()}, axis=1)
    table.columns = [f"{k}_{c}" for k, c in table.columns]
    table = _with_bootstrap(table.sort_values("ppi_score", ascending=False), boot)
    table.index.name = "system"
    shown = pd.DataFrame({"human": table.human_score, "±": (table.human_hi - table.human_lo) / 2,
                          "judge": table.judge_score, "± ": (table.judge_hi - table.judge_lo) / 2,
                          "combined": table.ppi_score, "±  ": (table.ppi_hi - table.ppi_lo) / 2})
    if out_file:
        from humeval.data.export import write
        write(table.reset_index(), out_file)
    if as_json:
        all_human = ppi.extra.get("all_human")
        click.echo(json.dumps({"systems": jsonable(table.reset_index()), "lambda": ppi.lam, "n": ppi.n, "N": ppi.N,
                               "effective_n": None if "human" in unbounded else ppi.extra["effective_n"],
                               "unbounded": unbounded,
                               **({"all_human_n": all_human.n, "all_human_mean_width": _mean_width(all_human, confidence),
                                   "combined_mean_width": _mean_width(ppi, confidence)} if all_human else {}),
                               **({"nu": ppi.extra["nu"]} if "nu" in ppi.extra else {})}, indent=2))
        return
    name = "Davidson" if "nu" in ppi.extra else "Bradley–Terry"
    out.print(render(shown, f"{title}: {name} abilities (± half-width, {confidence:.0%})", "system"))
    worth = ppi.extra["effective_n"]
    out.print(f"  λ = {ppi.lam:.2f}; {ppi.n:,.0f} human battles the judge also judged, {ppi.N:,.0f} judge-only; "
              + ("the judge's worth in human battles is not given: it is measured against the humans' own "
                 "intervals, which have no estimate here." if "human" in unbounded else
                 f"the combined intervals are as narrow as {worth:,.0f} human battles alone (the judge is worth "
                 f"{worth - ppi.n:+,.0f})."))
    if "nu" in ppi.extra:
        out.print(f"  tie parameter ν: human {result['human'].extra['nu']:.3f}, judge {result['judge'].extra['nu']:.3f}, "
                  f"combined {ppi.extra['nu']:.3f}")
    if ppi.extra["unmatched_human"]:
        out.print(f"  {ppi.extra['unmatched_human']:,} human battles the judge did not judge are left out.")
        note = _all_human_note(ppi, confidence)
        if note:
            out.print(note)
    out.print("  judge: the judge alone, its bias ignored — for contrast, not for conclusions.")


def _mean_width(estimate, confidence) -> float:
    """Mean width of an estimate's intervals over the systems."""
    frame = estimate.intervals(confidence)
    return float((frame["hi"] - frame["lo"]).mean())


def _all_human_note(ppi, confidence) -> str | None:
    """The humans alone on all their battles beside the combined estimate, which sets aside the
    human battles the judge did not judge; a warning when the humans alone are narrower."""
    all_human = ppi.extra.get("all_human")
    if all_human is None:
        return None
    return _alone_note(all_human.n, "battles", _mean_width(all_human, confidence), _mean_width(ppi, confidence),
                       "judge the battles humans judged")


def _alone_note(n, unit, alone, combined, remedy) -> str:
    """``ppi.humans_alone``'s lines, indented as the command prints its notes."""
    from humeval.experiments.ppi import humans_alone
    return "\n".join("  " + line for line in humans_alone(n, unit, alone, combined, remedy))


def _rank_sets(sets, title, confidence):
    """Win probabilities and rank sets of the humans, the judge and PPI++ side by side, best first
    by the combined estimate, with the clusters of the combined rank sets."""
    from humeval.experiments.ppi_ranks import rank_span as span
    ppi = sets["ppi"]
    shown = pd.DataFrame({"human P(win)": sets["human"].score, "human ranks": span(sets["human"]),
                          "judge P(win)": sets["judge"].score, "judge ranks": span(sets["judge"]),
                          "combined P(win)": ppi.score, "combined ranks": span(ppi), "cluster": ppi.cluster},
                         index=ppi.index)
    if "all_human" in sets:
        shown.insert(0, "all humans ranks", span(sets["all_human"]))
    out.print(render(shown, f"{title}: rank sets, all systems at once with {confidence:.0%} coverage "
                     "(Chatzi et al. 2024)", "system"))
    out.print(f"  P(win): probability of being preferred when playing (ties ½); λ = {ppi.attrs['lam']:.2f}; "
              f"clusters: WMT's rule on the combined rank sets ({ppi.cluster.max()} "
              f"cluster{'s' if ppi.cluster.max() > 1 else ''}).")
    if "all_human" in sets:
        alone, combined = (float((t["upper"] - t["lower"] + 1).mean()) for t in (sets["all_human"], ppi))
        out.print(f"  all humans ranks: the humans alone on all their battles, those the judge did not judge included; "
                  f"human and combined: on the battles both judged. Mean rank set size: all humans {alone:.2f}, "
                  f"combined {combined:.2f}.")
        if alone < combined:
            out.print("  warning: the humans alone give the tighter rank sets here — the judge judged too few of the "
                      "human battles for PPI++ to gain from it; have the judge judge the battles humans judged.")
    out.print("  judge ranks: the judge alone, its bias ignored — for contrast, not for conclusions.")


def _means_bootstrap(human, judge, n_boot, confidence, random_state, path):
    """``bootstrap_system_means`` when --bootstrap asks for it, else None."""
    if not n_boot:
        return None
    from humeval.experiments.ppi import bootstrap_system_means
    return bootstrap_system_means(human, judge, n_boot, confidence, random_state, path=path)


def _with_bootstrap(table, boot):
    """The table with the bootstrap bounds as columns boot_human_lo, boot_human_hi, boot_ppi_lo,
    boot_ppi_hi (for --json and --out)."""
    if boot is None:
        return table
    bounds = boot[["human_lo", "human_hi", "ppi_lo", "ppi_hi"]].add_prefix("boot_")
    return table.join(bounds)


def _extras(means, boot, differences, title, confidence, n_boot, as_json):
    """The printed --bootstrap and --differences tables."""
    if as_json:
        return
    if boot is not None:
        shown = pd.DataFrame({"human lo": boot.human_lo, "human hi": boot.human_hi, "combined": boot.ppi,
                              "combined lo": boot.ppi_lo, "combined hi": boot.ppi_hi}, index=boot.index)
        if means is not None:
            shown = shown.reindex(means.index)
        else:
            shown = shown.sort_values("combined", ascending=False)
        out.print(render(shown, f"{title}: {confidence:.0%} bootstrap percentile intervals ({n_boot:,} resamples: "
                         "human–judge pairs and judge-only units resampled apart, λ re-tuned in each)", "system"))
    if differences:
        from humeval.experiments.ppi import difference_clusters, mean_differences
        d = mean_differences(means, confidence)
        cluster = difference_clusters(means, d, confidence)
        shown = pd.DataFrame({"better": d.better, "worse": d.worse, "combined": d.ppi, "lo": d.ppi_lo, "hi": d.ppi_hi,
                              "p": d.ppi_p, "human": d.human, "human lo": d.human_lo, "human hi": d.human_hi,
                              "human p": d.human_p})
        out.print(render(shown.set_index("better"), f"{title}: differences of system means ({confidence:.0%} "
                         "intervals, two-sided p)", "better"))
        out.print(render(pd.DataFrame({"combined": means.ppi, "cluster": cluster}), "clusters", "system"))
        out.print(f"  clusters: WMT's rule on the combined differences (a line falls where every system above beats "
                  f"every system below, p < {1 - confidence:.2g}).")
        out.print("  The systems' units are treated as independent samples: when they scored the same segments the "
                  "intervals and p-values are conservative.")


def _twice_note(summary):
    """Say so when the swapped-order check had nothing to check."""
    if not summary.attrs.get("judged_twice"):
        out.print("  swapped orders: the judge judged no battle in both orders (same item and pair, a and b "
                  "swapped), so its position consistency is not measured; judge each battle twice, once each way "
                  "(as Arena-Hard-Auto does), to measure it.")
