"""The built guide in headless Chromium, as a reader coming from elsewhere meets it: the default build
served at another address, links to PyTorch's reference, folded outputs copied whole, and linked
code readable in the dark scheme.

The guide is built as `make docs` builds it (no site address) and served by the test run on a port of
its own (tests/conftest.py): never the address `make serve` uses. Every wait is for a condition of the
page, never for the network to fall quiet or for a fixed time.
"""

import json

import pytest

from tcguide.core import store
from tests.helpers import LANGUAGES, ROOT

pytestmark = [pytest.mark.browser, pytest.mark.build]  # the guide, built once per run (conftest)

PREFIX = {lang: "" if lang == LANGUAGES[0] else f"{lang}/" for lang in LANGUAGES}  # the default language at the root

# A page's contrast ratio (WCAG 2) between an element's text and what is behind it: the element's
# background over each of its ancestors' down to the white canvas, alpha composited.
CONTRAST = """el => {
  const rgba = c => {
    const m = c.match(/^rgba?\\(([^)]+)\\)$/);
    if (!m) throw new Error('not an rgb colour: ' + c);
    const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, bottom) => {
    const a = top[3] + bottom[3] * (1 - top[3]);
    return [0, 1, 2].map(i => (top[i] * top[3] + bottom[i] * bottom[3] * (1 - top[3])) / a).concat([a]);
  };
  const layers = [];
  for (let n = el; n; n = n.parentElement) layers.push(rgba(getComputedStyle(n).backgroundColor));
  let behind = [255, 255, 255, 1];
  for (let i = layers.length - 1; i >= 0; i--) behind = over(layers[i], behind);
  const text = over(rgba(getComputedStyle(el).color), behind);
  const luminance = c => {
    const [r, g, b] = c.slice(0, 3).map(v => { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [light, dark] = [luminance(text), luminance(behind)].sort((a, b) => b - a);
  return (light + 0.05) / (dark + 0.05);
}"""


def alternates_fetched(count: int) -> str:
    """A condition: the theme has fetched the sitemap beside each of the page's ``count`` distinct language
    alternates, and its own language's (whatever their answer)."""
    return ("() => new Set(performance.getEntriesByType('resource').filter(e => e.name.endsWith('/sitemap.xml')"
            f" && e.responseEnd > 0).map(e => e.name)).size >= {count}")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_default_build_served_at_another_port_asks_nothing_it_does_not_have(browser, base_url, guide_site, lang):
    """Built without an address and served here, every kind of page of a language (its home, chapters, a
    notebook page, the translators' table, a missing page) loads with no console error, no failed or
    refused request and no request to another address, once the theme has fetched what its language
    selector reads; its head names no address either."""
    prefix = PREFIX[lang]
    page = browser.new_page()
    errors, elsewhere = [], []
    missing = "/no-such-page/"  # the one request that must fail: its console says so, and nothing else may
    page.on("console", lambda m: errors.append(f"{page.url}: {m.text}") if m.type == "error" and not (
        page.url.endswith(missing) and "404" in m.text and m.location.get("url", "").endswith(missing)) else None)
    # refused, unreachable, blocked (a download the next page view cut short is aborted, not failed)
    page.on("requestfailed", lambda r: errors.append(f"{page.url}: {r.url} {r.failure}")
            if r.failure != "net::ERR_ABORTED" else None)
    page.on("response", lambda r: errors.append(f"{page.url}: {r.status} {r.url}")
            if r.status >= 400 and not r.url.endswith(missing) else None)
    page.on("request", lambda r: elsewhere.append(r.url) if not r.url.startswith((base_url + "/", "data:")) else None)
    try:
        for path in ("", "getting-started/", "troubleshooting/", "speedups/notebook/", "translation-status/"):
            page.goto(f"{base_url}/{prefix}{path}", wait_until="load")
            alternates = page.eval_on_selector_all("link[rel=alternate][hreflang]", "els => els.map(e => e.href)")
            assert len(alternates) == 5, alternates  # the four languages and x-default
            page.wait_for_function(alternates_fetched(len(set(alternates))), timeout=15000)
            head = (guide_site / prefix / path / "index.html").read_text(encoding="utf-8").split("</head>")[0]
            assert "127.0.0.1" not in head and 'rel="canonical"' not in head, path
        response = page.goto(f"{base_url}/{prefix}{missing.lstrip('/')}", wait_until="load")
        assert response.status == 404
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
    finally:
        page.close()
    assert errors == [] and elsewhere == [], (errors[:5], elsewhere[:5])


