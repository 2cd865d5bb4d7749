"""The boxes that say what changed in torch releases newer than the one the outputs come from:
``!!! newer "In torch 2.12 to 2.15"``, at most one a page, placed before the page's first section,
each item starting with its release and ending with a link to its source; every translation has
its English page's boxes, with the same releases and the same links (docs/en/contributing.md,
"Newer releases", says how they are written and retired)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tcguide.core import directive, languages

ROOT = Path(__file__).resolve().parent.parent
ENGLISH = sorted((ROOT / "docs" / languages.SOURCE).glob("*.md"))
TRANSLATIONS = [lang for lang in languages.configured(ROOT) if lang != languages.SOURCE]

BOX = re.compile(r'^!!! newer "(?P<title>[^"]+)"\s*$')
LINK = re.compile(r"\]\((?P<url>https?://[^)\s]+)\)")
LEAD = re.compile(r"^\*\*(?P<lead>[^*]+)\*\*")  # "**2.13:**", "**Being prepared:**"
RELEASE = re.compile(r"(?<![\d.])2\.\d+(?![\d.])")  # 2.12, 2.15: a torch release
TRAIL = re.compile(r"[\s)）.。;；]*")  # what may follow the last link: the closing of a sentence


@dataclass
class Item:
    line: int
    text: str


@dataclass
class Box:
    line: int
    title: str
    before_first_section: bool
    items: list[Item] = field(default_factory=list)


def boxes(text: str) -> list[Box]:
    """The page's ``newer`` boxes, each with its items: a list item, wrapped lines joined, or a
    paragraph that is not one (which then has to meet the same rules). Code blocks are not read."""
    found: list[Box] = []
    current: Box | None = None
    in_section = after_blank = False
    for number, line, code in directive.lines_with_code_flag(text):
        if current is not None:
            if not line.strip():
                after_blank = True
                continue
            if line.startswith("    "):
                body = line[4:]
                if current.items and not after_blank and not body.startswith("- "):
                    current.items[-1].text += " " + body.strip()
                else:
                    current.items.append(Item(number, body.removeprefix("- ").strip()))
                after_blank = False
                continue
            current = None
        if code:
            continue
        in_section = in_section or line.startswith("## ")
        if match := BOX.match(line):
            current = Box(number, match["title"], not in_section)
            found.append(current)
            after_blank = False
    return found


def item_problems(item: Item) -> list[str]:
    """What is wrong with one item: no link, or words after its last link."""
    links = list(LINK.finditer(item.text))
    if not links:
        return [f"{item.line}: an item without a link to its source"]
    if not TRAIL.fullmatch(item.text[links[-1].end():]):
        return [f"{item.line}: an item that does not end with the link to its source"]
    return []


def page_problems(text: str, english: bool) -> list[str]:
    """What is wrong with a page's boxes on their own: more than one, one after the first section,
    an empty one, or an item without its source at its end (or, in English, without its lead)."""
    found = boxes(text)
    problems = [f"{box.line}: {len(found)} newer boxes; a page has at most one" for box in found[1:]]
    for box in found:
        if not box.before_first_section:
            problems.append(f"{box.line}: a newer box after the page's first section; it goes before it")
        if not box.items:
            problems.append(f"{box.line}: a newer box with no item")
        for item in box.items:
            problems += item_problems(item)
            if english and not LEAD.match(item.text):
                problems.append(f"{item.line}: an item that does not start with its release in bold (**2.13:**)")
    return problems


def _shape(box: Box) -> tuple[list[str], list[tuple[list[str], list[str]]]]:
    """What a translation keeps of a box: the releases its title names, and per item the releases its
    lead names and its links, in order."""
    items = []
    for item in box.items:
        lead = LEAD.match(item.text)
        items.append((RELEASE.findall(lead["lead"]) if lead else [], [m["url"] for m in LINK.finditer(item.text)]))
    return RELEASE.findall(box.title), items


def translation_problems(english: str, translation: str) -> list[str]:
    """Where a translation's boxes differ from its English page's: their number, the releases their
    titles and items name, and the links of each item."""
    theirs, ours = boxes(english), boxes(translation)
    if len(theirs) != len(ours):
        return [f"{ours[0].line if ours else 1}: {len(ours)} newer boxes, the English page has {len(theirs)}"]
    problems = []
    for en, tr in zip(theirs, ours):
        (en_title, en_items), (tr_title, tr_items) = _shape(en), _shape(tr)
        if en_title != tr_title:
            problems.append(f"{tr.line}: the title names {tr_title}, the English title {en_title}")
        if len(en_items) != len(tr_items):
            problems.append(f"{tr.line}: {len(tr_items)} items, the English box has {len(en_items)}")
            continue
        for item, (en_releases, en_links), (tr_releases, tr_links) in zip(tr.items, en_items, tr_items):
            if en_releases != tr_releases:
                problems.append(f"{item.line}: the item's lead names {tr_releases}, the English one {en_releases}")
            if en_links != tr_links:
                problems.append(f"{item.line}: the item links {tr_links}, the English one {en_links}")
    return problems


PAGE = """\
# A chapter

