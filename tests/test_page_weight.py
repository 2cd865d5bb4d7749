"""What every page carries and no reader needs (tcguide/site/page_weight.py): taken out, with the page's
text, line numbers, their links and what a copy button copies left as they were."""

import re
from pathlib import Path

import material

from tcguide.site import page_weight

# A code block as pymdownx.highlight writes it with line numbers, anchored lines and line spans.
BLOCK = ('<div class="highlight"><table class="highlighttable"><tr><td class="linenos"><div class="linenodiv"><pre>'
         '<span></span><span class="normal"><a href="#__codelineno-0-8"> 8</a></span>\n'
         '<span class="normal"><a href="#__codelineno-0-9"> 9</a></span></pre></div></td>'
         '<td class="code"><div><pre><span></span><code>'
         '<span id="__span-0-8"><a id="__codelineno-0-8" name="__codelineno-0-8"></a><span class="kn">import</span>'
         '<span class="w"> </span><span class="nn">torch</span>\n</span>'
         '<span id="__span-0-9"><a id="__codelineno-0-9" name="__codelineno-0-9"></a><span class="n">x</span> '
         '<span class="o">=</span> <span class="n">a&lt;b</span>\n</span></code></pre></div></td></tr></table></div>')


def test_a_code_block_keeps_its_text_line_numbers_and_anchors_and_loses_what_no_reader_sees():
    slim = page_weight.slim(BLOCK)
    assert ('<pre><a href="#__codelineno-0-8"> 8</a>\n<a href="#__codelineno-0-9"> 9</a></pre>' in slim)
    assert ('<code><span id="__span-0-8"><a id="__codelineno-0-8"></a><span class="kn">import</span> '
            '<span class="nn">torch</span>\n</span><span id="__span-0-9"><a id="__codelineno-0-9"></a>x '
            '<span class="o">=</span> a&lt;b\n</span></code>' in slim)
    text = lambda html: re.sub(r"<[^>]+>", "", html)  # noqa: E731
    assert text(slim) == text(BLOCK)


def test_a_block_without_line_numbers_keeps_each_lines_link_to_itself():
    line = '<span id="__span-0-1"><a id="__codelineno-0-1" name="__codelineno-0-1" href="#__codelineno-0-1"></a>x\n</span>'
    assert page_weight.slim(line) == '<span id="__span-0-1"><a id="__codelineno-0-1" href="#__codelineno-0-1"></a>x\n</span>'


def test_indentation_between_tags_goes_and_code_scripts_and_styles_keep_theirs():
    page = ('<nav>\n    <ul>\n      <li>a</li>\n    </ul>\n</nav>\n<pre><code>def f():\n    pass\n</code></pre>'
            '<script>\n  var x = 1;\n</script><textarea>\n  kept</textarea>')
    assert page_weight.slim(page) == ('<nav>\n<ul>\n<li>a</li>\n</ul>\n</nav>\n<pre><code>def f():\n    pass\n'
                                      '</code></pre><script>\n  var x = 1;\n</script><textarea>\n  kept</textarea>')


def theme_css(name: str) -> str:
    [css] = (Path(material.__file__).parent / "templates" / "assets" / "stylesheets").glob(f"{name}.*.min.css")
    return css.read_text(encoding="utf-8")


def test_the_theme_colours_a_name_in_code_as_the_code_around_it_and_gives_whitespace_no_style():
    """What taking the ``n`` and ``w`` spans out rests on, in both schemes: should a version of the theme give
    names a colour of their own, this fails, and the spans must stay."""
    main, palette = theme_css("main"), theme_css("palette")
    assert ".highlight .kc,.highlight .n{color:var(--md-code-hl-name-color)}" in main
    for css in (main, palette):
        assert set(re.findall(r"--md-code-hl-name-color:([^;}]+)", css)) == {"var(--md-code-fg-color)"}
    assert not re.search(r"\.highlight \.w\b", main + palette)


def test_the_site_gives_a_line_numbers_link_the_space_the_theme_gave_its_span():
    assert ".highlighttable .linenodiv span[class]{padding-right:.5882352941em}" in theme_css("main")
    css = (Path(__file__).resolve().parent.parent / "docs" / "assets" / "cells.css").read_text(encoding="utf-8")
    assert ".highlighttable .linenodiv a { padding-right: 0.5882352941em; }" in css
