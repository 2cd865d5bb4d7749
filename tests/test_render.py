import base64

import pytest

from tcguide.site import render
from tcguide.core import store, timings
from tcguide.core.catalog import Embedded
from tcguide.core.errors import GuideError
from tcguide.core.snippet import parse

SNIPPET = parse('# %% show\nprint("<b>")\n\n# %% fails raises="ValueError"\nraise ValueError("a < b")\n', "snippets/s.py", "h")
ENV = {"gpu": "NVIDIA H100 80GB HBM3", "gpu_count": 1, "torch": "2.11.0+cu130", "cuda": "13.0"}


def embedded(cell, outputs, wall=3.21, problem=None, env=ENV):
    capture = store.Capture("snippets/s.py", {}, env, "2026-11-22T10:15:37Z", (store.CellRecord(cell, tuple(outputs), wall),))
    return Embedded(SNIPPET, SNIPPET.cell(cell), capture, problem)


def stream(text):
    return {"output_type": "stream", "name": "stdout", "text": text}


def test_code_block_uses_real_line_numbers_and_title():
    md = render.cell(embedded("fails", []), "en")
    assert md.startswith('```python title="snippets/s.py · fails" linenums="5"\nraise ValueError("a < b")\n```\n')


def test_captured_text_is_escaped():
    html = render.cell(embedded("show", [stream("<script>alert(1)</script>\nif x < 0:\n")]), "en")
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&#10;if x &lt; 0:" in html


def test_a_printed_table_is_escaped_in_its_cells_and_in_what_it_copies():
    """A table a snippet printed becomes HTML markup of the site's: its text must stay text."""
    import html as html_module
    import re

    from tabulate import tabulate

    printed = tabulate([["<script>alert(1)</script>", 1.5], ['"><img src=x onerror=alert(1)>', 2.5]],
                       headers=["name", "ms"]) + "\n"
    html = render.cell(embedded("show", [stream(printed)]), "en")
    assert '<table class="tcg-printed">' in html  # rendered as a table, not as text
    assert "<script>" not in html and "<img" not in html
    (copy,) = re.findall(r'data-copy="([^"]*)"', html)
    assert html_module.unescape(copy) == printed  # copied exactly as printed


def test_provenance_line():
    html = render.cell(embedded("show", [stream("hi\n")]), "en")
    assert ">NVIDIA H100 80GB HBM3 · torch 2.11.0 · CUDA 13.0 · 2026-11-22 10:15 UTC · 3.2 s</div>" in html


@pytest.mark.parametrize("lang, wall, words", [
    ("en", 173.4, "· 2 min 53 s"), ("ru", 173.4, "· 2 мин 53 с"), ("zh", 173.4, "· 2 min 53 s"),
    ("ko", 173.4, "· 2분 53초"), ("ru", 3.21, "· 3,2 с"), ("zh", 3.21, "· 3.2 s"), ("zh", 0.045, "· 45 ms"),
    ("ko", 0.045, "· 45 ms"), ("ko", 3.21, "· 3.2초"),
])
def test_durations_are_written_in_the_pages_language(lang, wall, words):
    assert words in render.cell(embedded("show", [stream("hi\n")], wall=wall), lang)


def test_provenance_says_whether_other_files_ran_meanwhile():
    alone = render.cell(embedded("show", [stream("hi\n")], env=dict(ENV, side_by_side=0, compile_threads=2)), "en")
    beside = render.cell(embedded("show", [stream("hi\n")], env=dict(ENV, side_by_side=7, compile_threads=2)), "ru")
    assert "· 3.2 s · ran alone</div>" in alone and "2 Inductor compile threads" in alone
    assert "· параллельно с другими файлами: 7</div>" in beside


def test_long_output_folds_short_does_not():
    short = render.cell(embedded("show", [stream("x\n" * 25)]), "en")
    long = render.cell(embedded("show", [stream("x\n" * 26)]), "en")
    assert "<details" not in short
    assert '<details class="tcg-fold"><summary>Show 14 earlier lines of 26</summary>' in long
    assert long.count("x&#10;") == 26  # nothing lost: 14 folded lines, then the last 12 in view
    assert long.index("</details>") < long.rindex('class="tcg-stream tcg-tail"')


