"""The built guide in a real browser (headless Chromium): outputs, language switcher, search.

Every wait here is for a condition of the page (an element, a state the theme reaches, a count it
writes), never for the network to fall quiet or for a fixed time.
"""

import os
import re
import shutil

from urllib.parse import urljoin

import pytest
from playwright.sync_api import sync_playwright

from tcguide.notebooks import build as notebooks
from tcguide.core.labels import label
from tests.helpers import LANGUAGES, ROOT, TRANSLATIONS, stored_provenance, toggle_names

pytestmark = [pytest.mark.browser, pytest.mark.build]  # the guide, built once per run (conftest)

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_path() -> str:
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    pytest.fail("no Chromium found: `make test` installs it; or set CHROMIUM to a Chromium binary")


@pytest.fixture(scope="module")
def base_url(guide_site, guide_port):
    """The guide, served by the test run (tests/conftest.py) at the address it was built for."""
    return f"http://127.0.0.1:{guide_port}"


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    page = browser.new_page()
    yield page
    page.close()


def test_cells_show_code_output_and_provenance(page, base_url):
    """The first cell's output, and its provenance as its stored output records it: GPU, torch, CUDA, when."""
    page.goto(f"{base_url}/getting-started/")
    output = page.locator(".tcg-output").first
    assert output.is_visible()
    (first, *_) = stored_provenance(ROOT / "docs" / "en" / "getting-started.md")
    assert page.locator(".tcg-provenance").first.inner_text().startswith(first)
    page.wait_for_selector("button.md-code__button[title='Copy to clipboard']", state="attached")


# The theme answers a query in one go: it writes how many pages matched ("12 matching documents",
# "Найдено совпадений: 12") and draws the first ten results; the others it draws four at a time,
# each time the list is scrolled to its end. Until the query is answered, the line has no number.
ANSWERED = """term => {
    const box = document.querySelector("input.md-search__input");
    const count = document.querySelector(".md-search-result__meta").textContent.match(/\\d+/);
    const drawn = document.querySelectorAll(".md-search-result__item").length;
    return box.value === term && count !== null && drawn >= Math.min(Number(count[0]), 10) && Number(count[0]);
}"""
SCROLL_TO_THE_END = """async () => {
    const list = document.querySelector(".md-search__scrollwrap");
    const frame = () => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
    list.scrollTop = 0;  // the theme draws more when the list reaches its end, not while it stays there
    await frame();
    list.scrollTop = list.scrollHeight;
    await frame();
}"""


def search(page, base_url, lang: str, term: str) -> list[str]:
    """Type a term into the search box of the language's home page; return the result links,
    once the theme has drawn them all."""
    prefix = "" if lang == "en" else f"/{lang}"
    page.goto(f"{base_url}{prefix}/")
    return search_here(page, term)


def search_here(page, term: str) -> list[str]:
    """Type a term into the search box of the page open; return the result links, once the theme has drawn them all."""
    box = page.locator("input.md-search__input")
    box.click()
    box.fill(term)
    box.press("End")  # the theme reads the query on keyup (or when its index is ready), and fill() sends none
    total = page.wait_for_function(ANSWERED, arg=term, timeout=20000).json_value()
    items = page.locator(".md-search-result__item")
    while (drawn := items.count()) < total:
        page.evaluate(SCROLL_TO_THE_END)
        page.wait_for_function("n => document.querySelectorAll('.md-search-result__item').length > n", arg=drawn)
    assert items.count() == total
    return page.eval_on_selector_all(".md-search-result__item a", "els => els.map(e => e.href)")


def result_pages(links: list[str]) -> list[str]:
    """The pages of search results, best first, without their sections and highlight terms."""
    pages = []
    for link in links:
        path = link.split("#")[0].split("?")[0]
        if path not in pages:
            pages.append(path)
    return pages


def language_of(link: str, base_url: str) -> str:
    first = link[len(base_url):].lstrip("/").split("/", 1)[0]
    return first if first in TRANSLATIONS else "en"


@pytest.mark.parametrize("lang, term, chapter", [
    ("en", "decorator", "getting-started"),
    ("ru", "декоратор", "getting-started"),  # Russian is stemmed
    ("zh", "装饰器", "getting-started"),  # Chinese is segmented into words at build time
    ("ko", "데코레이터", "getting-started"),
])
def test_search_finds_the_chapter(page, base_url, lang, term, chapter):
    links = search(page, base_url, lang, term)
    prefix = "" if lang == "en" else f"{lang}/"
    assert any(f"/{prefix}{chapter}/" in link for link in links), links


