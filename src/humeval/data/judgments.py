"""What a reader returns: the tables it found and a report of what it skipped and why."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from humeval.data.tables import Comparisons, PostEdits, Rankings, Ratings
from humeval.errors import InputError

EXAMPLE_LINES = 5  # how many line numbers a report keeps per skip reason


@dataclass
class ReadReport:
    """What a reader did: the format, rows read, and every skip counted by reason. ``format`` is
    the reader's name (what ``read(format=...)`` and ``--format`` take, or what made the data:
    "simulation"), ``detail`` how it read this source (the file kind of a format that reads
    several, "csv"; a query), shown in parentheses by ``described``."""

    path: str
    format: str
    rows: int = 0
    unit: str = "line"  # what example places count: file lines, or rows for Parquet (1 = first row)
    skipped: dict[str, int] = field(default_factory=dict)
    examples: dict[str, list[int]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    detail: str = ""

    @property
    def described(self) -> str:
        """The format with its detail: "pairwise (csv)"."""
        return f"{self.format} ({self.detail})" if self.detail else self.format

    def skip(self, reason: str, n: int = 1, lines=()) -> None:
        if n <= 0:
            return
        self.skipped[reason] = self.skipped.get(reason, 0) + int(n)
        kept = self.examples.setdefault(reason, [])
        kept.extend(int(x) for x in list(lines)[: EXAMPLE_LINES - len(kept)])

    def skip_rows(self, checks, first: int) -> np.ndarray:
        """Skip rows by reason, in order (a row counts under its first reason only): ``checks``
        are (reason, boolean mask) pairs, ``first`` the number of row 0 in ``unit``. Returns
        the mask of rows kept."""
        keep = None
        for reason, bad in checks:
            keep = np.ones(len(bad), dtype=bool) if keep is None else keep
            bad = bad & keep
            self.skip(reason, int(bad.sum()), np.nonzero(bad)[0][:EXAMPLE_LINES] + first)
            keep &= ~bad
        return keep

    @property
    def n_skipped(self) -> int:
        return sum(self.skipped.values())

    def skip_texts(self) -> list[str]:
        """One "skipped N reason (e.g. line …)" per reason, "row" in the singular for one (``shown``:
        a reason quoting the file is escaped and cut)."""
        from humeval.data.readers._io import shown
        out = []
        for reason, n in self.skipped.items():
            where = self.examples.get(reason)
            at = f" (e.g. {self.unit} {', '.join(map(str, where))})" if where else ""
            what = reason.replace("rows ", "row ", 1) if n == 1 and reason.startswith("rows ") else reason
            out.append(f"skipped {n:,} {shown(what)}{at}")  # a reason may quote the file: escaped, cut
        return out

    def lines(self) -> list[str]:
        out = [f"{self.path}: {self.rows:,} {'row' if self.rows == 1 else 'rows'} read as {self.described}"]
        out += [f"  note: {n}" for n in self.notes]
        return out + [f"  {text}" for text in self.skip_texts()]

    def __str__(self) -> str:
        return "\n".join(self.lines())


@dataclass
class Judgments:
    """The tables read from one file. Rankings come with the comparisons they expand to."""

    report: ReadReport
    rankings: Rankings | None = None
    comparisons: Comparisons | None = None
    ratings: Ratings | None = None
    post_edits: PostEdits | None = None
    expansion: dict[str, int] = field(default_factory=dict, repr=False)  # the skips expand() put in the report

    def __post_init__(self):
        if self.rankings is not None and self.comparisons is None:
            self.expand()

    def expand(self, keep_shared_outputs: bool = False) -> "Judgments":
        """(Re)build the comparisons from the rankings, the report's counts of skipped pairs
        following; ``keep_shared_outputs`` makes systems that shared one output ties (WMT15–16)
        instead of leaving them uncompared."""
        if self.rankings is None:
            return self
        self.comparisons, skipped = self.rankings.expand(return_skipped=True,
                                                         keep_shared_outputs=keep_shared_outputs)
        for reason, n in self.expansion.items():  # take back the counts of an earlier expansion
            left = self.report.skipped.pop(reason, 0) - n
            if left > 0:
                self.report.skipped[reason] = left
        for reason, n in skipped.items():
            self.report.skip(reason, n)
        self.expansion = skipped
        return self

    def tables(self) -> dict[str, object]:
        """The tables present, by name."""
        names = ("rankings", "comparisons", "ratings", "post_edits")
        return {n: getattr(self, n) for n in names if getattr(self, n) is not None}

    def __repr__(self) -> str:
        inside = ", ".join(repr(t) for t in self.tables().values()) or "no judgments"
        return f"Judgments({self.report.path}: {inside})"


def nonempty(judgments: Judgments) -> Judgments:
    """``judgments``, or an ``InputError`` when reading left no judgment (every row skipped, or
    rankings whose every pair was skipped: rankings count through their comparisons)."""
    if any(len(t) for name, t in judgments.tables().items() if name != "rankings"):
        return judgments
    report = judgments.report
    skipped = "; ".join(f"{n:,} {reason}" for reason, n in report.skipped.items())
    if not skipped:
        raise InputError(report.path, None, f"no judgments in the file ({report.rows:,} rows read as {report.described})",
                         "check that the export finished")
    raise InputError(report.path, None, f"no judgments left after skipping {skipped} "
                     f"({report.rows:,} rows read as {report.described})",
                     "check the columns and values the skipped rows lack")
