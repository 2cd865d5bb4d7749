"""The built guide's weight (tcguide/site/weight.py): every chart one file, nothing stored twice, no
file a reader never loads, and the site and its pages within their bounds, measured on the real build."""

import html
import json
import re

import pytest

from tcguide.site import page_weight, theme_files, weight
from tests.helpers import LANGUAGES, mkdocs_config

pytestmark = pytest.mark.build  # reads the guide's build (guide_site)

# Bounds measured on the build of the commit that set them (benchmarks/site_weight.py): a little above
# it, so that a change that adds weight fails here and says where. The target for the site is lower
# (25 MB; every page is now under its 600 KB cold): see benchmarks/BENCHMARKS.md for what stands between.
SITE_BYTES = 40_500_000  # 39.0 MB measured (46.7 MB before notebooks wrote each helper once, notebook pages
# carried each cell's code once and every page shed its unstyled code spans and indentation)
PAGE_HTML_BYTES = 340_000  # a page's HTML alone (the heaviest, ru/troubleshooting/: 304 KB)
PAGE_COLD_BYTES = 560_000  # its HTML and its charts (the heaviest, ru/speedups/: 520 KB)


@pytest.fixture(scope="module")
def measured(guide_site):
    return weight.measure(guide_site)


def test_no_chart_is_inlined_into_a_page(measured):
    """Charts are files that every page and language showing them links (no SVG chart or data: image inline)."""
    assert not measured.inline_charts, measured.inline_charts


def test_no_file_is_stored_twice(measured):
    """A chart that a chapter page and its notebook page show, in every language, is one file; so is every
    shared style sheet and script."""
    assert not measured.twins, measured.twins[:5]


COPY_BUTTON = re.compile(r'<clipboard-copy\b[^>]*\sfor="([^"]+)"')
CODE_BLOCK = re.compile(r'<pre id="([^"]+)">(.*?)</pre>', re.S)


def test_a_notebook_page_carries_each_cells_code_once_and_its_copy_button_copies_the_cells_source(guide_site):
    """Each code cell's copy button names the cell's highlighted block, whose text is the cell's source in the
    notebook beside the page (no second, plain copy of the code for the button to copy)."""
    pages = sorted(guide_site.rglob("notebook/index.html"))
    assert len(pages) >= len(LANGUAGES) * 10
    for path in pages:
        page = path.read_text(encoding="utf-8")
        assert "clipboard-copy-txt" not in page, path
        [ipynb] = path.parent.glob("*.ipynb")
        sources = ["".join(c["source"]) for c in json.loads(ipynb.read_text(encoding="utf-8"))["cells"]
                   if c["cell_type"] == "code"]
        blocks = {cell: html.unescape(re.sub(r"<[^>]+>", "", code)) for cell, code in CODE_BLOCK.findall(page)}
        assert [blocks.get(cell) for cell in COPY_BUTTON.findall(page)] == sources, path


def test_no_page_carries_markup_that_no_reader_sees(guide_site):
    """No page's code has unstyled name or whitespace spans, a line anchor's name beside its id or a line
    number's span (tcguide/site/page_weight.py), nor the theme's indentation between tags; every line of a
    code block keeps its anchor and its number's link."""
    unneeded = re.compile(r'<span class="[nw]">|<a id="__codelineno-[\w-]+" name=|<span class="normal">')
    pages = sorted(guide_site.rglob("*.html"))
    assert len(pages) > 100
    found = {}
    for path in pages:
        page = path.read_text(encoding="utf-8")
        between = page_weight.KEEP.sub("", page)  # indentation is the code's own in <pre>, scripts' in <script>
        match = unneeded.search(page) or re.search(r">\n[ \t]+<", between)
        if match:
            found[path.relative_to(guide_site).as_posix()] = match[0]
    assert not found, found
    page = (guide_site / "getting-started" / "index.html").read_text(encoding="utf-8")
    lines = re.findall(r'<span id="__span-(\d+-\d+)"><a id="__codelineno-(\d+-\d+)"></a>', page)
    links = re.findall(r'<a href="#__codelineno-(\d+-\d+)">', page)
    assert lines and all(a == b for a, b in lines) and [a for a, _ in lines] == links


def test_the_site_holds_no_file_that_no_reader_loads(measured):
    """No source map, and of lunr's languages only those that an index uses (mkdocs.yml's search_lang)."""
    assert not [name for name in measured.files if name.endswith(".map")]
    search_lang = next(p["tcguide"] for p in mkdocs_config()["plugins"] if isinstance(p, dict) and "tcguide" in p)
    langs = {lunr for lang in LANGUAGES for lunr in search_lang["search_lang"].get(lang, [lang])}
    lunr = {name[len(theme_files.LUNR):] for name in measured.files if name.startswith(theme_files.LUNR)}
    assert lunr <= theme_files.lunr_files(langs), lunr - theme_files.lunr_files(langs)
    assert {f"min/lunr.{lang}.min.js" for lang in langs - {"en"}} <= lunr, lunr


def test_the_site_and_each_page_stay_within_their_bounds(measured):
    assert measured.total <= SITE_BYTES, weight.report(measured)
    pages = {name: size for name, size in measured.files.items() if name.endswith(".html")}
    assert len(pages) > 100
    heavy = {name: size for name, size in pages.items() if size > PAGE_HTML_BYTES}
    assert not heavy, heavy
    cold = {name: size for name, size in measured.pages.items() if size > PAGE_COLD_BYTES}
    assert not cold, cold
