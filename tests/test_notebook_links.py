"""The chapters' notebook pages of the built guide, against their chapter pages: every link resolves,
the headings carry the chapter's ids, and title, date and links are their own or their chapter's.

Each notebook page is read as HTML: the ids it has, the links of its table of contents and of its
text, its title, its "last updated" date. A link to the site resolves when its file is there and, with
a #fragment, when that file has an element of that id; links to other hosts are not followed here.
"""

import html.parser
import re
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

from tcguide.core.labels import label
from tcguide.notebooks import build as notebooks
from tests.helpers import LANGUAGES, ROOT, stored_provenance

pytestmark = pytest.mark.build  # reads the guide's build (guide_site)

LANGUAGES = ("en", "ru", "zh", "ko")


class Read(html.parser.HTMLParser):
    """What a built page has: ids, the links of its contents (the secondary sidebar) and of its article,
    its title, and the date under its text."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.ids, self.toc, self.links, self.headings = set(), [], [], []
        self.title, self.date, self._in = "", None, []
        self._title = self._date = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if attrs.get("id") is not None:
            self.ids.add(attrs["id"])
        if tag in ("nav", "article"):  # where a link stands: the contents (md-nav--secondary), the text
            self._in.append("toc" if "md-nav--secondary" in classes else "article" if tag == "article" else "")
        if tag == "a" and attrs.get("href") is not None:
            where = "toc" if "toc" in self._in else "article" if "article" in self._in else None
            if where == "toc":
                self.toc.append(attrs["href"])
            elif where == "article" and "anchor-link" not in classes and "headerlink" not in classes:
                self.links.append(attrs["href"])
        if re.fullmatch(r"h[1-6]", tag) and "article" in self._in:
            self.headings.append(attrs.get("id"))
        self._title = tag == "title"
        self._date = "git-revision-date-localized-plugin-date" in classes

    def handle_endtag(self, tag):
        if tag in ("nav", "article") and self._in:
            self._in.pop()
        self._title = self._date = False

    def handle_data(self, data):
        if self._title:
            self.title += data
        if self._date and self.date is None:
            self.date = data


_read: dict[Path, Read] = {}


def read(path: Path) -> Read:
    if path not in _read:
        _read[path] = Read(path.read_text(encoding="utf-8"))
    return _read[path]


def notebook_pages(guide_site: Path) -> list[Path]:
    pages = sorted(guide_site.glob("**/notebook/index.html"))
    chapters = [p for p in (ROOT / "docs" / "en").glob("*.md") if notebooks.is_chapter(p.read_text(encoding="utf-8"))]
    assert len(pages) == len(chapters) * len(LANGUAGES)  # every chapter, in every language
    return pages


def language(guide_site: Path, page: Path) -> str:
    first = page.relative_to(guide_site).parts[0]
    return first if first in LANGUAGES else "en"


def resolve(guide_site: Path, base: str, page: Path, href: str) -> str:
    """'' when a link of the page resolves, else why not; a link to another host counts as resolved."""
    url = urlsplit(urljoin(base + page.parent.relative_to(guide_site).as_posix() + "/", href))
    if f"{url.scheme}://{url.netloc}/" != base:
        return ""
    target = guide_site / unquote(url.path).lstrip("/")
    if target.is_dir():
        target = target / "index.html"
    if not target.is_file():
        return f"{href}: no such file"
    if url.fragment and unquote(url.fragment) not in read(target).ids:
        return f"{href}: no element #{unquote(url.fragment)} in {target.relative_to(guide_site)}"
    return ""


def test_every_link_of_every_notebook_page_resolves(guide_site, guide_port):
    """Its contents, its in-text anchors, its links to chapters (the one under its title, in every language,
    included) and its download."""
    base = f"http://127.0.0.1:{guide_port}/"
    broken, checked = [], {"toc": 0, "anchors": 0, "site": 0}
    for page in notebook_pages(guide_site):
        found = read(page)
        for where, hrefs in (("contents", found.toc), ("text", found.links)):
            for href in hrefs:
                checked["toc" if where == "contents" else "anchors" if href.startswith("#") else "site"] += 1
                why = resolve(guide_site, base, page, href)
                if why:
                    broken.append(f"{page.relative_to(guide_site)}: {where}: {why}")
    assert broken == []
    assert checked["toc"] > 600 and checked["anchors"] > 40 and checked["site"] > 64, checked


def test_notebook_headings_carry_their_chapters_ids_and_contents(guide_site):
    for page in notebook_pages(guide_site):
        notebook, chapter = read(page), read(page.parent.parent / "index.html")
        assert notebook.headings == chapter.headings and "" not in notebook.headings, page
        # a chapter in the navigation has its contents twice (the sidebar's, and under its entry in the menu)
        assert notebook.toc == list(dict.fromkeys(chapter.toc)), page


def test_a_notebook_page_has_its_own_title_and_links_and_its_chapters_date(guide_site):
    for page in notebook_pages(guide_site):
        lang, notebook, chapter = language(guide_site, page), read(page), read(page.parent.parent / "index.html")
        site_name = chapter.title.rsplit(" - ", 1)[-1]
        chapter_title = chapter.title.rsplit(" - ", 1)[0] if " - " in chapter.title else chapter.title
        assert notebook.title == label(lang, "nb_title").format(title=chapter_title) + " - " + site_name, page
        assert notebook.date and notebook.date == chapter.date, (page, notebook.date, chapter.date)
        downloads = [href for href in notebook.links if href.endswith(".ipynb")]
        assert downloads and all((page.parent / href).is_file() for href in downloads), page


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_captured_output_of_a_notebook_says_where_and_when_it_ran(guide_site, lang):
    """The notebook a reader downloads (and opens in Jupyter or Colab) shows, under each cell's captured
    outputs, the provenance line of the chapter page, as an output Markdown renders; so does its page."""
    import json

    folder = guide_site / ("" if lang == "en" else lang) / "getting-started" / "notebook"
    notebook = json.loads((folder / "getting-started.ipynb").read_text(encoding="utf-8"))
    shown = [c for c in notebook["cells"] if c["cell_type"] == "code" and c["metadata"]["tcguide"].get("shown")]
    expected = stored_provenance(ROOT / "docs" / lang / "getting-started.md")
    assert len(shown) == len(expected) > 0
    page = (folder / "index.html").read_text(encoding="utf-8")
    for cell, line in zip(shown, expected):
        last = cell["outputs"][-1]
        assert last["metadata"] == {"tcguide": {"provenance": True}}, cell["id"]
        said = label(lang, "nb_provenance").format(line=line)
        assert last["data"]["text/plain"].startswith(said) and last["data"]["text/markdown"].startswith(f"*{said}")
        assert f"<em>{last['data']['text/plain']}</em>" in page, cell["id"]
