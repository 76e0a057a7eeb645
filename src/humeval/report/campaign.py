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
from humeval.report.render import number

FALLBACK_MODEL = "bt"  # ranks with intervals when none of the compared models has a quick bootstrap
DEFAULT_MODELS = ("bt", "davidson", "rao-kupper", "trueskill", "irt-gaussian", "independent-students:geometric",
                  "independent-pairs")
HEURISTIC_RANKERS = ("expected-wins", "bojar")
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
    "Wisniewski 2013": "G. Wisniewski. Matrix Completion Meets NLP Evaluation. 2013.",
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
    comparisons per track when every track has twice that, else a third of the smallest track."""
    smallest = min(len(p) for p in comparisons.by_track().values())
    return {"min_test": MIN_TEST if smallest >= 2 * MIN_TEST else max(1, smallest // 3), "sizes": (400, 1600, 3200)}


def command(*words, read_args=(), tracks=()) -> str:
    """A ``humeval`` command line that a shell runs as written: ``words``, then the reading
    options ``read_args`` (e.g. ``("--format", "pairwise")``) and ``--track`` per track."""
    return shlex.join(["humeval", *map(str, words), *read_args, *(a for t in tracks for a in ("--track", t))])


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


def perplexity_verdict(gaps: pd.DataFrame) -> str:
    """One sentence on ``perplexity_gaps``: the best model, and whether the runner-up is
    distinguishable from it within the trials' spread."""
    best = gaps.index[0]
    text = f"{best} predicts held-out judgments best ({number(gaps['perplexity'].iloc[0], 'decimal')})"
    if len(gaps) < 2:
        return text
    second, row = gaps.index[1], gaps.iloc[1]
    if gaps["trials"].iloc[0] < 2:
        return (f"{text}; {second} follows at {number(row['perplexity'], 'decimal')} (gap {number(row['gap'])}), "
                "and one trial gives no spread to judge the gap (use --trials 2 or more)")
    if row["spread"] == 0:
        return (f"{text}; {second} follows at {number(row['perplexity'], 'decimal')} (gap {number(row['gap'])}), but "
                "every trial trained on the same comparisons (the size takes the whole training set), so there is no "
                "spread to judge the gap")
    tied = [str(m) for m in gaps.index[1:][gaps["indistinguishable"].iloc[1:].to_numpy()]]
    if tied:
        return (f"{best} and {', '.join(tied)} are indistinguishable by held-out perplexity "
                f"({number(gaps['perplexity'].iloc[0], 'decimal')} vs {number(row['perplexity'], 'decimal')}: the gap "
                f"{number(row['gap'])} is within the spread of the per-trial differences, "
                f"{number(row['spread'])} over {int(row['trials'])} trials)")
    return (f"{text}; the runner-up {second} ({number(row['perplexity'], 'decimal')}) is {number(row['gap'])} behind, "
            f"beyond the spread of the per-trial differences ({number(row['spread'])} over {int(row['trials'])} trials)")


def build_report(judgments, path: str, models=DEFAULT_MODELS, n_boot: int = 1000, trials: int = 2,
                 random_state: int = 0, jobs: int = 1, metric_table: Table | None = None, progress=None,
                 l2: float | None = None, read_args=(), tracks=()) -> Report:
    """Compute every section for one judgments file. ``progress(step: str)`` reports each step.
    ``read_args`` and ``tracks`` are the reading options the file was read with: every table's
    command repeats them, so it prints the same numbers. ``l2`` is the prior precision of the models
    that have one (``make_model``; None: their default)."""
    from humeval.agreement import agreement_table, flagged, judge_quality
    from humeval.data.describe import describe
    from humeval.report.ratings import ratings_sections, without_controls
    read_ratings, judgments = judgments.ratings, without_controls(judgments)  # controls: ratings_sections only
    step = progress or (lambda _: None)
    sections: list[Section] = []
    summary: list[str] = []
    methods: list[str] = []

    step("describing the data")
    data = Section("The data")
    for kind, frame in describe(judgments).items():
        data.tables.append(Table(kind.replace("_", " "), frame, "Counted from the file as read; skipped rows are "
                                 "listed below.", command("info", path, read_args=read_args, tracks=tracks), "track"))
    data.notes += [f"note: {n}" for n in judgments.report.notes]
    data.notes += [f"skipped {count:,} {reason}" for reason, count in judgments.report.skipped.items()]
    sections.append(data)

    if judgments.comparisons is not None:
        sections += _ranking_sections(judgments.comparisons, path, models, n_boot, trials, random_state, jobs, step,
                                      summary, methods, l2, read_args, tracks)
    if read_ratings is not None:
        sections += ratings_sections(read_ratings, path, n_boot, random_state, step, summary, methods, read_args, tracks)
    step("agreement")
    agreement = agreement_table(judgments)
    if len(agreement):
        shown = agreement.set_index(["track", "judgments", "agreement"]).drop(columns="method")
        shown.index = [" / ".join(map(str, i)) for i in shown.index]
        judges = Section("Judges: agreement and quality")
        judges.tables.append(Table("Inter- and intra-annotator agreement", shown,
                                   "P(A): share of judgment pairs that agree; P(E): agreement expected by chance "
                                   "from the observed label shares; kappa = (P(A) − P(E)) / (1 − P(E)) "
                                   "(Cohen 1960; Denkowski & Lavie 2010). Methods: "
                                   + "; ".join(sorted(set(agreement["method"]))) + ".",
                                   command("agreement", path, read_args=read_args, tracks=tracks),
                                   "track / judgments / pairs of"))
        table = judgments.comparisons if judgments.comparisons is not None else judgments.ratings
        quality = judge_quality(table)
        drop = flagged(quality)
        judges.tables.append(Table(f"Judge quality ({len(quality)} judges, least reliable first)", quality.head(25),
                                   "Per judge: agreement with the other judges on shared items, with the "
                                   "leave-one-out majority, and self-consistency; flag 'chance' = agreement not above "
                                   "chance, 'outlier' = kappa far below the median judge's.",
                                   command("judges", path, read_args=read_args, tracks=tracks), "judge"))
        judges.notes.append(f"{len(drop)} judges flagged" + (": " + ", ".join(map(str, drop[:20])) if drop else "")
                            + (" …" if len(drop) > 20 else ""))
        summary.append(f"{len(drop)} of {len(quality)} judges flagged as unreliable.")
        sections.append(judges)
    if judgments.ratings is not None:
        sections.append(_completion_section(judgments.ratings, path, random_state, step, read_args, tracks))
    if metric_table is not None:
        sections.append(Section("Automatic metrics against the human scores", [metric_table]))
    methods.append("Agreement: kappa over pairs of judgments of the same item by two judges (inter) or the same "
                   "judge twice (intra), as Denkowski & Lavie 2010 and the WMT reports compute it.")
    return Report(f"humeval report: {path}", path, sections, methods, REFERENCES, summary)


