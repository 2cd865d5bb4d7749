"""MkDocs plugin: a thin adapter. Each hook hands its work to the module of ``site/`` that owns it:
a page's Markdown to ``pages`` (cells and their outputs, glued figures, claims, a translation's
headings and notices, notebook links), the 404 pages to ``not_found``, chapters as notebooks to
``notebook_pages``, what a notebook page takes from its chapter page to ``notebook_chapter``, each
language's search index to ``search``, head links and permalinks' titles to ``pagehead``, the sharing
tags to ``social``, API names' links to ``api_links``, the figures' files to ``figures`` and the
sitemaps to ``sitemaps``. ``enabled: false`` turns every hook off; a Markdown extension the pages
need that mkdocs.yml lacks is a ``PluginError`` naming it.

A directive or figure that names a missing file, cell or value, or whose output is missing, stale,
corrupt or holds an undeclared exception, is logged as a warning naming the page,
the line and what to do (so ``mkdocs build --strict`` fails), and is marked on the
page (so ``mkdocs serve`` still previews it).
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from pathlib import Path
from urllib.parse import urljoin

import jinja2
from mkdocs.config import base, config_options as c
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority

from tcguide.site import (api_links, build_cache, figures, not_found, notebook_chapter, notebook_pages, output_cache,
                          page_cache, page_dates, page_weight, pagehead, pages, render_cache, search, serve,
                          sitemaps, social, theme_files)
from tcguide.i18n import translations as i18n
from tcguide.core.languages import SOURCE
from tcguide.core import claims, discovery, languages
from tcguide.core.catalog import Catalog
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
    snippets_dir = c.Type(str, default=discovery.FOLDER)
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
    api_names = c.Optional(c.Type(str))
    """The torch API names of the prose and their reference pages (relative to mkdocs.yml): see api_links."""
    cache = c.Type(bool, default=True)
    """Reuse what an earlier build made from the same inputs (in .cache/tcguide/: see build_cache)."""


# Where the git-revision-date-localized plugin leaves a page's date (the day its source was last committed).
PAGE_DATE = "git_revision_date_localized_raw_iso_date"


def language(config) -> str:
    """The language being built: mkdocs-static-i18n sets the theme's per language it builds."""
    return config.theme.get("language") or SOURCE


