"""``humeval metric …``: automatic metrics, their agreement with humans, and METEOR-NEXT tuning."""

from __future__ import annotations

import json
from pathlib import Path

import click
import numpy as np
import pandas as pd

from humeval.cli.common import (
    progress_bar,
    third_party_notes,
    CONFIDENCE,
    SEED,
    SHARE,
    TABLE_OUT,
    Grid,
    Names,
    Renamed,
    Resamples,
    common_options,
    comparisons_of,
    explicit,
    jsonable,
    load,
    needs,
    out,
    read_options,
    render,
)
from humeval.data.export import write
from humeval.errors import InputError


@click.group()
@click.pass_context
def metric(ctx):
    """Automatic metrics: scores (sacrebleu baselines, METEOR-NEXT), HTER, correlation with humans, tuning."""
    ctx.call_on_close(third_party_notes(("sacrebleu",)))


def _lines(path) -> list[str]:
    from humeval.data.readers._io import read_text
    return read_text(path).rstrip("\n").split("\n")


TOKENIZERS = ("none", "zh", "13a", "intl", "char", "ja-mecab", "ko-mecab")  # spm/flores download models


def _tokenizer_installed(ctx, param, value):
    """ja-mecab and ko-mecab need sacrebleu's extras: say so while parsing, not after reading."""
    if value in ("ja-mecab", "ko-mecab"):
        from sacrebleu.metrics.bleu import BLEU
        try:
            BLEU(tokenize=value)
        except (ImportError, RuntimeError):
            raise click.BadParameter(f"{value} needs sacrebleu's extras: pip install sacrebleu[{value[:2]}]",
                                     ctx, param) from None
    return value


def _one_of(known):
    """A callback checking a value (or each of a comma-separated list) against ``known()``, which
    imports what it needs only when the command runs."""
    def check(ctx, param, value):
        choices = list(known())
        wrong = [v for v in str(value).split(",") if v.strip() not in choices]
        if wrong:
            raise click.BadParameter(f"{', '.join(map(repr, wrong))} is not one of {', '.join(choices)}", ctx, param)
        return value
    return check


def _presets():
    from humeval.metrics.meteor import PRESETS
    return PRESETS


def _matchers():
    from humeval.metrics.meteor import MATCHERS
    return MATCHERS


def _languages():
    import snowballstemmer
    return snowballstemmer.algorithms()


def meteor_options(f):
    for option in reversed([
        click.option("--preset", default="rank-en", show_default=True, callback=_one_of(_presets),
                     help="METEOR parameters: rank-en, universal or next (METEOR 1.5 / 2010 settings)."),
        click.option("--matchers", default="exact,stem,synonym", show_default=True, type=Names(),
                     callback=_one_of(_matchers),
                     help="METEOR matchers: exact, stem, synonym (WordNet), paraphrase (needs --paraphrase)."),
        click.option("--language", default="english", show_default=True, callback=_one_of(_languages),
                     help="Snowball stemmer language."),
        click.option("--wordnet", type=click.Path(file_okay=False),
                     help="WordNet 3.0 database directory (default: $HUMEVAL_WORDNET or /usr/share/wordnet)."),
        click.option("--paraphrase", "paraphrase_table", type=click.Path(dir_okay=False),
                     help="A METEOR paraphrase table (gzip: probability, phrase, paraphrase lines)."),
        click.option("--tokenize", default="13a", show_default=True, type=click.Choice(TOKENIZERS),
                     callback=_tokenizer_installed,
                     help="sacrebleu tokenizer applied before matching; 'none' for tokenised text."),
    ]):
        f = option(f)
    return f


def make_meteor(preset, matchers, language, wordnet, paraphrase_table, tokenize, **_):
    from humeval.metrics.meteor import ENGLISH_FUNCTION_WORDS, Meteor
    chosen = tuple(m.strip() for m in matchers.split(",") if m.strip())
    if not language.startswith("en") and "synonym" in chosen:
        chosen = tuple(m for m in chosen if m != "synonym")  # WordNet is English
    function_words = ENGLISH_FUNCTION_WORDS if language.startswith("en") else frozenset()
    try:
        return Meteor(params=preset, matchers=chosen, language=language, wordnet=wordnet,
                      paraphrase_table=paraphrase_table, tokenize=tokenize, function_words=function_words)
    except ValueError as e:  # the table or the database is missing or unreadable
        hint = "--wordnet" if "WordNet" in str(e) else "--paraphrase" if "paraphrase" in str(e) else "--matchers"
        raise click.BadParameter(str(e), param_hint=hint) from None


