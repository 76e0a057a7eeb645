"""Errors that carry the place in the user's input and the fix.

Every error class here pickles whole (``__reduce__`` rebuilds it from its own fields), so an
error raised in a worker process of ``--jobs`` arrives in the parent with its path, line and
fix, not as a garbled ``TypeError`` about missing arguments.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input: says which file, which line, what was expected and how to fix it.

    ``line`` is 1-based and counts the header; ``None`` means the whole file (an empty
    file, a missing file, an unknown format). ``path`` is ``None`` for input that is no file (a
    command-line value such as a pasted signature): the message then starts with the problem.
    """

    def __init__(self, path, line: int | None, problem: str, fix: str | None = None):
        self.path = None if path is None else str(path)
        self.line = line
        self.problem = problem
        self.fix = fix
        super().__init__(str(self))

    def __reduce__(self):
        return type(self), (self.path, self.line, self.problem, self.fix)

    def __str__(self) -> str:
        if self.path is None:
            text = self.problem if self.line is None else f"line {self.line}: {self.problem}"
        else:
            where = self.path if self.line is None else f"{self.path}:{self.line}"
            text = f"{where}: {self.problem}"
        if self.fix:
            text += f" (fix: {self.fix})"
        return text


class DisconnectedError(ValueError):
    """The comparisons do not link every rated system to every other in both directions, and
    the model was asked for maximum likelihood (no prior): some scores would be infinite.

    ``components`` lists the strongly connected parts (system names), largest first.
    """

    def __init__(self, components: list[list[str]]):
        self.components = components
        shown = "; ".join("{" + ", ".join(c[:6]) + (", …" if len(c) > 6 else "") + "}" for c in components[:5])
        super().__init__(
            f"the comparison graph falls into {len(components)} parts that never beat each other both ways "
            f"({shown}): their maximum-likelihood scores are infinite. Rank the parts separately, or keep the "
            "default prior (l2=0.01, --l2 on the command line) to put them on one scale anyway")

    def __reduce__(self):
        return type(self), (self.components,)