@pytest.mark.parametrize("lang, term", [("en", "recompiles")] + [(lang, "Inductor") for lang in LANGUAGES])
def test_search_answers_with_the_pages_of_the_readers_language_only(page, base_url, guide_site, lang, term):
    """A page loads its language's own index, not one of every language, and answers from it
    ("Inductor" is a word of every language's pages)."""
    indexes = []
    page.on("request", lambda r: indexes.append(r.url) if "search_index" in r.url else None)
    links = search(page, base_url, lang, term)
    assert links and {language_of(link, base_url) for link in links} == {lang}, links
    prefix = "" if lang == "en" else f"{lang}/"
    assert indexes == [f"{base_url}/{prefix}search/search_index.json"]
    assert (guide_site / prefix / "search" / "search_index.json").stat().st_size < 1_000_000


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_search_index_is_fetched_once_per_session(page, base_url, lang):
    """Three pages, each reached by clicking a result of a search on the one before, and each searched:
    the theme asks for the language's index on every page, the network sees one request for it (the
    others are answered from the copy search-cache.js kept in the session), and every search answers."""
    fetched = []
    page.on("request", lambda r: fetched.append(r.url) if "search_index" in r.url else None)
    prefix = "" if lang == "en" else f"{lang}/"
    page.goto(f"{base_url}/{prefix}")
    visited = [result_pages([page.url])[0]]
    for term in ("Inductor", "Dynamo", "Inductor"):
        links = [link for link in search_here(page, term) if result_pages([link])[0] not in visited]
        assert links, (page.url, term)
        with page.expect_navigation():  # a click on the result, as a reader's
            page.eval_on_selector_all(".md-search-result__item a", "(els, href) => els.find(e => e.href === href).click()",
                                      links[0])
        visited.append(result_pages([page.url])[0])
    assert len(set(visited)) == 4, visited
    search_here(page, "Dynamo")  # the last page searched too: its index came from the session's copy
    assert fetched == [f"{base_url}/{prefix}search/search_index.json"], fetched


@pytest.mark.parametrize("lang, inflected, word, chapter", [
    ("ru", "декоратора", "декоратор", "getting-started"),  # lunr's Russian stemmer, on the query
    ("ru", "декоратором", "декоратор", "getting-started"),
    ("ko", "가드가", "가드", "dynamic-shapes"),  # the particle comes off; the chapter of "가드: ..."
    ("ko", "가드에서", "가드", "dynamic-shapes"),
])
def test_an_inflected_word_finds_what_the_word_finds(page, base_url, lang, inflected, word, chapter):
    expected = result_pages(search(page, base_url, lang, word))
    found = result_pages(search(page, base_url, lang, inflected))
    assert found == expected, (found, expected)
    assert found[0] == f"{base_url}/{lang}/{chapter}/", found


def test_a_chinese_glossary_term_finds_its_chapter_first(page, base_url):
    """The glossary's terms are words of their own in the index (jieba's user dictionary)."""
    assert result_pages(search(page, base_url, "zh", "图中断"))[0] == f"{base_url}/zh/troubleshooting/"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_declares_itself_and_its_alternates(page, base_url, lang):
    prefix = "" if lang == "en" else f"/{lang}"
    page.goto(f"{base_url}{prefix}/getting-started/")
    assert page.get_attribute("html", "lang") == lang
    alternates = page.eval_on_selector_all("link[rel=alternate][hreflang]", "els => els.map(e => e.hreflang)")
    assert set(LANGUAGES) <= set(alternates)


def test_language_switcher_keeps_the_reader_on_the_same_page(page, base_url):
    page.goto(f"{base_url}/ru/speedups/")
    page.hover(".md-header__option .md-select")
    page.get_by_role("link", name="한국어").click()
    page.wait_for_url("**/ko/speedups/")
    assert page.get_attribute("html", "lang") == "ko"
    assert page.locator(".tcg-output").first.is_visible()  # the same cells, with their outputs


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("system, scheme, other", [("light", "default", "slate"), ("dark", "slate", "default")])
def test_colour_scheme_follows_the_system_and_the_toggle_switches_it(browser, base_url, lang, system, scheme, other):
    """The toggle is labelled in the page's language: the palette of its entry in mkdocs.yml (a language
    without one would show the labels of the language built before it)."""
    context = browser.new_context(color_scheme=system)
    page = context.new_page()
    try:
        page.goto(f"{base_url}{'' if lang == 'en' else '/' + lang}/speedups/")
        assert page.get_attribute("body", "data-md-color-scheme") == scheme
        toggle = page.locator("form[data-md-component=palette] label:visible")
        assert toggle.get_attribute("title") == toggle_names(lang)[0 if system == "light" else 1]
        toggle.click()
        page.wait_for_function(f"document.body.getAttribute('data-md-color-scheme') === '{other}'")
    finally:
        context.close()