def meteor_statistics(scorer, hyps, refs, label, quiet):
    with progress_bar(quiet) as bar:
        task = bar.add_task(f"aligning {label}", total=len(hyps))
        return scorer.statistics(hyps, refs, progress=lambda k: bar.advance(task, k))


@metric.command("score")
@click.option("--hyp", "hyp_file", required=True, type=click.Path(dir_okay=False), help="Hypotheses, one per line.")
@click.option("--ref", "ref_files", required=True, multiple=True, type=click.Path(dir_okay=False),
              help="References, one per line (repeat for several references).")
@click.option("--metrics", default="bleu,chrf,chrf++,ter", show_default=True, type=Names(),
              help="Any of bleu, chrf, chrf++, ter, meteor.")
@meteor_options
@click.option("--out", "out_file", type=TABLE_OUT, help="Write the segment scores.")
@common_options
def metric_score(hyp_file, ref_files, metrics, out_file, quiet, as_json, **meteor_settings):
    """Corpus and segment scores (sacrebleu's metrics and METEOR-NEXT), each with its signature.

    \b
    Example:
      humeval metric score --hyp dev.mt --ref dev.pe --metrics bleu,ter,meteor
    """
    from humeval.metrics import bleu, chrf, ter
    hyps = _lines(hyp_file)
    refs = [_lines(r) for r in ref_files]
    for path, stream in zip(ref_files, refs):
        if len(stream) != len(hyps):
            raise InputError(path, min(len(stream), len(hyps)) + 1,
                             f"{len(stream)} lines, but {hyp_file} has {len(hyps)}", "the files must be line-aligned")
    runners = {"bleu": lambda: bleu(hyps, refs), "chrf": lambda: chrf(hyps, refs),
               "chrf++": lambda: chrf(hyps, refs, word_order=2), "ter": lambda: ter(hyps, refs),
               "meteor": lambda: _meteor_scores(meteor_settings, hyps, refs, hyp_file, quiet or as_json)}
    names = [m.strip().lower() for m in metrics.split(",")]
    unknown = [m for m in names if m not in runners]
    if unknown:
        raise click.BadParameter(f"unknown metrics {unknown}; choose from {', '.join(runners)}", param_hint="--metrics")
    needs(click.get_current_context(), {"preset": "--preset", "matchers": "--matchers", "language": "--language",
                                        "wordnet": "--wordnet", "paraphrase_table": "--paraphrase",
                                        "tokenize": "--tokenize"}, "meteor" in names, "unless --metrics has meteor")
    results = {n: runners[n]() for n in names}
    if out_file:
        write(pd.DataFrame({r.name: r.segment for r in results.values()}), out_file)
    table = pd.DataFrame({"corpus": [r.corpus for r in results.values()],
                          "signature": [r.signature for r in results.values()]},
                         index=pd.Index([r.name for r in results.values()], name="metric"))
    if as_json:
        click.echo(json.dumps(jsonable(table), indent=2))
    elif not quiet:
        out.print(render(table, f"{hyp_file}: {len(hyps):,} segments, {len(refs)} reference(s)", "metric"))


def _meteor_scores(settings, hyps, refs, label, quiet):
    scorer = make_meteor(**settings)
    return scorer.score(meteor_statistics(scorer, hyps, refs, label, quiet))


