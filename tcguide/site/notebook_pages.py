"""Chapter notebooks on the site: a downloadable ``.ipynb`` beside every chapter, in every
language, and a page that mkdocs-jupyter renders from it.

A chapter ``getting-started/`` gets ``getting-started/notebook/getting-started.ipynb`` (the
notebook, a build product written to a scratch folder, never to docs/) and, when the
mkdocs-jupyter plugin is configured, the page ``getting-started/notebook/`` rendered from it.

mkdocs-static-i18n and mkdocs-jupyter do not work together as they are (mkdocs-static-i18n
issue 198): the i18n plugin's ``on_files`` (priority -100) makes a new ``File`` for every file
of docs/, which drops the wrapper that tells MkDocs a notebook is a page, and it decides the
language's pages and their alternates before any later plugin adds one. So the notebook pages
are added after it, already wrapped as mkdocs-jupyter's pages, placed under their chapter's
own URL in the language being built, given the i18n attributes the theme's language selector
reads (``locale``, ``alternates``), and counted among the language's pages for its sitemap.
"""

from __future__ import annotations

import base64
import hashlib
import html
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from urllib.parse import urljoin, urlsplit

from mkdocs.structure.files import File, Files
from mkdocs.utils import get_relative_url

from tcguide.notebooks import build as notebooks
from tcguide.core import settings
from tcguide.core.languages import SOURCE
from tcguide.core.catalog import Catalog
from tcguide.core.labels import label
from tcguide.site import figures, notebook_weight

COLAB = "https://colab.research.google.com/github/{repo}/blob/{branch}/{path}"


@dataclass(frozen=True)
class Notebook:
    """The notebook of one chapter page in the language being built."""

    page_url: str  # the chapter's URL, relative to the site (ru/getting-started/)
    url: str  # the notebook page's (ru/getting-started/notebook/)
    ipynb: str  # the notebook file's (ru/getting-started/notebook/getting-started.ipynb)
    rendered: bool  # whether mkdocs-jupyter renders it as a page


@dataclass(frozen=True)
class _Alternate:
    """A notebook page in another language, as the i18n plugin's templates read one."""

    url: str
    page: None = None


def under(page_url: str) -> str:
    """The URL of a chapter's notebook page: 'ru/x/' -> 'ru/x/notebook/', '' (the home) -> 'notebook/'."""
    base = "" if page_url in ("", "./", ".") else page_url if page_url.endswith("/") else page_url + "/"
    return base + "notebook/"


CACHE = Path(".cache") / "mkdocs-jupyter"
NOTEBOOK_FILES = "*.ipynb"  # the notebook pages' files, as plugins match a page's src_path


def keep_cache_per_language(jupyter, project_root: Path, lang: str) -> None:
    """Give mkdocs-jupyter a cache folder of each language's own.

    Its cache holds each converted page under a digest of the notebook's content and of the
    options that shape the page, so a warm build converts only notebooks that changed. But at the
    end of each build it evicts every entry that build did not use, and the i18n plugin runs one
    build per language: with one folder, each language evicted the others' pages and every build
    converted them all again. A folder per language keeps each language's entries to itself."""
    if jupyter.config.get("cache"):
        jupyter.config["cache_dir"] = str(project_root / CACHE / lang)


def no_dates_of_their_own(config) -> None:
    """Have the git-revision-date-localized plugin skip the notebook pages: it dates a page by its file's
    commits, a notebook is a build product with none (and it fails on a file outside any repository,
    unless told to fall back to the build's date). A notebook page takes its chapter's date instead
    (``notebook_chapter``)."""
    dates = config.plugins.get("git-revision-date-localized")
    if dates is not None and NOTEBOOK_FILES not in dates.config["exclude"]:
        dates.config["exclude"].append(NOTEBOOK_FILES)


