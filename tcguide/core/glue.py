"""Figures in prose that come from captured outputs, so they cannot drift from them.

A snippet cell names the variables it glues (``# %% measure glue=speedup,eager_ms``);
capture stores their values with the cell's output. A page, in any language, writes a
reference instead of the number::

    reduce-overhead made it {{speedups/resnet18_training_bfloat16.py:speedup.reduce-overhead:.2f}}× faster

that is ``{{FILE.py:NAME[.KEY...][:FORMAT]}}``: the snippet file (relative to snippets/),
the glued variable, optional keys or list indices into it (a key may hold words with single
spaces between them, as a table's labels do: ``fixes.padded to 5 buckets.graphs``), and an optional Python format
spec (``.2f``, ``,d``, ``.0%``; numbers only; default ``.3g`` for floats). The build writes
the value in the page's language (a decimal comma and thin-space thousands in Russian)
in a ``<span data-cell="…">`` whose tooltip names the cell and the capture.

A figure quoted from elsewhere (a paper, an old notebook) is marked as a quote with its
source, ``{{quote:0.004×|a published notebook}}``, so that every figure in the prose is
one or the other. References inside code (fenced or inline) are left alone. Claim marks,
``{{claim:ID}}…{{/claim}}``, are the ``claims`` module's.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from tcguide.core import directive
from tcguide.core.catalog import Catalog
from tcguide.core.errors import GuideError
from tcguide.core.labels import label
from tcguide.core.environment import Environment

TOKEN = re.compile(r"\{\{(?P<body>[^{}\n]*)\}\}")
REFERENCE = re.compile(
    r"""(?x)^(?P<file>[A-Za-z0-9_][\w./-]*\.py)             # snippet file, relative to snippets/
        :(?P<name>[A-Za-z_]\w*)                              # glued variable,
        (?P<keys>(?:\.[\w-]+(?:\ [\w-]+)*)*)                # then keys (words, single spaces between) or indices
        (?::(?P<spec>[^:]*))?$                              # format spec"""
)
QUOTE = re.compile(r"^quote:(?P<text>[^|]+)\|(?P<source>.+)$")
CODE_SPAN = re.compile(r"(`+).+?\1")
SYNTAX = "write {{FILE.py:NAME:.2f}} for a captured value, or {{quote:FIGURE|SOURCE}} for a quoted one"
DEFAULT_SPEC = {int: ",d", float: ".3g"}


@dataclass(frozen=True)
class Reference:
    line: int  # 1-based, in the page's file
    text: str  # as written, braces included
    file: str = ""
    name: str = ""
    keys: tuple[str, ...] = ()
    spec: str | None = None
    quote: tuple[str, str] | None = None  # (figure, source) of a quoted figure


def tokens(line: str):
    """The {{...}} tokens of a line of prose, outside code spans: (start, end, body)."""
    code = [m.span() for m in CODE_SPAN.finditer(line)]
    for match in TOKEN.finditer(line):
        if not any(start <= match.start() < end for start, end in code):
            yield match.start(), match.end(), match["body"].strip()


def is_claim_mark(body: str) -> bool:
    """``{{claim:ID}}`` and ``{{/claim}}`` bound prose to a claim (``claims``); they are no figure."""
    return body.startswith(("claim:", "/claim"))


def parse(body: str, line: int, page: str) -> Reference:
    text = "{{" + body + "}}"
    if quoted := QUOTE.match(body):
        return Reference(line, text, quote=(quoted["text"].strip(), quoted["source"].strip()))
    match = REFERENCE.match(body)
    if not match:
        raise GuideError(page, line, f"malformed figure reference {text}", SYNTAX)
    keys = tuple(match["keys"].split(".")[1:]) if match["keys"] else ()
    return Reference(line, text, match["file"], match["name"], keys, match["spec"])


def find(markdown: str, page: str, start: int = 1) -> tuple[list[Reference], list[GuideError]]:
    """Every figure reference of a page's prose in order, and errors for malformed ones."""
    found, errors = [], []
    for number, line, code in directive.lines_with_code_flag(markdown, start):
        if code:
            continue
        for _, _, body in tokens(line):
            if is_claim_mark(body):
                continue
            try:
                found.append(parse(body, number, page))
            except GuideError as exc:
                errors.append(exc)
    return found, errors


@dataclass(frozen=True)
class Resolved:
    value: object
    source: str  # "snippets/x.py#cell"
    title: str  # the capture it comes from: where and when


