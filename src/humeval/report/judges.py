"""The report's section for humans and automatic judges together (a file whose ``judge_kind`` names
both): the prediction-powered (PPI++) estimate beside the human-only and the judge-only ones, and
the judge's audit against the humans; and the reliability diagram of a judge's probabilities."""

from __future__ import annotations

import numpy as np
import pandas as pd

from humeval.report.figures import _save, plt


def plot_reliability(table: pd.DataFrame, path=None, title: str = "Reliability of the judge's probabilities"):
    """The reliability diagram (``judge_audit.reliability``'s table): per bin the judge's mean
    P(a preferred) against the humans' frequency of preferring a, with its interval, the diagonal
    a perfectly calibrated judge would follow, and the battles per bin as the marker's size."""
    fig, ax = plt.subplots(figsize=(4.6, 4.4))
    x, f = table["judge P(a)"].to_numpy(float), table["humans prefer a"].to_numpy(float)
    ax.plot([0, 1], [0, 1], color="0.6", lw=1, ls="--", label="calibrated")
    ax.errorbar(x, f, yerr=[f - table["lo"].to_numpy(float), table["hi"].to_numpy(float) - f], fmt="none",
                ecolor="C0", elinewidth=1, capsize=2)
    size = 20 + 180 * table["battles"].to_numpy(float) / max(float(table["battles"].max()), 1.0)
    ax.scatter(x, f, s=size, color="C0", zorder=3, label="bins (size: battles)")
    ax.set(xlim=(-0.02, 1.02), ylim=(-0.02, 1.02), xlabel="judge's P(a preferred)",
           ylabel="humans prefer a (ties ½)", title=title)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    fig.tight_layout()
    return _save(fig, path)


HUMAN = "human"
JUDGES_SHOWN = 3  # automatic judges given a section of their own (the ones with the most judgments)


def split_kinds(table) -> tuple[np.ndarray, list[tuple[str, np.ndarray]]]:
    """(rows judged by humans, [(automatic judge, its rows), …] most judgments first) of a table
    whose ``judge_kind`` names humans and automatic judges; no humans or no judge: ([], [])."""
    kinds = [str(k) for k in getattr(table, "judge_kinds", ())]
    codes = np.asarray(table.judge_kind)
    human = [i for i, k in enumerate(kinds) if k.strip().lower() == HUMAN]
    if not human or len(kinds) < 2:
        return np.zeros(0, int), []
    judges = [(k, np.flatnonzero(codes == i)) for i, k in enumerate(kinds) if i not in human]
    judges = sorted([(k, rows) for k, rows in judges if len(rows)], key=lambda kr: -len(kr[1]))
    return np.flatnonzero(np.isin(codes, human)), judges


