"""The text of the guide's charts in each language, ``i18n/charts-<lang>.toml``, read in this one place.

A chart keeps its text as text (capture writes SVG with ``svg.fonttype`` "none"), in English, as its
snippet file wrote it. A language's file maps each English text, one line of a label at a time, to
the language's own::

    "first call (s)" = "первый вызов (с)"
    "greedy decoding, {} tokens," = "жадное декодирование, {} токенов,"

``{}`` stands for text that a page carries over as it is (a count, a device's name), in the same
order. A text with no entry stays English, and ``make i18n-status`` lists it (``missing``). Numbers
are written as the page's prose writes them afterwards, by the site. Stdlib only.
"""

from __future__ import annotations

import functools
import html
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from tcguide.core import store
from tcguide.core.discovery import snippet_files
from tcguide.core.errors import GuideError
from tcguide.core.output_format import from_lines

FOLDER = "i18n"
SLOT = "{}"


def path(root: Path, lang: str) -> Path:
    return Path(root) / FOLDER / f"charts-{lang}.toml"


@dataclass(frozen=True)
class Rule:
    english: str
    translated: str

    @functools.cached_property
    def pattern(self) -> re.Pattern:
        parts = [re.escape(p) for p in self.english.split(SLOT)]
        return re.compile("(.+?)".join(parts))

    def apply(self, match: re.Match) -> str:
        pieces = self.translated.split(SLOT)
        out = pieces[0]
        for carried, piece in zip(match.groups(), pieces[1:]):
            out += carried + piece
        return out


@dataclass(frozen=True)
class ChartText:
    """One language's chart text: English text -> the language's, whole texts and texts with slots."""

    rules: tuple[Rule, ...] = ()

    def line(self, text: str) -> str | None:
        """One line of a chart's text in the language, or None where the file has no entry for it."""
        stripped = text.strip()
        for rule in self.rules:
            match = rule.pattern.fullmatch(stripped)
            if match:
                return text.replace(stripped, rule.apply(match))
        return None

    def within(self, text: str) -> str:
        """A chart's description (its text, joined by capture) with every known text in the language."""
        for rule in self.rules:  # longest English text first: a label is not cut by a shorter one inside it
            text = rule.pattern.sub(rule.apply, text)
        return text


def _rules(file: Path) -> tuple[Rule, ...]:
    raw = file.read_bytes().decode("utf-8-sig")
    try:
        table = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        line = int(m[1]) if (m := re.search(r"line (\d+)", str(exc))) else None
        raise GuideError(str(file), line, f"not valid TOML: {exc}",
                         'write each entry as "English text" = "translation", one per line') from None
    rules = []
    for english, translated in table.items():
        line = next((n for n, text in enumerate(raw.splitlines(), 1) if text.lstrip().startswith(f'"{english}"')), None)
        if not isinstance(translated, str):
            raise GuideError(str(file), line, f"the entry for {english!r} is not a string",
                             'write it as "English text" = "translation"')
        if english.count(SLOT) != translated.count(SLOT):
            raise GuideError(str(file), line, f"{english!r} has {english.count(SLOT)} {SLOT} slot(s), its "
                             f"translation {translated.count(SLOT)}",
                             f"keep one {SLOT} in the translation for each in the English text, in the same order")
        if translated.strip():
            rules.append(Rule(english, translated))
    return tuple(sorted(rules, key=lambda r: (-len(r.english), r.english)))


@functools.lru_cache(maxsize=16)
def _cached(file: str, mtime_ns: int) -> ChartText:
    return ChartText(_rules(Path(file)))


def load(root: Path, lang: str) -> ChartText:
    """The language's chart text; empty for English and for a language with no file yet."""
    file = path(root, lang)
    if not file.exists():
        return ChartText()
    return _cached(str(file), file.stat().st_mtime_ns)


# A line of a chart's text, as matplotlib writes it with svg.fonttype "none": one <text> per line.
TEXT = re.compile(r"(<text\b[^>]*>)([^<]*)(</text>)")


def texts(svg: str) -> list[str]:
    """The lines of text a chart shows (its labels, titles and legend), but numbers and names alone
    (a line with no lower-case word, such as a GPU's name: NVIDIA H100 80GB HBM3), which stay as they are."""
    found = [html.unescape(m[2]).strip() for m in TEXT.finditer(svg)]
    return [t for t in found if re.search(r"[a-z]", t)]


def english_texts(root: Path) -> dict[str, str]:
    """Every line of text of the guide's stored charts -> the first snippet file that shows it."""
    found: dict[str, str] = {}
    for snippet in snippet_files(Path(root) / "snippets", Path(root)):
        output = store.output_path(snippet)
        if not output.exists():
            continue
        for cell in store.load(output).cells:
            for shown in cell.outputs:
                svg = shown.get("data", {}).get("image/svg+xml")
                for text in texts(from_lines(svg)) if svg else ():
                    found.setdefault(text, str(snippet.relative_to(root)))
    return found


def missing(words: ChartText, shown: dict[str, str]) -> dict[str, str]:
    """Of the charts' lines of text (``english_texts``), those a language's chart text has no entry for."""
    return {text: where for text, where in shown.items() if words.line(text) is None}