def test_expected_exception_is_labelled_and_escaped():
    error = {"output_type": "error", "ename": "ValueError", "evalue": "a < b", "expected": True,
             "traceback": 'Traceback (most recent call last):\n  File "snippets/s.py", line 5\nValueError: a < b\n'}
    html = render.cell(embedded("fails", [error]), "en")
    assert '<div class="tcg-error tcg-expected"><div class="tcg-label">Raises ValueError, as this example intends</div>' in html
    assert "ValueError: a &lt; b" in html
    assert "Исключение ValueError" in render.cell(embedded("fails", [error]), "ru")


def test_figures_are_images_not_inline_svg():
    svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    html = render.cell(embedded("show", [{"output_type": "display_data", "data": {"image/svg+xml": svg}}]), "en")
    assert "<svg" not in html
    data = html.split('src="data:image/svg+xml;base64,')[1].split('"')[0]
    assert base64.b64decode(data).decode() == svg


def test_warning_and_empty_output():
    warning = {"output_type": "warning", "category": "UserWarning", "message": "<careful>", "filename": "f.py", "lineno": 3}
    assert "<span class=\"tcg-label\">UserWarning</span> &lt;careful&gt; <span class=\"tcg-where\">(f.py:3)</span>" in \
        render.cell(embedded("show", [warning]), "en")
    assert "(this cell prints nothing)" in render.cell(embedded("show", []), "en")


def test_stale_output_is_marked_but_still_shown():
    problem = GuideError("snippets/s.py", None, "changed since its output was captured")
    html = render.cell(embedded("show", [stream("old\n")], problem=problem), "en")
    assert '<div class="tcg-problem"><strong>Output problem:</strong> snippets/s.py: changed' in html
    assert 'class="tcg-output tcg-stale"' in html and "old" in html


def test_durations_read_naturally():
    assert [timings.duration(s, "en") for s in (0.004, 3.21, 59.4, 179.6, 3600)] == [
        "4 ms", "3.2 s", "59.4 s", "3 min 0 s", "60 min 0 s"]


def test_torch_log_lines_keep_their_prefix_in_a_span_and_tables_stay_aligned():
    log = ("V1123 02:48:56.185000 879 torch/_dynamo/symbolic_convert.py:5127] [0/0] [__graph_breaks] Graph break\n"
           "[rank0]:W1123 03:30:42.232000 665 torch/_logging/_internal.py:1279] [0/0] ignored <x>\n")
    html = render.cell(embedded("show", [stream(log)]), "en")
    assert 'class="tcg-stream tcg-log"' in html
    assert ('<span class="tcg-log-prefix" tabindex="0" title="V1123 02:48:56.185000 879 '
            'torch/_dynamo/symbolic_convert.py:5127]">V1123 02:48:56.185000 879 '
            'torch/_dynamo/symbolic_convert.py:5127] </span>[0/0] [__graph_breaks] Graph break') in html
    assert "</span>[0/0] ignored &lt;x&gt;" in html
    table = render.cell(embedded("show", [stream("mode     ms\n-------  ----\neager    1.0\n")]), "en")
    assert "tcg-log" not in table


@pytest.mark.parametrize("lang, heading", [("en", "Page not found"), ("ru", "Страница не найдена"),
                                           ("zh", "页面不存在"), ("ko", "페이지를 찾을 수 없습니다")])
def test_the_404_page_speaks_the_pages_language_and_links_home(lang, heading):
    page = "<html><body><article><h1>404 - Not found</h1></article></body></html>"
    out = render.not_found_body(page, lang, f"https://example.org/{lang}/")
    assert f"<h1>{heading}</h1>" in out and "404 - Not found" not in out
    assert f'<a href="https://example.org/{lang}/">' in out


def test_an_up_to_date_translation_links_its_english_original():
    out = render.english_original("../../x/", "ru")
    assert 'href="../../x/" hreflang="en"' in out and "английский оригинал" in out