@metric.command("hter")
@click.argument("file", type=click.Path())
@read_options
@click.option("--out", "out_file", type=TABLE_OUT, help="Write HTER per (item, system).")
@common_options
def metric_hter(file, fmt, encoding, columns, outcomes, tracks, delimiter, sql, keep, out_file, quiet, as_json):
    """HTER: TER of each output against its post-edit, the minimum over post-editors.

    \b
    Example:
      humeval metric hter mlqe-pe/en-de/post-editing/dev.mt
    """
    from humeval.metrics import hter
    judgments = load(file, fmt, encoding, columns, outcomes, tracks, quiet or as_json,
                     delimiter=delimiter, sql=sql, keep=keep)
    if judgments.post_edits is None:
        raise InputError(file, None, "holds no post-edits", "hter needs outputs and their post-edits")
    edits = judgments.post_edits
    if not any(h is not None and p is not None for h, p in zip(edits.hypothesis, edits.post_edit)):
        raise InputError(file, None, f"none of its {len(edits):,} post-edit rows has both the MT output and its "
                         "post-edit (a WMT10 EDIT row carries only the edit; BAD rows no post-edit)",
                         "hter needs outputs and their post-edits, e.g. an MLQE-PE .mt/.pe pair or a WMT10 "
                         "data_EDT.tsv with OK/BAD rows of the edited segments")
    result = hter(edits)
    if out_file:
        write(result.reset_index(), out_file)
    tracks = result.index.get_level_values("track").nunique() > 1  # systems of several tracks: one row each
    per_system = result.groupby(["track", "system"] if tracks else "system", dropna=False)["hter"].agg(["count", "mean"])
    if tracks:
        per_system.index = [f"{track}: {system}" for track, system in per_system.index]
    unedited = sum(p is not None and h is None for h, p in zip(edits.hypothesis, edits.post_edit))
    if as_json:
        click.echo(json.dumps({"systems": jsonable(per_system), "skipped": result.attrs["skipped"],
                               "signature": result.attrs["signature"]}, indent=2))
    elif not quiet:
        out.print(render(per_system, f"{file}: mean HTER per system", "track: system" if tracks else "system"))
        out.print(f"  {result.attrs['signature']}; {result.attrs['skipped']:,} rows without an output or a post-edit "
                  "left out" + (f" ({unedited:,} post-edits whose output the file does not carry)" if unedited else ""))


AVERAGE_BY = ("none", "item", "system")
STATISTICS = ("pearson", "spearman", "kendall", "acc_eq", "tau_eq")


@metric.command("correlate")
@click.argument("metric_files", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--human", "human_file", type=click.Path(dir_okay=False),
              help="Human scores: a WMT DA file (system or segment level).")
@click.option("--details", type=click.Path(dir_okay=False), help="Segment ids → document and segment (seg level).")
@click.option("--mtme", "mtme_dir", type=click.Path(file_okay=False, exists=True),
              help="Instead of files: an mt-metrics-eval test-set directory (sources/, references/, system-outputs/, "
                   "human-scores/, metric-scores/), or a folder of such test sets (then --lp TESTSET/LP).")
@click.option("--lp", help="Language pair in --mtme, e.g. de-en or wmt20/de-en.")
@click.option("--human-name", help="Human scores in --mtme: mqm, esa, wmt-z, wmt-raw, … (default: the first of these present).")
@click.option("--level", type=click.Choice(["seg", "sys"]), default="seg", show_default=True,
              help="Level of the --mtme scores to correlate.")
@click.option("--refset", help="Reference set to use when a file has several (default: the one named like the "
                                "test set, e.g. newstest2020, as WMT's tables; else the file's first).")
@click.option("--exclude", "exclude_systems", multiple=True, help="Leave out this system (repeatable), e.g. human ones.")
@click.option("--exclude-outliers", is_flag=True,
              help="System level: leave out the systems whose human score is more than 2.5 × 1.4826 MAD from the "
                   "median (WMT20's outlier rule; its tables give Pearson with and without them).")
@click.option("--darr", is_flag=True,
              help="Segment level: add WMT's Kendall-like τ on DArr pairs (outputs of one segment whose raw DA "
                   "scores differ by ≥ 25, as WMT19–20), built from --human's RAW.SCR.")
@click.option("--average-by", type=click.Choice(AVERAGE_BY), default="none", show_default=True,
              help="Segment level: one statistic over all (segment, system) scores, or per item (across systems) "
                   "or per system (across items) and averaged, as mt-metrics-eval.")
@click.option("--significance", type=click.Choice(["permutation", "bootstrap"]),
              help="Test every pair of metrics on --statistic and add WMT's clusters (rank) and wins.")
@click.option("--statistic", type=click.Choice(STATISTICS), default="pearson", show_default=True,
              help="Statistic the table is sorted and --significance is tested on (acc_eq/tau_eq: tie-calibrated).")
@click.option("--test-resamples", "n_resamples", cls=Renamed, old=("--resamples",), type=Resamples(off=False),
              default=1000, show_default=True, help="Resamples of --significance (and permutations of --spa, --pce).")
@click.option("--alpha", type=SHARE, default=0.05, show_default=True, help="Significance level of the clusters.")
@click.option("--acc-eq/--no-acc-eq", "tie_accuracy", default=True, show_default=True,
              help="Add pairwise accuracy with tie calibration (acc_eq and its threshold ε).")
@click.option("--spa", is_flag=True,
              help="Segment level: soft pairwise accuracy of the systems (Thompson et al. 2024; --test-resamples "
                   "permutations).")
@click.option("--pce", is_flag=True,
              help="Segment level: pairwise confidence error of the systems, mean |p_human − p_metric| = 1 − SPA "
                   "(mt-metrics-eval's pce.py; --test-resamples permutations).")
