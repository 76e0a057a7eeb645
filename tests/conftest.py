import os
from pathlib import Path

# Numba compiles humeval's kernels for the tests at -O1, into a cache of the tests' own. With the
# cache cold (a fresh clone, as CI and a new user have) compiling at numba's default -O3 is about a
# tenth of the suite's wall time: 363 s on 2 idle cores, 345 s at -O1, 331 s with a warm cache
# (2026-11-27). -O1 keeps IEEE arithmetic (no kernel uses fastmath), so every number the tests check
# is the one -O3 gives; only the machine code is slower. The separate cache keeps these kernels
# from replacing the ones the package caches for its own runs. Either variable set by hand wins.
os.environ.setdefault("NUMBA_OPT", "1")
os.environ.setdefault("NUMBA_CACHE_DIR", str(Path(__file__).resolve().parents[1] / ".numba-cache-tests"))

import click
import numpy as np
import pytest

from humeval.data import Comparisons

FIXTURES = Path(__file__).parent / "fixtures"
# ../shared/data beside the repository, or wherever HUMEVAL_SHARED_DATA points (a git worktree elsewhere)
SHARED = Path(os.environ.get("HUMEVAL_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")


@pytest.fixture
def fixture():
    return lambda name: FIXTURES / name


def shared_file(relative: str) -> Path:
    """A file of ../shared/data, or skip the test when the data is not there (fresh clones)."""
    path = SHARED / relative
    if not path.exists():
        pytest.skip(f"real data not available: {path}")
    return path


def command_tree(command: click.Command, prefix: str = ""):
    """(name, command) of every leaf command under ``command`` (``"grm fit"``, ``"rank"``, …)."""
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from command_tree(sub, f"{prefix} {name}")
    else:
        yield prefix.strip(), command


def two_groups_comparisons(n=600, seed=0, items=None):
    """Systems A, B, C compared only among themselves, and D, E, F likewise (15 % ties)."""
    rng = np.random.default_rng(seed)
    theta = np.array([1.0, 0.0, -1.0, 2.0, 0.5, -0.5])
    a = rng.integers(0, 3, n)
    b = (a + rng.integers(1, 3, n)) % 3
    second = rng.random(n) < 0.5
    a, b = np.where(second, a + 3, a), np.where(second, b + 3, b)
    wins = rng.random(n) < 1 / (1 + np.exp(-(theta[a] - theta[b])))
    outcome = np.where(rng.random(n) < 0.15, 0, np.where(wins, 1, 2))
    items = items or n // 2
    return Comparisons(a=a, b=b, outcome=outcome, item=rng.integers(0, items, n), judge=np.arange(n) % 7,
                       systems=tuple("ABCDEF"), items=tuple(map(str, range(items))), judges=tuple("jklmnop"))


def partly_judged_battles(judged=150, n_human=2000, n_judge=1500, random_state=1, **simulation):
    """A ``judged_battles`` campaign as ``battles_frame``'s table in which the automatic judge judged
    only the first ``judged`` of the humans' items (its battles on the other human items dropped):
    PPI++ then sets most human battles aside (``ppi``'s humans-alone comparisons)."""
    from humeval.simulate.judged import battles_frame, judged_battles
    _, h, j = judged_battles(n_human=n_human, n_judge=n_judge, random_state=random_state, **simulation)
    frame = battles_frame(h, j)
    human_items = set(frame.loc[frame.judge_kind == "human", "question_id"])
    kept = sorted(human_items, key=lambda q: int(q[1:]))[:judged]
    drop = (frame.judge_kind != "human") & frame.question_id.isin(human_items - set(kept))
    return frame[~drop], frame

