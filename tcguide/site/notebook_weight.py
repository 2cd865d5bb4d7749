"""What a notebook page that mkdocs-jupyter rendered carries and does not need, taken out.

- Every code cell has its copy button's icon as an inline SVG of two paths (about 900 bytes a
  cell): it becomes an empty element that the site's style sheet draws (``.tcg-copy-icon`` in
  ``docs/assets/cells.css``), the same icon, once for every page.
- Every code cell carried its code twice: highlighted, and again as plain text in a hidden element
  (``clipboard-copy-txt``) that its copy button copied. The button copies the highlighted block
  itself instead (its text is the cell's source, to the character, once the line break that ends
  the block goes, which shows nothing), and the copy goes: a fifth of a notebook page. (The copy
  had also lost the code's indentation to the last point below: what the button copies now is
  indented as the source is.)
- The converter's MathJax loader and configuration where the site loads no MathJax (the loader's
  address is empty: a script that fetches nothing, and a configuration that nothing reads).
- What every page of the site sheds (``page_weight``): the highlighted code's unstyled name and
  whitespace spans (a third of a notebook page's code markup) and, outside ``<pre>``,
  ``<textarea>``, ``<script>`` and ``<style>``, the markup's indentation.

The page looks and reads the same; its text, its copy buttons and what they copy are unchanged.
Stdlib only.
"""

from __future__ import annotations

import re

from tcguide.site import page_weight

COPY_ICON = re.compile(r'<svg aria-hidden="true"[^>]*class="clipboard-copy-icon"[^>]*>.*?</svg>', re.S)
DRAWN_ICON = '<span aria-hidden="true" class="clipboard-copy-icon tcg-copy-icon"></span>'
# A code cell's highlighted block, then the plain copy of its code that its copy button (for="cell-N") copied.
COPY_TEXT = re.compile(r'(?P<block><div [^>]*class="highlight-ipynb[^"]*">)<pre>'
                       r'(?P<code>[^<]*(?:<(?!/?pre\b)[^<]*)*)</pre>(?P<between></div>\s*)'
                       r'<div class="clipboard-copy-txt" id="(?P<id>[^"]+)">[^<]*</div>')
NO_MATHJAX = re.compile(r'(?:<!-- Load mathjax -->\s*)?<script src=""> </script>\s*(?:<!-- MathJax configuration -->\s*)?'
                        r'<script type="text/x-mathjax-config">.*?</script>\s*(?:<!-- End of mathjax configuration -->)?',
                        re.S)


def _copied_from_the_block(match: re.Match) -> str:
    code = match["code"][:-1] if match["code"].endswith("\n") else match["code"]
    return f'{match["block"]}<pre id="{match["id"]}">{code}</pre>{match["between"]}'


def slim(page_html: str) -> str:
    """The page without the weight above."""
    page_html = COPY_ICON.sub(DRAWN_ICON, page_html)
    page_html = COPY_TEXT.sub(_copied_from_the_block, page_html)
    page_html = NO_MATHJAX.sub("", page_html)
    return page_weight.slim(page_html)
