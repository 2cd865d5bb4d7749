"""``python3 -m tcguide check``: every snippet output fresh, every directive and figure reference
in the docs resolvable, every claim holding for the captured values."""

from __future__ import annotations

from pathlib import Path

from tcguide.core import claims, directive, glue
from tcguide.core.discovery import FOLDER
from tcguide.core.languages import DOCS, SOURCE
from tcguide.core.catalog import Catalog
from tcguide.core.errors import GuideError


def check(root: Path, docs: str = DOCS, snippets_dir: str = FOLDER) -> list[GuideError]:
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
                glue.plain(ref, catalog, rel, SOURCE)
            except GuideError as exc:
                problems.append(exc)
        lang = page.relative_to(root / docs).parts[0]
        _, errors = claims.check_page(text, root, catalog, rel, lang)
        problems.extend(errors)
        for d in (d for d in found if d.kind == "cell"):
            try:
                catalog.embed(d.file, d.cell)
            except GuideError as exc:
                problems.append(exc.inside(rel, d.line, d.text))
    return problems
