"""The project's languages, in this one place: the locales of the i18n plugin in mkdocs.yml, the
default language first. The build, the translations' checks, the new-language scaffold and the
notebooks all read this list (the notebooks once took the folders of docs/ instead, so a folder
with no entry in mkdocs.yml made notebooks for a language the site does not have).

Stdlib only: the list is read from the plugin's block of mkdocs.yml line by line (each
``- locale: xx`` item of its ``languages``), which is also where the scaffold adds a language.
"""

from __future__ import annotations

import re
from pathlib import Path

SOURCE = "en"  # the language the pages are written in first; every other language follows it
DOCS = "docs"  # each language's pages, in docs/<language>/
CONFIG = "mkdocs.yml"
PLUGIN = re.compile(r"^\s*- i18n:\s*(#.*)?$")
LOCALE = re.compile(r"""^(?P<indent>\s*)- locale:\s*["']?(?P<locale>[A-Za-z0-9_-]+)["']?\s*(#.*)?$""")


def plugin_block(lines: list[str]) -> tuple[int, int] | None:
    """(index of the ``- i18n:`` line, index of the line after its block), or None without the plugin."""
    start = next((i for i, line in enumerate(lines) if PLUGIN.match(line)), None)
    if start is None:
        return None
    indent = len(lines[start]) - len(lines[start].lstrip())
    for i in range(start + 1, len(lines)):
        stripped = lines[i].lstrip()
        if stripped and not stripped.startswith("#") and len(lines[i]) - len(stripped) <= indent:
            return start, i  # the next plugin, or the next key of the config
    return start, len(lines)


def configured(root: Path) -> list[str]:
    """The locales of the i18n plugin in ``root``'s mkdocs.yml, the default first; the default alone
    where there is no such plugin (or no mkdocs.yml)."""
    try:
        lines = (Path(root) / CONFIG).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return [SOURCE]
    block = plugin_block(lines)
    locales: list[str] = []
    indent = None
    for line in lines[block[0] + 1: block[1]] if block else []:
        match = LOCALE.match(line)
        if match and indent in (None, len(match["indent"])):  # items of `languages`, not a nested key
            indent = len(match["indent"])
            locales.append(match["locale"])
    return [SOURCE] + [lang for lang in locales if lang != SOURCE]