def every_page(guide_site) -> list[str]:
    folders = (p.parent.relative_to(guide_site).as_posix() for p in guide_site.rglob("index.html"))
    return sorted("/" if folder == "." else f"/{folder}/" for folder in folders)


def search_is_ready(guide_site, path: str) -> str:
    """A condition for the page at `path`: the theme's search worker has loaded its language's index and
    answered (the line under the search box no longer says that search is starting, as the page was served)."""
    html = (guide_site / path.lstrip("/") / "index.html").read_text(encoding="utf-8")
    starting = re.search(r'<div class="md-search-result__meta">\s*(.*?)\s*</div>', html, re.S)[1]
    return f"() => document.querySelector('.md-search-result__meta').textContent.trim() !== {starting!r}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_on_a_phone_no_page_is_wider_than_the_screen_and_none_calls_elsewhere(browser, base_url, guide_site, lang):
    """Every page of a language, and the notebook page of every chapter with cells, at 390 px: no
    sideways scroll, no console error, no request to another host. Each page is measured once it has
    loaded (its styles, scripts and images); what a page fetches after that is its search worker's, the
    same for every page of a language at the same depth, so one page of each depth (the home, the
    chapters, the notebook pages) waits for the worker too."""
    page = browser.new_page(viewport={"width": 390, "height": 844})
    errors, foreign, wide = [], [], []
    page.on("console", lambda m: errors.append(f"{page.url}: {m.text}") if m.type == "error" else None)
    page.on("response", lambda r: errors.append(f"{page.url}: {r.status} {r.url}") if r.status >= 400 else None)
    page.on("request", lambda r: foreign.append(r.url) if not r.url.startswith((base_url, "data:", "blob:")) else None)
    searched = set()
    try:
        paths = [path for path in every_page(guide_site) if language_of(base_url + path, base_url) == lang]
        english = [md.read_text(encoding="utf-8") for md in (ROOT / "docs" / "en").glob("*.md")]
        assert len(paths) == len(english) + sum(map(notebooks.is_chapter, english))  # pages + notebook pages
        for path in paths:
            page.goto(base_url + path, wait_until="load")
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > 390:
                wide.append(f"{path}: {width} px")
            kind = (page.get_attribute("html", "lang"), path.count("/"))
            if kind not in searched:
                searched.add(kind)
                page.wait_for_function(search_is_ready(guide_site, path), timeout=30000)
    finally:
        page.close()
    assert len(searched) == 3  # the language's home, its chapters and their notebook pages
    assert wide == [] and errors == [] and foreign == [], (wide, errors[:5], foreign[:5])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_serious_accessibility_violation_on_each_kind_of_page(browser, base_url, lang):
    """axe-core on the home page, a chapter with code, outputs, warnings and errors, its notebook, and the
    status table, in the light and the dark scheme. The scheme changes colours only, so the dark one
    runs again just the rules about colour (axe's "cat.color": contrast, links told apart by colour)
    that ran in the light one."""
    from axe_playwright_python.sync_playwright import Axe

    prefix = "" if lang == "en" else f"/{lang}"
    found, colour_rules = [], {}
    for scheme in ("light", "dark"):
        context = browser.new_context(color_scheme=scheme)
        page = context.new_page()
        try:
            for path in ("/", "/troubleshooting/", "/troubleshooting/notebook/", "/translation-status/"):
                page.goto(f"{base_url}{prefix}{path}")
                options = {"resultTypes": ["violations"]}
                if scheme == "dark":
                    options["runOnly"] = {"type": "rule", "values": colour_rules[path]}
                results = Axe().run(page, options=options).response
                ran = [rule for kind in ("violations", "passes", "incomplete", "inapplicable") for rule in results[kind]]
                if scheme == "light":
                    colour_rules[path] = sorted({rule["id"] for rule in ran if "cat.color" in rule["tags"]})
                    assert "color-contrast" in colour_rules[path], (path, colour_rules[path])
                else:
                    assert sorted({rule["id"] for rule in ran}) == colour_rules[path]
                for violation in results["violations"]:
                    if violation["impact"] in ("serious", "critical"):
                        targets = [n["target"] for n in violation["nodes"]][:3]
                        found.append(f"{scheme} {prefix}{path}: {violation['id']} at {targets}")
        finally:
            context.close()
    assert found == []


