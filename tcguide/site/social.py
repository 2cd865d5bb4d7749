"""What a link to a page shows where it is shared: OpenGraph and Twitter card tags, per page and language.

Each page says its title (the page's ``<title>``), a description of its own (its first paragraph of
prose, which also becomes its ``<meta name="description">``; the site's description where it has
none), its locale and the other languages it exists in, and, where the site's address is known,
its URL.
"""

from __future__ import annotations

import html
import re

from tcguide.site.pagehead import ALTERNATE

# OpenGraph names a locale language_TERRITORY; a language not listed here goes by its code alone.
LOCALES = {"en": "en_US", "ru": "ru_RU", "zh": "zh_CN", "ko": "ko_KR"}
LONGEST = 200  # characters of a description; search engines and cards cut longer ones anyway

TITLE = re.compile(r"<title>(.*?)</title>", re.S)
DESCRIPTION = re.compile(r'<meta name="description" content="[^"]*">')
SENTENCE_END = re.compile(r"[.!?](?=\s)|[。！？]")
TAG = re.compile(r"<(?P<end>/?)(?P<name>[a-zA-Z][a-zA-Z0-9]*)(?P<attrs>[^>]*)>")
# What holds paragraphs that are not the page's own prose: notices and admonitions, outputs, lists, tables.
BLOCKS = {"div", "details", "blockquote", "table", "ul", "ol", "aside", "figure", "nav"}


def locale(lang: str) -> str:
    return LOCALES.get(lang, lang)


def _shorter(text: str) -> str:
    """At most LONGEST characters: whole sentences where they fill at least half of it, else cut after the
    last space that fits (a script without spaces: at the limit), with an ellipsis."""
    if len(text) <= LONGEST:
        return text
    ends = [m.end() for m in SENTENCE_END.finditer(text[:LONGEST])]
    if ends and ends[-1] > LONGEST // 2:
        return text[: ends[-1]].rstrip()
    cut = text[: LONGEST - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > LONGEST // 2 else cut).rstrip(" ,;:.—-") + "…"


def description(content: str) -> str | None:
    """The page's first paragraph of prose (a ``<p>`` of its own, in no block) as plain text, shortened;
    None where it has none."""
    depth = 0
    for tag in TAG.finditer(content):
        name = tag["name"].lower()
        if name in BLOCKS:
            depth = max(0, depth + (-1 if tag["end"] else 1))
        elif name == "p" and not tag["end"] and not tag["attrs"].strip() and depth == 0:
            end = content.find("</p>", tag.end())
            text = " ".join(html.unescape(TAG.sub("", content[tag.end(): end if end != -1 else None])).split())
            if text:
                return _shorter(text)
    return None


def tags(page_html: str, lang: str, summary: str, url: str | None, home: bool) -> str:
    """The page with its description and its OpenGraph and Twitter card tags in its ``<head>``; its other
    locales are the languages of its alternates."""
    title = TITLE.search(page_html)
    if title is None or "</head>" not in page_html:
        return page_html
    title_text = html.unescape(title[1].strip())
    meta = [("name", "description", summary),
            ("property", "og:type", "website" if home else "article"),
            ("property", "og:title", title_text),
            ("property", "og:description", summary),
            ("property", "og:locale", locale(lang))]
    others = dict.fromkeys(m["lang"] for m in ALTERNATE.finditer(page_html) if m["lang"] not in (lang, "x-default"))
    meta += [("property", "og:locale:alternate", locale(other)) for other in others]
    if url:
        meta.append(("property", "og:url", url))
    meta += [("name", "twitter:card", "summary"),
             ("name", "twitter:title", title_text),
             ("name", "twitter:description", summary)]
    block = "\n".join(f'<meta {attr}="{key}" content="{html.escape(value)}">' for attr, key, value in meta)
    page_html = DESCRIPTION.sub("", page_html, count=1)  # the theme's: the site's description on every page
    return page_html.replace("</head>", block + "\n</head>", 1)
