"""Which files under snippets/ are snippet files, and which helper modules a snippet file imports.

A name starting with ``_`` anywhere below snippets/ is a helper module (``_shared/timing.py``,
``topic/_common.py``), never a snippet file: capture, the catalog (and so ``check`` and the build)
and the notebooks find snippet files and helpers here alone. A snippet file imports helpers from
its own folder, then from the nearest ``_shared`` folder above it (``import_roots``).
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

from tcguide.core.errors import GuideError


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _module_files(folder: Path, dotted: str) -> list[Path]:
    """The files of a module or package beside a snippet that 'import dotted' reads."""
    parts, files, here = dotted.split("."), [], folder
    for part in parts:
        package, module = here / part / "__init__.py", here / f"{part}.py"
        if package.is_file():
            files.append(package)
            here = here / part
        elif module.is_file():
            files.append(module)
            break
        else:
            break
    return files


FOLDER = "snippets"  # where the snippet files live, below the project root
SHARED = "_shared"  # a folder of helper modules for every snippet file below the folder holding it


def is_helper(name: str | Path) -> bool:
    """A module under snippets/ that snippet files import, not one capture runs: a name starting
    with '_' anywhere in its path below snippets/ (``_shared/timing.py``, ``topic/_common.py``)."""
    return any(part.startswith("_") for part in Path(name).parts)


def snippet_files(folder: Path, top: Path | None = None) -> list[Path]:
    """The snippet files under ``folder`` (every .py file but the helpers), sorted. ``top`` is the
    snippets/ folder the helper rule counts from (default: ``folder``), so that naming
    ``snippets/_shared`` finds no snippet file in it."""
    top = (top or folder).resolve()
    return [p for p in sorted(folder.rglob("*.py")) if not is_helper(p.resolve().relative_to(top))]


def import_roots(folder: Path, display: str) -> list[tuple[Path, str]]:
    """Where a snippet file in ``folder`` imports helper modules from, as (folder, shown path):
    its own folder, then the nearest ``_shared`` folder at or above it (not above the top folder
    of ``display``). Capture imports from the same folders: the runner puts the file's own on
    ``sys.path``, the sandbox the shared one on ``PYTHONPATH``."""
    shown = Path(display).parent
    roots = [(folder, str(shown))]
    for _ in shown.parts:
        if (folder / SHARED).is_dir():
            roots.append((folder / SHARED, str(shown / SHARED)))
            break
        folder, shown = folder.parent, shown.parent
    return roots


def helper_target(shown: str, display: str) -> str:
    """A helper module's path relative to the folder that 'import' finds it in: below its
    ``_shared`` folder for a shared helper, below the snippet file's folder for any other."""
    parts = Path(shown).parts
    if SHARED in parts:
        return "/".join(parts[len(parts) - parts[::-1].index(SHARED):])
    return str(Path(shown).relative_to(Path(display).parent))


def local_imports(text: str, folder: Path, display: str) -> dict[str, Path]:
    """Helper modules and packages that a snippet imports, directly or through each other: from
    its own folder first, then from the shared folder (``import_roots``)."""
    roots = import_roots(folder, display)
    found: dict[str, Path] = {}
    queue = [(text, display)]
    while queue:
        source, name = queue.pop()
        try:
            tree = ast.parse(source, filename=name)
        except SyntaxError as exc:
            raise GuideError(name, exc.lineno, f"syntax error: {exc.msg}", "fix the Python code") from None
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            else:
                names = []
            for dotted in names:
                root, shown_root, files = next(((r, s, f) for r, s in roots if (f := _module_files(r, dotted))),
                                               (None, "", []))
                for path in files:
                    shown = str(Path(shown_root) / path.relative_to(root))
                    if shown not in found:
                        found[shown] = path
                        queue.append((path.read_text(encoding="utf-8"), shown))
    return found
