"""Words the tooling writes onto a page are in the page's language."""

import pytest

from tcguide.site import notebook_pages
from tcguide.core.labels import LABELS, label


# As the converter's template writes a copy button, and as the page reaches the plugin, serialised again
TEMPLATE = ('<clipboard-copy for="cell-3", aria-label="Copy to Clipboard"><span class="notice" hidden>Copied!</span>'
            '</clipboard-copy>')
ARRIVES = ('<clipboard-copy ,="" aria-label="Copy to Clipboard" for="cell-3"><span class="notice" hidden="">Copied!'
           '</span></clipboard-copy>')


@pytest.mark.parametrize("button", [TEMPLATE, ARRIVES])
@pytest.mark.parametrize("lang, name, words", [("en", "Copy to clipboard", "Copied!"),
                                               ("ru", "Скопировать в буфер обмена", "Скопировано!"),
                                               ("zh", "复制到剪贴板", "已复制！"), ("ko", "클립보드로 복사", "복사했습니다!")])
def test_a_notebook_pages_copy_button_is_named_and_says_copied_in_the_pages_language(lang, name, words, button):
    page = f'{button}<div class="highlight-ipynb">'
    out = notebook_pages.finish(page, lang)
    assert f'<clipboard-copy for="cell-3" aria-label="{name}"><span class="notice" hidden>{words}</span>' in out
    assert '<div tabindex="0" class="highlight-ipynb">' in out


def test_a_notebook_pages_copy_button_script_is_one_file_for_every_page(tmp_path):
    """The converter's script of the copy buttons (4 KB) is served once, as a classic script that runs where
    it stood; the theme's own short inline scripts stay where they are."""
    clipboard = "(function (global, factory) {" + " " * 2000 + "})();"
    page = (f'<script>__md_scope=new URL("..",location)</script><article><script>\n{clipboard}</script>'
            '<div class="highlight-ipynb"></div></article>')
    written = []
    out = notebook_pages.finish(page, "en", tmp_path, "en/x/notebook/", written)
    assert '<script>__md_scope=new URL("..",location)</script>' in out and clipboard not in out
    [name] = written
    assert name.startswith("assets/notebook/") and name.endswith(".js")
    assert f'<script src="../../../{name}"></script>' in out
    assert (tmp_path / name).read_text(encoding="utf-8") == f"\n{clipboard}"


def test_every_language_has_every_label_the_english_has():
    missing = {lang: sorted(set(LABELS["en"]) - set(words)) for lang, words in LABELS.items()}
    assert not any(missing.values()), missing


@pytest.mark.parametrize("lang", ["ko"])
def test_korean_labels_need_no_fallback_particles(lang):
    assert not [k for k, v in LABELS[lang].items() if "(가)" in v or "(는)" in v or "(을)" in v or "(이)" in v]


def test_the_status_table_names_pages_by_title_and_languages_by_name_with_links():
    from tcguide.site import render
    from tcguide.i18n.translations import Status

    rows = [Status("ru", "x.md", "up to date"), Status("ko", "x.md", "missing"), Status("ja", "x.md", "untranslated")]
    out = render.status_table(rows, ["ru", "ko", "ja"], "ru", {"x.md": "Compile time"},
                              lambda lang, page: f"/{lang}/{page.removesuffix('.md')}")
    assert '<th><a href="/ru/" hreflang="ru" lang="ru">русский</a></th>' in out
    assert '<th><a href="/ko/" hreflang="ko" lang="ko">한국어</a></th>' in out
    assert '<td><a href="/en/x" hreflang="en" lang="en">Compile time</a></td>' in out
    assert '<td class="tcg-ok"><a href="/ru/x" hreflang="ru">актуален</a></td>' in out
    assert '<td class="tcg-missing">нет перевода</td>' in out  # nothing to link to
    assert '<td class="tcg-outdated"><a href="/ja/x" hreflang="ja">не переведено</a></td>' in out
    assert '<th><a href="/ja/" hreflang="ja" lang="ja">ja</a></th>' in out  # a language with no words yet: its code
    assert "x.md" not in out and "<code>" not in out