def quick_bootstrap(name: str) -> bool:
    """Whether the model of this command-line name bootstraps quickly (its ``fast_bootstrap``:
    closed form, Newton on counts, or compiled). The report's ranking with intervals comes from
    the best such model by held-out perplexity: IRT (Gibbs) and Crowd-BT (EM) refits cost
    seconds each, too slow for 1,000 resamples per track."""
    from humeval.ranking import make_model
    return bool(make_model(name).fast_bootstrap)


def _ranking_sections(comparisons, path, models, n_boot, trials, random_state, jobs, step, summary, methods,
                      l2=None, read_args=(), tracks=()):
    from humeval.experiments import bootstrap, mean_curve, track_curves, wmt_view
    from humeval.ranking import make_model
    from humeval.report.figures import plot_bootstrap, plot_learning_curve, plot_preference_heatmap
    settings = report_settings(comparisons)
    sizes = settings["sizes"]
    model_list = ",".join(models)
    prior = () if l2 is None else ("--l2", f"{l2:g}")
    step("learning curves (held-out perplexity)")
    curve = track_curves(comparisons, {n: make_model(n, random_state, l2) for n in models}, sizes, trials, random_state,
                         jobs, min_test=settings["min_test"])
    table = mean_curve(curve).sort_values(sizes[-1])
    table.columns = [str(c) for c in table.columns]
    best = str(table.index[0])
    quick = [m for m in table.index if quick_bootstrap(m)]
    chosen = quick[0] if quick else FALLBACK_MODEL
    section = Section("Which model to trust: held-out perplexity")
    section.tables.append(Table(
        "Mean test perplexity by training size (lower is better; a uniform guess scores 3)", table,
        f"Hopkins & May's split: per track, the test set is the comparisons of the least-judged segments (at least "
        f"{settings['min_test']:,}); each model is trained on {trials} random subsets of each size of the rest, and "
        "the perplexity 2^(−mean log₂ p(outcome)) on the test set is averaged over trials and tracks.",
        command("compare-models", path, "--model", model_list, "--sizes", ",".join(map(str, sizes)), "--trials", trials,
                "--min-test", settings["min_test"], *prior, "--random-state", random_state, read_args=read_args, tracks=tracks),
        "model", {"*": "decimal"}))
    section.figures.append(Figure("Learning curves", _png(plot_learning_curve(curve, title="Held-out perplexity")),
                                  "held-out perplexity against training size, one line per model"))
    reason = perplexity_verdict(perplexity_gaps(curve, sizes[-1]))
    if chosen != best:
        how = command("rank", path, "--model", best, "--bootstrap", n_boot, *prior, read_args=read_args, tracks=tracks)
        if chosen in table.index:
            reason += (f"; {best}'s bootstrap is slow, so the ranking below uses {chosen} "
                       f"({number(table.loc[chosen].iloc[-1], 'decimal')}), the best model with a quick bootstrap "
                       f"({how} gives {best}'s intervals)")
        else:
            reason += (f"; none of the compared models has a quick bootstrap, so the ranking below uses {chosen} "
                       f"(not compared; {how} gives {best}'s intervals)")
    section.notes.append(reason)
    summary.append(f"Recommended model: {chosen} — {reason}.")
    sections = [section]
    methods.append("Models: Bradley–Terry (Bradley & Terry 1952) and its tie extensions (Davidson 1970; Rao–Kupper), "
                   "TrueSkill as in WMT14–16 (Sakaguchi et al. 2014), Hopkins & May's IRT and Independent-Students "
                   "models; held-out perplexity decides which to trust (Hopkins & May 2013).")
    methods.append(f"Rankings with intervals: {n_boot} bootstrap resamples of the comparisons, each refitted; "
                   "score intervals are percentiles, the rank range drops the top and bottom 2.5 % of resampled "
                   "ranks, systems whose rank ranges do not overlap fall in different clusters (Koehn 2012; the "
                   "WMT procedure).")
    ranks = {}
    for track, part in comparisons.by_track().items():
        step(f"{track}: ranking with {n_boot} bootstrap resamples")
        model = make_model(chosen, random_state, l2).fit(part)
        # quick-bootstrap models refit in milliseconds: a process pool per track costs more than
        # it saves, so ``jobs`` serves the learning curves only
        result = bootstrap(model, part, n=n_boot, random_state=random_state)
        full = result.table()
        view = wmt_view(full)
        s = Section(f"{track}: ranking")
        s.tables.append(Table(f"{track}: {chosen} with {n_boot:,} bootstrap resamples ({len(part):,} comparisons)", view,
                              f"score = {chosen}'s fit on all comparisons ({result.scale or 'its own scale'}); lower/upper "
                              f"= {result.confidence:.0%} percentile interval; rank = trimmed rank range; simultaneous = "
                              "valid for all systems at once; cluster = WMT-style groups of systems whose rank ranges "
                              "overlap.",
                              command("rank", path, "--model", chosen, "--bootstrap", n_boot, *prior, "--random-state",
                                      random_state, read_args=read_args, tracks=[track]), "system"))
        if hasattr(model, "intervals"):  # the Bradley–Terry family: analytic intervals beside the bootstrap
            s.tables.append(_analytic_table(model, part, full, result.confidence, chosen, track, path, prior,
                                            random_state, read_args, s.notes))
        others = pd.DataFrame({name: (model if name == chosen else make_model(name, random_state, l2).fit(part))
                               .ranking()["rank"] for name in (*models, *HEURISTIC_RANKERS)})  # the same fit
        others = others.reindex(view.index)
        others.index.name = "system"
        s.tables.append(Table(f"{track}: rank by every model", others,
                              "Each model fitted on all comparisons of the track (heuristics: expected wins, Bojar's "
                              "share of non-tied wins); rows in the order of the table above.",
                              command("rank", path, "--model", ",".join((*models, *HEURISTIC_RANKERS)), *prior,
                                      "--random-state", random_state, read_args=read_args, tracks=[track]), "system"))
        s.figures.append(Figure(f"{track}: scores with intervals",
                                _png(plot_bootstrap(full, title=f"{track}: {chosen}", scale=result.scale)),
                                "scores with bootstrap intervals, one row per system"))
        if hasattr(model, "predict_proba"):
            s.figures.append(Figure(f"{track}: preference heatmap: P(row system preferred to column system) under "
                                    f"{chosen}; the rest of each cell's probability is ties and losses",
                                    _png(plot_preference_heatmap(model, title=f"{track}: {chosen}")),
                                    "probability that the row system is preferred to the column system"))
        clusters = int(full["cluster"].max()) if len(full) else 0
        ranks[track] = f"{track}: {full.index[0]} first of {len(full)}, {clusters} clusters"
        sections.append(s)
    summary.extend(ranks.values())
    return sections


