"""``python3 -m tcguide notebooks``: write every chapter's notebook of a checkout into a folder,
``<out>/<lang>/<chapter>.ipynb``, and with ``--execute`` run each one top to bottom.

Writing needs the standard library only, so it works on a GPU machine as it is; running
needs nbformat, nbclient and ipykernel besides torch (``execution``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from tcguide.notebooks import build as notebooks
from tcguide.core import languages as core_languages
from tcguide.core import settings
from tcguide.core.catalog import Catalog
from tcguide.core.errors import GuideError
from tcguide.core.languages import DOCS, SOURCE


def languages(root: Path) -> list[str]:
    """The languages of the site, the default one first (``core.languages``)."""
    return core_languages.configured(root)


def chapters(root: Path, wanted: list[str], langs: list[str]) -> list[tuple[str, Path]]:
    """(language, page file) of every chapter asked for; an English page stands in for a missing translation."""
    names = sorted(p.name for p in (root / DOCS / SOURCE).glob("*.md")
                   if notebooks.is_chapter(p.read_text(encoding="utf-8")))
    picked: list[tuple[str, str]] = []
    for raw in wanted or names:
        path = Path(raw)
        if len(path.parts) == 3 and path.parts[0] == DOCS:  # docs/<lang>/<page>.md
            picked.append((path.parts[1], path.name))
            continue
        name = path.name if path.suffix == ".md" else f"{path.name}.md"
        if name not in names:
            raise GuideError(raw, None, "is not a chapter", f"name one of: {', '.join(n[:-3] for n in names)}")
        picked += [(lang, name) for lang in langs]
    out = []
    for lang, name in picked:
        page = root / DOCS / lang / name
        if not page.exists():
            page = root / DOCS / SOURCE / name
            if not page.exists():
                raise GuideError(f"{DOCS}/{lang}/{name}", None, "no such page",
                                 f"name a chapter of {DOCS}/{SOURCE}/")
        out.append((lang, page))
    return out


def write_all(root: Path, out: Path, wanted: list[str], langs: list[str] | None, site_url: str,
              execute: bool = False, timeout: int = 900) -> int:
    catalog = Catalog(root)
    project = settings.load(root)
    langs = langs or languages(root)
    status = 0
    site_url = site_url if site_url.endswith("/") else site_url + "/"
    for lang, page in chapters(root, wanted, langs):
        display = str(page.relative_to(root))
        lang_root = site_url + ("" if lang == SOURCE else f"{lang}/")
        notebook, problems = notebooks.build(display, page.name, page.read_text(encoding="utf-8"), lang, catalog,
                                             lang_root, project.needs_cuda, project.colab_gpu)
        for problem in problems:
            print(f"warning: {problem}", file=sys.stderr)
        if execute:
            from tcguide.notebooks import execution

            result = execution.run(notebook, display, timeout=timeout)
            notebook = result.notebook
            print(f"{display}: ran {result.executed} cells in {result.seconds:.0f} s, skipped {len(result.skipped)}")
            for line in result.skipped:
                print(f"  skipped {line}")
            for line in result.failures:
                print(f"  FAILED {line}", file=sys.stderr)
            status = status or int(not result.ok)
        target = out / lang / f"{page.stem}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(notebooks.dumps(notebook), encoding="utf-8")
        print(f"wrote {target}")
    return status
