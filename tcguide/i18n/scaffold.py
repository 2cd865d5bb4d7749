"""``python3 -m tcguide new-language LOCALE``: everything a new language starts with.

- Its entry in the i18n plugin's ``languages`` in ``mkdocs.yml``, after the last language's entry
  (the file is edited as text, so its comments and tags stay as they are), in the form of the others:
  its name, and the site's name, description and light/dark toggle labels in English, each marked
  ``# translate``. A language without toggle labels of its own would show those of the language
  built before it.
- Its glossary and style guide, ``i18n/glossary-<locale>.md`` and ``i18n/style-<locale>.md``, from
  the English templates beside them: the terms to translate (and the pages' titles), the rules for
  numbers, units and figures, and the questions of style each language answers.
- Every English page, copied into ``docs/<locale>/`` and stamped, to be translated in place.
  ``i18n-status`` reports each as not translated (its prose is English) until it is; the site shows
  them with the notice that says so.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tcguide.core import languages
from tcguide.core.errors import GuideError
from tcguide.i18n import glossary as glossaries
from tcguide.i18n import translations as i18n
from tcguide.core.languages import SOURCE

LOCALE = re.compile(r"[a-z]{2,3}(?:_[A-Z]{2})?")
TEMPLATES = {"glossary": "glossary-template.md", "style": "style-template.md"}  # in i18n/, "{code}" in them
TRANSLATE = "  # translate"
TOP_LEVEL = re.compile(r"^(?P<key>site_name|site_description):\s*(?P<value>.*?)\s*$")


def _top_level(lines: list[str]) -> dict[str, str]:
    """The site's own name and description, as mkdocs.yml writes them."""
    found = {}
    for line in lines:
        match = TOP_LEVEL.match(line)
        if match and match["key"] not in found:
            found[match["key"]] = match["value"]
    return found


def _palette(lines: list[str], indent: int) -> list[str]:
    """The theme's ``palette:`` block, re-indented to ``indent``, its toggle names marked to translate;
    [] where the theme has none."""
    start = next((i for i, line in enumerate(lines) if re.match(r"^\s+palette:\s*(#.*)?$", line)
                  and _indent(lines[i]) == 2), None)  # the theme's own, not a language's
    if start is None:
        return []
    block = [lines[start]]
    for line in lines[start + 1:]:
        if line.strip() and _indent(line) <= _indent(lines[start]):
            break
        block.append(line)
    while block and not block[-1].strip():
        block.pop()
    shift = indent - _indent(lines[start])
    return [" " * shift + line.rstrip("\n") + (TRANSLATE if re.match(r"^\s+name:", line) else "") + "\n"
            for line in block if line.strip()]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _entry(locale: str, lines: list[str], item_indent: int) -> str:
    """The new language's entry, indented as the other items of ``languages``."""
    pad, key = " " * item_indent, " " * (item_indent + 2)
    site = _top_level(lines)
    entry = [f"{pad}- locale: {locale}\n",
             f"{key}name: {locale}  # the language's name in the language itself, as the switcher shows it\n",
             f"{key}build: true\n"]
    entry += [f"{key}{name}: {site[name]}{TRANSLATE}\n" for name in ("site_name", "site_description") if name in site]
    palette = _palette(lines, item_indent + 4)
    if palette:
        entry += [f"{key}theme:\n", *palette]
    entry += [f"{key}nav_translations:\n", f"{key}  Contributing: Contributing{TRANSLATE}\n"]
    return "".join(entry)


def _after_last_language(lines: list[str]) -> tuple[int, int]:
    """(the index after the last line of the last item of ``languages``, the items' indentation): a new
    entry goes there, before any comment or blank line that introduces what follows."""
    block = languages.plugin_block(lines)
    if block is None:
        raise GuideError(languages.CONFIG, None, "has no i18n plugin", "add mkdocs-static-i18n to its plugins")
    items = [(i, len(m["indent"])) for i in range(*block) if (m := languages.LOCALE.match(lines[i]))]
    if not items:
        raise GuideError(languages.CONFIG, block[0] + 1, "the i18n plugin lists no languages",
                         "list the default language under its 'languages:' as '- locale: en'")
    indent = min(level for _, level in items)
    last = [i for i, level in items if level == indent][-1]
    end = last + 1
    for i in range(last + 1, block[1]):
        if lines[i].strip() and not lines[i].lstrip().startswith("#"):
            if _indent(lines[i]) <= indent:
                break
            end = i + 1  # a line of the last entry
    return end, indent


def _template(root: Path, kind: str) -> str:
    path = root / glossaries.FOLDER / TEMPLATES[kind]
    if not path.exists():
        raise GuideError(f"{glossaries.FOLDER}/{TEMPLATES[kind]}", None, "is missing: a new language's "
                         f"{kind} starts from it", "restore it from the repository (git checkout -- i18n/)")
    return path.read_text(encoding="utf-8")


def _titles(site: i18n.Site) -> str:
    """A glossary row for each English page's title."""
    rows = []
    for page in site.pages():
        headings = site.read(SOURCE, page).headings
        if headings:
            rows.append(f"| {headings[0].text.replace('|', chr(92) + '|')} (`{page}`) |  |  |\n")
    return "".join(rows).rstrip("\n")


def new_language(root: Path, locale: str) -> list[str]:
    """Scaffold a language; returns the files it wrote. Refuses a locale that exists."""
    if not LOCALE.fullmatch(locale):
        raise GuideError(languages.CONFIG, None, f"{locale!r} is not a locale", "use a code such as ja or pt_BR")
    site = i18n.Site(root)
    if locale in site.languages():
        raise GuideError(languages.CONFIG, None, f"language {locale!r} is configured already",
                         f"translate its pages under docs/{locale}/, or pick a locale not in mkdocs.yml")
    config = root / languages.CONFIG
    lines = config.read_text(encoding="utf-8").splitlines(keepends=True)
    end, indent = _after_last_language(lines)
    if end and not lines[end - 1].endswith("\n"):
        lines[end - 1] += "\n"
    texts = {kind: _template(root, kind).replace("{code}", locale) for kind in TEMPLATES}
    texts["glossary"] = texts["glossary"].replace("{titles}", _titles(site))
    lines.insert(end, _entry(locale, lines, indent))
    config.write_text("".join(lines), encoding="utf-8")
    written = [languages.CONFIG]
    for kind, text in texts.items():
        path = root / glossaries.FOLDER / f"{kind}-{locale}.md"
        if not path.exists():
            path.write_text(text, encoding="utf-8")
            written.append(f"{glossaries.FOLDER}/{path.name}")
    for page in site.pages():
        target = site.path(locale, page)
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(site.path(SOURCE, page), target)
        i18n.stamp(site, locale, page)
        written.append(site.display(locale, page))
    return written
