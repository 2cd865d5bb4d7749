"""What a page's head and the sitemaps tell search engines: in the
published build (an address: absolute links) and in `make docs`'s (none: relative links, served anywhere).

A small two-language site is built both ways; the guide's own build (`make docs`'s) is read for the
dates of every page.
"""

import os
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

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


def alternates(head_html: str) -> dict[str, str]:
    return {lang: href for href, lang in re.findall(r'<link rel="alternate" href="([^"]+)" hreflang="([\w-]+)">', head_html)}


def test_the_published_build_links_absolutely_under_its_address(site):
    """With an address (here under a path, as a project's pages are), each page has an absolute canonical
    link, absolute alternates with x-default; every sitemap lists absolute addresses."""
    out = build(site, SITE_URL="https://guide.example/torch/")
    page = head(out, "ru/chapter")
    assert '<link rel="canonical" href="https://guide.example/torch/ru/chapter/">' in page
    assert alternates(page) == {"en": "https://guide.example/torch/chapter/", "ru": "https://guide.example/torch/ru/chapter/",
                                "x-default": "https://guide.example/torch/chapter/"}
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
        assert 'rel="canonical"' not in page_head and "http" not in "".join(
            alternates(page_head).values()), page
    assert alternates(head(out, "ru")) == {"en": "../", "ru": "./", "x-default": "../"}
    assert alternates(head(out, "ru/chapter")) == {"en": "../../chapter/", "ru": "./", "x-default": "../../chapter/"}
    assert "<loc>/ru/chapter/</loc>" in (out / "ru" / "chapter" / "sitemap.xml").read_text()


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


