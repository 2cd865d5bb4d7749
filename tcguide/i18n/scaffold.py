"""``python3 -m tcguide new-language LOCALE``: everything a new language starts with.

It adds the language to the i18n plugin's ``languages`` in ``mkdocs.yml`` (the file is
edited as text, so its comments and tags stay as they are), starts its glossary with the
English terms of an existing one, and puts every English page into ``docs/<locale>/``,
stamped, to be translated in place. ``i18n-status`` reports each of those pages as not
translated (its prose is English) until a translator has done it; the site shows them
(in English) from the first build.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tcguide.i18n import translations as i18n
from tcguide.core import languages
from tcguide.i18n import glossary as glossaries
from tcguide.core.errors import GuideError

LOCALE = re.compile(r"[a-z]{2,3}(?:_[A-Z]{2})?")
ENTRY = """        - locale: {locale}
          name: {locale}  # the language's name in the language itself, as the switcher shows it
          build: true
          site_name: The torch.compile guide  # translate
          nav_translations:
            Contributing: Contributing  # translate
"""
GLOSSARY = """# Glossary: {locale}

The terms the {locale} pages use. API names, modes (`default`, `reduce-overhead`,
`max-autotune`), component names (TorchDynamo, TorchInductor, AOTAutograd, Triton) and model
names are not translated.

| English | {locale} | Note |
|---|---|---|
{rows}
## Forbidden variants

Wrong or ambiguous words that a page must not use; `make test` fails on a page that does.

| Variant | Use instead | Why |
|---|---|---|
"""


def _languages_block_end(lines: list[str]) -> int:
    """The index of the line after the last entry of the i18n plugin's ``languages`` list."""
    block = languages.plugin_block(lines)
    if block is None:
        raise GuideError("mkdocs.yml", None, "has no i18n plugin", "add mkdocs-static-i18n to its plugins")
    return block[1]


def _glossary_rows(root: Path) -> str:
    """The English terms of the first glossary there is, with empty translations."""
    for existing in sorted((root / glossaries.FOLDER).glob("glossary-*.md")):
        return "".join(f"| {term} |  |  |\n" for term in glossaries.english_terms(existing)) or "\n"
    return ""


def new_language(root: Path, locale: str) -> list[str]:
    """Scaffold a language; returns the files it wrote. Refuses a locale that exists."""
    if not LOCALE.fullmatch(locale):
        raise GuideError("mkdocs.yml", None, f"{locale!r} is not a locale", "use a code such as ja or pt_BR")
    site = i18n.Site(root)
    if locale in site.languages():
        raise GuideError("mkdocs.yml", None, f"language {locale!r} is configured already",
                         f"translate its pages under docs/{locale}/, or pick a locale not in mkdocs.yml")
    config = root / "mkdocs.yml"
    lines = config.read_text(encoding="utf-8").splitlines(keepends=True)
    end = _languages_block_end(lines)
    lines.insert(end, ENTRY.format(locale=locale))
    config.write_text("".join(lines), encoding="utf-8")
    written = [str(config.relative_to(root))]
    glossary = root / "i18n" / f"glossary-{locale}.md"
    if not glossary.exists():
        glossary.parent.mkdir(parents=True, exist_ok=True)
        glossary.write_text(GLOSSARY.format(locale=locale, rows=_glossary_rows(root)), encoding="utf-8")
        written.append(str(glossary.relative_to(root)))
    for page in site.pages():
        target = site.path(locale, page)
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(site.path(i18n.SOURCE, page), target)
        i18n.stamp(site, locale, page)
        written.append(site.display(locale, page))
    return written
