"""A chapter's notebook page, made to agree with its chapter page.

mkdocs-jupyter renders a notebook on its own: it gives headings ids of its own making (empty for a
heading in Cyrillic, Han or Hangul), builds a table of contents whose links follow yet another rule,
titles the page as the chapter, and the notebook, a build product, has no history for "last updated".
From the chapter page, read earlier in the same build, the notebook page takes:

- the ids of its headings (the English-derived ids that every language's chapter uses) and its table
  of contents: the contents' links scroll, an in-text ``#section`` link finds its section, and the
  language switch keeps the reader's ``#section``;
- its "last updated" date (the dates the git-revision-date-localized plugin put in the chapter's meta);
- its title, said to be the notebook's ("Notebook: <chapter title>"), so that two tabs differ.

And it gets Download and Colab links of its own, under its title (``notebook_pages.links``).

MkDocs renders the content of every page before it builds any, in the order of its files, and
``notebook_pages.add`` appends the notebook pages after every other file, so each chapter is read
before its notebook page. A notebook page whose chapter was not read, or whose headings are not its
chapter's, is a problem the plugin logs (the strict build fails).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from tcguide.core.labels import label
from tcguide.site import notebook_pages

DATES = "git_"  # the prefix of what git-revision-date-localized writes into a page's meta

# A heading that mkdocs-jupyter rendered from a Markdown cell: nbconvert closes it with an anchor link.
HEADING = re.compile(r'<h(?P<level>[1-6]) id="[^"]*">(?P<text>.*?)<a class="anchor-link" href="#[^"]*">¶</a>'
                     r'</h(?P=level)>', re.S)


@dataclass(frozen=True)
class Chapter:
    """What a notebook page takes from its chapter page."""

    title: str
    toc: object  # MkDocs' TableOfContents
    dates: dict


def _url(url: str) -> str:
    return "" if url in ("./", ".") else url


@dataclass
class Chapters:
    """The chapter pages of a build that have a notebook page, as they are read."""

    notebooks: dict[str, notebook_pages.Notebook]  # chapter src_uri -> its notebook (notebook_pages.add)
    repo_url: str | None = None
    branch: str = "published-notebooks"
    read: dict[str, Chapter] = field(default_factory=dict)  # chapter URL -> what its notebook page takes

    def remember(self, page) -> None:
        """Keep what a chapter page's notebook page will take from it (any other page: nothing)."""
        notebook = self.notebooks.get(page.file.src_uri)
        if notebook is not None:
            dates = {k: v for k, v in page.meta.items() if k.startswith(DATES)}
            self.read[_url(notebook.page_url)] = Chapter(page.title, page.toc, dates)

    def notebook_page(self, content: str, page, lang: str) -> tuple[str, list[str]]:
        """The notebook page's content, its headings given the chapter's ids, with its own links under its
        title; the page's table of contents, dates and title set from the chapter. Returns the content and
        what went wrong."""
        notebook = next((n for n in self.notebooks.values() if n.url == _url(page.url)), None)
        chapter = self.read.get(_url(notebook.page_url)) if notebook else None
        if chapter is None:
            return content, [f"{page.url}: a notebook page whose chapter page was not read before it; its "
                             "headings keep mkdocs-jupyter's ids — the notebook pages must come after every chapter"]
        content, problem = with_ids(content, headings(chapter.toc))
        page.toc = chapter.toc
        page.meta.update(chapter.dates)
        page.title = label(lang, "nb_title").format(title=chapter.title)
        links = notebook_pages.links(notebook, notebook.url, lang, self.repo_url, self.branch, view=False)
        content = content.replace("</h1>", "</h1>\n" + links, 1)
        return content, [f"{page.url}: {problem}"] if problem else []


def headings(toc) -> list[tuple[int, str]]:
    """(level, id) of every heading in a table of contents, in the page's order."""
    found = []

    def walk(items):
        for item in items:
            found.append((item.level, item.id))
            walk(item.children)

    walk(toc)
    return found


def with_ids(content: str, wanted: list[tuple[int, str]]) -> tuple[str, str]:
    """The rendered notebook with its headings, in order, given the wanted ids (the anchor links too);
    unchanged, with the problem, when its headings' levels are not the wanted ones."""
    levels = [int(m["level"]) for m in HEADING.finditer(content)]
    if levels != [level for level, _ in wanted]:
        return content, (f"its headings (levels {levels}) are not its chapter's (levels {[l for l, _ in wanted]}): "
                         "the notebook's Markdown cells lost or gained a heading")
    ids = iter(wanted)

    def give(match: re.Match) -> str:
        level, anchor = next(ids)
        anchor = html.escape(anchor)
        return f'<h{level} id="{anchor}">{match["text"]}<a class="anchor-link" href="#{anchor}">¶</a></h{level}>'

    return HEADING.sub(give, content), ""