@click.option("--bootstrap", "n_boot", type=Resamples(), default=0, show_default=True,
              help="Resamples for percentile intervals of Pearson's r (0: none).")
@click.option("--confidence", type=CONFIDENCE, default=0.95, show_default=True,
              help="Coverage of the intervals (needs --bootstrap).")
@click.option("--williams/--no-williams", default=True, show_default=True,
              help="Williams' test: is the top metric's Pearson r higher than each other's? (--average-by none)")
@click.option("--random-state", type=SEED, default=0, show_default=True)
@click.option("--out", "out_file", type=TABLE_OUT, help="Write the table.")
@click.option("--pvalues", "pvalues_file", type=TABLE_OUT, help="Write the metric-pair p-values of --significance.")
@common_options
def metric_correlate(metric_files, human_file, details, mtme_dir, lp, human_name, level, refset, exclude_systems,
                     exclude_outliers, darr, average_by, significance, statistic, n_resamples, alpha, tie_accuracy, spa, pce, n_boot,
                     confidence, williams, random_state, out_file, pvalues_file, quiet, as_json):
    """How well each metric agrees with the human scores, as the WMT metrics tasks report it:
    Pearson, Kendall τ and pairwise accuracy with tie calibration (acc_eq, Deutsch et al. 2023),
    at segment level optionally averaged by item or system (--average-by, as mt-metrics-eval);
    at system level also pairwise accuracy (Kocmi et al. 2021). --significance tests every pair of
    metrics (permutation as mt-metrics-eval's PERM-BOTH, or bootstrap) and groups them into
    significance clusters; --bootstrap adds percentile intervals of r; Williams' test (Graham &
    Baldwin 2014) gives the one-sided p-value that the top metric correlates better than each other one.
    WMT20's own procedure: --exclude-outliers (its MAD rule; its tables report system-level Pearson
    with and without the outliers) and, at segment level, --darr (Kendall-like τ on DArr pairs).
    Input: METRIC_FILES in the WMT metrics-task layout with --human, or --mtme DIR --lp LP.

    \b
    Example:
      humeval metric correlate sys-level/*.tsv --human manual-evaluation/ad-sys-scores-de-en.csv
      humeval metric correlate sys-level/*.tsv --human manual-evaluation/ad-sys-scores-de-en.csv --exclude-outliers
      humeval metric correlate seg-level/*.tsv --human manual-evaluation/ad-seg-scores-de-en.csv \\
          --details input/de-en.details.txt --average-by item --significance permutation
      humeval metric correlate seg-level/*.tsv --human manual-evaluation/ad-seg-scores-de-en.csv \\
          --details input/de-en.details.txt --darr
      humeval metric correlate --mtme mt-metrics-eval-v2/wmt22 --lp en-de --human-name mqm --average-by item
    """
    from humeval.metaeval.table import correlation_table, mtme_table
    ctx = click.get_current_context()
    needs(ctx, {"confidence": "--confidence"}, n_boot > 0, "without --bootstrap")
    needs(ctx, {"alpha": "--alpha"}, significance is not None, "without --significance")
    needs(ctx, {"n_resamples": "--test-resamples"}, significance is not None or spa or pce,
          "without --significance, --spa or --pce")
    needs(ctx, {"random_state": "--random-state"}, n_boot > 0 or significance is not None or spa or pce,
          "without --bootstrap, --significance, --spa or --pce")
    if mtme_dir:
        needs(ctx, {"darr": "--darr"}, False, "with --mtme (it needs a WMT DA segment file's raw scores)")
        if metric_files or human_file or details:
            raise click.UsageError("give either --mtme DIR or METRIC_FILES with --human, not both")
        if not lp:
            raise click.BadParameter("--mtme needs the language pair", param_hint="--lp")
    else:
        needs(ctx, {"lp": "--lp", "human_name": "--human-name", "level": "--level"}, False, "without --mtme")
        if not metric_files or not human_file:
            raise click.UsageError("give METRIC_FILES and --human FILE (or --mtme DIR --lp LP)")
    options = {"average_by": average_by, "significance": significance, "statistic": statistic,
               "n_resamples": n_resamples, "alpha": alpha, "tie_accuracy": tie_accuracy, "spa": spa, "pce": pce,
               "n_boot": n_boot, "confidence": confidence, "williams": williams, "random_state": random_state,
               "exclude_outliers": exclude_outliers}
    if mtme_dir:
        level, table, notes = mtme_table(mtme_dir, lp, human_name, level, refset, exclude_systems, **options)
        skipped, source = [], f"{mtme_dir} {lp}"
    else:
        level, table, skipped = correlation_table(metric_files, human_file, details, refset, exclude_systems,
                                                  darr=darr, **options)
        notes, source = table.attrs.get("notes", []), Path(human_file).name
    pvalues = table.attrs.get("pvalues")
    if out_file:
        write(table.reset_index(), out_file)
    if pvalues_file and pvalues is not None:
        write(pvalues.reset_index(), pvalues_file)
    if as_json:
        payload = {"level": level, "average_by": average_by, "metrics": jsonable(table), "skipped": skipped,
                   "notes": notes}
        if pvalues is not None:
            payload["pvalues"] = jsonable(pvalues)
        click.echo(json.dumps(payload, indent=2))
    elif not quiet:
        out.print(render(table, f"{level}-level agreement with {source}"
                         + (f" (averaged by {average_by})" if average_by != "none" else ""), "metric"))
        for note in notes:
            out.print(f"  {note}")
        if skipped:
            out.print(f"  skipped {len(skipped)} files of the other level: {', '.join(skipped[:5])}"
                      + (" …" if len(skipped) > 5 else ""))


