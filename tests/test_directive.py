import pytest

from tcguide.core import directive
from tcguide.core.directive import find, replace

PAGE = """\
# Title

[[cell topic/a.py#first-cell]]

```markdown
[[cell not/a-directive.py#inside-a-fence]]
```

[[cell b.py#second]]
"""


def test_directives_in_order_with_lines_skipping_fences():
    found, errors = find(PAGE, "docs/en/p.md")
    assert errors == []
    assert [(d.line, d.file, d.cell) for d in found] == [(3, "topic/a.py", "first-cell"), (9, "b.py", "second")]


@pytest.mark.parametrize("line", [
    "[[cel a.py#x]]",
    "[[cell a.py]]",
    "[[cell a.py#Bad]]",
    "[[cell a.py#x]] trailing words",
    "  [[cell a.py#x]]",  # two spaces in: meant as one (four would be indented code)
    "[[cell a.py#x]",
    "[[ cell a.py#x ]]",
])
def test_typos_are_errors_naming_page_and_line(line):
    found, errors = find(f"# T\n\n{line}\n", "docs/en/p.md")
    assert found == []
    (error,) = errors
    assert (error.path, error.line) == ("docs/en/p.md", 3)
    assert "malformed cell directive" in str(error) and "[[cell FILE.py#cell-name]]" in str(error)


def test_replace_swaps_only_the_directive_lines():
    assert replace("a\n[[cell x.py#y]]\nb\n", {2: "X"}) == "a\nX\nb\n"


def test_other_directives():
    found, errors = find("[[i18n-status]]\n[[capture-times speedups]]\n[[capture-times]]\n", "p.md")
    assert [(d.kind, d.file, d.text) for d in found] == [
        ("i18n-status", "", "[[i18n-status]]"), ("capture-times", "speedups", "[[capture-times speedups]]")]
    assert [e.line for e in errors] == [3]


def test_a_fence_never_closed_is_an_error_at_its_line():
    page = "# Title\n\n```python\nx = 1\n```\n\nText.\n\n```\n[[cell a.py#b]]\n\nMore prose that is code now.\n"
    found, errors = find(page, "docs/en/p.md")
    assert found == []
    (error,) = errors
    assert (error.path, error.line) == ("docs/en/p.md", 9)
    assert "never closed" in str(error) and "close it" in str(error)
    closed = page + "```\n"
    assert find(closed, "docs/en/p.md")[1] == []


@pytest.mark.parametrize("page", [
    "Prose.\n\n    [[cell a.py#b]]\n",  # an indented code block
    "- a list item\n\n        [[cell a.py#b]]\n",  # indented code inside a list item
    "- a list item\n\n    [[ some text in brackets\n",  # the list item's own text
])
def test_a_directive_in_indented_code_is_code_not_a_typo(page):
    assert find(page, "p.md") == ([], [])


def test_a_directive_a_few_spaces_in_is_still_a_typo():
    (error,) = find("   [[cel a.py#b]]\n", "p.md")[1]
    assert error.line == 1


@pytest.mark.parametrize("text", [
    "---\ntitle: A\n---\n\n# Page\n",
    "\ufeff---\ntitle: A\n---\n# Page\n",  # a byte order mark: MkDocs drops it, the old check did not
    "---\r\ntitle: A\r\n---\r\n\r\n# Page\r\n",  # CRLF line ends
    "---  \ntitle: A\n...\n# Page\n",  # blanks after the opening '---' and a '...' end: YAML allows both
    "# Page\n\n---\n\ntext\n",  # a rule later on is no front matter
])
def test_front_matter_is_the_one_mkdocs_strips(text):
    """One definition of front matter: the body check and the translations read is the Markdown MkDocs
    hands the plugin, and the line numbers they report are the file's."""
    from mkdocs.utils import meta

    markdown, _ = meta.get_data(directive.page_text(text))
    yaml_text, body, first = directive.front_matter(text)
    assert body.lstrip("\n") == markdown
    assert (yaml_text is None) == (markdown == directive.page_text(text))
    skipped = directive.stripped_lines(text)
    assert directive.page_text(text).splitlines()[skipped:] == markdown.splitlines()
    assert first <= skipped + 1
