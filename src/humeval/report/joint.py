"""The report's joint-model section (``humeval report PAIRS --joint RATINGS``): per track, the
comparisons and the ratings of the same systems fitted on one scale (``ranking.joint.JointModel``:
Davidson for the comparisons, a Gaussian with its own offset, slope and noise per rating
protocol), the protocols' scales, and whether joining helps: each protocol's held-out
log-likelihood per judgment under the joint fit and under that protocol alone
(``experiments.joint.heldout_by_protocol``). The numbers are ``humeval rank PAIRS --joint RATINGS``'s.
"""

from __future__ import annotations

import numpy as np

from humeval.experiments.joint import HELDOUT_SHARE, pair_tracks
from humeval.report.campaign import Section, Table, command
from humeval.report.render import number


def joint_fit(comparisons, ratings, l2: float | None = None, random_state=None, test_size: float = HELDOUT_SHARE):
    """One track's joint model as ``rank --joint`` prints it: (ranking with the comparisons and
    ratings per system, the protocols' offset, slope and noise, the held-out log-likelihood per
    protocol, warnings: a fit that did not converge, few comparisons per system)."""
    from humeval.experiments.joint import heldout_by_protocol
    from humeval.ranking.joint import JointModel
    from humeval.report.evidence import few_comparisons_warning
    shared_systems(comparisons, ratings)
    model = JointModel(**({} if l2 is None else {"l2": float(l2)}))
    model.fit(comparisons, ratings)
    heldout = heldout_by_protocol(comparisons, ratings, test_size=test_size, l2=model.l2, random_state=random_state)
    table = model.ranking()
    table["comparisons"] = model.record_.sum(axis=1).astype(int)
    table["ratings"] = model.ratings_
    warnings = [w for w in ("" if model.converged_ else "the joint fit did not converge; its scores are not a maximum",
                            few_comparisons_warning(comparisons)) if w]
    return table, model.protocol_, heldout, warnings


def shared_systems(comparisons, ratings) -> list[str]:
    """The systems both compared and rated (quality-control ratings left out, as the joint model
    leaves them); none is a ValueError: nothing would tie the two protocols' scales together, and
    the held-out "gain" would be the optimiser's rounding (±1e-8), read as a verdict."""
    from humeval.ranking.joint import system_ratings
    compared = {comparisons.systems[i] for i in np.unique(np.concatenate([comparisons.a, comparisons.b]))}
    rated_part, _ = system_ratings(ratings)
    rated = {rated_part.systems[i] for i in np.unique(rated_part.system)}
    both = sorted(compared & rated)
    if compared and rated and not both:
        raise ValueError(f"the ratings name none of the {len(compared):,} compared systems (they rate "
                         f"{', '.join(sorted(rated)[:5])}{' …' if len(rated) > 5 else ''}): nothing joins the two "
                         "protocols on one scale; give --joint ratings of the same systems, by the same names")
    return both


def joint_verdict(heldout) -> str:
    """One sentence per protocol: does the other protocol's data help predict it? "helps" when
    the gain is more than two standard errors above 0, "hurts" when more than two below, else
    "no clear difference" (the held-out set cannot tell)."""
    parts = []
    for protocol, row in heldout.iterrows():
        gain, se = row["gain"], row["gain se"]
        if not (se == se and gain == gain):  # NaN: too few held out to judge
            parts.append(f"{protocol}: too few held-out judgments to judge ({number(int(row['heldout']), 'count')})")
            continue
        word = ("joining helps" if gain > 2 * se else "joining hurts" if gain < -2 * se else "no clear difference")
        parts.append(f"{protocol}: {word} (joint − alone {number(gain)} ± {number(se)} nats per held-out judgment, "
                     f"{number(int(row['heldout']), 'count')} held out)")
    return "; ".join(parts)


def joint_sections(comparisons, joint, path: str, summary: list, methods: list, l2=None, random_state: int = 0,
                   read_args=(), tracks=()) -> list[Section]:
    """Per track of ``comparisons``, the joint ranking, the protocols' scales and the held-out
    table; ``joint`` = (ratings file, its Ratings). A track the ratings do not cover, or a fit
    that fails, is a note, not a traceback."""
    ratings_path, ratings = joint
    try:
        paired = pair_tracks(comparisons, ratings)
    except ValueError as error:
        return [Section("Comparisons and ratings on one scale", notes=[f"no joint model: {error}"])]
    prior = () if l2 is None else ("--l2", f"{l2:g}")
    sections = []
    for track, part in comparisons.by_track().items():
        s = Section(f"{track}: comparisons and ratings on one scale")
        how = command("rank", path, "--joint", ratings_path, *prior, "--random-state", random_state,
                      read_args=read_args, tracks=[track] if track != "(no track)" else [])
        try:
            table, protocols, heldout, warnings = joint_fit(part, paired[track], l2, random_state)
        except ValueError as error:
            s.notes.append(f"no joint model: {error}")
            sections.append(s)
            continue
        s.notes += [f"warning: {w}" for w in warnings]
        s.tables.append(Table(f"{track}: joint ranking ({number(int(table['comparisons'].sum()) // 2, 'count')} "
                              f"comparisons, {number(len(paired[track]), 'count')} ratings)", table,
                              "score: log-odds of the comparisons (Davidson), mean zero; std: from the inverse Hessian "
                              "of the joint fit (normal approximation); comparisons and ratings: each system's.",
                              how, "system"))
        s.tables.append(Table(f"{track}: rating protocols on the joint scale", protocols,
                              "Each protocol's ratings are offset + slope × score + noise (in the file's units).",
                              how, "protocol"))
        s.tables.append(Table(f"{track}: does joining help? held-out log-likelihood per judgment", heldout,
                              f"{HELDOUT_SHARE:.0%} of the comparisons and of the ratings held out; joint: the model "
                              "fitted on the rest of both; alone: on the rest of that protocol only; gain = joint − "
                              "alone (> 0: the other protocol's judgments improved this protocol's predictions; < 0: "
                              "the protocols disagree about the systems, so do not put them on one scale); gain se: its "
                              "standard error over the held-out judgments' paired differences; unseen: "
                              "held-out judgments of systems the training part never saw, left out.",
                              how, "protocol", {"joint": "decimal", "alone": "decimal"}))
        verdict = joint_verdict(heldout)
        s.notes.append(verdict)
        summary.append(f"{track}: joint scale with {ratings_path}: {verdict}.")
        sections.append(s)
    methods.append("Joint model: the comparisons (Davidson) and each rating protocol (a Gaussian with its own offset, "
                   "slope and noise) share one ability per system, fitted together; whether joining helps is judged "
                   f"on {HELDOUT_SHARE:.0%} held-out judgments per protocol.")
    return sections