@metric.command("compare")
@click.option("--baseline", required=True,
              help="The baseline: a file of hypotheses (with --ref), or a system name (with --scores or --ratings).")
@click.option("--system", "systems", multiple=True,
              help="A system to test against the baseline: hypotheses file or name (repeatable; default with "
                   "--scores/--ratings: every other system).")
@click.option("--ref", "ref_files", multiple=True, type=click.Path(dir_okay=False),
              help="References, one per line (repeat for several references).")
@click.option("--metrics", default="bleu,chrf,ter", show_default=True, type=Names(),
              help="With --ref: any of bleu, chrf, chrf++, ter (recomputed from resampled sufficient statistics).")
@click.option("--scores", "scores_file", type=click.Path(dir_okay=False),
              help="Instead of texts: a segment-level metric score file (WMT TSV or mt-metrics-eval .seg.score); "
                   "the corpus score is the mean.")
@click.option("--ratings", "ratings_file", type=click.Path(dir_okay=False),
              help="Instead of texts: a human ratings file (DA, MQM, ESA); the same paired tests on segment scores.")
@click.option("--test", type=click.Choice(["bs", "ar"]), default="bs", show_default=True,
              help="Paired bootstrap resampling (bs) or approximate randomisation (ar), as sacrebleu.")
@click.option("--test-resamples", "n_resamples", cls=Renamed, old=("--resamples",), type=Resamples(off=True), default=0,
              show_default=True, help="Resamples or trials of --test (0: sacrebleu's defaults, 1,000 for bs and 10,000 "
              "for ar).")
