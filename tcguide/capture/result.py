"""What the runner tells the driver about one snippet file: written by the runner, read by the
driver, both through this module alone.

The runner rewrites the result file (JSON, atomically) after every cell, so the driver knows
how far a file got even when it crashed or hung: the cell running now (``current``), the cells
done, the failure that stopped the file, what it left running, and the distributions it imported.
A result the driver cannot read (none written, cut short) reads as ``None``; a failure of a kind
this module does not name still reads, and is reported with its message and a general remedy,
never as a ``KeyError``. Stdlib only.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tcguide.core.store import write_atomic

RUNNING, COMPLETE, FAILED = "running", "complete", "failed"

# A cell that did not behave as declared, by kind, and what the author should do about it.
EXCEPTION = "exception"  # raised what it did not declare (its traceback says where)
NO_EXCEPTION = "no-exception"  # declared raises= but finished
GLUE = "glue"  # a glued variable that is missing, not plain data, or too big
REMEDIES = {
    EXCEPTION: "fix the cell, or declare the exception: '# %% {cell} raises=\"...\"'",
    NO_EXCEPTION: "remove the raises= option, or make the cell raise",
    GLUE: "set the variable to a number, text, or a list or dict of them, or drop it from glue=",
}
OTHER_REMEDY = "fix the cell; its log is kept with the capture's logs"


@dataclass
class Current:
    """The cell running now, and the log its output goes to (relative to the logs folder)."""

    name: str
    line: int
    log: str


@dataclass
class Failure:
    kind: str
    cell: str
    line: int
    message: str
    traceback: str = ""

    @property
    def remedy(self) -> str:
        return REMEDIES.get(self.kind, OTHER_REMEDY).format(cell=self.cell)


@dataclass
class Leftover:
    """A thread or process a cell started that was still running after the last cell."""

    cell: str
    what: str


@dataclass
class CellResult:
    name: str
    outputs: list[dict]
    wall_time_s: float
    glue: dict | None = None  # the glued values, for a cell that glues and behaved

    def to_json(self) -> dict:
        record = {"name": self.name, "outputs": self.outputs, "wall_time_s": self.wall_time_s}
        if self.glue is not None:
            record["glue"] = self.glue
        return record


@dataclass
class RunResult:
    snippet: str
    status: str = RUNNING
    current: Current | None = None
    cells: list[CellResult] = field(default_factory=list)
    failure: Failure | None = None
    leftovers: list[Leftover] = field(default_factory=list)
    packages: dict[str, str] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return self.status == COMPLETE

    def to_json(self) -> str:
        return json.dumps({
            "snippet": self.snippet, "status": self.status,
            "current": asdict(self.current) if self.current else None,
            "cells": [c.to_json() for c in self.cells],
            "failure": asdict(self.failure) if self.failure else None,
            "leftovers": [asdict(left) for left in self.leftovers],
            "packages": self.packages,
        }, ensure_ascii=False)

    def write(self, path: str | Path) -> None:
        write_atomic(path, self.to_json())

    @classmethod
    def read(cls, path: Path) -> "RunResult | None":
        """The result a runner left, or None if there is none it finished writing."""
        try:
            doc = json.loads(Path(path).read_text(encoding="utf-8"))
            return cls.from_json(doc)
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None

    @classmethod
    def from_json(cls, doc: dict) -> "RunResult":
        current, failure = doc.get("current"), doc.get("failure")
        return cls(
            snippet=doc["snippet"], status=doc.get("status", RUNNING),
            current=Current(current["name"], current["line"], current["log"]) if current else None,
            cells=[CellResult(c["name"], list(c["outputs"]), c["wall_time_s"], c.get("glue")) for c in doc.get("cells", [])],
            failure=Failure(failure.get("kind", "unknown"), failure.get("cell", "?"), failure.get("line", 0),
                            failure.get("message", ""), failure.get("traceback", "")) if failure else None,
            leftovers=[Leftover(left["cell"], left["what"]) for left in doc.get("leftovers", [])],
            packages=dict(doc.get("packages", {})),
        )
