"""One-line directives in pages, identical in every language::

    [[cell getting_started/first_steps.py#compile-a-function]]   embeds a cell and its output
    [[i18n-status]]                                              the translators' status table
    [[capture-times speedups]]                                   how long each file of a folder took

A directive stands alone on its line, at the left margin, outside fenced code blocks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tcguide.core.errors import GuideError

DIRECTIVE = re.compile(
    r"""(?x)^\[\[cell\ (?P<file>[A-Za-z0-9_][\w./-]*\.py)   # snippet file, relative to snippets/
        \#(?P<cell>[a-z0-9][a-z0-9-]*)\]\]\s*$            # '#' and the cell name"""
)
STATUS = re.compile(r"^\[\[i18n-status\]\]\s*$")
TIMES = re.compile(r"^\[\[capture-times (?P<folder>[A-Za-z0-9_][\w./-]*)\]\]\s*$")
# Anything that starts like a directive, at most three spaces in: a line indented four or more is
# indented code (or the content of a list item), where a directive is code and stays text.
LOOKS_LIKE = re.compile(r"^ {0,3}\[\[\s*\w")
FENCE = re.compile(r"^\s*(?P<fence>`{3,}|~{3,})")
HEADING = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<text>.+?)\s*#*\s*$")  # an ATX heading
# A page's YAML front matter, as MkDocs reads it: '---' (trailing blanks allowed), the YAML, and
# '---' or '...'. The one definition: check, the translations, notebooks and the build all use it.
FRONT_MATTER = re.compile(r"\A-{3}[ \t]*\n(?P<yaml>.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.S)
SYNTAX = "write it as [[cell FILE.py#cell-name]] (or [[i18n-status]]) at the start of a line"


@dataclass(frozen=True)
class Directive:
    line: int  # 1-based
    file: str = ""
    cell: str = ""
    kind: str = "cell"  # or "i18n-status", "capture-times" (file holds the folder)

    @property
    def key(self) -> str:
        return f"{self.file}#{self.cell}"

    @property
    def text(self) -> str:
        """The directive as written in the page."""
        return {"cell": f"[[cell {self.key}]]", "i18n-status": "[[i18n-status]]",
                "capture-times": f"[[capture-times {self.file}]]"}[self.kind]


def page_text(text: str) -> str:
    """A page's text as MkDocs hands it over: no byte order mark, '\\n' line ends."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def front_matter(text: str) -> tuple[str | None, str, int]:
    """(the front matter's YAML or None, the page without it, the file's line number of the body's
    first line). A BOM or CRLF line ends change nothing, as in MkDocs."""
    text = page_text(text)
    match = FRONT_MATTER.match(text)
    if not match:
        return None, text, 1
    return match["yaml"], text[match.end():], text[: match.end()].count("\n") + 1


def body(text: str) -> tuple[str, int]:
    """A page without its front matter, and the file's line number of the body's first line."""
    _, rest, first = front_matter(text)
    return rest, first


def stripped_lines(text: str) -> int:
    """How many lines of a page's file come before the Markdown MkDocs hands to plugins: its
    front matter, which MkDocs strips along with the blank lines after it."""
    yaml_text, rest, first = front_matter(text)
    if yaml_text is None:
        return 0
    return first - 1 + len(rest) - len(rest.lstrip("\n"))


def _fenced(text: str, start: int = 1):
    """(line number, line, inside a fenced code block, line of the fence still open or None) for
    every line; fence lines count as code. The one reading of fences that the rest shares."""
    fence: str | None = None
    opened_at: int | None = None
    for number, line in enumerate(text.splitlines(), start=start):
        opened = FENCE.match(line)
        if fence:
            if opened and opened["fence"][0] == fence[0] and len(opened["fence"]) >= len(fence) \
                    and not line.strip()[len(opened["fence"]):].strip():
                fence, opened_at = None, None
            yield number, line, True, opened_at
        elif opened:
            fence, opened_at = opened["fence"], number
            yield number, line, True, opened_at
        else:
            yield number, line, False, None


def lines_with_code_flag(text: str, start: int = 1):
    """(line number, line, inside a fenced code block) for every line; fence lines count as code."""
    for number, line, code, _ in _fenced(text, start):
        yield number, line, code


def unclosed_fence(text: str, start: int = 1) -> int | None:
    """The line of a code fence that the page never closes (None if every fence is closed)."""
    still_open = None
    for *_, still_open in _fenced(text, start):
        pass
    return still_open


def find(markdown: str, page: str, start: int = 1) -> tuple[list[Directive], list[GuideError]]:
    """All directives of a page in order, and errors for lines that look like a broken one.

    ``start`` is the file's line number of the text's first line (after front matter, say)."""
    found: list[Directive] = []
    errors: list[GuideError] = []
    if (fence := unclosed_fence(markdown, start)) is not None:
        errors.append(GuideError(page, fence, "this code fence is never closed: everything after it is code, "
                                 "its directives and figures included", "close it with a line of the same fence"))
    for number, line, code in lines_with_code_flag(markdown, start):
        if code:
            continue
        match = DIRECTIVE.match(line)
        if match:
            found.append(Directive(number, match["file"], match["cell"]))
        elif STATUS.match(line):
            found.append(Directive(number, kind="i18n-status"))
        elif times := TIMES.match(line):
            found.append(Directive(number, times["folder"], kind="capture-times"))
        elif LOOKS_LIKE.match(line):
            errors.append(GuideError(page, number, f"malformed cell directive {line.strip()!r}", SYNTAX))
    return found, errors


def replace(markdown: str, rendered: dict[int, str]) -> str:
    """The page with the directive on each given line replaced by its rendering."""
    lines = markdown.splitlines()
    for number, text in rendered.items():
        lines[number - 1] = text
    return "\n".join(lines) + "\n"
