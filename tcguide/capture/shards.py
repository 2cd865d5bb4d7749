"""Which runner captures which snippet file: machine classes, and shards balanced by recorded time.

A snippet file's outputs belong to a machine class: the ``machine`` setting of its
capture block, or the project's default (``[tool.tcguide] machine`` in pyproject.toml).
A runner captures the files of its own class only. Within a class, ``--shard K/N``
gives each of N runners a share of the files, balanced by how long each file took at
its last capture (its cells' wall time plus ``START_S`` for the process; a file never
captured counts ``NEW_FILE_S``): longest first, each to the shard with the least time
so far, exclusive files first so that they spread across shards. The assignment
depends only on the checkout, so every runner of a matrix computes the same one.
Stdlib only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tcguide.core import settings
from tcguide.core.errors import GuideError

START_S = 10.0  # starting a runner process: Python, imports, the first CUDA context
NEW_FILE_S = 120.0  # a file with no recorded time


def project_machine(root: Path) -> str:
    """The project's default machine class, from pyproject.toml (``core.settings``)."""
    return settings.load(root).machine


@dataclass(frozen=True)
class Planned:
    path: Path
    seconds: float
    exclusive: bool
    recorded: bool  # False: the file has no captured time, seconds is the default


def parse_spec(spec: str) -> tuple[int, int]:
    try:
        k, n = (int(x) for x in spec.split("/"))
        if not 1 <= k <= n:
            raise ValueError
    except ValueError:
        raise GuideError("--shard", None, f"bad shard {spec!r}", "write it as K/N, e.g. 1/3") from None
    return k, n


def assign(files: list[Planned], n: int) -> list[list[Planned]]:
    """Greedy balance: longest first, each to the least-loaded shard; exclusive files first."""
    shards: list[list[Planned]] = [[] for _ in range(n)]
    load = [0.0] * n
    for group in (True, False):
        for item in sorted((f for f in files if f.exclusive is group), key=lambda f: (-f.seconds, str(f.path))):
            target = min(range(n), key=lambda i: (load[i], i))
            shards[target].append(item)
            load[target] += item.seconds
    return [sorted(s, key=lambda f: str(f.path)) for s in shards]


def shard(files: list[Planned], spec: str | None) -> list[Planned]:
    if not spec:
        return files
    k, n = parse_spec(spec)
    return assign(files, n)[k - 1]
