"""What a page's head and the sitemaps tell search engines, feed readers and chat previews: in the
published build (an address: absolute links) and in `make docs`'s (none: relative links, served anywhere).

A small two-language site is built both ways; the guide's own build (`make docs`'s) is read for the
dates and the sharing tags of every page.
"""

import html
import os
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tcguide.site import social
from tests.helpers import ROOT

CONFIG = """\
site_name: Guide
site_description: The site's description.
site_url: !ENV [SITE_URL, null]
theme:
  name: material
markdown_extensions:
  - pymdownx.highlight
  - pymdownx.superfences
plugins:
  - i18n:
      docs_structure: folder
      reconfigure_material: true
      languages:
        - {locale: en, default: true, name: English}
        - {locale: ru, name: Русский, site_name: Гайд, site_description: Описание сайта.}
  - tcguide
"""
PAGES = {
    ("en", "index.md"): "# Guide\n\nThe home page's first paragraph.\n",
    ("ru", "index.md"): "# Гайд\n\nПервый абзац главной.\n",
    ("en", "chapter.md"): "# Chapter\n\n" + "A long first paragraph that goes on " * 12 + "\n\nMore.\n",
    ("ru", "chapter.md"): "# Глава\n\nПервый абзац главы, с `кодом` и [ссылкой](index.md).\n",
}


def build(site: Path, **env) -> Path:
    environ = {k: v for k, v in os.environ.items() if k != "SITE_URL"}
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site / "out")],
                            capture_output=True, text=True, cwd=site, timeout=300, env={**environ, **env})
    assert result.returncode == 0, result.stderr
    return site / "out"


@pytest.fixture
def site(tmp_path) -> Path:
    (tmp_path / "mkdocs.yml").write_text(CONFIG)
    for (lang, name), text in PAGES.items():
        (tmp_path / "docs" / lang).mkdir(parents=True, exist_ok=True)
        (tmp_path / "docs" / lang / name).write_text(text, encoding="utf-8")
    return tmp_path


def head(out: Path, page: str) -> str:
    return (out / page / "index.html").read_text(encoding="utf-8").split("</head>")[0]