def judges_sections(judgments, path: str, summary: list, methods: list, read_args=(), tracks=(),
                    random_state: int = 0, step=None) -> list:
    """One section per automatic judge (at most ``JUDGES_SHOWN``) when the file's ``judge_kind``
    names humans and automatic judges: battles give the PPI++ Bradley–Terry abilities beside the
    human-only and judge-only ones, the judge's audit and its reliability diagram; ratings give
    the PPI++ system means. A judge whose judgments cannot be combined with the humans' (no shared
    battle or unit) gets a note saying why."""
    from humeval.report.campaign import Figure, Section, Table, _png, command
    sections = []
    for kind, table in (("battles", judgments.comparisons), ("ratings", judgments.ratings)):
        if table is None or not len(table):
            continue
        human_rows, judges = split_kinds(table)
        used = np.unique(table.track[table.track >= 0]) if len(judges) else []
        pooled = (f"pooled over {len(used)} tracks ({', '.join(str(table.tracks[t]) for t in used[:5])}"
                  f"{', …' if len(used) > 5 else ''}): humeval ppi --track T for one") if len(used) > 1 else None
        for name, judge_rows in judges[:JUDGES_SHOWN]:
            (step or (lambda _: None))(f"humans and {name}")
            section = Section(f"Humans and {name}: prediction-powered estimates")
            cmd = command("ppi", path, *(["--audit", "--rank-sets"] if kind == "battles" else []), "--judge", name,
                          read_args=read_args, tracks=tracks)
            try:
                if kind == "battles":
                    _battles_part(section, table.take(human_rows), table.take(judge_rows), name, cmd, random_state,
                                  summary, Table, Figure, _png)
                else:
                    _ratings_part(section, table.take(human_rows), table.take(judge_rows), name, cmd, summary, Table)
            except ValueError as error:  # humeval.errors.InputError only (the layering keeps report from naming it)
                if not hasattr(error, "problem"):
                    raise
                section.notes.append(f"{name} cannot be combined with the humans: {error.problem}"
                                     + (f" ({error.fix})" if error.fix else ""))
            if pooled:
                section.notes.append(pooled)
            if len(judges) > JUDGES_SHOWN and name == judges[0][0]:
                section.notes.append(f"{len(judges) - JUDGES_SHOWN} more automatic judges not shown: "
                                     + ", ".join(k for k, _ in judges[JUDGES_SHOWN:]))
            sections.append(section)
    if sections:
        methods.append("Humans and automatic judges: prediction-powered inference with PPI++'s power tuning "
                       "(Angelopoulos et al. 2023; Angelopoulos, Duchi & Zrnic 2023; battles: Boyeau et al. 2024; "
                       "rank sets: Chatzi et al. 2024): the judge's labels on every unit corrected by the human − judge "
                       "difference on the units both judged; the other sections pool both kinds of judge.")
    return sections


def _battles_part(section, human, judge, name, cmd, random_state, summary, Table, Figure, png):
    from humeval.experiments.judge_audit import audit, reliability_of
    from humeval.experiments.ppi import humans_alone, ppi_bradley_terry
    result = ppi_bradley_terry(human, judge)
    ppi = result["ppi"]
    frame = pd.concat({k: v.intervals() for k, v in result.items()}, axis=1)
    shown = pd.DataFrame({"human": frame["human", "score"], "± human": (frame["human", "hi"] - frame["human", "lo"]) / 2,
                          "judge": frame["judge", "score"], "± judge": (frame["judge", "hi"] - frame["judge", "lo"]) / 2,
                          "combined": frame["ppi", "score"], "± combined": (frame["ppi", "hi"] - frame["ppi", "lo"]) / 2})
    shown = shown.sort_values("combined", ascending=False)
    worth = ppi.extra["effective_n"]
    section.tables.append(Table(
        f"Bradley–Terry abilities: humans alone, {name} alone, combined (PPI++)", shown,
        f"95% half-widths. Combined: the PPI++ loss with λ = {ppi.lam:.2f} (Boyeau et al. 2024), its sandwich "
        f"covariance; {ppi.n:,.0f} human battles the judge also judged, {ppi.N:,.0f} judge-only. The judge column "
        "ignores the judge's bias: for contrast, not for conclusions.", cmd, "system"))
    line = (f"{name}: {ppi.n:,.0f} human battles with the judge are worth {worth:,.0f} human battles alone; the "
            f"combined intervals are {1 - shown['± combined'].mean() / shown['± human'].mean():.0%} narrower than the "
            "humans' alone.")
    section.notes.append(line)
    summary.append(line)
    from humeval.experiments.ppi_ranks import ppi_rank_sets, rank_span as span
    sets = ppi_rank_sets(human, judge)
    combined = sets["ppi"]
    ranks = pd.DataFrame({"human ranks": span(sets["human"]), "combined P(win)": combined.score,
                          "combined ranks": span(combined), "cluster": combined.cluster}, index=combined.index)
    if ppi.extra["unmatched_human"]:  # PPI++ set these aside: the humans alone on all their battles beside
        alone = ppi.extra["all_human"]
        ranks.insert(0, "all humans ranks", span(sets["all_human"]))
        width = lambda e: float((e.intervals()["hi"] - e.intervals()["lo"]).mean())  # noqa: E731
        lines = [f"{ppi.extra['unmatched_human']:,} human battles the judge did not judge are left out of the "
                 "combined estimate and of the human column (all humans ranks: on every human battle).",
                 *humans_alone(alone.n, "battles", width(alone), width(ppi), "judge the battles humans judged")]
        section.notes += lines
        summary += lines[2:]  # the warning, when there is one
    section.tables.append(Table(
        "Rank sets: every system's possible ranks, all at once with 95% coverage", ranks,
        "From the win probabilities (P(preferred when playing), ties ½) by the humans alone and by PPI++, their "
        "χ² confidence ellipsoid (Chatzi et al. 2024); clusters: WMT's rule on the combined rank sets.", cmd, "system"))
    audit_table, per_system = audit(human, judge, random_state=random_state)
    section.tables.append(Table(f"{name} audited against the humans", audit_table,
                                "Each with a 95% interval, on the battles both judged (position, self-preference: "
                                "see humeval ppi --audit; tie-calibrated accuracy: Deutsch et al. 2023).", cmd, "measure"))
    section.tables.append(Table(f"{name}: mean verdict per system minus the humans'", per_system,
                                "Positive: the judge favours the system (ties ½).", cmd, "system"))
    diagram = reliability_of(human, judge)
    section.tables.append(Table(f"{name}: reliability", diagram,
                                "The judge's P(a preferred), binned, against how often the humans preferred a "
                                "(Wilson 95% intervals).", cmd, "bin"))
    section.figures.append(Figure(f"{name}: reliability diagram", png(plot_reliability(diagram, title=name)),
                                  "The judge's probability against the humans' frequency; the diagonal is a "
                                  "calibrated judge."))


