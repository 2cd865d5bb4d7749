"""The built site's weight: in all, by kind of file, its heaviest files and pages, and what it holds twice.

A page's weight "cold, shared assets cached" is what a reader downloads opening it with an empty
cache but for the site's shared assets: its HTML and the images it shows. Its style sheets and
scripts are the shared assets (the theme's, the site's and the notebook pages' own, each one file
that every page of its kind links). Stdlib only; ``benchmarks/site_weight.py`` prints it, and the
build tests hold the site to it.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

IMAGE_SRC = re.compile(r'<img\b[^>]*?\ssrc="([^"]+)"')
INLINE_SVG = re.compile(r"<svg\b.*?</svg>", re.S)
DATA_IMAGE = re.compile(r'data:image/[\w.+-]+;base64,[A-Za-z0-9+/=]+')
CHART_BYTES = 4096  # an inline SVG this long is a chart, not one of the theme's icons (under 2 KB)


def kind(path: Path) -> str:
    """What a file of the site is, for the tally by kind."""
    if path.name == "search_index.json":
        return "search index"
    if path.suffix == ".html":
        return "notebook page" if path.parent.name == "notebook" else "page"
    if path.name.endswith(".min.js.map") or path.suffix == ".map":
        return "source map"
    return path.suffix.lstrip(".") or path.name


@dataclass
class Weight:
    total: int = 0
    by_kind: Counter = field(default_factory=Counter)
    files: dict[str, int] = field(default_factory=dict)  # site path -> bytes
    twins: list[list[str]] = field(default_factory=list)  # files with the same bytes, under several names
    pages: dict[str, int] = field(default_factory=dict)  # page path -> bytes cold, shared assets cached
    inline_charts: dict[str, int] = field(default_factory=dict)  # page path -> SVG charts or data: images inlined

    def heaviest(self, n: int = 15) -> list[tuple[str, int]]:
        return sorted(self.files.items(), key=lambda item: (-item[1], item[0]))[:n]

    def heaviest_pages(self, n: int = 5) -> list[tuple[str, int]]:
        return sorted(self.pages.items(), key=lambda item: (-item[1], item[0]))[:n]

    def twin_bytes(self) -> int:
        """What the copies beyond the first of each set of twins weigh."""
        return sum(self.files[names[0]] * (len(names) - 1) for names in self.twins)


def images_of(page: Path, html: str, site: Path) -> set[Path]:
    """The site's image files a page shows (``<img src>``), resolved from the page's folder."""
    found = set()
    for src in IMAGE_SRC.findall(html):
        parts = urlsplit(src)
        if parts.scheme or parts.netloc or not parts.path:
            continue
        target = ((site if parts.path.startswith("/") else page.parent) / unquote(parts.path).lstrip("/")).resolve()
        if target.is_file():
            found.add(target)
    return found


def measure(site: Path) -> Weight:
    site = Path(site).resolve()
    weight = Weight()
    by_digest: dict[str, list[str]] = defaultdict(list)
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        data = path.read_bytes()
        name = path.relative_to(site).as_posix()
        weight.files[name] = len(data)
        weight.total += len(data)
        weight.by_kind[kind(path)] += len(data)
        if path.suffix != ".xml" and path.name != "sitemap.xml.gz":  # every folder's sitemap is tiny and alike
            by_digest[hashlib.sha256(data).hexdigest()].append(name)
        if path.suffix == ".html":
            html = data.decode("utf-8")
            weight.pages[name] = len(data) + sum(image.stat().st_size for image in images_of(path, html, site))
            inlined = [m for m in INLINE_SVG.findall(html) if len(m.encode("utf-8")) >= CHART_BYTES]
            inlined += DATA_IMAGE.findall(html)
            if inlined:
                weight.inline_charts[name] = len(inlined)
    weight.twins = sorted((names for names in by_digest.values() if len(names) > 1),
                          key=lambda names: -weight.files[names[0]])
    return weight


def report(weight: Weight, n: int = 15) -> str:
    """The weight as Markdown: totals, by kind, the heaviest files and pages, the twins."""
    mb = lambda size: f"{size / 1e6:.2f} MB"  # noqa: E731
    kb = lambda size: f"{size / 1e3:.0f} KB"  # noqa: E731
    lines = [f"total: {mb(weight.total)} in {len(weight.files)} files", "", "| kind | size |", "|---|---|"]
    lines += [f"| {k} | {mb(v)} |" for k, v in weight.by_kind.most_common()]
    lines += ["", f"| {n} heaviest files | size |", "|---|---|"]
    lines += [f"| `{name}` | {kb(size)} |" for name, size in weight.heaviest(n)]
    lines += ["", "| heaviest pages, cold (HTML and its images; styles and scripts cached) | size |", "|---|---|"]
    lines += [f"| `{name}` | {kb(size)} |" for name, size in weight.heaviest_pages()]
    lines += ["", f"files held twice or more: {len(weight.twins)} sets, {kb(weight.twin_bytes())} in copies"]
    lines += [f"- {kb(weight.files[names[0]])} × {len(names)}: " + ", ".join(f"`{x}`" for x in names[:4])
              for names in weight.twins[:5]]
    lines += [f"pages with a chart inlined: {len(weight.inline_charts)}"]
    return "\n".join(lines)
