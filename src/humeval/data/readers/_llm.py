"""What the readers of LLM-judge benchmarks (Arena-Hard-Auto, AlpacaEval, MT-Bench) share: their
verdicts come from an automatic judge, so every row's ``judge_kind`` is that judge's name (as in a
pairwise or ratings file's ``judge_kind`` column: ``human`` or an automatic judge's name), and the
judge is named in ``judge`` too."""

from __future__ import annotations

import pandas as pd

from humeval.data.judgments import Judgments, ReadReport, nonempty
from humeval.data.readers._io import shown
from humeval.data.tables import Comparisons
from humeval.errors import InputError

BATTLE = ["a", "b", "outcome", "item", "judge", "weight", "category", "judge_kind"]


def text(value, path, line, what: str, fix: str) -> str:
    """A non-empty name (a string, or a number such as a question id) as a string, else an error."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)) or str(value).strip() == "":
        raise InputError(path, line, f"{what} is {shown(value)!r}, expected a name", fix)
    return str(value)


def judge_name(value, path, line, fix: str) -> str:
    """The judge of a record: a name, or FastChat's [model, prompt name] pair (the model)."""
    if isinstance(value, list) and value:
        value = value[0]
    return text(value, path, line, "the judge", fix)


def comparisons(rows: list, report: ReadReport) -> Judgments:
    """``Judgments`` of battles from rows (a, b, outcome, item, judge, weight, category[, judge_kind]),
    each marked as judged by its (automatic) judge unless the row says who judged; a note names the
    automatic judges."""
    if not rows:
        nonempty(Judgments(report))
    df = pd.DataFrame([row if len(row) == len(BATTLE) else (*row, row[4]) for row in rows], columns=BATTLE)
    if df["category"].isna().all():
        df = df.drop(columns="category")
    judges = sorted(df.loc[df["judge_kind"] != "human", "judge"].unique())
    if not judges:
        return Judgments(report, comparisons=Comparisons.from_pandas(df))
    report.notes.append(f"automatic judge{'s' if len(judges) > 1 else ''} {', '.join(map(shown, judges))} "
                        "(judge_kind: combine with human judgments by humeval ppi)")
    return Judgments(report, comparisons=Comparisons.from_pandas(df))
