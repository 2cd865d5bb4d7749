"""The installed distributions a snippet file imported (torch, numpy, ...) and their versions, as
its capture records them: only those found on the interpreter's own path."""

from __future__ import annotations

import sys
import types
from pathlib import Path

STARTUP_PATH = {str(Path(p or ".").resolve()) for p in sys.path}  # where the interpreter finds packages


def on_startup_path(module: types.ModuleType | None) -> bool:
    """The top-level module was found on the interpreter's own path, not on one a package added
    later (setuptools puts its vendored copies of other distributions on the path)."""
    if module is None:
        return False
    file = getattr(module, "__file__", None)
    if file:
        where = Path(file).resolve().parent
        roots = [where.parent if where.name == module.__name__ else where]
    else:  # a namespace package: where its portions are
        roots = [Path(p).resolve().parent for p in getattr(module, "__path__", ())]
    return any(str(root) in STARTUP_PATH for root in roots)


def imported() -> dict[str, str]:
    """Name and version of every installed distribution the file imported (torch, numpy, ...),
    found on the interpreter's own path."""
    from importlib import metadata

    owners = metadata.packages_distributions()
    found = {}
    for module in {name.split(".")[0] for name in list(sys.modules)}:
        if not on_startup_path(sys.modules.get(module)):
            continue
        for dist in owners.get(module, ()):
            if dist != "tcguide":
                try:
                    found[dist] = metadata.version(dist)
                except metadata.PackageNotFoundError:
                    pass
    return dict(sorted(found.items()))