@click.option("--alpha", type=SHARE, default=0.05, show_default=True, help="Significance level marked in the table.")
@click.option("--random-state", type=SEED, default=12345, show_default=True, help="Seed (sacrebleu's default 12345).")
@click.option("--out", "out_file", type=TABLE_OUT, help="Write the table.")
@common_options
def metric_compare(baseline, systems, ref_files, metrics, scores_file, ratings_file, test, n_resamples, alpha,
                   random_state, out_file, quiet, as_json):
    """Is each system's score significantly different from the baseline's? sacrebleu's paired
    tests (--paired-bs / --paired-ar): BLEU, chrF, TER recomputed from resampled segment statistics;
    any segment-level metric score file (--scores); or human ratings (--ratings: paired bootstrap
    or sign-flip permutation on segment scores, humeval.ratings.significance, two-sided).

    \b
    Example:
      humeval metric compare --baseline base.txt --system new.txt --ref ref.txt --test ar
      humeval metric compare --scores seg-level/chrF.seg.score.de-en.tsv --baseline Online-A.1571
      humeval metric compare --ratings mqm_newstest2020_ende.avg_seg_scores.tsv --baseline Online-A.1574
    """
    from humeval.metaeval.compare import compare_ratings, compare_scores, compare_texts
    sources = [bool(ref_files), bool(scores_file), bool(ratings_file)]
    if sum(sources) != 1:
        raise click.UsageError("give exactly one of --ref (with hypothesis files), --scores or --ratings")
    needs(click.get_current_context(), {"metrics": "--metrics"}, bool(ref_files), "without --ref")
    if ref_files:
        if not systems:
            raise click.BadParameter("give the hypotheses of at least one system", param_hint="--system")
        names = [m.strip().lower() for m in metrics.split(",") if m.strip()]
        unknown = [m for m in names if m not in ("bleu", "chrf", "chrf++", "ter")]
        if unknown:
            raise click.BadParameter(f"unknown metrics {unknown}; choose from bleu, chrf, chrf++, ter",
                                     param_hint="--metrics")
        hyps = {path: _lines(path) for path in (baseline, *systems)}
        refs = [_lines(r) for r in ref_files]
        for path, stream in [*hyps.items(), *zip(ref_files, refs)]:
            if len(stream) != len(refs[0]):
                raise InputError(path, min(len(stream), len(refs[0])) + 1,
                                 f"{len(stream)} lines, but {ref_files[0]} has {len(refs[0])}",
                                 "the files must be line-aligned")
        from humeval.metrics.baselines import corpus_statistics
        table, notes = compare_texts(hyps, baseline, refs, names, corpus_statistics, test, n_resamples, random_state)
    elif scores_file:
        table, notes = compare_scores(scores_file, baseline, systems, test, n_resamples, random_state)
    else:
        judgments = load(ratings_file, quiet=quiet or as_json)
        table, notes = compare_ratings(judgments, ratings_file, baseline, systems, test, n_resamples, random_state)
    table["significant"] = table["p"] < alpha
    if out_file:
        write(table.reset_index(), out_file)
    if as_json:
        click.echo(json.dumps({"comparisons": jsonable(table), "notes": notes}, indent=2))
    elif not quiet:
        out.print(render(table, f"Paired {'bootstrap' if test == 'bs' else 'approximate randomisation'} "
                                f"against {Path(baseline).name}", "system"))
        for note in notes:
            out.print(f"  {note}")


def _human_scores(path, column: str, n: int, named: bool = False) -> np.ndarray:
    """One human score per segment: a file of numbers, one per line, or a table with a header
    (MLQE-PE's DA files: the ``column``, default ``mean``). ``named``: the user gave the column,
    so a file without columns is an error rather than a silently ignored option."""
    lines = _lines(path)
    first = lines[0].split("\t") if lines else []
    if named and len(first) <= 1:
        raise InputError(path, 1, f"one number per line, so --human-column {column} names nothing",
                         "leave out --human-column for such files")
    if len(first) > 1 and column in first:
        k = first.index(column)
        values, body, start = [], lines[1:], 2
    else:
        k, body, start = 0, lines, 1
        if len(first) > 1:
            raise InputError(path, 1, f"no column {column!r} among {', '.join(first)[:120]}",
                             "give one number per line, or name the column with --human-column")
    values = []
    for number, line in enumerate(body, start):
        cell = line.split("\t")[k].strip() if line.strip() else ""
        try:
            values.append(float(cell) if cell not in ("", "None", "nan", "NA") else np.nan)
        except ValueError:
            raise InputError(path, number, f"{cell[:40]!r} is not a number", "one score per line (blank or None if missing)") from None
    if len(values) != n:
        raise InputError(path, None, f"{len(values)} scores for {n} hypotheses", "the human scores must be line-aligned")
    return np.array(values)


def _parse_set(spec: str) -> tuple[str, list[str], bool]:
    name, sep, files = spec.partition("=")
    parts = [p for p in files.split(",") if p]
    lower = bool(parts) and parts[-1].lower() == "lower"
    if lower:
        parts = parts[:-1]
    if not sep or len(parts) != 3:
        raise click.BadParameter(f"{spec!r}: expected NAME=HYP,REF,HUMAN[,lower]", param_hint="--data")
    return name, parts, lower


def _grid_axis(text):
    """'0:1:0.1' (start:stop:step, inclusive) or '0.2,0.5,0.8' (already parsed by ``Grid``)."""
    return None if text is None else Grid().convert(text, None, None)


