"""What a built page's ``<head>`` tells search engines: absolute language alternates, and a title said once.

The theme writes ``<link rel="alternate" hreflang=...>`` with links relative to the page
and no ``x-default``, and titles a translated home page "Site - Site". Search engines
want absolute alternates, one of them the default; readers want the title once.
Stdlib only.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urljoin

ALTERNATE = re.compile(r'<link rel="alternate" href="(?P<href>[^"]*)" hreflang="(?P<lang>[\w-]+)">')


def absolute_alternates(page_html: str, page_url: str, default_lang: str) -> str:
    """Alternates resolved against the page's absolute URL, plus ``x-default`` (the default language's)."""
    default = None

    def absolute(match: re.Match) -> str:
        nonlocal default
        href = urljoin(page_url, html.unescape(match["href"]))
        if match["lang"] == default_lang:
            default = href
        return f'<link rel="alternate" href="{html.escape(href)}" hreflang="{match["lang"]}">'

    page_html = ALTERNATE.sub(absolute, page_html)
    if default is None:
        return page_html
    last = list(ALTERNATE.finditer(page_html))[-1]
    x_default = f'\n<link rel="alternate" href="{html.escape(default)}" hreflang="x-default">'
    return page_html[: last.end()] + x_default + page_html[last.end():]


def title_once(page_html: str, site_name: str) -> str:
    """'<title>Site - Site</title>' (a translated home page) becomes '<title>Site</title>'."""
    name = html.escape(site_name, quote=False)
    return page_html.replace(f"<title>{name} - {name}</title>", f"<title>{name}</title>", 1)
