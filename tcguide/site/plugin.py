"""MkDocs plugin: replace each ``[[cell FILE.py#name]]`` line with the cell and its captured output,
each ``{{FILE.py:name}}`` figure with its captured value (``glue``), make every chapter a notebook
(``notebook_pages``), and finish the pages for readers in every language (section ids, notices,
head links, 404 pages, figure files, per-page sitemaps), and give each language a search index
of its own (``search``).

A directive or figure that names a missing file, cell or value, or whose output is missing, stale,
corrupt or holds an undeclared exception, is logged as a warning naming the page,
the line and what to do (so ``mkdocs build --strict`` fails), and is marked on the
page (so ``mkdocs serve`` still previews it).
"""

from __future__ import annotations

import base64
import hashlib
import html
import logging
import tempfile
from pathlib import Path
from urllib.parse import urljoin

from mkdocs.config import base, config_options as c
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.utils import get_relative_url

from tcguide.site import figures, notebook_pages, pagehead, render, search, sitemaps
from tcguide.i18n import headings
from tcguide.i18n import translations as i18n
from tcguide.core import claims, directive, glue, timings
from tcguide.core.catalog import Catalog
from tcguide.core.errors import GuideError
from tcguide.core.labels import label

log = logging.getLogger("mkdocs.plugins.tcguide")


# The Markdown extensions what the plugin writes into a page needs, and why. (With attr_list as
# well, a translated heading keeps the English heading's id; without it, the heading its own.)
REQUIRED_EXTENSIONS = {
    "pymdownx.highlight": "an embedded cell's code block carries its file, cell name and line numbers",
    "pymdownx.superfences": "an embedded cell's code block may sit in a list item or an admonition",
}


class CellsConfig(base.Config):
    enabled = c.Type(bool, default=True)
    """Off: the plugin does nothing (pages keep their directives as written)."""
    snippets_dir = c.Type(str, default="snippets")
    """Folder of the snippet files, relative to mkdocs.yml."""
    search_lang = c.Type(dict, default={})
    """Per language, the lunr languages of its search index (default: the language itself)."""
    search_glossary = c.Optional(c.Type(str))
    """A glossary whose second column's Chinese terms jieba keeps whole (relative to mkdocs.yml)."""
    notebooks = c.Type(bool, default=True)
    """Make every chapter (a page that embeds cells) a notebook: a download, and a page if mkdocs-jupyter is on."""
    source_uri = c.Type(str, default="blob/main/")
    """Where the repository (``repo_url``) shows files: each embedded cell links to its snippet file there."""
    notebooks_branch = c.Type(str, default="published-notebooks")
    """The branch of the (GitHub) repository that the publish workflow puts the notebooks on, for Colab."""


