import os
from pathlib import Path

import pytest

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
