"""A small sitemap.xml beside every page, so the theme's language selector finds it.

The theme fetches ``sitemap.xml`` relative to each ``<link rel="alternate" hreflang>`` of a
page, to learn where the reader's page lives in the other language (upstream:
mkdocs-material issue 6582). Those links point at pages, not at language roots, so
without this every page view asks for four files that are not there. Each page gets the
one entry of the site's sitemap that names it, with its language alternates; the site's
own sitemap.xml at the root stays whole, for search engines. Stdlib only.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urlsplit

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9", "xhtml": "http://www.w3.org/1999/xhtml"}


def write_beside_pages(site: Path, site_url: str | None) -> int:
    """Write <page>/sitemap.xml for every page listed in the root sitemap; returns how many."""
    root_map = site / "sitemap.xml"
    if not site_url or not root_map.exists():
        return 0
    for prefix, uri in NS.items():
        ET.register_namespace("" if prefix == "sm" else prefix, uri)
    base = urlsplit(site_url).path
    written = 0
    for url in ET.parse(root_map).getroot().findall("sm:url", NS):
        path = urlsplit(url.findtext("sm:loc", "", NS)).path
        if not path.startswith(base) or path == base:
            continue  # the root keeps the whole sitemap
        folder = site / path[len(base):]
        if (folder / "index.html").exists():
            urlset = ET.Element(f"{{{NS['sm']}}}urlset")
            urlset.append(url)
            ET.ElementTree(urlset).write(folder / "sitemap.xml", encoding="utf-8", xml_declaration=True)
            written += 1
    return written
