"""What a built page's ``<head>`` tells search engines: its language alternates, and a title said once;
and its headings' permalinks, titled in the page's language.

The theme writes ``<link rel="alternate" hreflang=...>`` with links relative to the page
and no ``x-default``, and titles a translated home page "Site - Site". Search engines
want absolute alternates, one of them the default; readers want the title once. Where the
site's address is not known (a local build, served anywhere), the alternates stay relative.
Stdlib only.
"""

from __future__ import annotations

import html
import posixpath
import re
from urllib.parse import urljoin, urlsplit

LOCAL = "http://site.invalid/"  # a stand-in for the unknown address, to resolve links against
ALTERNATE = re.compile(r'<link rel="alternate" href="(?P<href>[^"]*)" hreflang="(?P<lang>[\w-]+)">')


def alternates(page_html: str, page_url: str, site_url: str | None, default_lang: str) -> str:
    """Alternates plus ``x-default`` (the default language's): absolute where the site's address is
    known, else relative to the page (``page_url``, relative to the site), as served anywhere."""
    default = None
    here = urljoin(site_url or LOCAL, page_url)

    def resolved(match: re.Match) -> str:
        nonlocal default
        href = urljoin(here, html.unescape(match["href"]))
        if not site_url:
            href = _relative(urlsplit(href).path, urlsplit(here).path)
        if match["lang"] == default_lang:
            default = href
        return f'<link rel="alternate" href="{html.escape(href)}" hreflang="{match["lang"]}">'

    page_html = ALTERNATE.sub(resolved, page_html)
    if default is None:
        return page_html
    last = list(ALTERNATE.finditer(page_html))[-1]
    x_default = f'\n<link rel="alternate" href="{html.escape(default)}" hreflang="x-default">'
    return page_html[: last.end()] + x_default + page_html[last.end():]


def _relative(target: str, folder: str) -> str:
    """The path ``target`` (a folder's, ending in '/') as a link from a page in ``folder``."""
    link = posixpath.relpath(target, folder)
    return "./" if link == "." else link + "/"


def title_once(page_html: str, site_name: str) -> str:
    """'<title>Site - Site</title>' (a translated home page) becomes '<title>Site</title>'."""
    name = html.escape(site_name, quote=False)
    return page_html.replace(f"<title>{name} - {name}</title>", f"<title>{name}</title>", 1)


def permalink_titles(page_html: str, title: str) -> str:
    """The headings' permalinks, which the toc extension titles "Permanent link", titled ``title``."""
    return page_html.replace('title="Permanent link"', f'title="{html.escape(title)}"')
