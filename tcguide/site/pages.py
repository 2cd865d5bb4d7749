"""A page's Markdown as the site shows it: its claims checked and marked, its figures glued in,
each directive rendered (a cell with its output, the translators' status, capture times), a
translation's headings given the English ids, and the notices and notebook links under its title.

The MkDocs plugin hands each page over (``on_page_markdown``) and logs what comes back as a
warning; everything about the page itself is here, so another generator needs only a new adapter.
"""

from __future__ import annotations

import base64
import logging
from dataclasses import dataclass, field
from pathlib import Path

from mkdocs.utils import get_relative_url

from tcguide.site import figures, notebook_pages, render
from tcguide.i18n import charts, headings
from tcguide.i18n import translations as i18n
from tcguide.core.languages import SOURCE
from tcguide.core import claims, directive, glue, timings
from tcguide.core.catalog import Catalog
from tcguide.core.errors import GuideError
from tcguide.core.labels import label

log = logging.getLogger("mkdocs.plugins.tcguide")


@dataclass(frozen=True)
class Page:
    """What the site knows of a page being built."""
    path: str  # relative to the project root, as messages name it
    url: str  # the page's URL, relative to the site
    src_uri: str  # relative to docs/
    source: str  # the page's file as MkDocs read it (front matter included)
    lang: str  # the language being built


