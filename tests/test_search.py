"""Search per language: the glossary's words for jieba, and each page's theme configuration."""

import json
import re
from types import SimpleNamespace

import pytest

from tcguide.site import search


def test_the_glossary_gives_jieba_its_chinese_terms(tmp_path):
    glossary = tmp_path / "glossary-zh.md"
    glossary.write_text("# 术语表\n\n| English | 中文 | 备注 |\n|---|---|---|\n"
                        "| graph break | 图中断 | 也有人写“图断裂” |\n| backend | 后端 | |\n"
                        "| graph capture | 图捕获 / 捕获图 | |\n| eager mode | eager 模式 | |\n"
                        "| kernel | kernel | |\n| a | 图中断 | again |\n", encoding="utf-8")
    assert search.glossary_terms(glossary) == ["图中断", "后端", "图捕获", "捕获图"]
    assert search.jieba_user_dict(glossary).read_text(encoding="utf-8") == "".join(
        f"{term} {search.TERM_FREQUENCY}\n" for term in ("图中断", "后端", "图捕获", "捕获图"))


def test_a_glossary_term_stays_whole_beside_a_common_neighbour(tmp_path):
    """With only the frequency jieba suggests, 这个后端的 became 后 / 端的 (端的 is a word too)."""
    jieba = pytest.importorskip("jieba")
    glossary = tmp_path / "glossary-zh.md"
    glossary.write_text("| English | 中文 | 备注 |\n|---|---|---|\n| backend | 后端 | |\n", encoding="utf-8")
    words = jieba.Tokenizer()
    with search.jieba_user_dict(glossary).open("rb") as terms:  # jieba leaves a file it opens open
        words.load_userdict(terms)
    assert "后端" in words.lcut("返回这个后端的名字")


def test_each_build_of_one_process_segments_chinese_as_a_build_from_scratch(tmp_path):
    """``mkdocs serve`` builds again and again in one process: each build's k-th language is segmented after
    k loads of the glossary's words, as in a build from scratch (and its pages' search entries are keyed so),
    not after all the loads of the builds before it."""
    import jieba

    words = tmp_path / "words.txt"
    words.write_text("图中断\n后端\n", encoding="utf-8")
    engine = SimpleNamespace(config=SimpleNamespace(lang=None))

    def build() -> list:
        search.new_build()
        seen = []
        for lang in ("en", "ru", "zh", "ko"):
            search.configure(engine, lang, {}, words)
            search._load_user_dict(words)
            seen.append((search._ASKED[str(words)], jieba.dt.total, jieba.dt.FREQ.get("图中断")))
        return seen

    first, second = build(), build()
    assert [asked for asked, _, _ in first] == [1, 2, 3, 4]
    assert second == first and len({total for _, total, _ in first}) == 4  # each load adds to the total


PAGE = ('<script id="__config" type="application/json">{"base": "../..", "features": [], '
        '"search": "../../assets/javascripts/workers/search.a7633da7.min.js", "translations": '
        '{"x": "\\u003c/script\\u003e"}}</script>')  # the theme's tojson escapes < and >


def config(html: str) -> dict:
    return json.loads(re.search(r'<script id="__config" type="application/json">(.*?)</script>', html, re.S)[1])


def test_a_page_searches_its_languages_folder_through_the_query_worker():
    page = search.page_config(PAGE, "ru/")
    assert config(page)["base"] == "../../ru/"
    assert config(page)["search"] == "../../assets/javascripts/workers/search-query.js?theme=search.a7633da7.min.js"
    assert config(page)["translations"] == {"x": "</script>"}  # and the script element still ends once
    assert page.count("</script>") == 1
    english = config(search.page_config(PAGE, ""))
    assert english["base"] == "../.." and english["search"].endswith("search-query.js?theme=search.a7633da7.min.js")