def add(files: Files, config, catalog: Catalog, scratch: Path, project_root: Path,
        kept: Callable[[tuple, Callable[[], str]], str] | None = None) -> dict[str, Notebook]:
    """Make the notebook of every chapter among the pages of this build; returns them by chapter src_uri.
    ``kept(inputs, make)`` gives a notebook's text, made by ``make`` or kept from an earlier build with the
    same inputs (``page_cache``)."""
    lang = config.theme.get("language") or SOURCE
    jupyter = "mkdocs-jupyter" in config.plugins
    if jupyter:
        keep_cache_per_language(config.plugins["mkdocs-jupyter"], project_root, lang)
        no_dates_of_their_own(config)
    i18n = config.plugins.get("i18n")
    project = settings.load(project_root)
    made: dict[str, Notebook] = {}
    pages = []
    for file in files.documentation_pages():
        if not file.src_uri.endswith(".md") or not file.abs_src_path:
            continue
        text = Path(file.abs_src_path).read_text(encoding="utf-8")
        if not notebooks.is_chapter(text):
            continue
        rel = getattr(file, "norm_src_uri", file.src_uri)  # the page within its language's folder
        url = "" if file.url in ("./", ".") else file.url
        prefix = url[: len(url) - len(notebooks.url_part(rel))]
        display = _display(Path(file.abs_src_path), project_root)
        lang_root = urljoin(config.site_url or "/", prefix)

        def make(display=display, rel=rel, text=text, lang_root=lang_root) -> str:
            notebook, _ = notebooks.build(display, rel, text, lang, catalog, lang_root, project.needs_cuda,
                                          project.colab_gpu)
            return notebooks.dumps(notebook, compact=True)
        stem = posixpath.splitext(posixpath.basename(rel))[0]
        folder = under(url)
        path = scratch / lang / folder / f"{stem}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        inputs = (display, rel, text, lang, lang_root)
        path.write_text(kept(inputs, make) if kept is not None else make(), encoding="utf-8")
        files.append(File.generated(config, folder + f"{stem}.ipynb", abs_src_path=str(path)))
        if jupyter:
            page = _page(config, folder, str(path), file)
            files.append(page)
            pages.append(page)
        made[file.src_uri] = Notebook(url, folder, folder + f"{stem}.ipynb", jupyter)
    per_language = getattr(i18n, "i18n_files_per_language", {}).get(getattr(i18n, "current_language", None))
    if isinstance(per_language, list):  # the sitemap lists the language's pages from here
        per_language.extend(pages)
    return made


def _page(config, folder: str, abs_src_path: str, chapter: File) -> File:
    """The notebook as a page that mkdocs-jupyter renders, at the chapter's folder in this language."""
    from mkdocs_jupyter.plugin import NotebookFile

    source = File.generated(config, folder.rstrip("/") + ".ipynb", abs_src_path=abs_src_path)
    if hasattr(chapter, "locale"):  # what the i18n plugin and the theme's language selector read
        source.locale, source.localization = chapter.locale, chapter.localization
        source.locale_alternate_of = chapter.locale_alternate_of
        source.norm_src_uri = under(notebooks.url_part(chapter.norm_src_uri)) + "index.ipynb"
        source.alternates = {lang: _Alternate(under("" if alt.url in ("./", ".") else alt.url))
                             for lang, alt in chapter.alternates.items()}
    page = NotebookFile(source, use_directory_urls=config.use_directory_urls, site_dir=config.site_dir)
    page.abs_src_path = abs_src_path  # a property of File, which the wrapper would answer from its own empty src_dir
    page.dest_path = folder + "index.html" if config.use_directory_urls else folder.rstrip("/") + ".html"
    page.abs_dest_path = str(Path(config.site_dir) / page.dest_path)
    page.url = folder if config.use_directory_urls else page.dest_path
    page.edit_uri = chapter.edit_uri  # "edit this page": the chapter's Markdown, not a build product
    if hasattr(chapter, "locale"):
        source.alternates[chapter.locale_alternate_of] = page
    return page


def is_notebook_page(page) -> bool:
    return page.file.src_uri.endswith(".ipynb")


SHARED_MIN_BYTES = 1024  # a style or script this long is served once, as a file, not in every page
# (the theme's own inline scripts, which must run where they are, are shorter: 700 bytes at most)
_INLINE = re.compile(r'<style(?: type="text/css")?>\n(?P<css>.*?)</style>'
                     r'|<script type="module">(?P<js>.*?)</script>'
                     r'|<script>(?P<classic>.*?)</script>', re.S)


# The converter's template writes `hidden`; the page reaches here serialised again, as `hidden=""`.
_COPIED = re.compile(r'<span class="notice" hidden(?:="")?>Copied!</span>')
# The template's copy button, `for="cell-N", aria-label="Copy to Clipboard"`, whose comma becomes a
# stray attribute: written again without it, and with the label in the page's language.
_COPY_BUTTON = re.compile(r'<clipboard-copy [^>]*aria-label="Copy to Clipboard"[^>]*>')
_FOR = re.compile(r'\bfor="([^"]*)"')
_IMAGE = re.compile(r'src="data:(?P<mime>image/svg\+xml|image/png);base64,(?P<data>[A-Za-z0-9+/=\s]+)"')