def _system_outputs(folder, systems) -> dict[str, list[str]]:
    """Each system's output lines from the file in ``folder`` named by the system id (with or
    without an extension); systems without such a file are left out (the caller counts them)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(folder, None, "is not a folder of system outputs",
                         "name a folder holding one file per system, named by the system id")
    files = sorted(p for p in folder.iterdir() if p.is_file())
    by_name = {**{p.stem: p for p in files}, **{p.name: p for p in files}}
    found = {s: _lines(by_name[s]) for s in systems if s in by_name}
    if not found:
        raise InputError(folder, None, f"no file is named by a system of the rankings "
                                       f"({', '.join(list(systems)[:5])}{' …' if len(systems) > 5 else ''})",
                         "name each system's output file by its system id as the rankings file writes it")
    return found


def _consistency_set(name, outputs_dir, ref_file, rankings_file, conflicts, scorer, quiet):
    """A rank-consistency tuning set: the rankings file's comparisons (of track NAME when it
    holds several), ties left out, joined to the outputs and the reference."""
    from humeval import read
    from humeval.agreement import resolve_conflicts
    from humeval.metrics.tuning import consistency_set, ranking_segments
    comparisons = comparisons_of(read(rankings_file), rankings_file)
    parts = comparisons.by_track()
    if len(parts) > 1:
        if name not in parts:
            raise InputError(rankings_file, None, f"holds {len(parts)} tracks, and the set's name {name!r} is none "
                                                  "of them", f"name the set by its track: one of {', '.join(parts)}")
        comparisons = parts[name]
    resolved = 0
    if conflicts != "keep":
        comparisons, resolved = resolve_conflicts(comparisons, across_judges=conflicts == "tie-across-judges")
    segments = ranking_segments(comparisons, _system_outputs(outputs_dir, comparisons.systems), _lines(ref_file))
    if resolved:
        segments.left_out[f"conflicting pairs of judgments made ties ({conflicts})"] = resolved
    stats = meteor_statistics(scorer, segments.hypotheses, segments.references, name, quiet)
    try:
        return consistency_set(name, segments, stats), segments
    except ValueError as error:
        raise InputError(rankings_file, None, str(error), "check that the outputs and the rankings name the same "
                                                          "systems and segments") from None


@metric.command("tune")
@click.option("--data", "specs", multiple=True, required=True, metavar="NAME=HYP,REF,HUMAN[,lower]",
              help="A tuning set. --objective pearson: hypotheses, references and human scores (one per line, "
                   "or a DA .tsv); ',lower' when lower human scores are better (HTER). --objective consistency: "
                   "NAME=OUTPUTS,REF,RANKINGS: a folder of system outputs (one file per system, named by its id), "
                   "the reference, and a WMT rankings file (NAME picks its track if it holds several). Repeat for "
                   "several sets.")
@click.option("--human-column", default="mean", show_default=True, help="Column of tabular human-score files.")
@click.option("--objective", type=click.Choice(["pearson", "consistency"]), default="pearson", show_default=True,
              help="Length-weighted Pearson r (the paper's objective for adequacy and HTER), or rank consistency "
                   "with ranking judgments (the share of non-tied human pairs the metric orders alike; for WMT "
                   "rankings).")
@click.option("--conflicts", type=click.Choice(["keep", "tie", "tie-across-judges"]), default="keep",
              show_default=True,
              help="With consistency: turn each pair of conflicting judgments of one system pair on one segment "
                   "into a tie (then discarded) — by one judge, or across judges (Denkowski & Lavie 2010, §3.2).")
@click.option("--alpha", type=Grid(0, 1), help="Grid for α, start:stop:step or a,b,c (default 0:1:0.1).")
@click.option("--beta", type=Grid(0), help="Grid for β (default 0:3:0.5).")
@click.option("--gamma", type=Grid(0, 1), help="Grid for γ (default 0:1:0.1).")
@click.option("--delta", type=Grid(0, 1), help="Grid for δ, the content-word weight (default 0.5: no function-word split).")
@click.option("--weights", "weight_grid", type=Grid(0, 1),
              help="Grid for w_stem, w_synonym, w_paraphrase (default 0:1:0.2).")
@click.option("--baselines/--no-baselines", default=True, show_default=True, help="Add BLEU, chrF and TER rows.")
@meteor_options
@click.option("--out", "out_file", type=TABLE_OUT, help="Write Table 4 (.csv/.tsv/.parquet/.jsonl).")
@common_options
def metric_tune(specs, human_column, objective, conflicts, alpha, beta, gamma, delta, weight_grid, baselines, out_file,
                quiet, as_json, **meteor_settings):
    """Tune METEOR-NEXT by exhaustive grid search (Denkowski & Lavie 2010, §5.2): align each set
    once, score the whole grid from the stored match counts, and print the optimum per set (the
    paper's Table 3) and every tuned version evaluated on every set (its Table 4).

    \b
    Example:
      D=mlqe-pe/et-en/post-editing
      humeval metric tune --tokenize none --data "et-en HTER=$D/dev.mt,$D/dev.pe,$D/dev.hter,lower"
      humeval metric tune --objective consistency --conflicts tie \\
          --data "Czech-English=outputs/cz-en/,newstest2010.ref.en,data_RNK.csv"
    """
    import time

    from humeval.metrics import bleu, chrf, ter
    from humeval.metrics.tuning import TuningSet, table3, table4, tune
    ctx = click.get_current_context()
    if objective == "consistency" and explicit(ctx, "human_column"):
        raise click.BadParameter("applies to --objective pearson (consistency reads rankings)",
                                 param_hint="--human-column")
    needs(ctx, {"conflicts": "--conflicts"}, objective == "consistency", "without --objective consistency")
    scorer = make_meteor(**meteor_settings)
    grid = {k: v for k, v in {"alpha": _grid_axis(alpha), "beta": _grid_axis(beta), "gamma": _grid_axis(gamma),
                              "delta": _grid_axis(delta)}.items() if v is not None}
    w = _grid_axis(weight_grid)
    for m in ("stem", "synonym", "paraphrase"):
        grid[f"w_{m}"] = (w if w is not None else np.round(np.arange(0, 1.0001, 0.2), 2)) if m in scorer.matchers else [0.0]
    sets, base = [], {"BLEU": {}, "chrF": {}, "TER": {}}
    timings, left_out = {}, {}
    scored = {}  # (hypotheses, references) -> METEOR's statistics, BLEU, chrF, −TER: sets of the same
    # segments (the DA and HTER scores of one dev set) are aligned and scored once
    for spec in specs:
        name, (hyp_file, ref_file, human_file), lower = _parse_set(spec)
        start = time.perf_counter()
        if objective == "consistency":
            if lower:
                raise click.BadParameter(f"{spec!r}: ',lower' applies to --objective pearson", param_hint="--data")
            data, segments = _consistency_set(name, hyp_file, ref_file, human_file, conflicts, scorer, quiet or as_json)
            hyps, refs, left_out[name] = segments.hypotheses, segments.references, segments.left_out
        else:
            hyps, refs = _lines(hyp_file), _lines(ref_file)
            if len(refs) != len(hyps):
                raise InputError(ref_file, None, f"{len(refs)} lines, but {hyp_file} has {len(hyps)}", "the files must be line-aligned")
            human = _human_scores(human_file, human_column, len(hyps), explicit(ctx, "human_column"))
            known = scored.setdefault((tuple(hyps), tuple(refs)), {})
            if "stats" not in known:
                known["stats"] = meteor_statistics(scorer, hyps, refs, name, quiet or as_json)
            data = TuningSet(name, known["stats"], human=human, higher_is_better=not lower)
        timings[name] = {"align s": time.perf_counter() - start}
        sets.append(data)
        if baselines:
            known = scored.setdefault((tuple(hyps), tuple(refs)), {})
            if "BLEU" not in known:
                known.update(BLEU=bleu(hyps, [refs]).segment, chrF=chrf(hyps, [refs]).segment,
                             TER=-ter(hyps, [refs]).segment)
            for metric_name in ("BLEU", "chrF", "TER"):
                base[metric_name][name] = known[metric_name]
    results = []
    for data in sets:
        start = time.perf_counter()
        results.append(tune(data, grid))
        timings[data.name]["grid s"] = time.perf_counter() - start
    t3 = table3(results)
    t4 = table4(results, sets, base if baselines else None, default=scorer.params)
    if out_file:
        write(t4.reset_index(), out_file)
    points = results[0].points
    what = ("rank consistency (share of non-tied human pairs the metric orders alike; metric ties fail)"
            if objective == "consistency" else "length-weighted Pearson r, with −human for ',lower' sets")
    if as_json:
        click.echo(json.dumps({"table3": jsonable(t3), "table4": jsonable(t4), "grid_points": points,
                               "timings": timings, "signature": scorer.signature(), "objective": objective,
                               **({"left_out": left_out} if left_out else {})}, indent=2))
    elif not quiet:
        out.print(render(t3, f"Optimal parameters per tuning set ({points:,} grid points; objective: {what})",
                         "tuning data"))
        out.print(render(t4, "Objective of each metric on each set (rows tuned on, columns evaluated on; "
                             "diagonal = oracle; TER negated)", "metric"))
        for name, t in timings.items():
            out.print(f"  {name}: aligned in {t['align s']:.1f} s, grid searched in {t['grid s']:.2f} s")
            if left_out.get(name):
                out.print(f"    {len(sets[[s.name for s in sets].index(name)].pairs):,} human pairs; left out: "
                          + "; ".join(f"{v:,} {k}" for k, v in left_out[name].items()))
