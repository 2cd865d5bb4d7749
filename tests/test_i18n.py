"""Translations: status records, drift detection and structure checks, on a small synthetic site."""

import textwrap
from pathlib import Path

import pytest

from tcguide.i18n import translations as i18n
from tcguide.core.errors import GuideError

MKDOCS = """\
site_name: t
plugins:
  - i18n:
      docs_structure: folder
      languages:
        - locale: en
          default: true
          name: English
        - locale: ru
          name: Русский
        - locale: zh
          name: 中文
"""
ENGLISH = """\
# Getting started

Intro.

[[cell a.py#one]]

## Compile a function

Text.

[[cell a.py#two]]

## Modules

More.
"""
RUSSIAN = """\
# Первые шаги

Введение.

[[cell a.py#one]]

## Компиляция функции

Текст.

[[cell a.py#two]]

## Модули

Ещё.
"""


@pytest.fixture
def site(tmp_path) -> i18n.Site:
    (tmp_path / "mkdocs.yml").write_text(MKDOCS)
    for lang, text in (("en", ENGLISH), ("ru", RUSSIAN)):
        (tmp_path / "docs" / lang).mkdir(parents=True)
        (tmp_path / "docs" / lang / "start.md").write_text(text)
    return i18n.Site(tmp_path)


def write(site, lang, text):
    site.path(lang, "start.md").write_text(textwrap.dedent(text))


def test_languages_come_from_mkdocs_yml(site):
    assert site.languages() == ["en", "ru", "zh"]


def test_missing_unstamped_stamped_and_outdated(site):
    assert i18n.status(site, "zh", "start.md").state == "missing"
    unstamped = i18n.status(site, "ru", "start.md")
    assert unstamped.state == "outdated" and "never stamped" in unstamped.changes[0]
    i18n.stamp(site, "ru", "start.md")
    assert i18n.status(site, "ru", "start.md").state == "up to date"
    assert site.path("ru", "start.md").read_text().endswith(RUSSIAN)  # the translation itself is untouched
    write(site, "en", ENGLISH.replace("## Modules", "## Modules and methods"))
    outdated = i18n.status(site, "ru", "start.md")
    assert outdated.state == "outdated"
    assert outdated.changes == ("renamed: Modules → Modules and methods",)
    write(site, "en", ENGLISH + "\n## Extra\n\nNew text.\n")
    assert i18n.status(site, "ru", "start.md").changes == ("new: Extra",)
    write(site, "en", ENGLISH.replace("## Modules\n\nMore.\n", ""))
    assert i18n.status(site, "ru", "start.md").changes == ("removed: Modules",)
    write(site, "en", ENGLISH.replace("Text.", "Better text."))
    assert i18n.status(site, "ru", "start.md").changes == ("changed: Compile a function",)
    i18n.stamp(site, "ru", "start.md")
    assert i18n.status(site, "ru", "start.md").state == "up to date"


def test_report_lists_every_page_and_language(site):
    rows = i18n.report(site)
    assert [(r.lang, r.page, r.state) for r in rows] == [("ru", "start.md", "outdated"), ("zh", "start.md", "missing")]


def test_same_structure_has_no_problems(site):
    assert i18n.structure_problems(site, "ru", "start.md") == []


def test_different_cells_are_reported_with_page_and_line(site):
    write(site, "ru", RUSSIAN.replace("[[cell a.py#two]]", "[[cell a.py#three]]"))
    (problem,) = i18n.structure_problems(site, "ru", "start.md")
    assert str(problem).startswith("docs/ru/start.md:11: cell 2 embeds [[cell a.py#three]]; "
                                   "English has [[cell a.py#two]] (docs/en/start.md:11)")
    write(site, "ru", RUSSIAN.replace("[[cell a.py#two]]\n", ""))
    (problem,) = i18n.structure_problems(site, "ru", "start.md")
    assert "cell 2 embeds nothing; English has [[cell a.py#two]]" in str(problem)


def test_different_headings_are_reported_with_page_and_line(site):
    write(site, "ru", RUSSIAN.replace("## Модули", "### Модули"))
    (problem,) = i18n.structure_problems(site, "ru", "start.md")
    assert str(problem).startswith("docs/ru/start.md:13: heading 3 'Модули' is level 3; "
                                   "English docs/en/start.md:13 'Modules' is level 2")
    write(site, "ru", RUSSIAN + "\n## Лишний раздел\n")
    (problem,) = i18n.structure_problems(site, "ru", "start.md")
    assert str(problem).startswith("docs/ru/start.md:17: has 4 headings, English docs/en/start.md has 3")


def test_headings_inside_code_fences_do_not_count(site):
    write(site, "ru", RUSSIAN + "\n```python\n# not a heading\n```\n")
    assert i18n.structure_problems(site, "ru", "start.md") == []