class CellsPlugin(BasePlugin[CellsConfig]):
    def __init__(self):
        super().__init__()
        self.search_indexes: dict[str, dict] = {}  # language -> its search index, kept until all are built

    # The hooks in the order MkDocs calls them: on_config, on_files, then per page
    # on_page_markdown, the theme's templates (on_post_template), per page on_post_page,
    # on_post_build; on_serve before serving, on_shutdown at the end.

    @event_priority(60)  # before the search plugin's on_config (0) reads its settings
    def on_config(self, config):
        if not self.config.enabled:
            return config
        missing = [f"{name} ({why})" for name, why in REQUIRED_EXTENSIONS.items() if name not in config.markdown_extensions]
        if missing:
            raise PluginError("tcguide: mkdocs.yml lacks Markdown extensions the plugin needs: " + "; ".join(missing)
                              + " — add them under markdown_extensions")
        self.project_root = Path(config.config_file_path).resolve().parent
        self.catalog = Catalog(self.project_root, self.config.snippets_dir)  # fresh on every (re)build
        self.site = i18n.Site(self.project_root, Path(config.docs_dir).name)
        self.figures: dict[str, str] = {}  # site path -> SVG, written after the build
        self.lang, self.default_lang, _ = search.building_language(config, i18n.SOURCE)
        engine = search.search_plugin(config)
        if engine is not None:
            glossary = self.config.search_glossary
            jieba_dict = search.jieba_user_dict(self.project_root / glossary) if glossary else None
            search.configure(engine, self.lang, self.config.search_lang, jieba_dict)
        self.notebooks: dict[str, notebook_pages.Notebook] = {}  # chapter src_uri -> its notebook
        if not hasattr(self, "scratch"):  # one for the i18n plugin's builds of every language
            self.scratch = tempfile.TemporaryDirectory(prefix="tcguide-notebooks-")
        return config

    # After the i18n plugin's on_files (-100): it remakes every File of docs/, which would drop a
    # notebook page's wrapper, and decides the language's pages (mkdocs-static-i18n issue 198).
    @event_priority(-110)
    def on_files(self, files, config):
        if self.config.enabled and self.config.notebooks:
            self.notebooks = notebook_pages.add(files, config, self.catalog, Path(self.scratch.name), self.project_root)
        return files

    def on_page_markdown(self, markdown, page, config, files):
        if not self.config.enabled:
            return markdown
        if notebook_pages.is_notebook_page(page):  # mkdocs-jupyter renders it from the notebook
            page.meta["search"] = {"exclude": True}  # its chapter is the search result; the copy would double the index
            return markdown
        page_path = self._page_path(page)
        lang = config.theme.get("language") or i18n.SOURCE  # mkdocs-static-i18n sets it per language built
        offset = directive.stripped_lines(page.file.content_string)  # messages name the file's own lines
        checked, wrong = claims.check_page(markdown, self.project_root, self.catalog, page_path, lang, offset + 1)
        if lang == i18n.SOURCE:
            wrong += claims.unused(self.project_root, claims.page_stem(page_path),
                                   claims.find(markdown, page_path, offset + 1)[0])
        for problem in wrong:
            log.warning(str(problem))
        markdown = claims.substitute(markdown, checked, lang, start=offset + 1)
        markdown, unresolved = glue.substitute(markdown, self.catalog, page_path, lang, start=offset + 1)
        for problem in unresolved:
            log.warning(str(problem))
        found, errors = directive.find(markdown, page_path, start=offset + 1)
        for error in errors:
            log.warning(str(error))
        rendered = {d.line - offset: self._render(d, page_path, page.url, lang, config) for d in found}
        for error in errors:
            rendered[error.line - offset] = render.problem_box(error, lang)
        markdown = directive.replace(markdown, rendered) if rendered else markdown
        located = self.site.locate(page_path)
        if "attr_list" in config.markdown_extensions and located and located[0] != i18n.SOURCE \
                and self.site.path(i18n.SOURCE, located[1]).exists():
            english = self.site.read(i18n.SOURCE, located[1])
            markdown = headings.with_english_ids(markdown, [h.text for h in english.headings])
        notebook = self.notebooks.get(page.file.src_uri)
        links = self._notebook_links(notebook, page.url, lang, config) if notebook else ""
        return _after_title(markdown, self._translation_notice(page_path, page.url, lang) + links)

    def on_post_template(self, output_content, template_name, config):
        """One 404 page per language: the i18n build writes every language's to the site's root,
        where the last one built won. Each goes to its language's folder instead; the root keeps
        the English one, which shows the reader's language's page when the path names one."""
        if not self.config.enabled or template_name != "404.html":
            return output_content
        lang = config.theme.get("language") or i18n.SOURCE
        if search.search_plugin(config) is not None:
            output_content = search.page_config(output_content, search.language_root(self.lang, self.default_lang))
        home = urljoin(config.site_url or "/", "" if lang == i18n.SOURCE else f"{lang}/")
        output_content = render.not_found_body(output_content, lang, home)
        if lang != i18n.SOURCE:
            (Path(config.site_dir) / lang).mkdir(parents=True, exist_ok=True)
            (Path(config.site_dir) / lang / "404.html").write_text(output_content, encoding="utf-8")
            return ""  # empty: MkDocs writes nothing at the root for this language
        script = render.not_found_script(config.site_url or "/", self.site.languages()[1:])
        return output_content.replace("</body>", script + "</body>", 1)

    def on_post_page(self, output, page, config):
        if not self.config.enabled:
            return output
        if search.search_plugin(config) is not None:
            output = search.page_config(output, search.language_root(self.lang, self.default_lang))
        if config.site_url:
            output = pagehead.absolute_alternates(output, urljoin(config.site_url, page.url), i18n.SOURCE)
        lang = config.theme.get("language") or i18n.SOURCE
        output = output.replace('title="Permanent link"', f'title="{label(lang, "permalink")}"')
        if notebook_pages.is_notebook_page(page):
            output = notebook_pages.finish(output, label(lang, "copied"))
        return pagehead.title_once(output, config.site_name)

    @event_priority(50)  # before the i18n plugin (-100) gathers every language's entries into one index
    def _on_post_build(self, config):
        if not self.config.enabled:
            return
        engine = search.search_plugin(config)
        if engine is not None:
            self.search_indexes[self.lang] = search.snapshot(engine)
        for name, content in self.figures.items():
            target = Path(config.site_dir) / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, encoding="utf-8")
        sitemaps.write_beside_pages(Path(config.site_dir), config.site_url)

    @event_priority(-200)  # after the i18n plugin has built every language and written its combined index
    def _on_post_build_search(self, config):
        if not self.config.enabled:
            return
        if search.building_language(config, i18n.SOURCE)[2] or not self.search_indexes:
            return  # a language's build inside the i18n plugin's: the others are still to come
        sizes = search.write_indexes(Path(config.site_dir), self.search_indexes, self.default_lang)
        log.info("search index per language: " + ", ".join(f"{l} {n:,} bytes" for l, n in sizes.items()))
        self.search_indexes = {}

    on_post_build = CombinedEvent(_on_post_build, _on_post_build_search)

    def on_serve(self, server, config, builder):
        if not self.config.enabled:
            return server
        server.watch(str(self.project_root / self.config.snippets_dir))
        if (self.project_root / claims.FOLDER).is_dir():
            server.watch(str(self.project_root / claims.FOLDER))
        return server

    def on_shutdown(self):
        if hasattr(self, "scratch"):
            self.scratch.cleanup()

    def _figure(self, mime: str, data: str, page_url: str, where: str) -> str:
        """Keep a figure for writing as its own file (named by its content); its URL from the page."""
        if mime == "image/png":  # pixels only: served as they are
            content = base64.b64decode("".join(data.split()))
            name = f"assets/figures/{hashlib.sha256(content).hexdigest()[:16]}.png"
        else:
            try:
                content = figures.safe_svg(data)
            except (ValueError, SyntaxError) as exc:  # ElementTree's ParseError is a SyntaxError
                log.warning(f"{where}: a figure is not an SVG the site can serve ({exc}); shown inline — recapture it")
                return render.data_uri(mime, data)
            name = f"assets/figures/{hashlib.sha256(data.encode('utf-8')).hexdigest()[:16]}.svg"
        self.figures[name] = content
        return get_relative_url(name, page_url)

    def _render(self, d: directive.Directive, page_path: str, page_url: str, lang: str, config) -> str:
        try:
            if d.kind == "i18n-status":
                return render.status_table(i18n.report(self.site), self.site.languages()[1:], lang,
                                           self._english_titles(), self._url_of(page_url, config))
            if d.kind == "capture-times":
                return timings.capture_times(self.catalog.captures_under(d.file), lang)
            embedded = self.catalog.embed(d.file, d.cell)
        except GuideError as exc:
            problem = exc.inside(page_path, d.line, d.text)
            log.warning(str(problem))
            return render.problem_box(problem, lang)
        if embedded.problem:
            log.warning(f"{page_path}:{d.line}: {d.text}: {embedded.problem}")
        source = notebook_pages.source_url(config.repo_url, self.config.source_uri, embedded.snippet.path,
                                           embedded.cell.line)
        where = f"{page_path}:{d.line}: {d.text}"
        try:
            return render.cell(embedded, lang, lambda mime, data: self._figure(mime, data, page_url, where), source)
        except (KeyError, TypeError, ValueError, StopIteration) as exc:  # an output the renderer does not know
            problem = GuideError(page_path, d.line, f"{d.text}: its captured output holds something the site cannot "
                                 f"show ({type(exc).__name__}: {exc})",
                                 f"recapture it with: make capture SNIPPETS={embedded.snippet.path}")
            log.warning(str(problem))
            return render.problem_box(problem, lang)

    def _notebook_links(self, notebook: notebook_pages.Notebook, page_url: str, lang: str, config) -> str:
        """The chapter as a notebook: its page, the file, and Colab (when the site names a GitHub repository)."""
        links = []
        if notebook.rendered:
            links.append(f'<a href="{html.escape(get_relative_url(notebook.url, page_url))}">{label(lang, "nb_view")}</a>')
        download = html.escape(get_relative_url(notebook.ipynb, page_url))
        links.append(f'<a href="{download}" download>{label(lang, "nb_download")}</a>')
        colab = notebook_pages.colab_url(config.repo_url, self.config.notebooks_branch, notebook.ipynb)
        if colab:
            links.append(f'<a href="{html.escape(colab)}">{label(lang, "nb_colab")}</a>')
        return f'<div class="tcg-notebook">{" · ".join(links)}</div>\n\n'

    def _translation_notice(self, page_path: str, page_url: str, lang: str) -> str:
        """Tell readers of a fallback or an outdated translation what they are reading."""
        located = self.site.locate(page_path)
        if located is None or lang == i18n.SOURCE:
            return ""
        src_lang, page = located
        if src_lang == i18n.SOURCE:  # the English page, shown in place of a missing translation
            return render.notice(label(lang, "untranslated"), "info")
        if src_lang == lang and self.site.path(i18n.SOURCE, page).exists():
            try:
                state = i18n.status(self.site, lang, page)
            except GuideError as exc:  # a malformed translation record: say where, build on
                log.warning(str(exc))
                return ""
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
            headings = self.site.read(i18n.SOURCE, page).headings
            titles[page] = headings[0].text if headings else page
        return titles

    @staticmethod
    def _url_of(page_url: str, config):
        """A page of a language (or its home, for page ''), as a URL relative to the page at page_url."""
        def url(lang: str, page: str) -> str:
            folder = "" if lang == i18n.SOURCE else f"{lang}/"
            stem = page.removesuffix(".md")
            target = folder + ("" if stem in ("", "index") else f"{stem}/")
            return get_relative_url(target or "./", page_url) + ("/" if target and not target.endswith("/") else "")
        return url

    def _page_path(self, page) -> str:
        path = Path(page.file.abs_src_path)
        try:
            return str(path.relative_to(self.project_root))
        except ValueError:
            return str(path)


def _english_url(page_url: str) -> str:
    """The English original of a translated page (ru/x/ -> ../../x/), relative to the page."""
    english = get_relative_url(page_url.split("/", 1)[1] if "/" in page_url else "", page_url)
    return english + ("" if english.endswith("/") else "/")  # the English page is a folder's index


def _translated_sections(site: i18n.Site, lang: str, page: str, changes) -> list[str]:
    """The changed English sections, named by the translation's own headings (same order, as
    the structure check holds them); a section the translation doesn't have keeps its English name."""
    english, translated = site.read(i18n.SOURCE, page), site.read(lang, page)
    by_english = {e.text: t.text for e, t in zip(english.headings, translated.headings)}
    names = []
    for change in changes:
        name = change.split(": ", 1)[-1].split(" → ")[-1]
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