@dataclass
class Pages:
    project_root: Path
    catalog: Catalog
    site: i18n.Site
    repo_url: str | None = None
    source_uri: str = "blob/main/"
    notebooks_branch: str = "published-notebooks"
    attr_list: bool = False  # the attr_list extension is on: a translated heading can keep the English id
    figures: dict[str, str | bytes] = field(default_factory=dict)  # site path -> figure, written after the build
    notebooks: dict[str, notebook_pages.Notebook] = field(default_factory=dict)  # chapter src_uri -> its notebook
    shown: set[str] = field(default_factory=set)  # the figures the last page rendered shows (their site paths)

    def path_of(self, abs_src_path: str) -> str:
        path = Path(abs_src_path)
        try:
            return str(path.relative_to(self.project_root))
        except ValueError:
            return str(path)

    def markdown(self, markdown: str, page: Page) -> str:
        """The page's Markdown as rendered; each problem is logged as a warning (the strict build fails)."""
        page_path, lang = page.path, page.lang
        self.shown = set()
        offset = directive.stripped_lines(page.source)  # messages name the file's own lines
        checked, wrong = claims.check_page(markdown, self.project_root, self.catalog, page_path, lang, offset + 1)
        for problem in wrong:
            log.warning(str(problem))
        markdown = claims.substitute(markdown, checked, lang, start=offset + 1)
        markdown, unresolved = glue.substitute(markdown, self.catalog, page_path, lang, start=offset + 1)
        for problem in unresolved:
            log.warning(str(problem))
        found, errors = directive.find(markdown, page_path, start=offset + 1)
        for error in errors:
            log.warning(str(error))
        rendered = {d.line - offset: self._render(d, page_path, page.url, lang) for d in found}
        for error in errors:
            rendered[error.line - offset] = render.problem_box(error, lang)
        markdown = directive.replace(markdown, rendered) if rendered else markdown
        located = self.site.locate(page_path)
        if self.attr_list and located and located[0] != SOURCE \
                and self.site.path(SOURCE, located[1]).exists():
            english = self.site.read(SOURCE, located[1])
            markdown = headings.with_english_ids(markdown, [h.text for h in english.headings])
        notebook = self.notebooks.get(page.src_uri)
        links = notebook_pages.links(notebook, page.url, lang, self.repo_url, self.notebooks_branch) if notebook else ""
        return _after_title(markdown, self._translation_notice(page_path, page.url, lang) + links)

    def _figure(self, mime: str, data: str, page_url: str, where: str) -> str:
        """Keep a figure for writing as its own file (named by its content); its URL from the page."""
        if mime == "image/png":  # pixels only: served as they are
            content = base64.b64decode("".join(data.split()))
            name = figures.file_name(content, mime)
        else:
            try:
                content = figures.safe_svg(data)
            except (ValueError, SyntaxError) as exc:  # ElementTree's ParseError is a SyntaxError
                log.warning(f"{where}: a figure is not an SVG the site can serve ({exc}); shown inline — recapture it")
                return render.data_uri(mime, data)
            name = figures.file_name(content.encode("utf-8"), mime)
        self.figures[name] = content
        self.shown.add(name)
        return get_relative_url(name, page_url)

    def _render(self, d: directive.Directive, page_path: str, page_url: str, lang: str) -> str:
        try:
            if d.kind == "i18n-status":
                return render.status_table(i18n.report(self.site), self.site.languages()[1:], lang,
                                           self._english_titles(), self._url_of(page_url))
            if d.kind == "capture-times":
                return timings.capture_times(self.catalog.captures_under(d.file), lang)
            embedded = self.catalog.embed(d.file, d.cell)
            words = charts.load(self.site.root, lang)
        except GuideError as exc:
            problem = exc.inside(page_path, d.line, d.text)
            log.warning(str(problem))
            return render.problem_box(problem, lang)
        if embedded.problem:
            log.warning(f"{page_path}:{d.line}: {d.text}: {embedded.problem}")
        source = notebook_pages.source_url(self.repo_url, self.source_uri, embedded.snippet.path,
                                           embedded.cell.line)
        where = f"{page_path}:{d.line}: {d.text}"
        try:
            return render.cell(embedded, lang, lambda mime, data: self._figure(mime, data, page_url, where), source,
                               words)
        except (KeyError, TypeError, ValueError, StopIteration) as exc:  # an output the renderer does not know
            problem = GuideError(page_path, d.line, f"{d.text}: its captured output holds something the site cannot "
                                 f"show ({type(exc).__name__}: {exc})",
                                 f"recapture it with: make capture SNIPPETS={embedded.snippet.path}")
            log.warning(str(problem))
            return render.problem_box(problem, lang)

    def _translation_notice(self, page_path: str, page_url: str, lang: str) -> str:
        """Tell readers of a fallback or an outdated translation what they are reading."""
        located = self.site.locate(page_path)
        if located is None or lang == SOURCE:
            return ""
        src_lang, page = located
        if src_lang == SOURCE:  # the English page, shown in place of a missing translation
            return render.notice(label(lang, "untranslated"), "info")
        if src_lang == lang and self.site.path(SOURCE, page).exists():
            try:
                state = i18n.status(self.site, lang, page)
            except GuideError as exc:  # a malformed translation record: say where, build on
                log.warning(str(exc))
                return ""
            if state.state == "untranslated":  # a copy of the English page, or a translation left half done
                if state.english > i18n.MOSTLY_ENGLISH:  # the reader is reading English already
                    return render.notice(label(lang, "untranslated"), "info")
                return render.notice(label(lang, "untranslated_part"), "info",
                                     link=(_english_url(page_url), label(lang, "read_english")))
            if state.state == "outdated":
                changes = label(lang, "list_sep").join(_translated_sections(self.site, lang, page, state.changes))
                english = _english_url(page_url)
                return render.notice(label(lang, "outdated").format(changes=changes), "warning",
                                     link=(english, label(lang, "read_english")))
            return render.english_original(_english_url(page_url), lang)  # up to date: the original, quietly
        return ""

    def _english_titles(self) -> dict[str, str]:
        """Each English page's title (its first heading), by its file name."""
        titles = {}
        for page in self.site.pages():
            headings = self.site.read(SOURCE, page).headings
            titles[page] = headings[0].text if headings else page
        return titles

    @staticmethod
    def _url_of(page_url: str):
        """A page of a language (or its home, for page ''), as a URL relative to the page at page_url."""
        def url(lang: str, page: str) -> str:
            folder = "" if lang == SOURCE else f"{lang}/"
            stem = page.removesuffix(".md")
            target = folder + ("" if stem in ("", "index") else f"{stem}/")
            return get_relative_url(target or "./", page_url) + ("/" if target and not target.endswith("/") else "")
        return url


def _english_url(page_url: str) -> str:
    """The English original of a translated page (ru/x/ -> ../../x/), relative to the page."""
    english = get_relative_url(page_url.split("/", 1)[1] if "/" in page_url else "", page_url)
    return english + ("" if english.endswith("/") else "/")  # the English page is a folder's index


def _translated_sections(site: i18n.Site, lang: str, page: str, changes) -> list[str]:
    """The changed English sections, named by the translation's own headings (same order, as
    the structure check holds them); a section the translation doesn't have keeps its English name."""
    english, translated = site.read(SOURCE, page), site.read(lang, page)
    by_english = {e.text: t.text for e, t in zip(english.headings, translated.headings)}
    names = []
    for change in changes:
        name = change.split(": ", 1)[-1].split(" → ")[-1]
        if by_english.get(name, name) not in names:  # a section renamed and changed is named once
            names.append(by_english.get(name, name))
    return names


def _after_title(markdown: str, block: str) -> str:
    """Insert a block after the page's first-line title (MkDocs takes the title from that H1)."""
    if not block:
        return markdown
    first, _, rest = markdown.partition("\n")
    if first.startswith("# "):
        return f"{first}\n\n{block}{rest}"
    return block + markdown
