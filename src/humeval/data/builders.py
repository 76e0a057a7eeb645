"""Row-by-row accumulation for readers of small, line-oriented formats."""

from __future__ import annotations

import numpy as np

from humeval.data.readers._io import shown
from humeval.data.tables import Rankings, encode
from humeval.errors import InputError

MAX_RANK = int(np.iinfo(Rankings.SCHEMA["rank"].dtype).max)  # the largest rank the rank column holds


def parse_rank(text: str | None, path, line: int | None, what: str) -> int:
    """A rank as WMT files write it: 1, 2, … (1 best); empty or -1 means unset (-1)."""
    text = (text or "").strip()
    if text in ("", "-1"):
        return -1
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_RANK:
        raise InputError(path, line, f"{what} is '{shown(text, 40)}', expected a rank 1, 2, … "
                         f"(at most {MAX_RANK:,}) or -1 for unset", "fix the rank or set it to -1")
    return value


class RankingRows:
    """Collects k-way rankings one at a time and builds a ``Rankings`` table."""

    def __init__(self):
        self.track, self.item, self.judge = [], [], []
        self.systems, self.ranks, self.outputs = [], [], []

    def add(self, track, item, judge, systems, ranks, outputs=None) -> None:
        """One ranking: parallel lists of system names, ranks (-1 unset) and output ids."""
        self.track.append(track)
        self.item.append(item)
        self.judge.append(judge)
        self.systems.append(list(systems))
        self.ranks.append(list(ranks))
        self.outputs.append(list(range(len(systems))) if outputs is None else list(outputs))

    def __len__(self) -> int:
        return len(self.track)

    def build(self) -> Rankings:
        n = len(self.systems)
        width = max((len(s) for s in self.systems), default=0)
        lengths = np.array([len(s) for s in self.systems], dtype=np.int64)
        row = np.repeat(np.arange(n), lengths)
        pos = np.concatenate([np.arange(m) for m in lengths]) if n else np.zeros(0, np.int64)
        flat = [name for names in self.systems for name in names]
        [codes], systems = encode(flat)
        grid = {}
        for name, values, dtype in (("system", codes, np.int32),
                                    ("rank", [r for rs in self.ranks for r in rs], np.int32),
                                    ("output", [o for os_ in self.outputs for o in os_], np.int32)):
            grid[name] = np.full((n, width), -1, dtype=dtype)
            grid[name][row, pos] = values
        (track,), tracks = encode(self.track)
        (item,), items = encode(self.item)
        (judge,), judges = encode(self.judge)
        return Rankings(**grid, item=item, judge=judge, track=track,
                        systems=systems, items=items, judges=judges, tracks=tracks)
