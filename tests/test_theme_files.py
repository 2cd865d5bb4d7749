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


# A code cell as mkdocs-jupyter renders it: its highlighted code, then the same code again, plain, for its copy button.
COPIED = ('<clipboard-copy for="cell-3" aria-label="Copy to Clipboard"></clipboard-copy>\n'
          '<div tabindex="0" class="highlight-ipynb hl-python"><pre><span class="k">def</span> f<span class="p">():</span>\n'
          '    <span class="k">return</span> <span class="s2">"&lt;pre&gt;"</span>\n</pre></div>\n'
          '<div class="clipboard-copy-txt" id="cell-3">def f():\n    return "&lt;pre&gt;"</div>\n'
          '<div class="jp-OutputArea-output"><pre>&lt;pre&gt;\n</pre></div>')


def test_a_notebook_cells_copy_button_copies_its_highlighted_code_which_it_no_longer_carries_twice():
    """The button copies the element its ``for`` names; that is now the highlighted block, whose text is the
    cell's source (its last line break gone: the copy had none). The output's block stays as it was."""
    slim = notebook_weight.slim(COPIED)
    assert "clipboard-copy-txt" not in slim and slim.count('id="cell-3"') == 1
    assert ('<div tabindex="0" class="highlight-ipynb hl-python"><pre id="cell-3"><span class="k">def</span> f'
            '<span class="p">():</span>\n    <span class="k">return</span> <span class="s2">"&lt;pre&gt;"</span></pre></div>'
            in slim)  # indented as the source is (the plain copy lost its indentation to the markup's)
    assert slim.endswith('<div class="jp-OutputArea-output"><pre>&lt;pre&gt;\n</pre></div>')


def test_a_notebook_page_loads_no_mathjax_it_has_no_address_for():
    page = ('<p>a</p>\n    <!-- Load mathjax -->\n    <script src=""> </script>\n    <!-- MathJax configuration -->\n'
            '    <script type="text/x-mathjax-config">\n    init_mathjax();\n    </script>\n'
            '    <!-- End of mathjax configuration --><p>b</p>')
    assert notebook_weight.slim(page) == "<p>a</p>\n<p>b</p>"
    loaded = page.replace('src=""', 'src="mathjax.js"')
    assert "init_mathjax" in notebook_weight.slim(loaded)  # a site that loads it keeps it
