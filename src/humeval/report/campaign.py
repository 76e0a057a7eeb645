"""A campaign report: every table and figure humeval can tell about one judgments file, computed
with the same functions and settings as the corresponding ``humeval`` commands (each table
carries the command that reproduces it), ready to render as HTML, Markdown or JSON
(``humeval.report.render``).

Per file: what was read and skipped (``describe``); which model predicts held-out judgments
best (Hopkins & May's split and learning curves); per track the ranking with bootstrap intervals,
rank ranges and WMT clusters from the recommended model, the other models' rankings beside it,
and the preference heatmap; annotator agreement and judge quality with flagged judges; for
ratings, agreement and completion errors; for metric scores given with human scores, the
correlation table.
"""

from __future__ import annotations

import io
import shlex
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from humeval.experiments.perplexity import MIN_TEST
from humeval.ranking.registry import GROUPS, tags
from humeval.report.render import number
from humeval.report.verdict import tied_with_best

JUDGES_SHOWN = 25  # rows of the judge-quality table, as ``humeval judges`` prints without --all
CONFIDENCE = 0.95  # the bootstrap's (``humeval.experiments.bootstrap``'s default)
FALLBACK_MODEL = "bt"  # ranks with intervals when none of the compared models has a quick bootstrap
DEFAULT_MODELS = GROUPS["default"].names  # the registry's default group (tag ``default``)
HEURISTIC_RANKERS = ("expected-wins", "bojar")
CURVE_SIZES = (400, 1600, 3200)  # the learning curves' training sizes (fewer when the data have fewer)
# Fewest held-out comparisons to choose a model by: the models' perplexities differ by 0.01–0.3
# (README, WMT10), and the per-comparison log-loss differences have a standard deviation of about
# 0.5 bits, so a difference of 0.1 needs (2 · 0.5 / 0.1)² = 100 comparisons to show at two standard errors.
MIN_TO_CHOOSE = 100
MIN_FOR_CURVES = 30  # comparisons in the smallest track below which no learning curve is drawn (tiny held-out sets)
REFERENCES = {
    "Hopkins & May 2013": "M. Hopkins, J. May. Models of Translation Competitions. ACL 2013.",
    "Koehn 2012": "P. Koehn. Simulating Human Judgment in Machine Translation Evaluation Campaigns. IWSLT 2012.",
    "Sakaguchi et al. 2014": "K. Sakaguchi, M. Post, B. Van Durme. Efficient Elicitation of Annotations for Human "
                             "Evaluation of Machine Translation. WMT 2014.",
    "Bradley & Terry 1952": "R. A. Bradley, M. E. Terry. Rank Analysis of Incomplete Block Designs. Biometrika 1952.",
    "Davidson 1970": "R. R. Davidson. On Extending the Bradley-Terry Model to Accommodate Ties. JASA 1970.",
    "Denkowski & Lavie 2010": "M. Denkowski, A. Lavie. Choosing the Right Evaluation for Machine Translation. AMTA 2010.",
    "Huber 1967": "P. J. Huber. The Behavior of Maximum Likelihood Estimates under Nonstandard Conditions. "
                  "Proc. Fifth Berkeley Symposium 1967.",
    "Liang & Zeger 1986": "K.-Y. Liang, S. L. Zeger. Longitudinal Data Analysis Using Generalized Linear Models. "
                          "Biometrika 1986.",
    "Cohen 1960": "J. Cohen. A Coefficient of Agreement for Nominal Scales. Educ. Psychol. Meas. 1960.",
    "Krippendorff 2004": "K. Krippendorff. Content Analysis: An Introduction to Its Methodology, 2nd ed. Sage 2004.",
    "Wisniewski 2013": "G. Wisniewski. Matrix Completion Meets NLP Evaluation. 2013.",
    "Graham et al. 2017": "Y. Graham, T. Baldwin, A. Moffat, J. Zobel. Can Machine Translation Systems Be Evaluated "
                          "by the Crowd Alone? Natural Language Engineering 2017.",
    "Freitag et al. 2021": "M. Freitag, G. Foster, D. Grangier, V. Ratnakar, Q. Tan, W. Macherey. Experts, Errors, and "
                           "Context: A Large-Scale Study of Human Evaluation for Machine Translation. TACL 2021.",
    "Kocmi et al. 2024": "T. Kocmi, V. Zouhar, E. Avramidis, R. Grundkiewicz, M. Karpinska, M. Popović, M. Sachan, "
                         "M. Shmatova. Error Span Annotation: A Balanced Approach for Human Evaluation of Machine "
                         "Translation. WMT 2024.",
    "Graham & Baldwin 2014": "Y. Graham, T. Baldwin. Testing for Significance of Increased Correlation with Human "
                             "Judgment. EMNLP 2014.",
}


@dataclass
class Table:
    """A table with what it is, how it was computed, and the command that prints it."""
    title: str
    frame: pd.DataFrame
    how: str = ""
    command: str = ""
    index_name: str | None = None
    formats: dict[str, str] = field(default_factory=dict)  # column (or "*") -> kind of ``render.number``


@dataclass
class Figure:
    title: str
    png: bytes
    alt: str = ""


@dataclass
class Section:
    title: str
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class Report:
    title: str
    source: str
    sections: list[Section]
    methods: list[str]
    references: dict[str, str]
    summary: list[str] = field(default_factory=list)
    ranking_model: str | None = None  # the model the rankings were computed with (``demo`` prints its ranking)
    ranking_recommended: bool = False  # whether held-out perplexity singled that model out (else: not a recommendation)
    rankings: dict = field(default_factory=dict)  # per track, the rankings' WMT view (rank range, cluster): ``demo`` shows it
    signature: str | None = None  # the command's reproducibility signature (``humeval.signature``), when run by one


