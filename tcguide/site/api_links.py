"""API names in prose link to PyTorch's reference: which page documents each name comes from one
committed list (``pytorch-api.toml``), never from a link typed into a page.

An API name is inline code in prose that reads as a torch name: ``torch.compile``,
``torch.compiler.reset()``, ``torch._dynamo.config.suppress_errors = True`` (a name, called or
set). Code blocks, outputs, headings and text that is already a link are left as they are. A name's
page is the list's entry for it, else the entry of the longest ``prefix.*`` above it; a name the list
knows as unlinked (a private module, the guide's own operators) stays plain. A torch name the list
does not know is reported, and the strict build fails until it is added: a new name gets a page
chosen by a person, not a guess.

Works on a page's HTML, after Markdown, which has already told code from prose. Stdlib only.
"""

from __future__ import annotations

import html
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

CACHE_KIND = "links"  # a page's HTML with its names linked, kept by the build's cache (site/build_cache.py)
NAME = r"torch(?:\.[A-Za-z_]\w*)+"
API_CODE = re.compile(rf"(?P<name>{NAME})(?:\(.*\))*(?:\s*=\s*\S.*)?")  # the whole code: a name, called or set
KEY = re.compile(rf"{NAME}(?:\.\*)?")
PAGE = re.compile(r"[\w./-]+\.html(?:#[\w.-]+)?")
BASE = re.compile(r"https://[\w.-]+/[\w./-]*/")
TAG = re.compile(r"<(?P<end>/?)(?P<name>[a-zA-Z][a-zA-Z0-9]*)(?P<attrs>[^>]*)>")
# Where a name is not prose: code blocks (and outputs), headings (their ids and the table of contents),
# links (no link in a link), a folded block's summary (a tap there opens it), scripts and styles.
SKIP = {"pre", "a", "h1", "h2", "h3", "h4", "h5", "h6", "summary", "script", "style"}


@dataclass(frozen=True)
class ApiNames:
    base: str
    pages: dict[str, str]  # name (or 'prefix.*') -> page, relative to base
    unlinked: dict[str, str]  # name (or 'prefix.*') -> why it has no page

    def lookup(self, name: str) -> tuple[bool, str | None]:
        """(whether the list knows the name, the URL of its page or None)."""
        parts = name.split(".")
        keys = [name] + [".".join(parts[:i]) + ".*" for i in range(len(parts) - 1, 0, -1)]
        for key in keys:
            if key in self.pages:
                return True, self.base + self.pages[key]
            if key in self.unlinked:
                return True, None
        return False, None


def problems(data: dict) -> list[str]:
    """What is wrong with the list's contents: each problem a sentence."""
    found = []
    base = data.get("base")
    if not isinstance(base, str) or not BASE.fullmatch(base):
        found.append(f"base must be the reference's https address, ending in '/' (it is {base!r})")
    tables = {name: data.get(name, {}) for name in ("pages", "unlinked")}
    for table, entries in tables.items():
        if not isinstance(entries, dict):
            found.append(f"[{table}] must be a table")
            continue
        for key, value in entries.items():
            if not KEY.fullmatch(key):
                found.append(f"[{table}] {key!r} is not a torch name (torch.a.b, or torch.a.* for the names under it)")
            if table == "pages" and not (isinstance(value, str) and PAGE.fullmatch(value)):
                found.append(f"[pages] {key!r}: {value!r} is not a page of the reference (path/page.html#anchor)")
            if table == "unlinked" and not (isinstance(value, str) and value.strip()):
                found.append(f"[unlinked] {key!r}: say why it has no page")
    both = set(tables["pages"]) & set(tables["unlinked"]) if all(isinstance(t, dict) for t in tables.values()) else ()
    found += [f"{key!r} is both in [pages] and in [unlinked]" for key in sorted(both)]
    extra = set(data) - {"base", "pages", "unlinked"}
    found += [f"unknown key {key!r} (the list has base, [pages] and [unlinked])" for key in sorted(extra)]
    return found


def load(path: Path) -> ApiNames:
    """The list; ValueError naming the file and every problem in it."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: {exc}") from exc
    wrong = problems(data)
    if wrong:
        raise ValueError(f"{path}: " + "; ".join(wrong))
    return ApiNames(data["base"], dict(data.get("pages", {})), dict(data.get("unlinked", {})))


def api_name(code: str) -> str | None:
    """The torch name that inline code states (called or set), or None where it is other code."""
    match = API_CODE.fullmatch(code.strip())
    return match["name"] if match else None


def link(content: str, names: ApiNames) -> tuple[str, list[str]]:
    """A page's HTML with each API name in prose linked to its page; and the inline code of the torch
    names the list does not know, in the order they come."""
    out, unknown, depth, at = [], [], dict.fromkeys(SKIP, 0), 0
    for tag in TAG.finditer(content):
        name = tag["name"].lower()
        if name in SKIP:
            depth[name] = max(0, depth[name] + (-1 if tag["end"] else 1))
            continue
        if name != "code" or tag["end"] or tag["attrs"].strip() or any(depth.values()) or tag.start() < at:
            continue
        close = content.find("</code>", tag.end())
        inner = content[tag.end(): close] if close != -1 else "<"
        if "<" in inner:  # code with markup in it (highlighted): not a plain name
            continue
        torch_name = api_name(html.unescape(inner))
        if torch_name is None:
            continue
        known, url = names.lookup(torch_name)
        if not known:
            unknown.append(html.unescape(inner))
        elif url:
            end = close + len("</code>")
            out.append(content[at: tag.start()])
            out.append(f'<a class="tcg-api" href="{html.escape(url)}" hreflang="en">{content[tag.start(): end]}</a>')
            at = end
    out.append(content[at:])
    return "".join(out), unknown


def line_of(source: str, code: str) -> int | None:
    """The line of the page's source where the inline code first comes, or None."""
    for number, line in enumerate(source.splitlines(), 1):
        if f"`{code}`" in line or f"`` {code} ``" in line:
            return number
    return None


def link_page(content: str, names: ApiNames, source: str, shown: str, listing: str) -> tuple[str, list[str]]:
    """A page's HTML with its API names linked (``link``), and a warning for each torch name the list
    (``listing``, as mkdocs.yml names it) does not know, naming the line of the page's source (``shown``)."""
    content, unknown = link(content, names)
    warnings = [f"{shown}:{line_of(source, code) or 1}: `{code}` reads as a torch API name that {listing} does not "
                f"list — add it there, with its page of PyTorch's reference or as unlinked"
                for code in dict.fromkeys(unknown)]
    return content, warnings