def resolve(ref: Reference, catalog: Catalog, page: str) -> Resolved:
    """The captured value a reference names; GuideError (page and line) if it is missing or stale."""
    def fail(problem: str, remedy: str = "") -> GuideError:
        return GuideError(page, ref.line, f"{ref.text}: {problem}", remedy)

    try:
        snippet_file = catalog.snippet(ref.file)
    except GuideError as exc:
        raise fail(str(exc)) from None
    cell = snippet_file.glued_by(ref.name)
    if cell is None:
        glued = ", ".join(n for c in snippet_file.cells for n in c.glue) or "nothing"
        raise fail(f"{snippet_file.path} glues no value '{ref.name}' (it glues: {glued})",
                   "add it to a cell's glue= list and recapture, or name one of those")
    capture, problem = catalog.capture(ref.file)
    if problem is not None:
        raise fail(f"its output is not usable: {problem}")
    record = capture.cell(cell.name)
    if record is None or ref.name not in record.glue:
        raise fail(f"the output of cell '{cell.name}' holds no value '{ref.name}'",
                   f"recapture it with: make capture SNIPPETS={snippet_file.path}")
    value, walked = record.glue[ref.name], ref.name
    for key in ref.keys:
        if isinstance(value, dict) and key in value:
            value = value[key]
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            have = (", ".join(value) if isinstance(value, dict) else
                    f"indices 0 to {len(value) - 1}" if isinstance(value, list) else f"a {type(value).__name__}")
            raise fail(f"{walked} has no '{key}' (it has: {have})")
        walked += "." + key
    stamp = capture.captured_at.replace("T", " ")[:16] + " UTC"
    return Resolved(value, f"{snippet_file.path}#{cell.name}", f"{Environment.of(capture.environment).describe()} · {stamp}")


def format_value(value, spec: str | None, lang: str) -> str:
    """A glued value as the page's language writes it; ValueError if it is not a figure."""
    if isinstance(value, str) and not spec:
        return value
    if isinstance(value, bool) or type(value) not in (int, float):
        raise ValueError(f"is {type(value).__name__} {value!r}, not a number; name one of its elements with .KEY")
    spec = DEFAULT_SPEC[type(value)] if spec is None else spec
    if re.search(r"[^\d.,%+\- efgdFEGn_]", spec) or spec.strip() != spec:
        raise ValueError(f"format '{spec}' is not a number format such as .2f, ,d or .0%")
    try:
        text = format(value, spec)
    except ValueError as exc:
        raise ValueError(f"format '{spec}' does not fit {value!r} ({exc})") from None
    decimal, group = label(lang, "decimal_sep"), label(lang, "group_sep")
    text = text.translate({ord(","): "\0", ord("."): decimal}).replace("\0", group)
    return text.replace("-", "\u2212")  # a real minus sign


def _shown(ref: Reference, catalog: Catalog, page: str, lang: str) -> tuple[str, Resolved | None]:
    """The figure as the page's language writes it, and where it comes from (None for a quote)."""
    if ref.quote:
        return ref.quote[0], None
    resolved = resolve(ref, catalog, page)
    try:
        return format_value(resolved.value, ref.spec, lang), resolved
    except ValueError as exc:
        raise GuideError(page, ref.line, f"{ref.text}: the value {exc}",
                         "give a format spec that fits the value, or glue a key that holds a number") from None


def render(ref: Reference, catalog: Catalog, page: str, lang: str) -> str:
    """The HTML that stands for a reference in the page; GuideError if it cannot be resolved."""
    text, resolved = _shown(ref, catalog, page, lang)
    if resolved is None:
        title = label(lang, "quoted").format(source=ref.quote[1])
        return f'<span class="tcg-quote" title="{html.escape(title)}">{html.escape(text)}</span>'
    file, cell = resolved.source.split("#")
    title = label(lang, "glued").format(cell=cell, file=file, where=resolved.title)
    return (f'<span class="tcg-glue" data-cell="{html.escape(resolved.source)}" title="{html.escape(title)}">'
            f"{html.escape(text)}</span>")


def plain(ref: Reference, catalog: Catalog, page: str, lang: str) -> str:
    """The figure alone, as the page's language writes it (a notebook's Markdown has no tooltips),
    escaped: a glued text is a snippet's, and Markdown would pass HTML in it through."""
    return html.escape(_shown(ref, catalog, page, lang)[0], quote=False)


def substitute(markdown: str, catalog: Catalog, page: str, lang: str, start: int = 1, *, as_text: bool = False
               ) -> tuple[str, list[GuideError]]:
    """The page with every reference replaced by its value, and what could not be resolved (each of
    those is shown as a visible mark, so a preview still builds). Lines keep their numbers.
    ``as_text``: plain figures, and unresolvable references left as written (for notebooks)."""
    problems: list[GuideError] = []
    lines = markdown.splitlines()  # as lines_with_code_flag numbers them
    for number, line, code in directive.lines_with_code_flag(markdown, start):
        if code:
            continue
        pieces, last = [], 0
        for begin, end, body in tokens(line):
            if is_claim_mark(body):
                continue
            try:
                rendered = (plain if as_text else render)(parse(body, number, page), catalog, page, lang)
            except GuideError as exc:
                problems.append(exc)
                rendered = line[begin:end] if as_text else (
                    f'<span class="tcg-glue tcg-missing" title="{html.escape(str(exc))}">'
                    f"{html.escape(line[begin:end])}</span>")
            pieces += [line[last:begin], rendered]
            last = end
        if pieces:
            lines[number - start] = "".join(pieces) + line[last:]
    return "\n".join(lines) + ("\n" if markdown.endswith("\n") else ""), problems