class CellsPlugin(BasePlugin[CellsConfig]):
    def __init__(self):
        super().__init__()
        self.search_indexes: dict[str, dict] = {}  # language -> its search index, kept until all are built
        self.sitemap: dict[str, sitemaps.Entry] = {}  # every language's pages, kept until all are built

    # The hooks in the order MkDocs calls them: on_config, on_files, then per page
    # on_page_markdown and on_page_content, on_env, the theme's templates (on_post_template), per page
    # on_post_page, on_post_build; on_serve after the first build, before serving; on_shutdown at
    # the end. A hook without an explicit priority runs at MkDocs' default (0), in the order of
    # mkdocs.yml's plugins list.

    @event_priority(60)  # before the search plugin's on_config (0) reads its settings
    def on_config(self, config):
        if not self.config.enabled:
            return config
        missing = [f"{name} ({why})" for name, why in REQUIRED_EXTENSIONS.items() if name not in config.markdown_extensions]
        if missing:
            raise PluginError("tcguide: mkdocs.yml lacks Markdown extensions the plugin needs: " + "; ".join(missing)
                              + " — add them under markdown_extensions")
        self.project_root = Path(config.config_file_path).resolve().parent
        self.lang, self.default_lang, between_languages = search.building_language(config, SOURCE)
        if not between_languages or not hasattr(self, "catalog"):
            # Fresh on every (re)build, and shared by the i18n plugin's builds of its languages: each
            # snippet file, captured output and page is read, parsed and checked once per build, not once
            # per language (every page still logs what is wrong with what it embeds).
            self.catalog = Catalog(self.project_root, self.config.snippets_dir)
            self.site = i18n.ReadOnce(self.project_root, Path(config.docs_dir).name)
            search.new_build()
        engine = search.search_plugin(config)
        if engine is not None:
            glossary = self.config.search_glossary
            self.jieba_dict = search.jieba_user_dict(self.project_root / glossary) if glossary else None
            search.configure(engine, self.lang, self.config.search_lang, self.jieba_dict)
        self.pages = pages.Pages(self.project_root, self.catalog, self.site, config.repo_url, self.config.source_uri,
                                 self.config.notebooks_branch, "attr_list" in config.markdown_extensions)
        self.api_names = None
        if self.config.api_names:
            try:
                self.api_names = api_links.load(self.project_root / self.config.api_names)
                self.api_names_text = (self.project_root / self.config.api_names).read_text(encoding="utf-8")
            except ValueError as exc:
                raise PluginError(f"tcguide: {exc}") from exc
        if not hasattr(self, "stores"):  # one for every build of the process, and each of its languages
            self.stores = {kind: build_cache.Store(self.project_root, kind) for kind in
                           (page_cache.MARKDOWN, render_cache.KIND, search.CACHE_KIND, page_cache.NOTEBOOKS,
                            output_cache.KIND, output_cache.ASSETS, api_links.CACHE_KIND)} \
                if self.config.cache else {}
        if not between_languages or not hasattr(self, "started"):  # a build starts
            self.started = time.time()  # what the caches' entries used since then are kept (Store.prune)
            # the whole tree, as it is at the start of this build (and not again for each language)
            self.tree = build_cache.TreeKeyed(self.project_root, dict(os.environ), self.site.docs) \
                if self.config.cache else None
        if self.config.cache and not hasattr(self, "dates"):  # kept for every build of the process (mkdocs serve)
            self.dates = page_dates.Dates(self.project_root, build_cache.Store(self.project_root, page_dates.KIND))
        self.render_key = None  # the part of each page's render key that the build's pages share
        if not hasattr(self, "scratch"):  # one for the i18n plugin's builds of every language
            self.scratch = tempfile.TemporaryDirectory(prefix="tcguide-notebooks-")
        return config

    def on_pre_build(self, config):
        """The theme's search index reads pages without their code blocks, and its plugin strips attributes
        only from pages that have them (site/search.py)."""
        engine = search.search_plugin(config)
        if self.config.enabled and engine is not None and getattr(engine, "search_index", None) is not None:
            search.index_without_code(engine, getattr(self, "jieba_dict", None),
                                      self.stores.get(search.CACHE_KIND))
            search.strip_only_where_needed(config, engine)

    # Before the date plugin's on_files (0), which asks git for every page's date that its cache lacks;
    # after the i18n plugin's (-100) would be too late for it.
    @event_priority(10)
    def _on_files_dates(self, files, config):
        """The pages' dates that the history since the last build leaves as they were (site/page_dates.py)."""
        if self.config.enabled and hasattr(self, "dates"):
            self.dates.give(config, files)
            self.dated_files = files  # the files the date plugin dates: its answers are kept after the build
        return files

    # After the i18n plugin's on_files (-100): it remakes every File of docs/, which would drop a
    # notebook page's wrapper, and decides the language's pages (mkdocs-static-i18n issue 198).
    @event_priority(-110)
    def _on_files(self, files, config):
        if not self.config.enabled:
            return files
        if self.config.notebooks:
            self.pages.notebooks = notebook_pages.add(
                files, config, self.catalog, Path(self.scratch.name), self.project_root,
                page_cache.notebooks(self.tree, self.stores.get(page_cache.NOTEBOOKS)))
        langs = {lunr for lang in languages.configured(self.project_root)
                 for lunr in self.config.search_lang.get(lang, [lang])}
        theme_files.prune(files, langs)  # source maps, and lunr's languages that no index uses
        self.chapters = notebook_chapter.Chapters(self.pages.notebooks, config.repo_url, self.config.notebooks_branch)
        return files

    on_files = CombinedEvent(_on_files_dates, _on_files)

    def on_pre_page(self, page, config, files):
        """A Markdown page renders through the cache of renderings (site/render_cache.py)."""
        if not self.config.enabled or render_cache.KIND not in self.stores or notebook_pages.is_notebook_page(page):
            return page
        if self.render_key is None or self.render_key[0] is not files:  # once per build, its files all known
            self.render_key = (files, render_cache.build_key(config, files))
        if self.render_key[1] is not None:
            render_cache.install(page, self.stores[render_cache.KIND], self.render_key[1])
        return page

    def on_page_markdown(self, markdown, page, config, files):
        if not self.config.enabled:
            return markdown
        if notebook_pages.is_notebook_page(page):  # mkdocs-jupyter renders it from the notebook
            page.meta["search"] = {"exclude": True}  # its chapter is the search result; the copy would double the index
            return markdown
        return page_cache.markdown(self.pages, markdown,
                                   pages.Page(self.pages.path_of(page.file.abs_src_path), page.url, page.file.src_uri,
                                              page.file.content_string, language(config)),
                                   self.tree, self.stores.get(page_cache.MARKDOWN))

    def on_page_content(self, html, page, config, files):
        """A notebook page takes its headings' ids, contents, dates and title from its chapter page
        (site/notebook_chapter.py). In a chapter's prose, API names link to PyTorch's reference
        (site/api_links.py); a torch name that the list does not know is a warning, naming the page's line."""
        if not self.config.enabled:
            return html
        if notebook_pages.is_notebook_page(page):
            html, problems = self.chapters.notebook_page(html, page, language(config))
            for problem in problems:
                log.warning(problem)
            return html
        self.chapters.remember(page)
        if self.api_names is None:
            return html
        shown = self.pages.path_of(page.file.abs_src_path)
        key = build_cache.digest(api_links.CACHE_KIND, build_cache.code_version(), self.api_names_text, html,
                                 page.file.content_string, shown, self.config.api_names)
        html, problems = build_cache.memo(self.stores.get(api_links.CACHE_KIND), key, lambda: api_links.link_page(
            html, self.api_names, page.file.content_string, shown, self.config.api_names))
        for problem in problems:
            log.warning(problem)
        return html

    def on_env(self, env, config, files):
        """Every page is rendered, none written: the version of the language's search index (site/search.py).
        The theme's templates are compiled once, then loaded as Python bytecode by later builds (Jinja's
        own cache, which names each entry by its template and checks the template's source against it)."""
        if self.config.enabled and self.config.cache and env.bytecode_cache is None:
            folder = self.project_root / build_cache.FOLDER / "jinja"
            folder.mkdir(parents=True, exist_ok=True)
            env.bytecode_cache = jinja2.FileSystemBytecodeCache(str(folder))
        engine = search.search_plugin(config) if self.config.enabled else None
        self.index_version = (search.index_version((f.page for f in files.documentation_pages()), engine)
                              if engine is not None else None)
        return env

    def on_post_template(self, output_content, template_name, config):
        """One 404 page per language (site/not_found.py)."""
        if not self.config.enabled or template_name != not_found.TEMPLATE:
            return output_content
        engine = search.search_plugin(config)
        return not_found.page(output_content, language(config), self.site, config.site_url,
                              Path(config.site_dir),
                              search.language_root(self.lang, self.default_lang) if engine is not None else None)

    def on_post_page(self, output, page, config):
        """The page's head, sharing tags and theme settings; a notebook page's shared files; its sitemap entry.
        Reused from an earlier build that finished the same page (site/output_cache.py)."""
        if not self.config.enabled:
            return output
        chapter = {notebook.url: notebook.page_url for notebook in self.pages.notebooks.values()}.get(page.url)
        store, assets = self.stores.get(output_cache.KIND), self.stores.get(output_cache.ASSETS)
        version = getattr(self, "index_version", None)
        if store is None or assets is None:
            output, self.sitemap[page.url] = self._finished(output, page, config, chapter, None, version)
            return output
        # The search index's version changes with any page of the language: the page is finished with a slot
        # for it, and reused while only the version changed (an edit finished every page of its language again).
        inputs = {"url": page.url, "date": page.meta.get(PAGE_DATE), "home": page.is_homepage, "chapter": chapter,
                  "lang": language(config), "root": search.language_root(self.lang, self.default_lang),
                  "search": search.search_plugin(config) is not None, "index": version is not None,
                  "notebook": notebook_pages.is_notebook_page(page), "site_url": config.site_url,
                  "site_name": config.site_name, "site_description": config.site_description}
        output, self.sitemap[page.url] = output_cache.finished(
            output, page.content or "", inputs, store, assets, Path(config.site_dir),
            lambda written: self._finished(output, page, config, chapter, written,
                                           search.VERSION_SLOT if version else None))
        return search.with_version(output, version)

    def _finished(self, output, page, config, chapter, written, version):
        """on_post_page's work: (the finished page, its sitemap entry)."""
        if search.search_plugin(config) is not None:
            output = search.page_config(output, search.language_root(self.lang, self.default_lang), version)
        url = urljoin(config.site_url, page.url) if config.site_url else None  # unknown: served anywhere
        entry = sitemaps.entry(output, page.url, page.meta.get(PAGE_DATE), chapter, config.site_url or None)
        output = pagehead.alternates(output, page.url, config.site_url or None, SOURCE)
        lang = language(config)
        output = pagehead.permalink_titles(output, label(lang, "permalink"))
        if notebook_pages.is_notebook_page(page):
            output = notebook_pages.finish(output, lang, Path(config.site_dir), page.url, written)
        else:  # a notebook page sheds the same in finish()
            output = page_weight.slim(output)
        output = pagehead.title_once(output, config.site_name)
        home = page.is_homepage or page.url in ("", f"{lang}/")  # a language's home
        # a home page says what the site is (its language's site_description); other pages, their first paragraph
        summary = (config.site_description if home else None) or social.description(page.content or "") \
            or config.site_description or ""
        return social.tags(output, lang, summary, url, home), entry

    @event_priority(50)  # before the i18n plugin (-100) gathers every language's entries into one index
    def _on_post_build(self, config):
        if not self.config.enabled:
            return
        engine = search.search_plugin(config)
        if engine is not None:
            self.search_indexes[self.lang] = search.snapshot(engine)
        figures.write(Path(config.site_dir), self.pages.figures)
        if hasattr(self, "dates") and hasattr(self, "dated_files"):
            self.dates.keep(config, self.dated_files)

    @event_priority(-200)  # after the i18n plugin has built every language, and written its index and sitemap
    def _on_post_build_all(self, config):
        if not self.config.enabled or search.building_language(config, SOURCE)[2]:
            return  # a language's build inside the i18n plugin's: the others are still to come
        if self.search_indexes:
            sizes = search.write_indexes(Path(config.site_dir), self.search_indexes, self.default_lang)
            log.info("search index per language: " + ", ".join(f"{l} {n:,} bytes" for l, n in sizes.items()))
            self.search_indexes = {}
        if self.sitemap:
            sitemaps.write(Path(config.site_dir), self.sitemap, config.site_url or None, self.default_lang)
            self.sitemap = {}
        if self.tree is not None:
            self.tree.flush()
        if self.stores:
            counts = [store.counted() for store in self.stores.values()]
            counts += [self.dates.counted()] if hasattr(self, "dates") else []
            log.info("tcguide: reused from earlier builds: " + ", ".join(counts))
            for store in [*self.stores.values(), *([self.dates.store] if hasattr(self, "dates") else [])]:
                store.prune(self.started)

    on_post_build = CombinedEvent(_on_post_build, _on_post_build_all)

    def on_serve(self, server, config, builder):
        """The snippet files, their outputs and the claims are watched too, every path polled more often
        than MkDocs' half second (site/serve.py); jieba loads while the server waits for an edit."""
        if not self.config.enabled:
            return server
        if search.search_plugin(config) is not None:
            search.load_jieba_meanwhile()
        return serve.watch(server, config, [self.project_root / self.config.snippets_dir,
                                            self.project_root / claims.FOLDER])

    def on_shutdown(self):
        if hasattr(self, "scratch"):
            self.scratch.cleanup()
