"""The site's sitemaps: ``sitemap.xml`` at the root, every page of every language, for search
engines; and a one-entry ``sitemap.xml`` beside every page, for the theme's language selector.

Each page is listed with its language alternates (x-default: the default language's) and, as
``lastmod``, its own date: the day its source was last committed, which the page shows as its last
update (a chapter's notebook page: its chapter's), not the day of the build.

The theme fetches ``sitemap.xml`` relative to each ``<link rel="alternate" hreflang>`` of a page, to
learn where the reader's page lives in the other language (upstream: mkdocs-material issue 6582).
Those links point at pages, not at language roots, so without the sitemap beside each page every
page view asks for files that are not there.

With the site's address (``site_url``: the published build) every location is absolute. Without it
(``make docs``), the site may be served at any host and port, so the locations are paths from the
site's root. Stdlib only.
"""

from __future__ import annotations

import gzip
import html
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from tcguide.site.pagehead import ALTERNATE

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9", "xhtml": "http://www.w3.org/1999/xhtml"}
X_DEFAULT = "x-default"


@dataclass
class Entry:
    """One page of the site, as its sitemap entry lists it."""
    path: str  # its URL relative to the site: '' (the home), 'ru/getting-started/'
    lastmod: str | None = None  # YYYY-MM-DD
    alternates: dict[str, str] = field(default_factory=dict)  # hreflang -> path relative to the site
    dated_as: str | None = None  # a page whose date this one takes (a notebook page: its chapter)


def site_path(page_url: str, href: str) -> str:
    """A link of the page at ``page_url`` (relative or absolute) as a path relative to the site."""
    base = "http://site.invalid/"
    target = urlsplit(urljoin(urljoin(base, page_url), href))
    return target.path.lstrip("/")


def entry(page_html: str, page_url: str, lastmod: str | None, dated_as: str | None = None,
          site_url: str | None = None) -> Entry:
    """The entry of a built page: its alternates as the theme wrote them in its head."""
    page_url = "" if page_url in (".", "./") else page_url
    alternates = {}
    base_path = urlsplit(site_url).path if site_url else "/"
    for match in ALTERNATE.finditer(page_html):
        href = html.unescape(match["href"])
        path = urlsplit(href).path if urlsplit(href).scheme else "/" + site_path(page_url, href)
        alternates[match["lang"]] = path[len(base_path):] if path.startswith(base_path) else path.lstrip("/")
    return Entry(page_url, lastmod, alternates, dated_as)


def _location(path: str, site_url: str | None) -> str:
    return urljoin(site_url, path) if site_url else "/" + path


def _url(entry: Entry, lastmod: str | None, site_url: str | None, default_lang: str) -> ET.Element:
    url = ET.Element(f"{{{NS['sm']}}}url")
    ET.SubElement(url, f"{{{NS['sm']}}}loc").text = _location(entry.path, site_url)
    if lastmod:
        ET.SubElement(url, f"{{{NS['sm']}}}lastmod").text = lastmod
    alternates = dict(entry.alternates)
    if default_lang in alternates:
        alternates[X_DEFAULT] = alternates[default_lang]
    for lang, path in alternates.items():
        ET.SubElement(url, f"{{{NS['xhtml']}}}link", rel="alternate", hreflang=lang, href=_location(path, site_url))
    return url


def _write(target: Path, urls: list[ET.Element]) -> None:
    urlset = ET.Element(f"{{{NS['sm']}}}urlset")
    urlset.extend(urls)
    ET.indent(urlset)
    data = ET.tostring(urlset, encoding="utf-8", xml_declaration=True) + b"\n"
    target.write_bytes(data)
    if target.with_suffix(".xml.gz").exists():  # MkDocs writes a compressed copy of the root one
        target.with_suffix(".xml.gz").write_bytes(gzip.compress(data, mtime=0))


def write(site: Path, entries: dict[str, Entry], site_url: str | None, default_lang: str) -> int:
    """Write the root sitemap (every entry) and one beside every page that has a folder of its own;
    returns how many pages are listed."""
    for prefix, uri in NS.items():
        ET.register_namespace("" if prefix == "sm" else prefix, uri)
    urls = {}
    for path, page in sorted(entries.items()):
        dated = entries.get(page.dated_as) if page.dated_as is not None else None
        urls[path] = _url(page, dated.lastmod if dated else page.lastmod, site_url, default_lang)
    _write(site / "sitemap.xml", list(urls.values()))
    for path, url in urls.items():
        if path and (site / path / "index.html").exists():
            _write(site / path / "sitemap.xml", [url])
    return len(urls)
