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