def stored_texts(cell: str) -> list[str]:
    """What a cell (data-cell: 'snippets/<file>#<cell>') printed, as its stored output records it: each
    stream's text and each traceback."""
    path, name = cell.split("#")
    record = next(r for r in store.load(store.output_path(ROOT / path)).cells if r.name == name)
    return [o.get("text") or o.get("traceback") for o in record.outputs if o["output_type"] in ("stream", "error")]


@pytest.mark.parametrize("path, kind", [("troubleshooting/", "tcg-traceback"), ("ru/dynamo-and-graphs/", "tcg-stream")])
def test_copying_a_folded_output_copies_all_of_it(browser, base_url, path, kind):
    """The copy button of the lines in view, and that of the folded lines once opened, both copy the whole
    output: the stored text, not its last lines."""
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    try:
        page.goto(f"{base_url}/{path}")
        fold = page.locator(f"details.tcg-fold:has(pre.{kind})").first
        cell = fold.evaluate("e => e.closest('.tcg-output').dataset.cell")
        whole = [text.rstrip() for text in stored_texts(cell)]
        shown = fold.locator("xpath=following-sibling::pre[1]")
        for block in (shown, fold.locator("pre.tcg-head")):
            if block != shown:
                fold.locator("summary").click()
            block.scroll_into_view_if_needed()
            block.hover()
            block.locator("button.md-code__button[data-md-type=copy]").click()
            copied = page.evaluate("navigator.clipboard.readText()")
            assert copied in whole, (cell, copied[:200])
            assert len(copied.splitlines()) > 25  # more than the 12 lines a folded output keeps in view
            page.evaluate("navigator.clipboard.writeText('')")
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_linked_inline_code_reads_at_4_5_to_1_or_more(browser, base_url, scheme):
    """An API name linked to the reference, in prose and in a list, in each scheme: its text against the
    code background it sits on (WCAG 2 contrast, computed in the page)."""
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    try:
        for path in ("troubleshooting/", "ko/custom-ops/"):
            page.goto(f"{base_url}/{path}")
            codes = page.locator("article a.tcg-api code")
            assert codes.count() >= 5, path
            ratios = [codes.nth(i).evaluate(CONTRAST) for i in range(min(codes.count(), 20))]
            assert min(ratios) >= 4.5, (scheme, path, min(ratios))
    finally:
        context.close()


def test_a_notebook_pages_copy_button_copies_its_cells_source_indented(browser, base_url, guide_site):
    """A code cell's copy button on a notebook page copies the cell's source, as the downloaded notebook
    holds it, indentation included: a helper module's function body, say."""
    notebook = json.loads((guide_site / "speedups" / "notebook" / "speedups.ipynb").read_text(encoding="utf-8"))
    sources = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    try:
        page.goto(f"{base_url}/speedups/notebook/")
        buttons = page.locator("clipboard-copy")
        assert buttons.count() == len(sources)
        for i in (1, len(sources) - 1):  # a %%writefile cell (its functions indented), and the last cell
            buttons.nth(i).scroll_into_view_if_needed()
            buttons.nth(i).click()
            page.wait_for_function("() => document.querySelectorAll('.notice:not([hidden])').length > 0")
            copied = page.evaluate("navigator.clipboard.readText()")
            assert copied == sources[i], (i, copied[:300])
            page.evaluate("navigator.clipboard.writeText('')")
        assert "\n    " in sources[1]  # the check above is of indented code
    finally:
        context.close()
