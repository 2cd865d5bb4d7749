"""Charts a reader can read on a phone, in the page's language: in headless Chromium at 390 px, every
chart of the chapters that draw charts is measured as shown (its image's width against its drawing's),
and its smallest text must come out at 11 px or more; on a translated page, its text is the language's
wherever the language's chart file translates it (i18n/charts-<lang>.toml)."""

import re
from urllib.request import urlopen

import pytest

from tcguide.i18n import charts
from tests.helpers import LANGUAGES, ROOT

pytestmark = [pytest.mark.browser, pytest.mark.build]  # the guide, built once per run (conftest)

SMALLEST_PX = 11
PHONE = 390
SHOWN = """async () => {
  const images = [...document.querySelectorAll('img.tcg-figure')];
  for (const img of images) { img.loading = 'eager'; await img.decode(); }  // lazy images, loaded now
  return images.map(img => ({src: img.currentSrc || img.src, width: img.getBoundingClientRect().width}));
}"""


def chapters_with_charts(site) -> list[str]:
    return sorted(p.parent.name for p in site.glob("*/index.html")
                  if 'class="tcg-figure"' in p.read_text(encoding="utf-8"))


def _smallest_text(svg: str) -> tuple[float, float]:
    """(the drawing's width, its smallest font size), both in the drawing's own units."""
    width = float(re.search(r'viewBox="[\d.-]+ [\d.-]+ ([\d.]+)', svg)[1])
    sizes = [float(s) for s in re.findall(r"font-size:\s*([\d.]+)px", svg)]
    assert sizes, "a chart whose text is not text: recapture it (its labels cannot be measured or translated)"
    return width, min(sizes)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_charts_text_is_11_px_or_more_on_a_phone_and_in_the_pages_language(browser, base_url,
                                                                                  guide_site, lang):
    words = charts.load(ROOT, lang)
    page = browser.new_page(viewport={"width": PHONE, "height": 900})
    small, english, measured = [], [], 0
    try:
        for chapter in chapters_with_charts(guide_site):
            path = f"/{'' if lang == 'en' else lang + '/'}{chapter}/"
            page.goto(base_url + path, wait_until="load")
            for chart in page.evaluate(SHOWN):
                svg = urlopen(chart["src"]).read().decode("utf-8")
                width, smallest = _smallest_text(svg)
                px = smallest * chart["width"] / width
                measured += 1
                if px < SMALLEST_PX:
                    small.append(f"{path} {chart['src'].rsplit('/', 1)[-1]}: {px:.1f} px")
                if lang != "en":
                    english += [f"{path}: {t!r}" for t in charts.texts(svg) if words.line(t) not in (None, t)]
    finally:
        page.close()
    assert measured, "no chart measured"
    assert not small, f"chart text under {SMALLEST_PX} px at {PHONE} px: {small}"
    assert not english, f"chart text left in English where i18n/charts-{lang}.toml translates it: {english}"