def test_translation_without_english_page_is_a_problem(site):
    (site.root / "docs" / "ru" / "extra.md").write_text("# Лишняя\n")
    problems = i18n.all_structure_problems(site)
    assert [str(p) for p in problems] == [
        "docs/ru/extra.md: has no English source page — rename it to match a page in docs/en/, or delete it"]


@pytest.mark.parametrize("front, line", [
    ("---\ntranslation:\n  version: abc\n\tstamped: yes\n---\n", 4),  # the line with the tab
    ("---\ntranslation: [unclosed\n---\n", 3),  # YAML finds the list unclosed where the front matter ends
])
def test_malformed_front_matter_names_the_line(site, front, line):
    write(site, "ru", front + RUSSIAN)
    with pytest.raises(GuideError) as caught:
        i18n.status(site, "ru", "start.md")
    assert (caught.value.path, caught.value.line) == ("docs/ru/start.md", line)
    assert str(caught.value).startswith(f"docs/ru/start.md:{line}: malformed front matter — "), str(caught.value)


def test_every_configured_language_has_every_label():
    from tcguide.core.labels import LABELS

    root = Path(__file__).resolve().parent.parent
    for lang in i18n.Site(root).languages():
        assert lang in LABELS, f"tcguide/core/labels.py has no labels for '{lang}', configured in mkdocs.yml"
        assert set(LABELS[lang]) == set(LABELS["en"]), f"labels of '{lang}' differ from English"


def test_every_translation_has_the_structure_of_its_english_page():
    root = Path(__file__).resolve().parent.parent
    problems = i18n.all_structure_problems(i18n.Site(root))
    assert not problems, "\n".join(map(str, problems))


def test_a_translation_must_quote_the_figures_its_english_page_quotes(site):
    write(site, "en", ENGLISH.replace("Text.", "It took {{a.py:t.cold:.1f}} s, once {{quote:0.004×|a notebook}}."))
    write(site, "ru", RUSSIAN + "\nЗаняло {{a.py:t.cold:,.2f}} с.\n")
    (problem,) = i18n.structure_problems(site, "ru", "start.md")  # another format is fine; the quote is missing
    assert str(problem).startswith("docs/ru/start.md:1: lacks 1 figure(s) of the English page: {{quote:0.004×}} "
                                   "(docs/en/start.md:")
    write(site, "ru", RUSSIAN + "\n{{a.py:t.cold}} с, {{quote:0.004×|блокнот}}, {{a.py:t.warm}} с.\n")
    (problem,) = i18n.structure_problems(site, "ru", "start.md")
    assert "quotes {{a.py:t.warm}}, which the English page does not" in str(problem)


def test_a_stamped_page_that_is_mostly_english_is_not_translated(site):
    write(site, "ru", ENGLISH)
    i18n.stamp(site, "ru", "start.md")
    state = i18n.status(site, "ru", "start.md")
    assert state.state == "untranslated" and state.english == 1.0
    assert state.changes == ("100% of its prose words are English (a translation has at most 15%)",)
    write(site, "en", ENGLISH.replace("Text.", "Better text."))  # English moves on: still not translated, not outdated
    assert i18n.status(site, "ru", "start.md").state == "untranslated"
    write(site, "ru", RUSSIAN)
    i18n.stamp(site, "ru", "start.md")
    assert i18n.status(site, "ru", "start.md").state == "up to date"  # code, identifiers and cells don't count


def prose(english_words: int, russian_words: int) -> str:
    """A page with the English page's headings and cells, and prose of so many words of each language."""
    return RUSSIAN.replace("Введение.", " ".join(["word"] * english_words + ["слово"] * russian_words) + ".")


@pytest.mark.parametrize("english_words, russian_words, state", [
    (49, 51, "untranslated"),  # 49 % English: the limit of a half let this pass as translated
    (20, 80, "untranslated"),  # one English paragraph in five
    (10, 90, "up to date"),  # the share of a translation that keeps its glossary's English terms
])
def test_a_translation_has_at_most_fifteen_percent_english_words(site, english_words, russian_words, state):
    write(site, "ru", prose(english_words, russian_words))
    i18n.stamp(site, "ru", "start.md")
    share = i18n.english_share(site.read("ru", "start.md"), "ru")
    assert abs(share - english_words / (english_words + russian_words + 5)) < 0.01  # and the 5 words of the rest
    assert i18n.status(site, "ru", "start.md").state == state


def test_a_section_renamed_and_rewritten_reports_both(site):
    i18n.stamp(site, "ru", "start.md")
    write(site, "en", ENGLISH.replace("## Modules\n\nMore.", "## Modules and methods\n\nMuch more."))
    assert i18n.status(site, "ru", "start.md").changes == ("renamed: Modules → Modules and methods",
                                                           "changed: Modules and methods")
    write(site, "en", ENGLISH.replace("## Modules\n", "## Modules and methods\n"))  # the heading alone
    assert i18n.status(site, "ru", "start.md").changes == ("renamed: Modules → Modules and methods",)


