"""The theme's files that no reader loads are left out (tcguide/site/theme_files.py), and what the notebook
pages carry and do not need (tcguide/site/notebook_weight.py)."""

from tcguide.site import notebook_weight, theme_files

THEME = ["assets/javascripts/bundle.a5f9d56c.min.js", "assets/javascripts/bundle.a5f9d56c.min.js.map",
         "assets/stylesheets/main.57a0d79d.min.css.map", "assets/javascripts/workers/search.a7633da7.min.js",
         "assets/javascripts/lunr/wordcut.js", "assets/javascripts/lunr/tinyseg.js",
         "assets/javascripts/lunr/min/lunr.stemmer.support.min.js", "assets/javascripts/lunr/min/lunr.multi.min.js",
         "assets/javascripts/lunr/min/lunr.ru.min.js", "assets/javascripts/lunr/min/lunr.ko.min.js",
         "assets/javascripts/lunr/min/lunr.ja.min.js", "assets/javascripts/lunr/min/lunr.de.min.js",
         "assets/javascripts/workers/search-query.js"]


def test_source_maps_and_lunr_languages_no_index_uses_are_left_out():
    gone = theme_files.unused(THEME, {"en", "ru", "ko"})
    assert sorted(gone) == sorted(["assets/javascripts/bundle.a5f9d56c.min.js.map",
                                   "assets/stylesheets/main.57a0d79d.min.css.map",
                                   "assets/javascripts/lunr/wordcut.js", "assets/javascripts/lunr/tinyseg.js",
                                   "assets/javascripts/lunr/min/lunr.ja.min.js",
                                   "assets/javascripts/lunr/min/lunr.de.min.js"])
    kept = set(THEME) - set(theme_files.unused(THEME, {"ja", "th"}))
    assert {"assets/javascripts/lunr/tinyseg.js", "assets/javascripts/lunr/wordcut.js",
            "assets/javascripts/lunr/min/lunr.ja.min.js"} <= kept  # what the theme's worker loads for them


CELL = ('<div class="jp-InputArea">\n    <div class="zeroclipboard-container">\n'
        '<svg aria-hidden="true" class="clipboard-copy-icon" data-view-component="true" height="20" version="1.1" '
        'viewbox="0 0 16 16" width="20">\n<path d="M0 6.75C0"></path>\n</svg>\n    </div>\n'
        '<div class="highlight-ipynb hl-python"><pre><span></span><span class="kn">import</span>'
        '<span class="w"> </span><span class="nn">torch</span>\n    <span class="n">x</span> '
        '<span class="o">=</span> <span class="n">a&lt;b</span></pre></div>\n'
        '<script>\n    var x = 1;\n</script></div>')


def test_a_notebook_page_keeps_its_text_and_loses_markup_it_does_not_need():
    slim = notebook_weight.slim(CELL)
    assert '<span aria-hidden="true" class="clipboard-copy-icon tcg-copy-icon"></span>' in slim and "<svg" not in slim
    assert ('<pre><span class="kn">import</span> <span class="nn">torch</span>\n    x <span class="o">=</span> a&lt;b</pre>'
            in slim)  # styled tokens keep their span; the code's own indentation stays
    assert "<script>\n    var x = 1;\n</script>" in slim  # scripts untouched
    assert '<div class="jp-InputArea">\n<div class="zeroclipboard-container">' in slim  # markup's indentation gone
