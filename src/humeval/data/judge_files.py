"""A human file and an automatic judge's file as one table with a ``judge_kind`` column.

An automatic judge's labels often come in a file of their own, in any format a reader takes (an
LLM judge's battles, a crowd's rankings standing in for a cheap judge of experts' items). ``mark``
says who judged every row of a table; ``combine`` stacks the human table and the judge's table,
each marked, so that ``humeval ppi`` and ``humeval plan`` match them by item and system pair as
they match a file with a ``judge_kind`` column. Reader-agnostic: it works on the tables
(``Comparisons`` or ``Ratings``), not on the files' layouts.
"""

from __future__ import annotations

import numpy as np

from humeval.data.tables import Table
from humeval.errors import InputError


def mark(table: Table, kind: str) -> Table:
    """The same rows with every ``judge_kind`` set to ``kind`` (the file's own kinds replaced)."""
    labels = dict(table._labels)
    labels["judge_kinds"] = (str(kind),)
    cols = dict(table._cols)
    cols["judge_kind"] = np.zeros(len(table), dtype=cols["judge_kind"].dtype)
    return table._rebuild(cols, labels)


def _track_names(table: Table) -> set:
    return {table.tracks[t] for t in np.unique(table.track) if t >= 0}


def combine(human: Table, judge: Table, judge_name: str, human_label: str = "human", human_path=None,
            judge_path=None) -> Table:
    """``human`` marked ``human_label`` stacked on ``judge`` marked ``judge_name``.

    Errors (``InputError``): the two tables are of different kinds (battles against ratings), the
    two share no item id (nothing to learn the judge's bias from), or they span several tracks
    (item ids repeat across tracks, so the match would pair unrelated items)."""
    if type(human) is not type(judge):
        raise InputError(judge_path, None, f"holds {type(judge).__name__.lower()} but {human_path} holds "
                         f"{type(human).__name__.lower()}", "give the judge's labels in the same kind of file: "
                         "battles for battles, ratings for ratings")
    if judge_name.strip().lower() == human_label.strip().lower():
        raise InputError(judge_path, None, f"the judge's name '{judge_name}' is the humans' label",
                         "name the judge otherwise (--judge NAME)")
    tracks = _track_names(human) | _track_names(judge)
    if len(tracks) > 1:
        raise InputError(human_path, None, f"the two files span {len(tracks)} tracks ({', '.join(sorted(tracks)[:4])}"
                         f"{', …' if len(tracks) > 4 else ''}), whose item ids repeat",
                         "choose one with --track")
    used = lambda t: {t.items[i] for i in np.unique(t.item) if i >= 0}  # noqa: E731
    if not used(human) & used(judge):
        raise InputError(judge_path, None, f"shares no item id with {human_path}",
                         "the judge must label (some of) the items the humans judged: check that both files "
                         "name items (segment or prompt ids) alike, and that --track picks the same track")
    return type(human).concat([mark(human, human_label), mark(judge, judge_name)])