Its first paragraph.

!!! newer "In torch 2.12 to 2.13"
    - **2.12:** a change that takes
      two lines ([PR #1](https://github.com/pytorch/pytorch/pull/1)).
    - **2.13:** another, with two sources ([docs](https://docs.pytorch.org/docs/2.13/a.html),
      [PR #2](https://github.com/pytorch/pytorch/pull/2)).

!!! note "Not a newer box"
    No link here.

```text
!!! newer "In a code block"
    - **2.14:** not read.
```

## A section
"""


def test_the_reader_finds_the_box_its_items_and_their_links():
    [box] = boxes(PAGE)
    assert (box.line, box.title, box.before_first_section) == (5, "In torch 2.12 to 2.13", True)
    assert [item.line for item in box.items] == [6, 8]
    assert box.items[0].text == ("**2.12:** a change that takes two lines "
                                 "([PR #1](https://github.com/pytorch/pytorch/pull/1)).")
    assert _shape(box) == (["2.12", "2.13"], [(["2.12"], ["https://github.com/pytorch/pytorch/pull/1"]),
                                              (["2.13"], ["https://docs.pytorch.org/docs/2.13/a.html",
                                                          "https://github.com/pytorch/pytorch/pull/2"])])
    assert page_problems(PAGE, english=True) == []


@pytest.mark.parametrize("change, problem", [
    (("([PR #1](https://github.com/pytorch/pytorch/pull/1)).", "(PR 1)."), "6: an item without a link to its source"),
    (("pull/1)).", "pull/1)), said the PR."), "6: an item that does not end with the link to its source"),
    (("- **2.12:** a change", "- A change"), "6: an item that does not start with its release in bold (**2.13:**)"),
    (("## A section\n", '## A section\n\n!!! newer "In torch 2.14"\n    - **2.14:** x ([a](https://a.org/b)).\n'),
     "21: 2 newer boxes; a page has at most one"),
])
def test_a_box_that_breaks_a_rule_is_reported_with_its_line(change, problem):
    assert problem in page_problems(PAGE.replace(*change), english=True)


def test_a_box_after_the_first_section_is_reported():
    page = "# A chapter\n\n## A section\n\n" + PAGE[PAGE.index("!!! newer"):PAGE.index("!!! note")]
    assert page_problems(page, english=True) == ["5: a newer box after the page's first section; it goes before it"]


TRANSLATED = PAGE.replace("a change that takes\n      two lines", "изменение в две\n      строки").replace(
    "In torch 2.12 to 2.13", "В torch 2.12–2.13").replace("another, with", "другое, с").replace("[docs]", "[документация]")


def test_a_translation_keeps_the_releases_and_the_links_and_translates_the_rest():
    assert translation_problems(PAGE, TRANSLATED) == []


@pytest.mark.parametrize("change, problem", [
    (("В torch 2.12–2.13", "В torch 2.12"), "5: the title names ['2.12'], the English title ['2.12', '2.13']"),
    (("**2.13:**", "**2.14:**"), "8: the item's lead names ['2.14'], the English one ['2.13']"),
    (("pull/2", "pull/3"), "8: the item links ['https://docs.pytorch.org/docs/2.13/a.html', "
                           "'https://github.com/pytorch/pytorch/pull/3'], the English one "
                           "['https://docs.pytorch.org/docs/2.13/a.html', 'https://github.com/pytorch/pytorch/pull/2']"),
    (("!!! newer", "!!! note"), "1: 0 newer boxes, the English page has 1"),
])
def test_a_translation_whose_box_differs_is_reported_with_its_line(change, problem):
    assert translation_problems(PAGE, TRANSLATED.replace(*change)) == [problem]


@pytest.mark.parametrize("page", ENGLISH, ids=lambda p: p.name)
def test_each_english_page_has_at_most_one_box_and_every_item_ends_with_its_source(page):
    problems = page_problems(page.read_text(encoding="utf-8"), english=True)
    assert not problems, "\n".join(f"{page.relative_to(ROOT)}:{p}" for p in problems)


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_each_translation_has_the_boxes_of_its_english_page_with_the_same_links(lang):
    problems = []
    for english in ENGLISH:
        translated = ROOT / "docs" / lang / english.name
        if not translated.exists():
            continue  # a missing translation is reported by the translation checks
        text = translated.read_text(encoding="utf-8")
        where = translated.relative_to(ROOT)
        problems += [f"{where}:{p}" for p in page_problems(text, english=False)]
        problems += [f"{where}:{p}" for p in translation_problems(english.read_text(encoding="utf-8"), text)]
    assert not problems, "\n".join(problems)
