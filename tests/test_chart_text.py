"""A chart's text in the page's language: the translators' file, its slots, its errors, and the SVG."""

import html
import re

import pytest

from tcguide.core.errors import GuideError
from tcguide.i18n import charts
from tcguide.site.render import chart_in_language

SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="300pt" height="200pt" viewBox="0 0 300 200">'
       '<text style="font-size: 10px" x="1" y="2">first call (s)</text>'
       '<text style="font-size: 10px" x="1" y="9">greedy decoding, 128 tokens, H100</text>'
       '<text style="font-size: 10px" x="1" y="5">0.5</text>'
       '<text style="font-size: 10px" x="1" y="7">4500</text>'
       '<text style="font-size: 10px" x="1" y="8">eager &amp; compiled</text>'
       '<text style="font-size: 10px" x="1" y="3">NVIDIA H100 80GB HBM3</text></svg>')


def _words(tmp_path, lang, text):
    (tmp_path / "i18n").mkdir(exist_ok=True)
    charts.path(tmp_path, lang).write_text(text, encoding="utf-8")
    return charts.load(tmp_path, lang)


def test_a_chart_shows_its_text_and_numbers_in_the_pages_language(tmp_path):
    words = _words(tmp_path, "ru", '"first call (s)" = "первый вызов (с)"\n'
                                   '"greedy decoding, {} tokens, {}" = "жадное декодирование: {} токенов, {}"\n')
    shown = [html.unescape(t) for t in re.findall(r">([^<]+)</text>", chart_in_language(SVG, "ru", words))]
    assert shown == ["первый вызов (с)", "жадное декодирование: 128 токенов, H100", "0,5", "4\u202f500",
                     "eager & compiled", "NVIDIA H100 80GB HBM3"]  # no entry: stays English, and stays escaped in the SVG
    assert "eager &amp; compiled" in chart_in_language(SVG, "ru", words)


def test_a_charts_description_is_translated_text_by_text(tmp_path):
    words = _words(tmp_path, "zh", '"speedup over eager" = "相对 eager 的加速比"\n"speedup" = "加速"\n')
    assert words.within("speedup over eager: eager 1, default 2.3") == "相对 eager 的加速比: eager 1, default 2.3"


def test_english_and_a_language_without_a_file_keep_the_chart_as_captured(tmp_path):
    words = charts.load(tmp_path, "ko")
    assert words.line("first call (s)") is None
    assert html.unescape(chart_in_language(SVG, "en", words)).count("first call (s)") == 1


@pytest.mark.parametrize("text, problem", [
    ('"first call (s)" = "первый вызов (с)"\n"a {} b" = "а б"\n', ":2: 'a {} b' has 1 {} slot(s), its translation 0"),
    ('"first call (s)" = \n', ":1: not valid TOML"),
    ('"x" = 3\n', ":1: the entry for 'x' is not a string"),
])
def test_a_broken_entry_is_named_by_file_and_line(tmp_path, text, problem):
    with pytest.raises(GuideError) as caught:
        _words(tmp_path, "ru", text)
    assert problem in str(caught.value) and "charts-ru.toml" in str(caught.value) and " — " in str(caught.value)


def test_the_lines_a_chart_shows_leave_numbers_alone():
    assert charts.texts(SVG) == ["first call (s)", "greedy decoding, 128 tokens, H100", "eager & compiled"]


def test_a_chart_gets_room_on_either_side_for_text_laid_out_by_other_fonts(tmp_path):
    shown = chart_in_language(SVG, "en", charts.load(tmp_path, "en"))
    assert 'width="320pt" height="200pt" viewBox="-10 0 320 200"' in shown
    drawn_as_paths = '<svg width="300pt" height="200pt" viewBox="0 0 300 200"><path d="M0 0"/></svg>'
    assert chart_in_language(drawn_as_paths, "ru", charts.load(tmp_path, "ru")) == drawn_as_paths
