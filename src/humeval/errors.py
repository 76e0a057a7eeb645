"""Errors that carry the place in the user's input and the fix."""

from __future__ import annotations


class InputError(ValueError):
    """Bad input: says which file, which line, what was expected and how to fix it.

    ``line`` is 1-based and counts the header; ``None`` means the whole file (an empty
    file, a missing file, an unknown format).
    """

    def __init__(self, path, line: int | None, problem: str, fix: str | None = None):
        self.path = str(path)
        self.line = line
        self.problem = problem
        self.fix = fix
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        text = f"{where}: {self.problem}"
        if self.fix:
            text += f" (fix: {self.fix})"
        return text
