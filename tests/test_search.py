"""Search per language: the glossary's words for jieba, and each page's theme configuration."""

import json
import re

from tcguide.site import search


def test_the_glossary_gives_jieba_its_chinese_terms(tmp_path):
    glossary = tmp_path / "glossary-zh.md"
    glossary.write_text("# 术语表\n\n| English | 中文 | 备注 |\n|---|---|---|\n"
                        "| graph break | 图中断 | 也有人写“图断裂” |\n| backend | 后端 | |\n"
                        "| graph capture | 图捕获 / 捕获图 | |\n| eager mode | eager 模式 | |\n"
                        "| kernel | kernel | |\n| a | 图中断 | again |\n", encoding="utf-8")
    assert search.glossary_terms(glossary) == ["图中断", "后端", "图捕获", "捕获图"]
    assert search.jieba_user_dict(glossary).read_text(encoding="utf-8") == "图中断\n后端\n图捕获\n捕获图\n"


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
