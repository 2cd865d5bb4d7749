"""Every error the tooling reports names what to do: each ``GuideError(...)`` call passes a remedy
(its fourth argument, or ``remedy=``), and names a place relative to the project."""

from __future__ import annotations

import ast

from tests.helpers import ROOT
from tcguide.core.errors import GuideError

# Calls that cannot have a remedy of their own, each with why. ("module path", line text) pairs.
ALLOWED: set[tuple[str, str]] = {
    # none today: an error wrapped for another place keeps its remedy through GuideError.inside,
    # which passes the remedy on (tcguide/core/errors.py).
}


def _calls():
    for path in sorted((ROOT / "tcguide").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "GuideError":
                yield path.relative_to(ROOT).as_posix(), node


def test_every_guide_error_names_a_remedy():
    missing = []
    for module, call in _calls():
        remedy = call.args[3] if len(call.args) >= 4 else next(
            (k.value for k in call.keywords if k.arg == "remedy"), None)
        empty = isinstance(remedy, ast.Constant) and not remedy.value
        if (remedy is None or empty) and (module, ast.unparse(call)) not in ALLOWED:
            missing.append(f"{module}:{call.lineno}: {ast.unparse(call)[:120]}")
    assert not missing, "GuideError without a remedy (pass what to do as the 4th argument):\n" + "\n".join(missing)


def test_the_scan_sees_the_calls():
    assert sum(1 for _ in _calls()) > 80


def test_an_error_met_inside_a_directive_keeps_its_words_and_remedy():
    inner = GuideError("snippets/a.py", 3, "no cell 'x'", "name one of: y, z")
    outer = inner.inside("docs/en/p.md", 7, "[[cell a.py#x]]")
    assert str(outer) == f"docs/en/p.md:7: [[cell a.py#x]]: {inner}"
    assert outer.remedy == inner.remedy
