"""A page's Markdown rendered as HTML once, then reused by every build whose page renders the same.

Rendering the Markdown was a third of a warm build: Pygments highlighting every embedded cell's code
(about 1,200 blocks in four languages) on every build. MkDocs renders a page in ``Page.render``; the
plugin gives each Markdown page a ``render`` of its own (as mkdocs-jupyter does for its notebook
pages) that looks the result up first, under a digest of everything ``Page.render`` reads:

- the page's Markdown as the plugins left it (with the cells, outputs, glued figures and claims that
  tcguide wrote into it: a changed output or claim is changed Markdown);
- the page's file, its URL and where it is written;
- every file of the build, its URL and whether it is a page (a link to another page is written from
  these, and one to a missing page is a warning);
- the Markdown extensions and their settings, the validation levels and ``use_directory_urls``;
- the tooling's code and every installed distribution's version (``build_cache.code_version``).

An entry holds what ``render`` sets on the page (its HTML, its table of contents, the title it found,
its anchors and its links to other pages' anchors, which MkDocs checks once every page is rendered)
and what rendering logged, which is logged again on every build that uses it. A setting that has no
stable value to digest (an extension given as an object, a function that is not a module's) turns
the cache off for that build: the pages render as they always did.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping

from mkdocs.structure.toc import get_toc

from tcguide.site import build_cache

KIND = "render"
log = logging.getLogger("mkdocs.structure.pages")


class Unstable(TypeError):
    """A setting with no value that stays the same from one build to the next."""


def _stable(value):
    """A JSON-able form of a setting, the same in every process; Unstable if there is none."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [_stable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _stable(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, functools.partial):
        return {"partial": _stable(value.func), "args": _stable(value.args), "keywords": _stable(value.keywords)}
    if callable(value) and getattr(value, "__closure__", None) is None and "<" not in getattr(value, "__qualname__", "<"):
        return {"function": f"{value.__module__}.{value.__qualname__}"}
    raise Unstable(f"{type(value).__name__} {value!r}")


def build_key(config, files) -> str | None:
    """What every page of this build shares in its key; None when a setting cannot be digested."""
    try:
        settings = _stable({"extensions": config["markdown_extensions"], "configs": config["mdx_configs"] or {},
                            "validation": dict(config.validation), "directory_urls": config.use_directory_urls})
    except Unstable:
        return None
    listing = sorted((f.src_uri, f.dest_uri, f.url, str(f.inclusion), f.is_documentation_page()) for f in files)
    return build_cache.digest(KIND, build_cache.code_version(), settings, listing,
                              log.getEffectiveLevel() > logging.DEBUG)


def install(page, store: build_cache.Store, shared: str) -> None:
    """Give the page a render that reuses a rendering of the same inputs (``shared``: ``build_key``)."""
    render = page.render

    def cached_render(config, files) -> None:
        if page.markdown is None:
            return render(config, files)
        key = build_cache.digest(shared, page.file.src_uri, page.file.dest_uri, page.file.url, page.markdown)
        entry = store.get(key)
        if entry is not None and _restore(page, entry, files):
            build_cache.replay(entry["logs"])
            return None
        with build_cache.logs_captured() as logs:
            render(config, files)
        store.put(key, _entry(page, logs))
        return None

    page.render = cached_render


def _entry(page, logs) -> dict:
    return {
        "content": page.content,
        "toc": build_cache.toc_tokens(page.toc),
        "title": page._title_from_render,
        "anchors": sorted(page.present_anchor_ids or ()),
        "links": None if page.links_to_anchors is None else
        {file.src_uri: links for file, links in page.links_to_anchors.items()},
        "logs": logs,
    }


def _restore(page, entry: dict, files) -> bool:
    """Set on the page what its rendering set; False when the entry names a file this build lacks."""
    links = None
    if entry["links"] is not None:
        links = {}
        for src_uri, anchors in entry["links"].items():
            file = files.get_file_from_path(src_uri)
            if file is None:
                return False
            links[file] = anchors
    page.content = entry["content"]
    page.toc = get_toc(entry["toc"])
    page._title_from_render = entry["title"]
    page.present_anchor_ids = set(entry["anchors"])
    if links is not None:
        page.links_to_anchors = links
    return True
