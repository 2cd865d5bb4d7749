"""`make new-language`: a throwaway language scaffolded in a copy of a small site made with the guide's
own mkdocs.yml, glossaries, templates and assets. Its entry in mkdocs.yml sits after the last language's,
in their form, with its own palette labels and description (English, to translate); its glossary and
style guide start from English; every page it starts with is "not translated", in the status and on the
built pages, under a UI that is English until translated, never Korean; and the browser and build tests
take it in. The site is small (a home page, a chapter with a cell and a glued figure, the contributing
pages), so the build takes seconds; the guide's own pages are built by test_build."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tcguide.core import languages
from tcguide.core.errors import GuideError
from tcguide.core.labels import LABELS
from tcguide.i18n import glossary as glossaries
from tcguide.i18n import scaffold
from tcguide.i18n import translations as i18n
from tests.helpers import SMALL_PAGES, LANGUAGES, ROOT, language_entries, make_small_guide, site_setting, toggle_names



@pytest.fixture(scope="module")
def small_guide(tmp_path_factory) -> Path:
    """The guide's configuration, glossaries and assets, with four small pages in each language."""
    return make_small_guide(tmp_path_factory.mktemp("guide"))


def test_the_small_site_has_the_guides_languages_and_no_translation_problem(small_guide):
    site = i18n.Site(small_guide)
    assert site.languages() == i18n.Site(ROOT).languages()
    assert i18n.all_structure_problems(site) == []
    assert all(row.state == "up to date" for row in i18n.report(site)), i18n.report(site)


@pytest.fixture(scope="module")
def with_japanese(small_guide, tmp_path_factory) -> Path:
    """The small guide with a throwaway language scaffolded, as `make new-language LOCALE=ja` does, and
    built strictly into site/."""
    copy = tmp_path_factory.mktemp("scaffolded") / "guide"
    shutil.copytree(small_guide, copy)
    done = subprocess.run([sys.executable, "-m", "tcguide", "new-language", "ja"], cwd=copy, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:3] == ["mkdocs.yml", "i18n/glossary-ja.md", "i18n/style-ja.md"]
    env = dict(os.environ, TCGUIDE_NOTEBOOKS="false", NO_MKDOCS_2_WARNING="1")
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(copy / "site")],
                           cwd=copy, env=env, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-3000:]
    return copy


def test_the_new_languages_entry_follows_the_last_language_in_the_same_form(small_guide, with_japanese):
    before = (small_guide / "mkdocs.yml").read_text(encoding="utf-8").splitlines()
    after = (with_japanese / "mkdocs.yml").read_text(encoding="utf-8").splitlines()
    start = after.index("        - locale: ja")
    added = len(after) - len(before)
    assert after[:start] + after[start + added:] == before  # only inserted, nothing else moved
    assert after[start - 1].strip() == "Contributing: 기여하기"  # right after the last language's last line
    assert after[start + added].startswith("  # Each page's last update")  # before the next plugin's comment
    entries = language_entries(with_japanese)
    assert list(entries) == [*language_entries(small_guide), "ja"]
    japanese, korean = entries["ja"], entries["ko"]
    assert list(japanese) == list(korean)  # the same keys, in the same order as the other languages
    assert japanese["site_name"] == site_setting("en", "site_name", small_guide)  # English, to translate
    assert japanese["site_description"] == site_setting("en", "site_description", small_guide)
    assert toggle_names("ja", with_japanese) == toggle_names("en", small_guide) == ["Switch to dark mode",
                                                                                   "Switch to light mode"]
    marked = [line for line in after[start:start + added] if line.endswith("# translate")]
    assert len(marked) == 5  # site name and description, the two toggles, the nav's one title


