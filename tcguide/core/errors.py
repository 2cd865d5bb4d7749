"""The one error type the tooling raises for bad input: ``path:line: what — what to do``."""

from __future__ import annotations


class GuideError(Exception):
    """A problem in an input file, reported with its place and a remedy."""

    def __init__(self, path: str, line: int | None, problem: str, remedy: str = ""):
        self.path = str(path)
        self.line = line
        self.problem = problem
        self.remedy = remedy
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        text = f"{where}: {self.problem}"
        return f"{text} — {self.remedy}" if self.remedy else text

    def inside(self, path: str, line: int | None, what: str) -> "GuideError":
        """This error as met at ``path:line`` while handling ``what`` (a directive, say): the same
        words after the new place, and the same remedy."""
        where = f"{self.path}:{self.line}" if self.line else self.path
        return GuideError(path, line, f"{what}: {where}: {self.problem}", self.remedy)
