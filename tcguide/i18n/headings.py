"""Every language's headings carry the English page's ids, so a link to a section works in any
language and the language switcher can keep the reader's ``#section``.

MkDocs makes a heading's id from its text, so the same section of a Russian page and of its
English page would get different ids. A translated page's headings (same order and levels
as English: the structure check holds them to that) get ``{#id}`` with the English
heading's id, made by the same slugify as the ``toc`` extension uses (an ``attr_list`` id;
a site without that extension keeps MkDocs' own ids).
"""

from __future__ import annotations

import re

from pymdownx.slugs import slugify

from tcguide.core.directive import lines_with_code_flag
from tcguide.i18n.translations import HEADING

SLUGIFY = slugify(case="lower")  # as mkdocs.yml's toc: slugify
HAS_ID = re.compile(r"\{\s*#[\w-]+\s*\}\s*$")  # the translator gave it an id already
INLINE = re.compile(r"`|\*|\[([^\]]*)\]\([^)]*\)")  # what inline markup leaves of a heading's text


def heading_id(text: str) -> str:
    """The id the toc extension gives a heading with this Markdown text."""
    return SLUGIFY(INLINE.sub(lambda m: m.group(1) or "", text), "-")


def with_english_ids(markdown: str, english_headings: list[str]) -> str:
    """The translated page with each heading given the id of the English heading at its place."""
    lines = markdown.split("\n")
    index, used = 0, set()
    for number, line, code in lines_with_code_flag(markdown):
        heading = HEADING.match(line) if not code else None
        if not heading or index >= len(english_headings):
            continue
        # the page title (H1) keeps its own id: MkDocs takes the title from its text
        if len(heading["hashes"]) > 1 and not HAS_ID.search(line):
            lines[number - 1] = f"{line.rstrip()} {{#{_unique(heading_id(english_headings[index]), used)}}}"
        index += 1
    return "\n".join(lines)


def _unique(anchor: str, used: set[str]) -> str:
    """A repeated id gets _1, _2, ... as the toc extension numbers them."""
    candidate, n = anchor, 0
    while candidate in used:
        n += 1
        candidate = f"{anchor}_{n}"
    used.add(candidate)
    return candidate