def finish(page_html: str, lang: str, site_dir: Path | None = None, page_url: str = "",
           written: list[str] | None = None) -> str:
    """A rendered notebook page, reachable by keyboard (its code areas scroll sideways, so they take
    focus), whose copy buttons are named, and say "Copied!", in the page's language, and whose big inline styles and
    scripts (mkdocs-jupyter puts about 590 KB of CSS and the 4 KB script of its copy buttons in every
    notebook page) and its charts are files
    of the site, named by their content: one download for every notebook page and language, cached
    by the browser. An SVG chart is served with its drawing only, as the chapter pages' are, under the
    name its chapter page gives it. What else the page carries and does not need goes (``notebook_weight``).
    ``written`` gets the name of each of the site's files the page uses (written now, or already there)."""
    page_html = _COPIED.sub(f'<span class="notice" hidden>{html.escape(label(lang, "copied"))}</span>', page_html)
    named = html.escape(label(lang, "copy"))
    page_html = _COPY_BUTTON.sub(lambda m: f'<clipboard-copy for="{_FOR.search(m[0])[1]}" aria-label="{named}">',
                                 page_html)
    page_html = page_html.replace('<div class="highlight-ipynb', '<div tabindex="0" class="highlight-ipynb')
    if site_dir is None:
        return notebook_weight.slim(page_html)

    def shared(match: re.Match) -> str:
        css, js, classic = match["css"], match["js"], match["classic"]
        text = css if css is not None else js if js is not None else classic
        if len(text.encode("utf-8")) < SHARED_MIN_BYTES:
            return match.group(0)
        name = f"assets/notebook/{hashlib.sha256(text.encode('utf-8')).hexdigest()[:16]}.{'css' if css is not None else 'js'}"
        if written is not None:
            written.append(name)
        target = Path(site_dir) / name
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        url = html.escape(get_relative_url(name, page_url))
        if css is not None:
            return f'<link rel="stylesheet" href="{url}">'
        # a classic script from a file runs where it stands, as the inline one did; a module, deferred, as before
        return f'<script type="module" src="{url}"></script>' if js is not None else f'<script src="{url}"></script>'

    def image(match: re.Match) -> str:
        mime, data = match["mime"], base64.b64decode(match["data"])
        if mime == "image/svg+xml":
            try:
                data = figures.safe_svg(data.decode("utf-8")).encode("utf-8")
            except (ValueError, SyntaxError, UnicodeDecodeError):
                return match.group(0)  # not an SVG the site can serve as a file: it stays inline
        name = figures.file_name(data, mime)  # the name its chapter page gives it: one file for both
        if written is not None:
            written.append(name)
        target = Path(site_dir) / name
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return f'src="{html.escape(get_relative_url(name, page_url))}"'

    return notebook_weight.slim(_IMAGE.sub(image, _INLINE.sub(shared, page_html)))


def links(notebook: Notebook, page_url: str, lang: str, repo_url: str | None, branch: str, view: bool = True) -> str:
    """The chapter as a notebook, for the page at page_url: its page (``view``, from the chapter), the file,
    and Colab (when the site names a GitHub repository)."""
    found = []
    if view and notebook.rendered:
        found.append(f'<a href="{html.escape(get_relative_url(notebook.url, page_url))}">{label(lang, "nb_view")}</a>')
    download = html.escape(get_relative_url(notebook.ipynb, page_url))
    found.append(f'<a href="{download}" download>{label(lang, "nb_download")}</a>')
    colab = colab_url(repo_url, branch, notebook.ipynb)
    if colab:
        found.append(f'<a href="{html.escape(colab)}">{label(lang, "nb_colab")}</a>')
    return f'<div class="tcg-notebook" data-search-exclude>{" · ".join(found)}</div>\n\n'


def colab_url(repo_url: str | None, branch: str, ipynb: str) -> str | None:
    """Colab's URL for a notebook that the publish workflow puts on a branch of a GitHub repository."""
    if not repo_url:
        return None
    parts = urlsplit(repo_url)
    repo = parts.path.strip("/").removesuffix(".git")
    if parts.netloc != "github.com" or repo.count("/") != 1:
        return None
    return COLAB.format(repo=repo, branch=branch, path=ipynb)


def source_url(repo_url: str | None, source_uri: str, path: str, line: int) -> str | None:
    """A snippet file's address in the repository, at the cell's line."""
    if not repo_url:
        return None
    return f"{repo_url.rstrip('/')}/{source_uri.strip('/')}/{path}#L{line}"


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root))
    except ValueError:
        return str(path)