def test_a_page_loads_the_index_keeping_script_before_the_themes_with_the_index_version():
    """search-cache.js must run before the theme's script, which asks for the index as it starts; its tag
    carries the version of the index, under which the session's copy is kept."""
    page = PAGE + '<script src="../../assets/javascripts/bundle.a5f9d56c.min.js"></script>'
    kept = search.page_config(page, "ru/", "0123456789abcdef")
    assert kept.endswith('<script src="../../assets/javascripts/search-cache.js" data-index="0123456789abcdef"></script>'
                         '<script src="../../assets/javascripts/bundle.a5f9d56c.min.js"></script>')
    assert "search-cache.js" not in search.page_config(page, "ru/")  # no version (a 404 page): the theme's own fetch


class _Page:
    def __init__(self, url, content, exclude=False):
        self.url, self.title, self.content = url, "T", content
        self.meta = {"search": {"exclude": True}} if exclude else {}


class _Search:
    config = {"lang": ["ru"], "separator": "[\\s]+", "pipeline": ["stopWordFilter"], "fields": {}}
    search_index = type("Index", (), {"entries": []})()


def test_the_index_version_follows_what_the_index_is_made_of():
    pages = [_Page("ru/a/", "<p>one</p>"), _Page("ru/a/notebook/", "<p>big</p>", exclude=True)]
    version = search.index_version(pages, _Search)
    assert re.fullmatch(r"[0-9a-f]{16}", version)
    assert search.index_version(pages, _Search) == version
    assert search.index_version([pages[0], _Page("ru/a/notebook/", "<p>other</p>", exclude=True)], _Search) == version
    assert search.index_version([_Page("ru/a/", "<p>two</p>"), pages[1]], _Search) != version
    other = type("Other", (_Search,), {"config": dict(_Search.config, lang=["en"])})
    assert search.index_version(pages, other) != version


def test_the_themes_plugin_strips_search_attributes_only_where_a_page_has_them():
    """The theme's on_page_context, wrapped in the build's events: every page is indexed as before, and its
    HTML comes out as the theme's leaves it, whether or not it has a data-search-* attribute with a value."""
    import inspect
    import types

    from material.plugins.search.plugin import SearchPlugin

    assert "r\"\\s?data-search-\\w+=\\\"[^\\\"]+\\\"\"" in inspect.getsource(SearchPlugin.on_page_context)
    indexed = []
    engine = SimpleNamespace(config=SimpleNamespace(enabled=True),
                             search_index=SimpleNamespace(add_entry_from_context=lambda page: indexed.append(page.url)))
    engine.on_page_context = types.MethodType(SearchPlugin.on_page_context, engine)
    theirs = engine.on_page_context
    config = SimpleNamespace(plugins=SimpleNamespace(events={"page_context": [print, engine.on_page_context]}))
    search.strip_only_where_needed(config, engine)
    search.strip_only_where_needed(config, engine)  # a later language of the same build: wrapped once
    handler = config.plugins.events["page_context"][1]
    assert config.plugins.events["page_context"][0] is print and handler != theirs
    for n, html in enumerate(['<div class="x" data-search-exclude><p>a</p></div>',
                              '<p data-search-boost="2">b</p><p>c <span data-search-exclude>d</span></p>']):
        ours, theme = SimpleNamespace(url=f"ours{n}", content=html), SimpleNamespace(url=f"theme{n}", content=html)
        assert handler({}, page=ours, config=None, nav=None) is None
        theirs({}, page=theme, config=None, nav=None)
        assert ours.content == theme.content == search.VALUED_ATTRIBUTE.sub("", html)
    assert indexed == ["ours0", "theme0", "ours1", "theme1"]


def test_jieba_loads_in_a_thread_of_its_own_while_the_server_waits():
    import jieba

    thread = search.load_jieba_meanwhile()
    thread.join(60)
    assert not thread.is_alive() and jieba.dt.initialized


def test_an_index_entry_keeps_prose_and_inline_code_but_not_code_blocks_or_runs_of_space():
    text = "<p>Compile   it\n   with <code>torch.compile</code>:</p> <pre><code>x = 1\n</code></pre> <p>done</p>"
    assert search.without_code_blocks(text) == "<p>Compile it with <code>torch.compile</code>:</p> <p>done</p>"
