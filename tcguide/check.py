"""``python3 -m tcguide check``: every snippet output fresh, every directive and figure reference
in the docs resolvable."""

from __future__ import annotations

from pathlib import Path

from tcguide import directive, glue
from tcguide.labels import DEFAULT as SOURCE_LANGUAGE
from tcguide.catalog import Catalog
from tcguide.errors import GuideError


def check(root: Path, docs: str = "docs", snippets_dir: str = "snippets") -> list[GuideError]:
    catalog = Catalog(root, snippets_dir)
    problems = catalog.problems()
    for page in sorted((root / docs).rglob("*.md")):
        rel = str(page.relative_to(root))
        text = page.read_text(encoding="utf-8")
        found, errors = directive.find(text, rel)
        problems.extend(errors)
        references, errors = glue.find(text, rel)
        problems.extend(errors)
        for ref in references:
            try:
                glue.plain(ref, catalog, rel, SOURCE_LANGUAGE)
            except GuideError as exc:
                problems.append(exc)
        for d in (d for d in found if d.kind == "cell"):
            try:
                catalog.embed(d.file, d.cell)
            except GuideError as exc:
                problems.append(GuideError(rel, d.line, f"{d.text}: {exc}"))
    return problems
