"""The 404 page, one per language.

The i18n build writes every language's 404 page to the site's root, where the last one built
won. Each goes to its language's folder instead; the root keeps the English one, whose script
shows the reader's language's page when the missing path names a language.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urljoin

from tcguide.site import page_weight, render, search
from tcguide.i18n import translations as i18n
from tcguide.core.languages import SOURCE

TEMPLATE = "404.html"


def page(output: str, lang: str, site: i18n.Site, site_url: str | None, site_dir: Path,
         search_root: str | None = None) -> str:
    """The 404 page of ``lang`` as the theme wrote it, made the site's: what MkDocs should write
    at the root ("" for a language other than the default, whose page is written in its folder
    here). ``search_root`` is where the language's search index lies, when the site has search."""
    if search_root is not None:
        output = search.page_config(output, search_root)
    home = urljoin(site_url or "/", "" if lang == SOURCE else f"{lang}/")
    output = page_weight.slim(render.not_found_body(output, lang, home))
    if lang != SOURCE:
        (Path(site_dir) / lang).mkdir(parents=True, exist_ok=True)
        (Path(site_dir) / lang / TEMPLATE).write_text(output, encoding="utf-8")
        return ""  # empty: MkDocs writes nothing at the root for this language
    script = render.not_found_script(site_url or "/", site.languages()[1:])
    return output.replace("</body>", script + "</body>", 1)