def test_a_translation_record_that_is_not_a_mapping_names_the_page(site):
    write(site, "ru", "---\ntitle: Первые шаги\ntranslation: [a, b]\n---\n" + RUSSIAN)
    with pytest.raises(GuideError, match=r"^docs/ru/start.md:3: its 'translation' record is not a mapping"):
        i18n.status(site, "ru", "start.md")


def test_a_forbidden_variant_of_the_glossary_fails_with_page_and_line(site):
    (site.root / "i18n").mkdir()
    (site.root / "i18n" / "glossary-ru.md").write_text(
        "# Глоссарий\n\n| English | Русский |\n|---|---|\n| capture | прогон |\n\n## Forbidden variants\n\n"
        "| Variant | Use instead | Why |\n|---|---|---|\n| «запись вывода» | «прогон» | занято CUDA-графами |\n")
    write(site, "ru", RUSSIAN + "\nЗапись вывода шла долго. `запись вывода` в коде не считается.\n")
    (problem,) = i18n.glossary_problems(site, "ru")
    assert str(problem) == ("docs/ru/start.md:17: uses «запись вывода», a variant the glossary forbids — "
                            "write «прогон» (i18n/glossary-ru.md)")


def test_a_glossary_cell_may_hold_an_escaped_bar(tmp_path):
    from tcguide.i18n import glossary

    file = tmp_path / "glossary-ru.md"
    file.write_text("| English | Русский | Примечание |\n|---|---|---|\n"
                    "| quoted figure (`{{quote:FIGURE\\|SOURCE}}`) | цитируемое значение | |\n| guard | гард | |\n")
    assert glossary.english_terms(file) == ["quoted figure (`{{quote:FIGURE|SOURCE}}`)", "guard"]
    assert glossary.translations(file) == ["цитируемое значение", "гард"]


PORTUGUESE = ENGLISH.replace("Intro.", "Uma introdução curta para quem compila modelos pela primeira vez.") \
    .replace("Text.", "Texto sobre como compilar uma função com torch.compile.").replace("More.", "Mais texto sobre os módulos.") \
    .replace("# Getting started", "# Primeiros passos").replace("## Compile a function", "## Compilar uma função") \
    .replace("## Modules", "## Módulos")


def test_a_language_in_latin_letters_is_told_from_english_by_the_english_pages_words(tmp_path):
    """Its words are in the same letters as English: the English ones are those the English page uses."""
    (tmp_path / "mkdocs.yml").write_text(MKDOCS.replace("locale: zh", "locale: pt_BR"))
    (tmp_path / "docs" / "en").mkdir(parents=True)
    (tmp_path / "docs" / "pt_BR").mkdir(parents=True)
    site = i18n.Site(tmp_path)
    write(site, "en", ENGLISH.replace("More.", "More about how the modules are compiled, and what that costs."))
    english = site.read("en", "start.md")
    write(site, "pt_BR", PORTUGUESE)
    assert i18n.english_share(site.read("pt_BR", "start.md"), "pt_BR", english) < 0.15
    i18n.stamp(site, "pt_BR", "start.md")
    assert i18n.status(site, "pt_BR", "start.md").state == "up to date"
    write(site, "pt_BR", english.body)  # the English copy a new language starts with
    assert i18n.english_share(site.read("pt_BR", "start.md"), "pt_BR", english) == 1.0
    assert i18n.status(site, "pt_BR", "start.md").state == "untranslated"


def test_a_japanese_translation_counts_as_translated_and_its_english_copy_does_not(tmp_path):
    """A language with no rule of its own, written without spaces: every two kana or Han characters are a word."""
    (tmp_path / "mkdocs.yml").write_text(MKDOCS.replace("locale: zh", "locale: ja"))
    (tmp_path / "docs" / "en").mkdir(parents=True)
    (tmp_path / "docs" / "ja").mkdir(parents=True)
    site = i18n.Site(tmp_path)
    write(site, "en", ENGLISH)
    write(site, "ja", RUSSIAN.replace("Введение.", "最初の呼び出しでは kernel をコンパイルするので時間がかかります。")
          .replace("Текст.", "関数をコンパイルします。").replace("Ещё.", "モジュールも同じです。")
          .replace("Первые шаги", "はじめに").replace("Компиляция функции", "関数のコンパイル").replace("Модули", "モジュール"))
    assert i18n.english_share(site.read("ja", "start.md"), "ja", site.read("en", "start.md")) < 0.1
    i18n.stamp(site, "ja", "start.md")
    assert i18n.status(site, "ja", "start.md").state == "up to date"
    write(site, "ja", ENGLISH)
    assert i18n.status(site, "ja", "start.md").state == "untranslated"
