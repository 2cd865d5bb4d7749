"""Captured outputs a reader can read without scrolling sideways: the share of output blocks that scroll,
measured in headless Chromium at a phone's width (390 px) and a desktop's (1280 px), on the four
chapters with the most outputs, in every language; and tables printed by snippets, shown as tables
that keep their key column in view and copy as the text the snippet printed.

Every folded output is opened first, so its folded lines are measured too. An output "scrolls" when it,
or any box inside it that a reader could scroll, is wider than its box (a log prefix shortened by
design, hidden overflow, is not scrolling).
"""

import re

import pytest
from playwright.sync_api import sync_playwright

from tcguide.core import store
from tcguide.site import tables
from tests.helpers import LANGUAGES, ROOT
from tests.test_browser import CHROMIUM_FLAGS, chromium_path

pytestmark = [pytest.mark.browser, pytest.mark.build]  # the guide, built once per run (conftest)

HEAVIEST = 4
PHONE_SHARE = 0.10  # at most this share of outputs scroll sideways at 390 px; none at 1280 px

# For each output of the page: does it, or a scrollable box in it, overflow sideways?
SCROLLING = """() => {
  document.querySelectorAll('.tcg-output details').forEach(d => { d.open = true; });
  const scrolls = el => el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1
    && !['hidden', 'clip'].includes(getComputedStyle(el).overflowX);
  return [...document.querySelectorAll('.tcg-output')].map(out =>
    [out, ...out.querySelectorAll('*')].some(scrolls) ? out.dataset.cell : null);
}"""


def heaviest_chapters(site) -> list[str]:
    """The English chapters with the most embedded outputs, most first."""
    counts = {}
    for page in site.glob("*/index.html"):
        counts[page.parent.name] = page.read_text(encoding="utf-8").count('<div class="tcg-output')
    return sorted(counts, key=lambda name: (-counts[name], name))[:HEAVIEST]


@pytest.fixture(scope="module")
def base_url(guide_site, guide_port):
    return f"http://127.0.0.1:{guide_port}"


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


def scrolling_outputs(browser, base_url, paths, width) -> tuple[int, list[str]]:
    """How many outputs the pages have, and which of them (page and cell) scroll sideways at ``width``."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    total, scrolling = 0, []
    try:
        for path in paths:
            page.goto(base_url + path, wait_until="load")
            found = page.evaluate(SCROLLING)
            total += len(found)
            scrolling += [f"{path} {cell}" for cell in found if cell]
    finally:
        page.close()
    return total, scrolling


def test_few_outputs_scroll_sideways_on_a_phone_and_none_on_a_desktop(browser, base_url, guide_site):
    chapters = heaviest_chapters(guide_site)
    paths = [f"/{'' if lang == 'en' else lang + '/'}{chapter}/" for lang in LANGUAGES for chapter in chapters]
    total, phone = scrolling_outputs(browser, base_url, paths, 390)
    assert total > 100, (chapters, total)  # four chapters in four languages
    _, desktop = scrolling_outputs(browser, base_url, paths, 1280)
    share = len(phone) / total
    print(f"{chapters}: {len(phone)}/{total} outputs scroll at 390 px ({share:.1%}), {len(desktop)} at 1280 px")
    assert share <= PHONE_SHARE and desktop == [], (f"{share:.1%} at 390 px", phone[:10], desktop[:10])


def printed_tables(cell: str) -> list[str]:
    """The tables a cell (data-cell: 'snippets/<file>#<cell>') printed, as printed."""
    path, name = cell.split("#")
    record = next(r for r in store.load(store.output_path(ROOT / path)).cells if r.name == name)
    found = [tables.split(o["text"]) for o in record.outputs if o["output_type"] == "stream"]
    return [part.text for parts in found for part in parts if isinstance(part, tables.Table)]


def test_a_printed_table_copies_as_printed_and_keeps_its_first_column_in_view(browser, base_url):
    """On a narrow phone (320 px), a table too wide for the column scrolls inside itself: scrolled to its
    end, its row headings are still at its left edge. Its copy button copies the text as printed."""
    context = browser.new_context(viewport={"width": 320, "height": 800},
                                  permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    try:
        page.goto(f"{base_url}/compile-time/")
        table = page.locator(".tcg-table").filter(has=page.locator("th[scope=col]:nth-child(6)")).first
        wide = table.locator(".tcg-table-scroll")
        assert wide.evaluate("e => e.scrollWidth > e.clientWidth")  # too wide: it scrolls, the page does not
        assert page.evaluate("document.documentElement.scrollWidth") <= 320
        wide.scroll_into_view_if_needed()
        wide.evaluate("e => { e.scrollLeft = e.scrollWidth; }")
        left = wide.evaluate("e => e.getBoundingClientRect().left")
        heading = wide.locator("th[scope=row]").first
        box = heading.bounding_box()
        assert abs(box["x"] - left) < 2
        hit = f"document.elementFromPoint({box['x'] + 4}, {box['y'] + box['height'] / 2})"
        assert heading.evaluate(f"e => e.contains({hit})")  # in view, not under the scrolled cells
        cell = wide.evaluate("e => e.closest('.tcg-output').dataset.cell")
        wide.focus()  # a tap or Tab shows the copy button, which stays in place while the table scrolls
        button = table.locator("button.tcg-table-copy")
        assert button.evaluate("b => b.getBoundingClientRect().right") <= 320
        button.click()
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied in [text.rstrip() for text in printed_tables(cell)], copied[:200]
        assert re.search(r"^-+  -+", copied, re.M)  # the rule as printed, not cells joined by tabs
    finally:
        context.close()


def test_on_a_phone_a_notebook_page_gives_outputs_the_width_and_keeps_printed_tables_in_columns(browser, base_url):
    """A notebook page at 390 px: code and outputs take the cell's width (no empty prompt gutter), outputs
    wrap between words, and an output holding a printed table keeps one printed line per line, scrolling
    inside itself."""
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.goto(f"{base_url}/zh/compile-time/notebook/")
        area = page.locator(".jp-Cell .jp-OutputArea-output").first
        assert area.evaluate("e => e.closest('.jp-Cell').getBoundingClientRect().width - e.getBoundingClientRect().width") < 24
        printed = page.locator(".jp-OutputArea-output pre.tcg-columns")
        assert printed.count() >= 2
        for i in range(printed.count()):
            pre = printed.nth(i)
            lines = len(pre.evaluate("e => e.textContent").rstrip("\n").split("\n"))
            height = pre.evaluate("e => e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight)")
            assert round(height) <= lines + 1, (i, lines, height)  # not wrapped (padding and a scroll bar at most)
        breaks = page.locator(".jp-OutputArea-output pre").first.evaluate("e => getComputedStyle(e).wordBreak")
        assert breaks == "normal"  # wrapped between words ("Dynamo", not "Dynam / o")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        page.close()