def _ratings_part(section, human, judge, name, cmd, summary, Table):
    from humeval.experiments.ppi import humans_alone, percent_span, small_sample_coverage, system_means
    series = lambda r: pd.Series(r.score, index=pd.MultiIndex.from_arrays(  # noqa: E731
        [np.asarray(r.items, dtype=object)[r.item], np.asarray(r.systems, dtype=object)[r.system]],
        names=["item", "system"]))
    table = system_means(series(human), series(judge))
    shown = pd.DataFrame({"human": table.human, "± human": table.width_human / 2, "judge": table.judge,
                          "combined": table.ppi, "± combined": table.width_ppi / 2, "λ": table.lam})
    section.tables.append(Table(f"System means: humans alone, {name} alone, combined (PPI++)", shown,
                                "95% half-widths; λ per system (PPI++'s power tuning, clipped only at 0: a judge on "
                                "another scale is rescaled). The judge column is the judge's own mean, on its scale: "
                                "for contrast, not for conclusions.", cmd, "system"))
    n, worth = float(table.n.sum()), float(table.effective_n.sum())
    line = f"{name}: {n:,.0f} human-scored units with the judge are worth {worth:,.0f} human-scored units alone."
    section.notes.append(line)
    summary.append(line)
    if table.attrs["human_only_units"]:
        lines = [f"{table.attrs['human_only_units']:,} human-scored units the judge did not score are left out of the "
                 "combined means and of the human column.",
                 *humans_alone(table.all_human_n.sum(), "units", table.width_all_human.mean(), table.width_ppi.mean(),
                               "score the units humans scored")]
        section.notes += lines
        summary += lines[2:]
    few = small_sample_coverage(table)
    if len(few):
        section.notes.append(f"Too few human-scored units for normal intervals: {', '.join(map(str, few.index))}; even "
                             f"for normally distributed scores their 95% intervals cover only {percent_span(few)} "
                             "(Student's t).")
    if table.attrs["unjudged"]:
        section.notes.append("left out (the judge scored none of their units): " + ", ".join(map(str, table.attrs["unjudged"])))
    if table.attrs.get("left_out"):
        section.notes.append("left out (too few human-scored units shared with the judge): "
                             + ", ".join(map(str, table.attrs["left_out"])))