@pytest.mark.parametrize("path, lang", [("/no-such-page/", "en")]
                         + [(f"/{lang}/no-such-page/", lang) for lang in TRANSLATIONS]
                         + [("/zh/deep/no/such/page/", "zh")])
def test_the_404_page_speaks_the_language_of_the_missing_path_and_keeps_its_styles(page, base_url, path, lang):
    response = page.goto(base_url + path)
    assert response.status == 404
    page.wait_for_function(f"document.documentElement.lang === '{lang}'")
    page.wait_for_selector("h1")
    header = page.locator("header.md-header")
    assert header.is_visible()
    assert header.evaluate("e => getComputedStyle(e).position") == "sticky"  # the theme's stylesheet applies
    assert page.locator("article h1").inner_text() == label(lang, "not_found")
    assert "404 - Not found" not in page.content()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_charts_are_files_that_load_and_the_chapter_stays_within_its_weight(page, base_url, guide_site, lang):
    """The speedups chapter: its charts load as SVG files; its HTML and its images stay under 600 KB."""
    prefix = "" if lang == "en" else f"{lang}/"
    page.goto(f"{base_url}/{prefix}speedups/")
    figures = page.locator("img.tcg-figure")
    assert figures.count() == 6
    for i in range(6):
        figures.nth(i).scroll_into_view_if_needed()
        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=figures.nth(i).element_handle())
        assert not figures.nth(i).get_attribute("src").startswith("data:")
    html = (guide_site / prefix / "speedups" / "index.html").stat().st_size
    sources = {figures.nth(i).get_attribute("src") for i in range(6)}
    images = sum((guide_site / prefix / "speedups" / src).resolve().stat().st_size for src in sources)
    assert html + images < 600_000, (html, images)


def test_torch_log_lines_wrap_show_their_message_and_keep_the_whole_line(browser, base_url):
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.goto(f"{base_url}/dynamo-and-graphs/")
        log = page.locator("pre.tcg-log").first
        log.scroll_into_view_if_needed()
        assert log.evaluate("e => e.scrollWidth <= e.clientWidth + 1")  # wraps instead of scrolling
        prefix = log.locator(".tcg-log-prefix").first
        full = prefix.get_attribute("title")
        assert full.startswith("V") and "torch/_dynamo/" in full
        assert prefix.evaluate("e => e.getBoundingClientRect().width") < 150  # level and time, not 60 characters
        assert full in log.text_content()  # what a copy takes: the whole line
        prefix.focus()
        assert prefix.evaluate("e => e.getBoundingClientRect().width") > 150  # all of it, on demand
        fold = page.locator("details.tcg-fold").first
        assert fold.evaluate("e => getComputedStyle(e).borderLeftWidth") == "0px"  # not an admonition
    finally:
        page.close()


def test_switching_language_keeps_the_section(page, base_url):
    page.goto(f"{base_url}/ru/dynamic-shapes/#the-recompile-limit")
    page.hover(".md-header__option .md-select")
    page.get_by_role("link", name="中文").click()
    page.wait_for_url("**/zh/dynamic-shapes/#the-recompile-limit")
    assert page.locator("h2#the-recompile-limit").is_visible()


def test_korean_breaks_lines_between_words(page, base_url):
    page.goto(f"{base_url}/ko/profiling/")
    assert page.locator("article p").first.evaluate("e => getComputedStyle(e).wordBreak") == "keep-all"
    assert page.locator("article h1").evaluate("e => getComputedStyle(e).wordBreak") == "keep-all"