def test_the_new_glossary_and_style_guide_start_from_english(with_japanese):
    glossary = (with_japanese / "i18n" / "glossary-ja.md").read_text(encoding="utf-8")
    assert not re.search(r"[\uac00-\ud7a3\u0400-\u04ff\u4e00-\u9fff]", glossary)  # no row of another language's
    assert "{code}" not in glossary and "{titles}" not in glossary
    terms = glossaries.english_terms(with_japanese / "i18n" / "glossary-ja.md")
    assert terms[:3] == ["graph break", "guard", "eager mode"]
    assert "quoted figure (`{{quote:FIGURE|SOURCE}}`)" in terms and "Speedups (`speedups.md`)" in terms
    titles = [f"{text.split(chr(10))[0][2:]} (`{name}`)" for name, text in sorted(SMALL_PAGES["en"].items())]
    assert terms == glossaries.english_terms(ROOT / "i18n" / "glossary-template.md") + titles
    assert all(row.cells[1] == "" for table in glossaries.tables(with_japanese / "i18n" / "glossary-ja.md")
               if table.header[:2] == ["English", "ja"] for row in table.rows)  # to translate
    for section in ("## Numbers, units and figures", "## Style", "## Forbidden variants"):
        assert f"\n{section}\n" in glossary, section
    assert "| seconds | `{{…:.1f}} s` |  |" in glossary and "[style-ja.md](style-ja.md)" in glossary
    assert glossaries.forbidden_variants(with_japanese / "i18n" / "glossary-ja.md") == []
    style = (with_japanese / "i18n" / "style-ja.md").read_text(encoding="utf-8")
    sections = [line for line in style.splitlines() if line.startswith("## ")]
    for existing in ("ru", "zh", "ko"):  # the same sections as the other languages' guides
        theirs = [line for line in (ROOT / "i18n" / f"style-{existing}.md").read_text(encoding="utf-8").splitlines()
                  if line.startswith("## ")]
        assert len(sections) == len(theirs), existing
    assert "[glossary-ja.md](glossary-ja.md)" in style


def test_the_new_languages_pages_are_not_translated_not_outdated(with_japanese):
    site = i18n.Site(with_japanese)
    states = {row.page: row for row in i18n.report(site) if row.lang == "ja"}
    assert len(states) == len(site.pages()) == len(SMALL_PAGES["en"])
    assert all(row.state == "untranslated" for row in states.values()), states
    assert i18n.all_structure_problems(site) == []
    status = subprocess.run([sys.executable, "-m", "tcguide", "i18n-status"], cwd=with_japanese, capture_output=True,
                            text=True, timeout=120)
    assert "ja: 0 up to date, 0 outdated, 4 not translated, 0 missing" in status.stdout
    assert "outdated" not in status.stdout.split("ja: ")[1].split("\n", 1)[1]


def test_the_new_languages_pages_say_they_are_not_translated_in_a_ui_that_is_not_koreans(with_japanese):
    korean = [*toggle_names("ko", with_japanese), site_setting("ko", "site_name", with_japanese),
              site_setting("ko", "site_description", with_japanese), LABELS["ko"]["untranslated"]]
    for name in SMALL_PAGES["en"]:
        folder = with_japanese / "site" / "ja" / ("" if name == "index.md" else name.removesuffix(".md"))
        page = (folder / "index.html").read_text(encoding="utf-8")
        assert 'lang="ja"' in page
        assert LABELS["en"]["untranslated"] in page, name  # English until the language has its words
        assert "earlier version" not in page and "of its prose words are English" not in page, name
        assert [words for words in korean if words in page] == [], name
        assert 'title="Switch to dark mode"' in page and 'title="Switch to light mode"' in page
    assert "tcg-glue" in (with_japanese / "site" / "ja" / "speedups" / "index.html").read_text(encoding="utf-8")
    status = (with_japanese / "site" / "ja" / "translation-status" / "index.html").read_text(encoding="utf-8")
    assert '<th><a href="../" hreflang="ja" lang="ja">ja</a></th>' in status  # its code until labels.py names it
    assert status.count(f">{LABELS['en']['untranslated_state']}</a>") == len(SMALL_PAGES["en"])


def test_the_tests_run_for_every_configured_language(with_japanese):
    """The browser and build tests take their languages from mkdocs.yml: a new language is tested with them."""
    assert languages.configured(with_japanese) == [*LANGUAGES, "ja"]
    four = re.compile(r"""["']en["'],\s*["']ru["'],\s*["']zh["'],\s*["']ko["']|["']ru["'],\s*["']zh["'],\s*["']ko["']""")
    for test in ("test_browser.py", "test_build.py"):
        text = (ROOT / "tests" / test).read_text(encoding="utf-8")
        assert not four.search(text), f"tests/{test} lists the languages instead of taking LANGUAGES"
        assert "LANGUAGES" in text


def test_a_configured_or_malformed_language_is_refused(small_guide):
    with pytest.raises(GuideError, match="configured already"):
        scaffold.new_language(small_guide, "ru")
    with pytest.raises(GuideError, match="is not a locale"):
        scaffold.new_language(small_guide, "ja; rm")
