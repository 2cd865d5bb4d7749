"""tcguide's work on a page, and a chapter's notebook, done once per tree and reused while nothing changes.

A page's Markdown as tcguide writes it (``pages``: cells with their outputs, glued figures, claims, a
translation's headings and notices) and a chapter's notebook (``notebook_pages``) read far more than
the page: snippet files, outputs, claims and the translations' history. So they are kept under the tree
(``build_cache.TreeKeyed``: every file but the pages of docs/) and the page's own inputs (its Markdown
as the plugins before tcguide left it, its file, URL and language, the site's repository settings and
its notebook's place), with the other pages it reads (``pages_read``): a translation reads its English
page (its headings' ids, whether it is outdated and in which sections), and the translators' status
table reads every page. So an edit to an English page makes again that page, its translations and the
status tables, and every other page's entry stands (``mkdocs serve`` rebuilt them all, 88 pages, on
every edit). A page's entry holds its Markdown, what tcguide logged for it (logged again when
the entry is used: a stale output or a false claim fails the strict build on every build) and the
figures it shows (written with the site, as on a build that made them).
"""

from __future__ import annotations

import base64
import dataclasses

from tcguide.core import directive
from tcguide.core.languages import SOURCE
from tcguide.site import build_cache, pages as site_pages

MARKDOWN = "markdown"
NOTEBOOKS = "notebooks"


def markdown(pages: site_pages.Pages, text: str, page: site_pages.Page, tree: build_cache.TreeKeyed | None,
             store: build_cache.Store | None) -> str:
    """``pages.markdown(text, page)``, from the store where the tree and the page are as they were."""
    key = None
    if tree is not None and store is not None:
        notebook = pages.notebooks.get(page.src_uri)
        key = tree.key(MARKDOWN, text, dataclasses.asdict(page), pages.repo_url, pages.source_uri,
                       pages.notebooks_branch, pages.attr_list, dataclasses.asdict(notebook) if notebook else None,
                       pages_read(pages, text, page, tree))
    entry = store.get(key) if key is not None else None
    if entry is not None:
        build_cache.replay(entry["logs"])
        for name, figure in entry["figures"].items():
            pages.figures[name] = base64.b64decode(figure["base64"]) if "base64" in figure else figure["text"]
        return entry["markdown"]
    with build_cache.logs_captured() as logs:
        written = pages.markdown(text, page)
    if key is not None:
        figures = {name: {"base64": base64.b64encode(pages.figures[name]).decode("ascii")}
                   if isinstance(pages.figures[name], bytes) else {"text": pages.figures[name]} for name in pages.shown}
        tree.later(store, key, {"markdown": written, "logs": logs, "figures": figures})
    return written


def pages_read(pages: site_pages.Pages, text: str, page: site_pages.Page, tree: build_cache.TreeKeyed) -> str | None:
    """The digest of the pages of docs/ that ``pages.markdown`` reads for this page besides the page itself:
    every page for one with the translators' status table, the English page for a translation, else none."""
    found, _ = directive.find(directive.body(text)[0], page.path)
    if any(d.kind == "i18n-status" for d in found):
        return tree.every_page()
    located = pages.site.locate(page.path)
    if located is None or located[0] == SOURCE:
        return None
    return tree.page(pages.site.display(SOURCE, located[1]))


def notebooks(tree: build_cache.TreeKeyed | None, store: build_cache.Store | None):
    """For ``notebook_pages.add``: a notebook's text from the store where the tree and its page's inputs
    are as they were, else made (and kept at the end of the build)."""
    if tree is None or store is None:
        return None

    def kept(inputs: tuple, make) -> str:
        key = tree.key(NOTEBOOKS, list(inputs))
        text = store.get(key) if key is not None else None
        if not isinstance(text, str):
            text = make()
            if key is not None:
                tree.later(store, key, text)
        return text

    return kept
