"""The tooling's layout, drawn from its imports: folders by concern, arrows only downward.

    cli ─→ site ─→ i18n, notebooks ─→ core
     └──→ capture ──────────────────────↗

``core`` (snippet files, the store, freshness, the environment, the catalog, directives, glue,
claims) imports none of the others; ``capture`` runs on the GPU machine and imports the core
alone; nothing imports ``cli`` but ``__main__``. Both ``capture`` and ``core`` stay stdlib only,
MkDocs least of all: the GPU machine has none.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from tests.helpers import ROOT

PACKAGE = ROOT / "tcguide"
# What each folder may import from the package (itself always); "top" is cli, __main__ and __init__.
MAY_IMPORT = {
    "core": set(),
    "capture": {"core"},
    "i18n": {"core"},
    "notebooks": {"core"},
    "site": {"core", "i18n", "notebooks"},
    "top": {"core", "capture", "i18n", "notebooks", "site"},
}
STDLIB_ONLY = {"core", "capture"}
MAX_LINES = 400  # a module of one job stays under it (the runner, snippet files and the store were split by job)


def _modules() -> dict[str, Path]:
    """Dotted name -> file, for every module of the package."""
    return {".".join(p.relative_to(ROOT).with_suffix("").parts): p for p in sorted(PACKAGE.rglob("*.py"))}


def _folder(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else "top"


def _imports(path: Path) -> set[str]:
    """Every module a file imports (at any depth: imports inside functions count too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)  # `from tcguide.core import store`
    return found


def _graph() -> dict[str, set[str]]:
    """Module -> the modules of the package it imports."""
    modules = _modules()
    return {name: {m for m in _imports(path) if m in modules and m != name} for name, path in modules.items()}


def test_every_module_lives_in_a_folder_of_the_layout():
    folders = {_folder(m) for m in _modules()}
    assert folders <= set(MAY_IMPORT), f"folders not in the layout: {folders - set(MAY_IMPORT)}"
    assert {m for m in _modules() if _folder(m) == "top"} == {"tcguide.__init__", "tcguide.cli", "tcguide.__main__"}


def test_no_import_runs_back_up_the_layout():
    wrong = [f"{module} imports {target} ({_folder(module)} → {_folder(target)})"
             for module, targets in _graph().items() for target in sorted(targets)
             if _folder(target) != _folder(module) and _folder(target) not in MAY_IMPORT[_folder(module)]]
    assert not wrong, "\n".join(wrong)


def test_nothing_imports_the_cli_but_main():
    users = sorted(m for m, targets in _graph().items() if "tcguide.cli" in targets)
    assert users == ["tcguide.__main__"]


def test_no_cycle_between_folders():
    edges: dict[str, set[str]] = {}
    for module, targets in _graph().items():
        for target in targets:
            if _folder(target) != _folder(module):
                edges.setdefault(_folder(module), set()).add(_folder(target))

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt}))
                   for nxt in edges.get(start, ()))

    assert not [f for f in edges if reaches(f, f, set())], edges


def test_capture_and_core_import_the_standard_library_alone():
    """No MkDocs, no PyYAML, nothing installed: the GPU machine runs these with a bare python3
    (torch, numpy and matplotlib are imported by the runner only inside the snippet's process,
    where they are the snippet's own)."""
    allowed_inside = {"torch", "numpy", "matplotlib"}  # the runner's seeding and figures, when the file uses them
    wrong = []
    for module, path in _modules().items():
        if _folder(module) not in STDLIB_ONLY:
            continue
        for name in sorted(_imports(path)):
            top = name.split(".")[0]
            if top in sys.stdlib_module_names or top == "tcguide" or top == "__future__":
                continue
            if top in allowed_inside and module in ("tcguide.capture.runner", "tcguide.capture.figures",
                                                    "tcguide.core.environment",
                                                    "tcguide.core.snippet"):
                continue
            wrong.append(f"{module} imports {name}")
    assert not wrong, "\n".join(wrong)


def test_no_module_is_over_the_size_that_holds_one_job():
    sizes = {module: len(path.read_text(encoding="utf-8").splitlines()) for module, path in _modules().items()}
    over = {module: lines for module, lines in sizes.items() if lines > MAX_LINES}
    assert not over, f"over {MAX_LINES} lines (split each by job): {over}"