def _png(fig, dpi: int = 100) -> bytes:
    """The figure as PNG bytes, cropped to its contents plus ``savefig.pad_inches`` — what
    ``bbox_inches="tight"`` writes, without the extra drawing pass matplotlib makes to find that
    box: the box is measured once with the figure's own renderer, leaving out artists marked
    ``set_in_layout(False)`` (a heatmap's cell values, inside its axes); the figures' pixels are
    the same, the cost about a third lower. zlib level 3 instead of 6: the same pixels in files
    about 5 % larger, written a fifth faster."""
    import matplotlib
    import matplotlib.pyplot as plt
    buffer = io.BytesIO()
    fig.set_dpi(dpi)
    box = fig.get_tightbbox(fig.canvas.get_renderer()).padded(matplotlib.rcParams["savefig.pad_inches"])
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches=box, pil_kwargs={"compress_level": 3})  # same pixels
    plt.close(fig)
    return buffer.getvalue()


def report_settings(comparisons) -> dict:
    """Learning-curve settings that fit the data: Hopkins & May's test set of at least 2,000
    comparisons per track when every track has twice that, else a third of the smallest track;
    training sizes 400, 1,600 and 3,200 where every track's training part has that many, the
    smallest training part in place of those it does not have (a curve never shows a size the
    data lack)."""
    from humeval.experiments.perplexity import hopkins_may_split
    smallest = min(len(p) for p in comparisons.by_track().values())
    min_test = MIN_TEST if smallest >= 2 * MIN_TEST else max(1, smallest // 3)
    train = min(len(split.train) for split in hopkins_may_split(comparisons, min_test).values())
    sizes = tuple(s for s in CURVE_SIZES if s <= train)
    if len(sizes) < len(CURVE_SIZES) and train > 0:
        sizes += (train,)
    return {"min_test": min_test, "sizes": sizes or CURVE_SIZES[:1]}


def command(*words, read_args=(), tracks=()) -> str:
    """A ``humeval`` command line that a shell runs as written: ``words``, then the reading
    options ``read_args`` (e.g. ``("--format", "pairwise")``) and ``--track`` per track."""
    return shlex.join(["humeval", *map(str, words), *read_args, *(a for t in tracks for a in ("--track", t))])


def agreement_caption(methods: set[str]) -> str:
    """The agreement table's caption, describing only the measures its rows use: kappas (P(A),
    P(E)), Krippendorff's alpha (1 − D_o/D_e in the kappa column, no P(A)) and the repeat
    correlation (Pearson's r in the kappa column)."""
    parts = []
    if any("kappa" in m and "weighted" not in m for m in methods):
        parts.append("kappa rows: P(A) = share of judgment pairs that agree, P(E) = agreement expected by chance from "
                     "the observed label shares, kappa = (P(A) − P(E)) / (1 − P(E)) (Cohen 1960; Denkowski & Lavie 2010)")
    if any("weighted" in m for m in methods):
        parts.append("linearly weighted kappa rows: P(A) = 1 − the mean disagreement weight |a − b| / (the scale's "
                     "span) over the pairs, P(E) the same under chance, kappa = (P(A) − P(E)) / (1 − P(E))")
    if any("alpha" in m for m in methods):
        parts.append("Krippendorff alpha rows: alpha = 1 − D_o / D_e (observed over expected disagreement; "
                     "Krippendorff 2004) in the kappa column, no P(A) or P(E)")
    if any("correlation" in m for m in methods):
        parts.append("repeat correlation rows: Pearson's r between an annotator's first and repeated scores of "
                     "an item, in the kappa column")
    return "; ".join(parts) + ". Methods: " + "; ".join(sorted(methods)) + "."


def perplexity_gaps(curve: pd.DataFrame, size) -> pd.DataFrame:
    """How far each model is behind the best at training size ``size``, and whether the gap is
    larger than the trials' noise.

    Each trial's perplexity is averaged over tracks (every model of a trial sees the same
    training subset, so differences are paired). Per model: ``perplexity`` (mean over trials),
    ``gap`` = mean over trials of d_t = perplexity_t(model) − perplexity_t(best), ``spread`` = the
    sample standard deviation of d_t, and ``indistinguishable`` when gap ≤ spread or the model beat
    the best in some trial (min d_t ≤ 0); with one trial there is no spread (NaN, not judged).
    Rows best first."""
    part = curve[curve["size"] == size]
    per_trial = part.groupby(["model", "trial"])["perplexity"].mean().unstack("trial")
    per_trial = per_trial.loc[per_trial.mean(axis=1).sort_values(kind="stable").index]
    diff = per_trial - per_trial.iloc[0]
    spread = diff.std(axis=1, ddof=1) if diff.shape[1] > 1 else pd.Series(np.nan, index=diff.index)
    gap = diff.mean(axis=1)
    close = (gap <= spread) | (diff.min(axis=1) <= 0) if diff.shape[1] > 1 else gap == 0
    return pd.DataFrame({"perplexity": per_trial.mean(axis=1), "gap": gap, "spread": spread,
                         "trials": diff.shape[1], "indistinguishable": close})


def perplexity_verdict(gaps: pd.DataFrame, paired: pd.DataFrame | None = None) -> str:
    """One sentence on ``perplexity_gaps``: the best model, and whether the runner-up is
    distinguishable from it within the trials' spread and, given ``paired`` (``humeval.report.
    verdict.paired_verdict``), within the test set's noise: a model is called indistinguishable
    from the best when either says so, so no model is recommended on a gap within noise."""
    best = gaps.index[0]
    text = f"{best} predicts held-out judgments best ({number(gaps['perplexity'].iloc[0], 'decimal')})"
    if len(gaps) < 2:
        return text
    second, row = gaps.index[1], gaps.iloc[1]
    noisy = set(tied_with_best(paired)) if paired is not None else set()
    if noisy:
        tied = [str(m) for m in gaps.index[1:] if m in noisy or bool(gaps.loc[m, "indistinguishable"])]
        first = paired.loc[tied[0]]
        return (f"{_and([best, *tied])} are indistinguishable by held-out perplexity "
                f"({number(gaps['perplexity'].iloc[0], 'decimal')} vs {number(gaps.loc[tied[0], 'perplexity'], 'decimal')}"
                f": paired over {number(int(first['test']), 'count')} test comparisons, {tied[0]} is "
                f"{number(first['bits'])} bits per comparison worse, 95 % interval {number(first['low'])} to "
                f"{number(first['high'])}, which holds 0), so the data do not single out one model")
    if gaps["trials"].iloc[0] < 2:
        return (f"{text}; {second} follows at {number(row['perplexity'], 'decimal')} (gap {number(row['gap'])}), "
                "and one trial gives no spread to judge the gap (use --trials 2 or more)")
    if row["spread"] == 0:
        return (f"{text}; {second} follows at {number(row['perplexity'], 'decimal')} (gap {number(row['gap'])}), but "
                "every trial trained on the same comparisons (the size takes the whole training set), so there is no "
                "spread to judge the gap")
    tied = [str(m) for m in gaps.index[1:][gaps["indistinguishable"].iloc[1:].to_numpy()]]
    if tied:
        return (f"{_and([best, *tied])} are indistinguishable by held-out perplexity "
                f"({number(gaps['perplexity'].iloc[0], 'decimal')} vs {number(row['perplexity'], 'decimal')}: the gap "
                f"{number(row['gap'])} is within the spread of the per-trial differences, "
                f"{number(row['spread'])} over {int(row['trials'])} trials)")
    return (f"{text}; the runner-up {second} ({number(row['perplexity'], 'decimal')}) is {number(row['gap'])} behind, "
            f"beyond the spread of the per-trial differences ({number(row['spread'])} over {int(row['trials'])} trials)"
            + (f" and beyond the test set's noise ({number(paired.loc[second, 'bits'])} bits per test comparison, 95 % "
               f"interval {number(paired.loc[second, 'low'])} to {number(paired.loc[second, 'high'])})"
               if paired is not None and second in paired.index else ""))


def _and(names) -> str:
    """"a", "a and b", "a, b and c"."""
    names = [str(n) for n in names]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def build_report(judgments, path: str, models=DEFAULT_MODELS, n_boot: int = 1000, trials: int = 2,
                 random_state: int = 0, jobs: int = 1, metric_table: Table | None = None, progress=None,
                 l2: float | None = None, read_args=(), tracks=(), sampling=None, joint=None) -> Report:
    """Compute every section for one judgments file. ``progress(step: str)`` reports each step.
    ``read_args`` and ``tracks`` are the reading options the file was read with: every table's
    command repeats them, so it prints the same numbers. ``l2`` is the prior precision of the models
    that have one (``make_model``; None: their default). ``sampling`` (``report.sampling.
    SamplingOptions``): the weighting policy and provisional flags of the rankings; ``joint``:
    (ratings file, its ratings) of the same systems, fitted with the comparisons on one scale
    (``report.joint``)."""
    from humeval.agreement import agreement_table, flagged, judge_quality, not_applicable
    from humeval.data.describe import describe
    from humeval.ratings.quality import has_controls, repeat_rows, repeats_left_out
    from humeval.report.ratings import ratings_sections, without_controls
    read_ratings, judgments = judgments.ratings, without_controls(judgments)  # controls: ratings_sections only
    step = progress or (lambda _: None)
    sections: list[Section] = []
    chosen, recommended, views = None, False, {}
    summary: list[str] = []
    methods: list[str] = []

    step("describing the data")
    data = Section("The data")
    described = describe(judgments)
    for kind, frame in described.items():
        data.tables.append(Table(kind.replace("_", " "), frame, "Counted per track from the file as read"
                                 + ("; 'pairs skipped' = pairs of the track's rankings left out of its comparisons "
                                    "(reasons in the notes below, which count the whole file)."
                                    if "pairs skipped" in frame else "."),
                                 command("info", path, read_args=read_args, tracks=tracks), "track"))
    data.notes += [f"note: {n}" for n in judgments.report.notes]
    data.notes += skip_notes(judgments.report.skipped, tracks, any("pairs skipped" in f for f in described.values()))
    sections.append(data)

    if judgments.comparisons is not None:
        ranked, chosen, recommended, views = _ranking_sections(judgments.comparisons, path, models, n_boot, trials, random_state, jobs, step,
                                           summary, methods, l2, read_args, tracks, sampling)
        sections += ranked
        if joint is not None:
            from humeval.report.joint import joint_sections
            step("the joint model: comparisons and ratings on one scale")
            sections += joint_sections(judgments.comparisons, joint, path, summary, methods, l2, random_state,
                                       read_args, tracks)
    if read_ratings is not None:
        from humeval.data.readers.wmt_da import kept_workers_file
        fmt = judgments.report.format if judgments.report is not None else None
        sections += ratings_sections(read_ratings, path, n_boot, random_state, step, summary, methods, read_args, tracks,
                                     kept_workers_file(path, fmt), fmt)
    from humeval.report.judges import judges_sections  # humans and automatic judges (judge_kind): a module of its own
    sections += judges_sections(judgments, path, summary, methods, read_args, tracks, random_state, step)
    step("agreement")
    agreement = agreement_table(judgments)
    table = judgments.comparisons if judgments.comparisons is not None else judgments.ratings
    if table is not None:
        judges = Section("Judges: agreement and quality")
        # rows with no pair of judgments (no item judged twice) hold nothing but "–": say so instead
        empty = agreement["pairs"].fillna(0).to_numpy() == 0 if "pairs" in agreement else np.ones(len(agreement), bool)
        repeats = repeat_rows(read_ratings)  # controls: left out of agreement, but the file has them
        because = f" ({repeats_left_out(repeats)})" if repeats else ""
        if empty.all():
            judges.notes.append("no agreement to measure: no item was judged twice (by two judges or by one judge "
                                f"twice) among the judgments agreement uses{because}")
        elif empty.any():
            judges.notes.append("no agreement to measure for " + ", ".join(
                " / ".join(map(str, r)) for r in agreement.loc[empty, ["track", "judgments", "agreement"]].to_numpy())
                + f": no item judged twice there among the judgments agreement uses{because}")
        agreement = agreement.loc[~empty]
        if len(agreement):
            shown = agreement.set_index(["track", "judgments", "agreement"]).drop(columns="method")
            shown.index = [" / ".join(map(str, i)) for i in shown.index]
            judges.tables.append(Table("Inter- and intra-annotator agreement", shown,
                                       agreement_caption(set(agreement["method"])),
                                       command("agreement", path, read_args=read_args, tracks=tracks),
                                       "track / judgments / pairs of"))
        if (table.judge >= 0).any():
            quality = judge_quality(table)
            drop = flagged(quality)
            assessed = int((quality["flag"] != "few pairs").sum())
            judges.tables.append(judge_quality_table(quality, path, read_args, tracks,
                                                     controls=read_ratings is not None and has_controls(read_ratings)))
            inapplicable = not_applicable(table)
            if assessed == 0:  # "0 of 4 judges flagged" would read as "all 4 are fine"
                line = (f"none of the {len(quality)} judges could be assessed: each shares fewer than "
                        f"{judge_min_pairs()} pairs with the other judges")
                judges.notes.append(line)
                summary.append(f"Judges: {line}.")
            elif inapplicable:  # continuous scores: equal labels say nothing, nobody is flagged
                judges.notes.append(inapplicable)
                summary.append("Judges: none flagged, none assessed by agreement: exact agreement does not apply to "
                               "continuous scores (the judges section says what does).")
            else:
                judges.notes.append(f"{len(drop)} judges flagged" + (": " + ", ".join(map(str, drop[:20])) if drop else "")
                                    + (" …" if len(drop) > 20 else ""))
                summary.append(f"{len(drop)} of {assessed} judges flagged as unreliable"
                               + (f" ({len(quality) - assessed} more with too few pairs to assess)."
                                  if assessed < len(quality) else "."))
        else:  # no judge column: nobody to rate (and every row alone is not a judge)
            judges.notes.append("no judge column in the file: judge quality needs to know who judged each item")
        sections.append(judges)
    if judgments.ratings is not None:
        sections.append(_completion_section(judgments.ratings, path, random_state, step, read_args, tracks))
    if metric_table is not None:
        sections.append(Section("Automatic metrics against the human scores", [metric_table]))
    if len(agreement):
        methods.append("Agreement: kappa over pairs of judgments of the same item by two judges (inter) or the same "
                       "judge twice (intra), as Denkowski & Lavie 2010 and the WMT reports compute it.")
    return Report(f"humeval report: {path}", path, sections, methods, cited(sections, methods, summary), summary,
                  chosen, recommended, views)


def cited(sections, methods, summary) -> dict[str, str]:
    """The entries of ``REFERENCES`` the report's text cites (methods, summary, captions, notes):
    a ratings report lists the ratings papers, not the ranking models' it never used."""
    text = " ".join([*methods, *summary, *(n for s in sections for n in s.notes),
                     *(f"{t.title} {t.how}" for s in sections for t in s.tables),
                     *(f"{f.title} {f.alt}" for s in sections for f in s.figures)])
    return {key: entry for key, entry in REFERENCES.items() if key in text}


def skip_notes(skipped: dict, tracks=(), pairs_column: bool = False) -> list[str]:
    """One note per reason the reader skipped something. The reader counts over the whole file,
    before ``--track`` keeps some tracks, so each note says so; with ``--track`` and a 'pairs
    skipped' column (the reported tracks' share), it says the column counts only those."""
    where = " in the whole file, over all its tracks"
    if tracks and pairs_column:
        where += " (the table's 'pairs skipped' counts the tracks reported only)"
    return [f"skipped {number(count, 'count')} {reason}{where}" for reason, count in skipped.items()]


def judge_min_pairs() -> int:
    """The pairs a judge needs before ``judge_quality`` assesses it (its default)."""
    import inspect

    from humeval.agreement import judge_quality
    return int(inspect.signature(judge_quality).parameters["min_pairs"].default)


def judge_quality_table(quality: pd.DataFrame, path: str, read_args=(), tracks=(), shown: int = JUDGES_SHOWN,
                        controls: bool = False) -> Table:
    """The judge-quality table (``judge_quality`` with its defaults, as ``humeval judges`` runs
    it): the ``shown`` least reliable judges, the caption saying how many there are, how to list
    them all, and what each flag means with the thresholds used. ``controls``: the file holds
    quality-control rows, so the commands say ``--no-controls`` (``humeval judges`` would run
    the annotators' quality control instead)."""
    import inspect

    from humeval.agreement import judge_quality
    from humeval.agreement.judges import NOT_APPLICABLE, flag_rules
    default = {k: v.default for k, v in inspect.signature(judge_quality).parameters.items()}
    n = len(quality)
    cut = n > shown
    without = ("--no-controls",) if controls else ()
    title = (f"Judge quality (first {shown} of {n} judges, least reliable first)" if cut
             else f"Judge quality ({n} judges, least reliable first)")
    return Table(title, quality.head(shown),
                 (f"The {shown} least reliable of {n} judges; "
                  f"{command('judges', path, '--all', *without, read_args=read_args, tracks=tracks)} lists every judge. "
                  if cut else "")
                 + "Per judge: agreement with the other judges on shared items (P(A) and kappa), with the "
                 "leave-one-out majority, and self-consistency. Flag "
                 + flag_rules(default["alpha"], default["min_pairs"], default["outlier_mads"])
                 + (f" '{NOT_APPLICABLE}' = exact agreement does not apply (continuous scores): its columns are "
                    "empty and nobody is flagged." if (quality["flag"] == NOT_APPLICABLE).any() else ""),
                 command("judges", path, *without, read_args=read_args, tracks=tracks), "judge")


def quick_bootstrap(name: str) -> bool:
    """Whether the model of this command-line name bootstraps quickly (its ``fast_bootstrap``:
    closed form, Newton on counts, or compiled). The report's ranking with intervals comes from
    the best such model by held-out perplexity: IRT (Gibbs) and Crowd-BT (EM) refits cost
    seconds each, too slow for 1,000 resamples per track."""
    return tags(name).quick_bootstrap


def _ranking_sections(comparisons, path, models, n_boot, trials, random_state, jobs, step, summary, methods,
                      l2=None, read_args=(), tracks=(), sampling=None):
    from humeval.experiments import bootstrap, mean_curve, track_curves, wmt_view
    from humeval.ranking import make_model
    from humeval.report.figures import plot_bootstrap, plot_learning_curve, plot_preference_heatmap
    from humeval.report.evidence import few_comparisons_warning
    from humeval.report.verdict import item_losses, paired_verdict
    from humeval.report.sampling import SamplingOptions
    sampling = sampling or SamplingOptions()
    # --reweight gives fractional weights: only the models that fit weighted counts can rank with them
    usable = (lambda name: tags(name).weighted) if sampling.policy else (lambda name: True)
    settings = report_settings(comparisons)
    sizes = settings["sizes"]
    model_list = ",".join(models)
    prior = () if l2 is None else ("--l2", f"{l2:g}")
    smallest = min(len(p) for p in comparisons.by_track().values())
    section = Section("Which model to trust: held-out perplexity")
    chosen, best, held_out = FALLBACK_MODEL, FALLBACK_MODEL, 0
    if smallest >= MIN_FOR_CURVES:
        step("learning curves (held-out perplexity)")
        curve = track_curves(comparisons, {n: make_model(n, random_state, l2) for n in models}, sizes, trials, random_state,
                             jobs, min_test=settings["min_test"])
        table = mean_curve(curve).sort_values(sizes[-1], kind="stable")  # best first, as compare-models prints it
        table.columns = [str(c) for c in table.columns]
        best = str(table.index[0])
        quick = [m for m in table.index if quick_bootstrap(m) and usable(m)]
        chosen = quick[0] if quick else FALLBACK_MODEL
        section.tables.append(Table(
            "Mean test perplexity by training size (lower is better; a uniform guess scores 3)", table,
            f"Hopkins & May's split: per track, the test set is the comparisons of the least-judged segments (at least "
            f"{settings['min_test']:,}){_fallback_note(curve)}; each model is trained on {trials} random subsets of each size of the rest, and "
            "the perplexity 2^(−mean log₂ p(outcome)) on the test set is averaged over trials and tracks.",
            command("compare-models", path, "--model", model_list, "--sizes", ",".join(map(str, sizes)), "--trials", trials,
                    "--min-test", settings["min_test"], *prior, "--random-state", random_state, read_args=read_args, tracks=tracks),
            "model", {"*": "decimal"}))
        section.figures.append(Figure("Learning curves", _png(plot_learning_curve(curve, title="Held-out perplexity")),
                                      "held-out perplexity against training size, one line per model"))
        held_out = int(curve.drop_duplicates("track")["test"].sum())
    views = {}
    if held_out < MIN_TO_CHOOSE:
        chosen = FALLBACK_MODEL
        recommended = False
        reason = (f"too few judgments to choose a model: the held-out test sets hold {held_out:,} comparison"
                  f"{'s' if held_out != 1 else ''} (fewer than {MIN_TO_CHOOSE}), so their perplexities do not tell "
                  f"the models apart; the ranking below uses {chosen}, not as a recommendation")
        if smallest < MIN_FOR_CURVES:
            reason = (f"too few judgments to choose a model: the smallest track holds {smallest:,} comparison"
                      f"{'s' if smallest != 1 else ''}, too few to hold any out (learning curves need "
                      f"{MIN_FOR_CURVES}); the ranking below uses {chosen}, not as a recommendation")
        section.notes.append(reason)
        summary.append(f"No model recommended — {reason}.")
    else:
        step("the verdict: per-comparison losses at the largest size")
        paired = paired_verdict(item_losses(comparisons, {n: make_model(n, random_state, l2) for n in models}, sizes,
                                            trials, random_state, settings["min_test"]), best)
        reason = perplexity_verdict(perplexity_gaps(curve, sizes[-1]), paired)
        recommended = " are indistinguishable " not in reason
    if held_out >= MIN_TO_CHOOSE and chosen != best:
        how = command("rank", path, "--model", best, "--bootstrap", n_boot, *prior, read_args=read_args, tracks=tracks)
        if chosen in table.index and not usable(best):
            reason += (f"; {best} cannot fit the fractional weights of --reweight {sampling.policy}, so the ranking "
                       f"below uses {chosen} ({number(table.loc[chosen].iloc[-1], 'decimal')}), the best model with "
                       "weighted fits and a quick bootstrap")
        elif chosen in table.index:
            reason += (f"; {best}'s bootstrap is slow, so the ranking below uses {chosen} "
                       f"({number(table.loc[chosen].iloc[-1], 'decimal')}), the best model with a quick bootstrap "
                       f"({how} gives {best}'s intervals)")
        else:
            reason += (f"; none of the compared models has a quick bootstrap, so the ranking below uses {chosen} "
                       f"(not compared; {how} gives {best}'s intervals)")
    if held_out >= MIN_TO_CHOOSE:
        section.notes.append(reason)
        summary.append(f"Recommended model: {chosen} — {reason}." if recommended else
                       f"No model is recommended over the others: {reason}; the ranking below uses {chosen}.")
    sections = [section]
    methods.append("Models: Bradley–Terry (Bradley & Terry 1952) and its tie extensions (Davidson 1970; Rao–Kupper), "
                   "TrueSkill as in WMT14–16 (Sakaguchi et al. 2014), Hopkins & May's IRT and Independent-Students "
                   "models; held-out perplexity decides which to trust (Hopkins & May 2013).")
    methods.append(f"Rankings with intervals: {number(n_boot, 'count')} bootstrap resamples of the comparisons, each "
                   f"refitted; score intervals are percentiles, the rank range drops the top and bottom "
                   f"{number((1 - CONFIDENCE) / 2, 'percent')} of resampled ranks, systems whose rank ranges do not "
                   "overlap fall in different clusters (Koehn 2012; the WMT procedure).")
    ranks, units = {}, {}
    fit = (*prior, *sampling.fit_args())  # the words of every rank command below: the prior and the weights
    if sampling.policy:
        methods.append(f"Uneven sampling: the rankings weigh each comparison by --reweight {sampling.policy} "
                       "(arena-rank's 1/max(pair count, floor), rescaled to the number of comparisons); the "
                       "held-out perplexities compare the models on the comparisons as sampled.")
    for track, part in comparisons.by_track().items():
        step(f"{track}: ranking with {n_boot:,} bootstrap resamples")
        flags = sampling.flags(part)  # counted before any reweighting, as rank counts them
        unweighted = part
        if sampling.policy:
            from humeval.ranking.reweight import reweight
            part = reweight(part, sampling.policy)
        model = make_model(chosen, random_state, l2).fit(part)
        # quick-bootstrap models refit in milliseconds: a process pool per track costs more than
        # it saves, so ``jobs`` serves the learning curves only
        result = bootstrap(model, part, n=n_boot, confidence=CONFIDENCE, random_state=random_state)
        full = result.table()
        view = views[track] = wmt_view(full)
        s = Section(f"{track}: ranking")
        s.tables.append(Table(f"{track}: {chosen} with {n_boot:,} bootstrap resamples ({len(part):,} comparisons)", view,
                              f"score = {chosen}'s fit on all comparisons ({result.scale or 'its own scale'}); lower/upper "
                              f"= {result.confidence:.0%} percentile interval; rank = trimmed rank range; simultaneous = "
                              "valid for all systems at once; cluster = WMT-style groups of systems whose rank ranges "
                              "overlap.",
                              command("rank", path, "--model", chosen, "--bootstrap", n_boot, *fit, "--random-state",
                                      random_state, read_args=read_args, tracks=[track]), "system"))
        few = few_comparisons_warning(part)
        if few:
            s.notes.append(f"warning: {few}")
        if result.too_few:
            s.notes.append(result.too_few_note())
        clusters = int(full["cluster"].max()) if len(full) else 0
        ranks[track] = f"{track}: {headline(full.index)}, {clusters} cluster{'s' if clusters != 1 else ''}"
        if tags(model).analytic:  # the Bradley–Terry family: analytic intervals beside the bootstrap
            analytic, unit = _analytic_table(model, part, full, result.confidence, chosen, track, path, fit,
                                             random_state, read_args, s.notes)
            s.tables.append(analytic)
            if unit:  # judgments cluster: the comparison bootstrap is too narrow; rank by whole units too
                units[track] = unit
                step(f"{track}: ranking with {n_boot:,} resamples of whole {unit}s")
                safer, ranks[track] = _unit_ranking(model, part, full, analytic.frame, unit, n_boot, chosen, track,
                                                    path, fit, random_state, read_args, s.notes)
                s.tables.append(safer)
        if few:
            ranks[track] += f" (warning: {few})"
        s.tables.append(_trust(model, part, result, chosen, track, path, fit, random_state, n_boot, read_args, s.notes,
                               flags, sampling))
        every = [name for name in (*models, *HEURISTIC_RANKERS) if usable(name)]
        others = pd.DataFrame({name: (model if name == chosen else make_model(name, random_state, l2).fit(part))
                               .ranking()["rank"] for name in every})  # the same fit
        others = others.reindex(view.index)
        others.index.name = "system"
        s.tables.append(Table(f"{track}: rank by every model", others,
                              "Each model fitted on all comparisons of the track (heuristics: expected wins, Bojar's "
                              "share of non-tied wins); rows in the order of the table above."
                              + _left_out([n for n in (*models, *HEURISTIC_RANKERS) if n not in every]),
                              command("rank", path, "--model", ",".join(every), *fit,
                                      "--random-state", random_state, read_args=read_args, tracks=[track]), "system"))
        s.figures.append(Figure(f"{track}: scores with intervals",
                                _png(plot_bootstrap(full, title=f"{track}: {chosen}", scale=result.scale)),
                                "scores with bootstrap intervals, one row per system"))
        if tags(model).preference:
            s.figures.append(Figure(f"{track}: preference heatmap: P(row system preferred to column system) under "
                                    f"{chosen}; the rest of each cell's probability is ties and losses",
                                    _png(plot_preference_heatmap(model, title=f"{track}: {chosen}")),
                                    "probability that the row system is preferred to the column system"))
        # how evenly the pairs met (and with --reweight, the unweighted fit beside): after the other notes
        from humeval.report.sampling import unevenness
        s.notes.append(unevenness(unweighted, hint=not sampling.policy))
        if sampling.policy:
            _reweighted_beside(s, model, unweighted, chosen, random_state, l2, track, path, prior, read_args)
        sections.append(s)
    summary.extend(ranks.values())
    for unit in sorted(set(units.values())):  # the command once, not on every track's line
        where = [t for t, u in units.items() if u == unit]
        track = where[0] if len(where) == 1 else "TRACK"
        how = command("rank", path, "--model", chosen, "--bootstrap", n_boot, "--resample", unit, *fit,
                      "--random-state", random_state, read_args=read_args, tracks=[track])
        summary.append(f"Rankings by whole {unit}s ({', '.join(where)}): {how}"
                       + ("" if len(where) == 1 else " with TRACK one of them"))
    if units:
        methods.append(f"Where the sandwich clustered by {' or '.join(sorted(set(units.values())))} is wider than "
                       f"the comparison bootstrap (here: {', '.join(units)}), judgments are correlated within that "
                       "unit; a second bootstrap "
                       f"then resamples whole units ({number(n_boot, 'count')} resamples, the same model and seed), "
                       "and the summary gives both rankings' clusters.")
    return sections, chosen, recommended, views


def is_reference(name: str) -> bool:
    """Whether a system name is a human reference: WMT's ``_ref``, ``ref``, ``reference``,
    ``human`` (``humeval.agreement.REFERENCE_NAMES``) or a name starting ``Human-``/``ref-``
    as Google's MQM files name their human translations (``Human-B.0``)."""
    import re

    from humeval.agreement import REFERENCE_NAMES
    return name.lower() in REFERENCE_NAMES or re.match(r"(human|ref)[-_]", name.lower()) is not None


def headline(order) -> str:
    """Who comes first in a ranking (``order``: systems best first), for the summary: "X first of
    N". A human reference (``_ref``, ``ref``, ``reference``, ``human``) is ranked with the systems
    (or an MQM file's ``Human-A.0``, ``Human-B.0``: ``is_reference``) is ranked with the systems
    in WMT's files and comes first in nearly every track, which says nothing about the systems:
    then the line names the best system and the reference apart ("X the best of N systems,
    below the human reference _ref")."""
    order = [str(s) for s in order]
    systems = [s for s in order if not is_reference(s)]
    if not systems or systems[0] == order[0]:
        return f"{order[0]} first of {len(order)}"
    return f"{systems[0]} the best of {len(systems)} systems, below the human reference {order[0]}"


def _fallback_note(curve: pd.DataFrame) -> str:
    """Which tracks had no segment judged twice, so their test set is every third comparison."""
    other = curve[curve["split"] != "segments"]
    if other.empty:
        return ""
    return f" — {', '.join(map(str, sorted(other['track'].unique())))}: {other['split'].iloc[0]} instead"


def _analytic_table(model, part, full, confidence, chosen, track, path, prior, random_state, read_args,
                    notes) -> tuple[Table, str | None]:
    """The bootstrap's intervals beside the Fisher and sandwich ones (``humeval.report.analytic``),
    with a note in ``notes`` on where they disagree; and the unit whose judgments are correlated
    (``correlated_unit``: "judge", "ranking" or None)."""
    from humeval.experiments.clusters import CLUSTER_DRAWS
    from humeval.report.analytic import compare_intervals, correlated_unit, disagreement_note
    table, clusters, disagree = compare_intervals(model, part, full, confidence, random_state)
    notes.append(disagreement_note(table, clusters, disagree))
    by = f"clustered by {clusters}" if clusters else "each comparison its own cluster"
    where = {"read_args": read_args, "tracks": [track]}
    fisher = command("rank", path, "--model", chosen, "--intervals", "fisher", *prior, "--random-state", random_state,
                     **where)
    return Table(f"{track}: analytic intervals beside the bootstrap ({chosen})", table,
                 f"boot = the {confidence:.0%} percentile interval above; fisher = score ± z σ from the inverse "
                 f"information; sandwich = the same from the robust covariance {by} (Huber 1967; Liang & Zeger "
                 "1986; with clusters the small-sample factor G/(G − 1)·(N − 1)/(N − K) of Stata and statsmodels); "
                 "x/boot width = analytic width over the bootstrap's; clusters = WMT rank clusters, the "
                 f"analytic ones from {number(CLUSTER_DRAWS, 'count')} normal draws of the scores. Same numbers: the boot "
                 f"columns, the ranking table's command; the fisher columns (and fisher cluster): {fisher}; the "
                 "sandwich columns (and sandwich cluster): the command below.",
                 command("rank", path, "--model", chosen, "--intervals", "sandwich",
                         *(("--cluster-by", clusters) if clusters else ()), *prior, "--random-state", random_state,
                         **where),
                 "system", {"fisher/boot width": "decimal", "sandwich/boot width": "decimal"}), \
        correlated_unit(table, clusters)


def _trust(model, part, result, chosen, track, path, prior, random_state, n_boot, read_args, notes, flags=None,
           sampling=None) -> Table:
    """Fragility and rank sets beside the ranking (``humeval.report.trust``), and the provisional
    flags (``flags``, from ``sampling``) where asked; rank 1's fragility in ``notes``."""
    from humeval.report.trust import trust_table
    frame, caption, top = trust_table(model, part, result, result.confidence)
    if top:
        notes.append(top)
    flag_args = ()
    if flags is not None:
        frame = frame.join(flags)
        caption += "; " + sampling.note()
        flag_args = sampling.flag_args()
        flagged = frame.index[frame["provisional"] != ""]
        if len(flagged):
            notes.append(f"provisional: {', '.join(map(str, flagged[:10]))}{' …' if len(flagged) > 10 else ''} "
                         f"({len(flagged)} of {len(frame)})")
    return Table(f"{track}: how sure is each rank ({chosen})", frame, caption,
                 command("rank", path, "--model", chosen, "--bootstrap", n_boot, "--robustness", "--rank-sets", *prior,
                         *flag_args, "--random-state", random_state, read_args=read_args, tracks=[track]), "system")


def _left_out(names) -> str:
    """The caption's words for the models --reweight leaves out of the 'every model' table."""
    return (f" Not shown: {', '.join(names)}, which cannot fit the fractional weights of --reweight." if names
            else "")


def _reweighted_beside(section, model, unweighted, chosen, random_state, l2, track, path, prior, read_args) -> None:
    """The unevenness of the pairs' counts, and the reweighted fit beside the unweighted one when
    their orders differ (``humeval.report.sampling``), into ``section``."""
    from humeval.ranking import make_model
    from humeval.report.sampling import beside_unweighted
    plain = make_model(chosen, random_state, l2).fit(unweighted)
    table, sentence = beside_unweighted(model, plain)
    section.notes.append(f"reweighted: {sentence}")
    if table is not None:
        section.tables.append(Table(
            f"{track}: {chosen} reweighted beside unweighted", table,
            "score, rank: the fit on the reweighted comparisons (the ranking above); unweighted score and rank: the "
            "same model on the comparisons as sampled, where pairs met more often weigh more.",
            command("rank", path, "--model", chosen, *prior, "--random-state", random_state,
                    read_args=read_args, tracks=[track]), "system"))


def _unit_ranking(model, part, full, analytic, unit, n_boot, chosen, track, path, prior, random_state, read_args,
                  notes) -> tuple[Table, str]:
    """When judgments cluster by ``unit`` (judge or ranking): the ranking from a bootstrap that
    resamples whole units (``humeval rank --resample UNIT``, the same model and seed), a sentence for
    ``notes`` and the track's line of the summary giving the clusters of both bootstraps and of
    the sandwich."""
    from humeval.experiments import bootstrap, wmt_view
    result = bootstrap(model, part, n=n_boot, by=unit, confidence=CONFIDENCE, random_state=random_state)
    table = result.table()
    how = command("rank", path, "--model", chosen, "--bootstrap", n_boot, "--resample", unit, *prior,
                  "--random-state", random_state, read_args=read_args, tracks=[track])
    by_comparison, by_unit = (int(t["cluster"].max()) if len(t) else 0 for t in (full, table))
    sandwich = int(analytic["sandwich cluster"].max()) if len(analytic) else 0
    plural = "s" if by_unit != 1 else ""
    notes.append(f"Resampling whole {unit}s gives {by_unit} cluster{plural} where the comparison bootstrap gives "
                 f"{by_comparison} (the {unit}-clustered sandwich: {sandwich}); publish the {unit}-level ranking "
                 f"({how}).")
    line = (f"{track}: {headline(full.index)}; {by_comparison} clusters by the comparison bootstrap, "
            f"{by_unit} by whole {unit}s (the safer ranking: judgments cluster by {unit}; the {unit}-clustered "
            f"sandwich gives {sandwich})")
    return Table(f"{track}: {chosen} with {number(n_boot, 'count')} resamples of whole {unit}s (the safer "
                 f"intervals: judgments cluster by {unit})", wmt_view(table),
                 f"As the ranking table above, but each resample draws whole {unit}s with all their comparisons, so "
                 f"the correlation within a {unit} widens the intervals as it should; the sandwich clustered by "
                 f"{unit} is its analytic counterpart.", how, "system"), line


def _completion_section(ratings, path, random_state, step, read_args=(), tracks=()) -> Section:
    from humeval.completion import AdditiveBaseline, GlobalMean, ItemMean, JudgeMean, SoftImpute, completion_error
    s = Section("Ratings: completing missing ratings")
    if (ratings.judge < 0).any():
        s.notes.append("ratings without judge ids: completion needs to know who gave each score (skipped)")
        return s
    for code, criterion in enumerate(ratings.criteria):
        step(f"completion ({criterion})")
        part = ratings.take(ratings.criterion == code).compact()
        methods = {"global mean": GlobalMean(), "item mean": ItemMean(), "judge mean": JudgeMean(),
                   "judge bias + item": AdditiveBaseline(), "soft-impute": SoftImpute(random_state=random_state)}
        errors = completion_error(methods, part, 0.1, 3, random_state)
        s.tables.append(Table(f"{criterion}: error on 10 % hidden ratings (mean of 3 trials)", errors,
                              "Each method fills the judge × (item, system) matrix from the rest; RMSE and MAE on the "
                              "hidden ratings (Wisniewski 2013).",
                              command("complete", path, *(("--criterion", criterion) if len(ratings.criteria) > 1 else ()),
                                      "--random-state", random_state, read_args=read_args, tracks=tracks), "method"))
    return s