def meta(head_html: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for key, value in re.findall(r'<meta (?:name|property)="([^"]+)" content="([^"]*)">', head_html):
        found.setdefault(key, []).append(html.unescape(value))
    return found


def alternates(head_html: str) -> dict[str, str]:
    return {lang: href for href, lang in re.findall(r'<link rel="alternate" href="([^"]+)" hreflang="([\w-]+)">', head_html)}


def test_the_published_build_links_absolutely_under_its_address(site):
    """With an address (here under a path, as a project's pages are), each page has an absolute canonical
    link, absolute alternates with x-default, og:url; every sitemap lists absolute addresses."""
    out = build(site, SITE_URL="https://guide.example/torch/")
    page = head(out, "ru/chapter")
    assert '<link rel="canonical" href="https://guide.example/torch/ru/chapter/">' in page
    assert alternates(page) == {"en": "https://guide.example/torch/chapter/", "ru": "https://guide.example/torch/ru/chapter/",
                                "x-default": "https://guide.example/torch/chapter/"}
    assert meta(page)["og:url"] == ["https://guide.example/torch/ru/chapter/"]
    assert alternates(head(out, "ru")) == {"en": "https://guide.example/torch/", "ru": "https://guide.example/torch/ru/",
                                           "x-default": "https://guide.example/torch/"}
    assert '<xhtml:link rel="alternate" hreflang="en" href="https://guide.example/torch/" />' in (
        out / "ru" / "sitemap.xml").read_text()
    beside = (out / "ru" / "chapter" / "sitemap.xml").read_text()
    assert "<loc>https://guide.example/torch/ru/chapter/</loc>" in beside and beside.count("<loc>") == 1
    assert '<xhtml:link rel="alternate" hreflang="x-default" href="https://guide.example/torch/chapter/" />' in beside
    locations = re.findall(r"<loc>(.*?)</loc>", (out / "sitemap.xml").read_text())
    assert sorted(locations) == ["https://guide.example/torch/", "https://guide.example/torch/chapter/",
                                 "https://guide.example/torch/ru/", "https://guide.example/torch/ru/chapter/"]


def test_without_an_address_every_link_is_relative(site):
    out = build(site)
    for page in ("", "chapter", "ru", "ru/chapter"):
        page_head = head(out, page)
        assert 'rel="canonical"' not in page_head and "og:url" not in page_head and "http" not in "".join(
            alternates(page_head).values()), page
    assert alternates(head(out, "ru")) == {"en": "../", "ru": "./", "x-default": "../"}
    assert alternates(head(out, "ru/chapter")) == {"en": "../../chapter/", "ru": "./", "x-default": "../../chapter/"}
    assert "<loc>/ru/chapter/</loc>" in (out / "ru" / "chapter" / "sitemap.xml").read_text()


def test_each_page_says_its_title_description_and_locale_when_shared(site):
    out = build(site, SITE_URL="https://guide.example/")
    ru = meta(head(out, "ru/chapter"))
    assert ru["og:title"] == ru["twitter:title"] == ["Глава - Гайд"]
    assert ru["description"] == ru["og:description"] == ru["twitter:description"] == [
        "Первый абзац главы, с кодом и ссылкой."]  # its own first paragraph, as plain text
    assert ru["og:locale"] == ["ru_RU"] and ru["og:locale:alternate"] == ["en_US"]
    assert ru["og:type"] == ["article"] and ru["twitter:card"] == ["summary"]
    en = meta(head(out, "chapter"))
    assert en["og:locale"] == ["en_US"] and en["og:locale:alternate"] == ["ru_RU"]
    cut = en["og:description"][0]  # a long paragraph: cut between words, with an ellipsis
    assert len(cut) <= social.LONGEST and cut.endswith("…") and PAGES["en", "chapter.md"].startswith(
        "# Chapter\n\n" + cut[:-1] + " ")
    home = meta(head(out, "ru"))  # a home page says what the site is: its language's site_description
    assert home["og:type"] == ["website"] and home["description"] == home["og:description"] == ["Описание сайта."]
    assert home["og:title"] == ["Гайд"]


def test_a_page_without_prose_is_described_by_its_languages_site_description():
    assert social.description('<h1 id="x">Title</h1><div class="admonition"><p class="x">note</p></div>') is None
    page = ("<html><head><title>T</title>\n<meta name=\"description\" content=\"Old.\">\n"
            '<link rel="alternate" href="../" hreflang="en">\n<link rel="alternate" href="./" hreflang="ko">\n'
            '<link rel="alternate" href="../" hreflang="x-default">\n</head><body></body></html>')
    tagged = social.tags(page, "ko", 'Says "so" & more', None, False)
    assert tagged.count('name="description"') == 1 and 'content="Says &quot;so&quot; &amp; more"' in tagged
    assert "og:url" not in tagged and '<meta property="og:locale" content="ko_KR">' in tagged
    assert meta(tagged.split("</head>")[0])["og:locale:alternate"] == ["en_US"]


def commit_day(source: Path) -> str:
    stamp = subprocess.run(["git", "log", "-1", "--format=%at", "--", str(source)], capture_output=True, text=True,
                           cwd=ROOT, check=True).stdout.strip()
    return datetime.fromtimestamp(int(stamp), timezone.utc).date().isoformat()


@pytest.mark.build  # reads the guide's build (guide_site)
def test_the_sitemap_dates_each_page_by_its_source_not_by_the_build(guide_site):
    """lastmod is the day the page's source was last committed (a notebook page: its chapter's source),
    the date the page shows as its last update."""
    entries = re.findall(r"<loc>(.*?)</loc>\s*<lastmod>(.*?)</lastmod>", (guide_site / "sitemap.xml").read_text())
    assert len(entries) == len(list(guide_site.rglob("index.html")))
    for location, lastmod in entries:
        parts = location.strip("/").split("/") if location != "/" else []
        lang = parts.pop(0) if parts and parts[0] in ("ru", "zh", "ko") else "en"
        if parts and parts[-1] == "notebook":
            parts.pop()
        source = ROOT / "docs" / lang / f"{parts[0] if parts else 'index'}.md"
        assert lastmod == commit_day(source), (location, lastmod)
        beside = guide_site / location.strip("/") / "sitemap.xml"
        if location != "/":
            assert f"<lastmod>{lastmod}</lastmod>" in beside.read_text(), location


@pytest.mark.build  # reads the guide's build (guide_site)
@pytest.mark.parametrize("lang", ["en", "ru", "zh", "ko"])
def test_every_page_of_the_guide_has_its_sharing_tags_in_its_language(guide_site, lang):
    locales = {"en": "en_US", "ru": "ru_RU", "zh": "zh_CN", "ko": "ko_KR"}
    prefix = "" if lang == "en" else f"{lang}/"
    pages = [p for p in guide_site.rglob("index.html")
             if (p.relative_to(guide_site).parts[0] == lang) == (lang != "en")
             and p.relative_to(guide_site).parts[0] not in set(locales) - {lang}]
    english = list((ROOT / "docs" / "en").glob("*.md"))
    notebook_pages = [p for p in pages if p.parent.name == "notebook"]
    assert len(pages) == len(english) + len(notebook_pages) and notebook_pages  # every page, and its notebook
    descriptions = set()
    for page in pages:
        tags = meta(head(page.parent, ""))
        assert tags["og:locale"] == [locales[lang]], page
        assert sorted(tags["og:locale:alternate"]) == sorted(v for k, v in locales.items() if k != lang), page
        title = re.search(r"<title>(.*?)</title>", page.read_text(encoding="utf-8"))[1]
        assert tags["og:title"] == tags["twitter:title"] == [html.unescape(title)], page
        assert tags["description"] == tags["og:description"] == tags["twitter:description"], page
        assert 0 < len(tags["og:description"][0]) <= social.LONGEST, page
        descriptions.add(tags["og:description"][0])
    chapter = meta(head(guide_site / prefix / "getting-started", ""))["og:description"][0]
    assert "torch.compile" in chapter and chapter in descriptions
    # each page its own, not the site's description on every one (a notebook page opens as its chapter does)
    assert len(descriptions) >= len(list((ROOT / "docs" / lang).glob("*.md")))
