"""A page's finished output (what tcguide's ``on_post_page`` makes of the theme's HTML) reused by a later
build that hands it the same page.

Finishing a notebook page reads its whole HTML several times (its inline styles and scripts served as
files, its charts as files, markup it does not need taken out) and every page is scanned for its head
links and its first paragraph: a quarter of a warm build once everything before it was reused. The
entry is found under a digest of the theme's HTML of the page, its rendered content (its first
paragraph is the page's description), everything else the step reads (``inputs``: the page's address,
date and language, the site's address, name and description, the search index's version, the chapter
a notebook page belongs to) and the tooling's code with the installed versions. It holds the finished
HTML and the page's sitemap entry.

A notebook page's shared files (its styles, scripts and charts, named by their content) are written
to the site by the step itself: their names are kept with the entry, their content in a store of its
own, and a build that reuses the entry writes those the site lacks, as the step would have. Stdlib only.
"""

from __future__ import annotations

import base64
import dataclasses
from pathlib import Path

from tcguide.site import build_cache, sitemaps

KIND = "output"
ASSETS = "assets"


def finished(output: str, content: str, inputs: dict, store: build_cache.Store, assets: build_cache.Store,
             site_dir: Path, make) -> tuple[str, sitemaps.Entry]:
    """``make(written)``'s (finished HTML, sitemap entry), from the store where it holds an entry for the
    same inputs; ``make`` lists in ``written`` the site's files it wrote or found there."""
    key = build_cache.digest(KIND, build_cache.code_version(), output, content, inputs)
    entry = store.get(key)
    if entry is not None and _written(entry["files"], assets, site_dir):
        return entry["output"], sitemaps.Entry(**entry["sitemap"])
    written: list[str] = []
    finished_html, sitemap_entry = make(written)
    for name in dict.fromkeys(written):
        asset_key = build_cache.digest(ASSETS, name)
        if not assets.has(asset_key):
            assets.put(asset_key, base64.b64encode((site_dir / name).read_bytes()).decode("ascii"))
    store.put(key, {"output": finished_html, "sitemap": dataclasses.asdict(sitemap_entry),
                    "files": list(dict.fromkeys(written))})
    return finished_html, sitemap_entry


def _written(names: list[str], assets: build_cache.Store, site_dir: Path) -> bool:
    """Write the kept files the site lacks; False if one of them is no longer kept (the step runs again)."""
    for name in names:
        target = site_dir / name
        if target.exists():
            continue
        data = assets.get(build_cache.digest(ASSETS, name))
        if not isinstance(data, str):
            return False
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(base64.b64decode(data))
    return True