def test_where_a_figure_or_claim_comes_from_is_reachable_by_tab_and_by_tap(browser, base_url):
    """The glued figure's and the claim's tooltip as a popover on focus: from the keyboard, and from a tap."""
    page = browser.new_page(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    try:
        page.goto(f"{base_url}/ru/speedups/")
        figure = page.locator("article .tcg-glue").first
        figure.focus()
        popover = page.evaluate("getComputedStyle(document.activeElement, '::after').content")
        assert popover.strip('"') == figure.get_attribute("title") and popover.startswith('"Измерено')
        page.keyboard.press("Tab")  # the next stop is the next figure or claim, not a line number
        assert page.evaluate("document.activeElement.className").startswith(("tcg-glue", "tcg-claim", "tcg-quote"))
        claim = page.locator("article .tcg-claim").first
        claim.scroll_into_view_if_needed()
        claim.tap()
        assert page.evaluate("document.activeElement.dataset.claim") == claim.get_attribute("data-claim")
        shown = page.evaluate("getComputedStyle(document.activeElement, '::after').content")
        assert "Утверждение проверено по измеренным значениям" in shown
    finally:
        page.close()


def test_line_numbers_and_log_prefixes_are_not_tab_stops(page, base_url):
    page.goto(f"{base_url}/troubleshooting/")
    stops = page.evaluate("""[...document.querySelectorAll('a[href], [tabindex], button, input, summary')]
        .filter(e => e.tabIndex >= 0 && e.offsetParent !== null)""" + ".map(e => e.className || e.tagName)")
    assert not [s for s in stops if "tcg-log-prefix" in s]
    assert page.locator(".linenodiv a[tabindex='0'], .linenos a:not([tabindex='-1'])").count() == 0
    assert page.locator("pre.tcg-log[tabindex='0']").count() >= 1  # one stop per log shows its prefixes
    assert len(stops) < 300, len(stops)  # 532 before: one stop per log line


def test_tracebacks_wrap_on_a_phone(browser, base_url):
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.goto(f"{base_url}/troubleshooting/")
        tracebacks = page.locator("pre.tcg-traceback")
        assert tracebacks.count() > 0
        for i in range(tracebacks.count()):
            assert tracebacks.nth(i).evaluate("e => e.scrollWidth <= e.clientWidth + 1"), i
    finally:
        page.close()


def test_the_language_menu_says_each_items_language(page, base_url):
    page.goto(f"{base_url}/ru/speedups/")
    items = page.locator("a.md-select__link[hreflang]")
    assert items.count() == len(LANGUAGES)
    for i in range(items.count()):
        assert items.nth(i).get_attribute("lang") == items.nth(i).get_attribute("hreflang")


# A link to a section, clicked: the address ends with its #id, and the element of that id is in view.
SCROLLED_TO = """href => {
    const wanted = decodeURIComponent(href.slice(1));
    const target = document.getElementById(wanted);
    if (!target || decodeURIComponent(location.hash.slice(1)) !== wanted) return false;
    const top = target.getBoundingClientRect().top;
    return top >= 0 && top < window.innerHeight;
}"""


@pytest.mark.parametrize("lang", LANGUAGES)
def test_on_a_notebook_page_every_section_link_scrolls_to_its_section(browser, base_url, lang):
    """A chapter's notebook page, wide enough for its contents in their sidebar: each link of its contents
    and each #section link of its text, clicked from the top of the page, brings its section into view
    (the notebook's headings carry the chapter's ids)."""
    prefix = "" if lang == "en" else f"/{lang}"
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(f"{base_url}{prefix}/dynamic-shapes/notebook/")
        size = "e => parseFloat(getComputedStyle(e).fontSize)"  # the provenance line, smaller than the text
        assert page.locator(".jp-OutputArea-output[data-mime-type='text/markdown'] em").first.evaluate(size) < \
            page.locator("article p").first.evaluate(size)
        links = page.locator("nav.md-nav--secondary a[href^='#'], "
                             "article a[href^='#']:not(.anchor-link):not(.headerlink)")
        assert links.count() >= 12  # the contents (11 sections), and the text's link to one of them
        for i in range(links.count()):
            href = links.nth(i).get_attribute("href")
            page.evaluate("window.scrollTo(0, 0)")
            links.nth(i).click()
            page.wait_for_function(SCROLLED_TO, arg=href, timeout=5000)
    finally:
        page.close()


@pytest.mark.parametrize("lang", ["zh", "ko"])
def test_the_notebook_pages_link_to_its_chapter_leads_there(page, base_url, lang):
    """The notebook says which chapter it is with a link; in Chinese and Korean, text follows the address."""
    page.goto(f"{base_url}/{lang}/dynamic-shapes/notebook/")
    link = page.locator('[id="cell-id=about"] a').first
    chapter = f"{base_url}/{lang}/dynamic-shapes/"
    assert urljoin(page.url, link.get_attribute("href")) == chapter  # relative: the site is served anywhere
    with page.expect_response(chapter) as response:
        link.click()
    assert response.value.status == 200
    page.wait_for_url(chapter)
    assert page.locator(".tcg-output").first.is_visible()  # the chapter, with its cells


def test_switching_language_on_a_notebook_page_keeps_the_notebook_and_the_section(page, base_url):
    page.goto(f"{base_url}/ru/dynamic-shapes/notebook/#guards-the-conditions-a-graph-depends-on")
    page.hover(".md-header__option .md-select")
    page.get_by_role("link", name="한국어").click()
    page.wait_for_url("**/ko/dynamic-shapes/notebook/#guards-the-conditions-a-graph-depends-on")
    assert page.get_attribute("html", "lang") == "ko"
    assert page.locator("h2#guards-the-conditions-a-graph-depends-on").is_visible()