def _analytic_table(model, part, full, confidence, chosen, track, path, prior, random_state, read_args, notes) -> Table:
    """The bootstrap's intervals beside the Fisher and sandwich ones (``humeval.report.analytic``),
    with a note in ``notes`` on where they disagree."""
    from humeval.report.analytic import compare_intervals, disagreement_note
    table, clusters, disagree = compare_intervals(model, part, full, confidence, random_state)
    notes.append(disagreement_note(table, clusters, disagree))
    by = f"clustered by {clusters}" if clusters else "each comparison its own cluster"
    return Table(f"{track}: analytic intervals beside the bootstrap ({chosen})", table,
                 f"boot = the {confidence:.0%} percentile interval above; fisher = score ± z σ from the inverse "
                 f"information; sandwich = the same from the robust covariance {by} (Huber 1967; Liang & Zeger "
                 "1986; with clusters the small-sample factor G/(G − 1)·(N − 1)/(N − K) of Stata and statsmodels); "
                 "x/boot width = analytic width over the bootstrap's; clusters = WMT rank clusters, the "
                 "analytic ones from 1,000 normal draws of the scores.",
                 command("rank", path, "--model", chosen, "--intervals", "sandwich",
                         *(("--cluster", clusters) if clusters else ()), *prior, read_args=read_args, tracks=[track]),
                 "system", {"fisher/boot width": "decimal", "sandwich/boot width": "decimal"})


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
