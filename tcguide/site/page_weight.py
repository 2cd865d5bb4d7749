"""What every page of the site carries and no reader needs, taken out when the page is finished.

- Highlighted code wraps each name (Pygments' ``n``) and each run of whitespace (``w``) in a span of
  its own. The theme colours a name as the code around it (``--md-code-hl-name-color`` is
  ``var(--md-code-fg-color)`` in both schemes; nbconvert's highlighting of the notebook pages has no
  rule for it) and whitespace shows no colour, so their text stands without the span: a seventh
  of a chapter page's code markup.
- Each line of a code block is an anchor for its line number's link (``anchor_linenums``; a link to
  itself in a block without numbers): an ``<a>`` with both an ``id`` and a ``name`` of the same value.
  The ``id`` is what a link to the line and the theme's line selection find; the ``name``, HTML 4's
  way to say the same, goes.
- Each line number is wrapped in a ``<span class="normal">`` whose only use is the theme's padding
  after the number (``.linenodiv span[class]``); the number's link takes the same padding from the
  site's style sheet (``docs/assets/cells.css``) and the span goes.
- Outside ``<pre>``, ``<textarea>``, ``<script>`` and ``<style>``, the indentation at the start of
  each line (the theme's templates indent their markup), which the browser collapses anyway.

The page looks, reads and behaves the same: its text, its line numbers and their links, the lines a
link selects, and what its copy buttons copy. Stdlib only.
"""

from __future__ import annotations

import re

PLAIN_SPAN = re.compile(r'<span class="[nw]">([^<]*)</span>')
EMPTY_SPAN = "<span></span>"
LINE_ANCHOR = re.compile(r'<a id="(__codelineno-[\w-]+)" name="\1"([^>]*)></a>')
LINE_NUMBER = re.compile(r'<span class="normal">(<a href="#__codelineno-[\w-]+">[^<]*</a>)</span>')
KEEP = re.compile(r"(<(pre|textarea|script|style)\b.*?</\2>)", re.S | re.I)
INDENT = re.compile(r"\n[ \t]+")


def slim(page_html: str) -> str:
    """The page without the weight above."""
    page_html = PLAIN_SPAN.sub(r"\1", page_html).replace(EMPTY_SPAN, "")
    page_html = LINE_ANCHOR.sub(r'<a id="\1"\2></a>', page_html)
    page_html = LINE_NUMBER.sub(r"\1", page_html)
    parts = KEEP.split(page_html)
    # split() gives text, then each kept block and its tag name: only the text between blocks is touched
    out = []
    for i, part in enumerate(parts):
        kind = i % 3
        if kind == 0:
            out.append(INDENT.sub("\n", part))
        elif kind == 1:
            out.append(part)
    return "".join(out)
