"""Translations: which English version each translated page follows, and whether it still matches.

A translated page ``docs/<lang>/<page>.md`` records, in its front matter, the English
version it translates::

    ---
    translation:
      version: 3f2a9c1b7d4e        # digest of docs/en/<page>.md's text when it was last translated
      sections:                    # digest of each English section then, by heading
        Getting started: 1a2b3c4d
        Compile a function: 9f8e7d6c
      translated: 5e6f7a8b9c0d     # digest of this page's own text when it was stamped
    ---

The digests are of the text, not of a commit: ``english_changes`` finds the commit whose English
page has that digest when a translator asks what changed since (``i18n-diff``).

``python3 -m tcguide i18n-stamp docs/<lang>/<page>.md`` writes that record after a
translation or an update; ``python3 -m tcguide i18n-status`` compares every page of
every language with the English source: up to date, outdated (naming the sections
changed since), not translated (its prose is still English) or missing. ``structure_problems``
reports a translation whose headings or embedded cells differ from English, naming page and line.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from tcguide.core import directive, glue, languages
from tcguide.core.languages import DOCS, SOURCE
from tcguide.i18n import glossary
from tcguide.core.errors import GuideError

# A page whose prose has a larger share of English words than this is not translated, stamped or not.
# The guide's finished translations have at most 9 % (Chinese, which keeps kernel, token, step and a
# few more in English, as its glossary says; Russian and Korean at most 6 %). At 15 % a page dense
# with such terms still counts, while one English paragraph in six fails it: the earlier limit, a
# half, let a page pass as translated with 49 % of it in English.
TRANSLATED_AT_MOST = 0.15
MOSTLY_ENGLISH = 0.5  # beyond this the site tells readers the page is the English original, not a part of it
LATIN_WORD = re.compile(r"\b[A-Za-z][a-z]+\b")  # a lower-case English word (TorchDynamo, CUDA, API names are not)
NATIVE = {"ru": re.compile(r"[А-Яа-яЁё]+"), "zh": re.compile(r"[\u4e00-\u9fff]{1,2}"),
          "ko": re.compile(r"[\uac00-\ud7a3]+")}  # a word of the language (Chinese: about two characters)
# A language without a rule of its own: a word in a script other than Latin, every two characters of kana
# or Han (written without spaces between words, as zh's rule counts them); a language in Latin letters
# has none, and english_share tells its words from English by the English page's.
UNSPACED, LATIN = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff", "A-Za-z\u00c0-\u024f\u1e00-\u1eff"
OTHER_SCRIPT = re.compile(f"[{UNSPACED}]{{1,2}}|[^\\W\\d_{LATIN}{UNSPACED}]+")
CODE_SPAN = glue.CODE_SPAN
MARKUP = re.compile(r"<[^>]+>|\]\([^)]*\)|https?://\S+")
HEADING = directive.HEADING
STAMP = "make i18n-stamp PAGE={page}"


def _hash(text: str, size: int = 12) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:size]


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    line: int


@dataclass
class Page:
    path: str  # relative to the project root, for messages
    front: dict
    body: str
    body_line: int  # file line of the body's first line
    record_line: int = 1  # file line of the front matter's translation record
    headings: list[Heading] = field(default_factory=list)
    directives: list[directive.Directive] = field(default_factory=list)
    sections: dict[str, str] = field(default_factory=dict)  # heading text -> hash
    section_lines: dict[str, list[str]] = field(default_factory=dict)  # heading text -> its lines, heading first

    @property
    def version(self) -> str:
        return _hash(_normal(self.body))

    def digest_as(self, name: str, old_name: str) -> str:
        """The digest section ``name`` would have under its old heading ``old_name``: equal to the one
        recorded for ``old_name`` when only the heading changed."""
        heading, *rest = self.section_lines[name]
        return _section_hash([heading.replace(name, old_name, 1), *rest])


def _normal(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def text_version(text: str) -> str:
    """The version a page's file text has (its body, front matter aside), as a stamp records it."""
    return _hash(_normal(directive.front_matter(text)[1]))


def _section_hash(lines: list[str]) -> str:
    return _hash(_normal("\n".join(lines)), 8)


def read_page(path: Path, display: str) -> Page:
    text = path.read_text(encoding="utf-8")
    front = {}
    yaml_text, body, body_line = directive.front_matter(text)
    if yaml_text is not None:
        try:
            front = yaml.safe_load(yaml_text) or {}
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            raise GuideError(display, (mark.line + 2) if mark else 1, "malformed front matter",
                             "fix the YAML between the '---' lines") from None
        if not isinstance(front, dict):
            raise GuideError(display, 1, "front matter is not a mapping", "write it as 'key: value' lines")
    page = Page(display, front, body, body_line)
    if yaml_text is not None:
        page.record_line = next((i for i, line in enumerate(yaml_text.splitlines(), start=2)
                                 if line.startswith("translation:")), 1)
    found, _ = directive.find(text, display)
    page.directives = [d for d in found if d.kind == "cell"]
    current, lines = "", []

    def close() -> None:
        if current or any(l.strip() for l in lines):  # text before the first heading counts only if any
            page.sections[current] = _section_hash(lines)
            page.section_lines[current] = lines

    for number, line, code in directive.lines_with_code_flag(body, start=body_line):
        if not code and (heading := HEADING.match(line)):
            close()
            current, lines = heading["text"], []
            page.headings.append(Heading(len(heading["hashes"]), heading["text"], number))
        lines.append(line)
    close()
    return page


# ---- the project's languages and pages --------------------------------------------------

@dataclass(frozen=True)
class Site:
    root: Path
    docs: str = DOCS

    def languages(self) -> list[str]:
        """Locales configured for mkdocs-static-i18n, English first (``core.languages``)."""
        return languages.configured(self.root)

    def pages(self) -> list[str]:
        """English pages, relative to docs/en."""
        base = self.root / self.docs / SOURCE
        return sorted(str(p.relative_to(base)) for p in base.rglob("*.md"))

    def path(self, lang: str, page: str) -> Path:
        return self.root / self.docs / lang / page

    def locate(self, path: str) -> tuple[str, str] | None:
        """(language, page) of a path like docs/<lang>/<page>.md, or None for any other path."""
        parts = Path(path).parts
        if len(parts) < 3 or parts[0] != self.docs:
            return None
        return parts[1], "/".join(parts[2:])

    def display(self, lang: str, page: str) -> str:
        return f"{self.docs}/{lang}/{page}"

    def read(self, lang: str, page: str) -> Page:
        return read_page(self.path(lang, page), self.display(lang, page))


@dataclass(frozen=True)
class ReadOnce(Site):
    """The site as one build sees it: each page read and parsed once, each translation's status found
    once, however often the builds of its languages ask (a page's notices, the status table and the
    English ids each read pages of every language). A build makes a new one: an edit is read."""

    _pages: dict = field(default_factory=dict, compare=False, hash=False, repr=False)
    _statuses: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def read(self, lang: str, page: str) -> Page:
        if (lang, page) not in self._pages:
            self._pages[lang, page] = super().read(lang, page)
        return self._pages[lang, page]


# ---- status ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Status:
    lang: str
    page: str
    state: str  # "up to date", "outdated", "untranslated", "missing"
    changes: tuple[str, ...] = ()  # sections of the English page changed since the translation
    english: float = 0.0  # the share of English words in the page's prose


FIRST_SECTION = "(text before the first heading)"


def record_of(page: Page) -> dict:
    """The page's translation record ({} if it was never stamped); a malformed one names the page."""
    record = page.front.get("translation") or {}
    if not isinstance(record, dict) or not isinstance(record.get("sections") or {}, dict):
        raise GuideError(page.path, page.record_line,
                         "its 'translation' record is not a mapping of version, sections and translated",
                         "delete the record and stamp the page again: " + STAMP.format(page=page.path))
    return record


def status(site: Site, lang: str, page: str, english: Page | None = None) -> Status:
    known = site._statuses if isinstance(site, ReadOnce) else {}  # found once per ReadOnce site
    if (lang, page) not in known:
        known[lang, page] = _status(site, lang, page, english)
    return known[lang, page]


def _status(site: Site, lang: str, page: str, english: Page | None = None) -> Status:
    if not site.path(lang, page).exists():
        return Status(lang, page, "missing")
    english = english or site.read(SOURCE, page)
    translated = site.read(lang, page)
    share = english_share(translated, lang, english)
    if share > TRANSLATED_AT_MOST:  # a copy of the English page, or a translation left half done
        return Status(lang, page, "untranslated",
                      (f"{share:.0%} of its prose words are English (a translation has at most {TRANSLATED_AT_MOST:.0%})",),
                      share)
    record = record_of(translated)
    if record.get("version") == english.version:
        return Status(lang, page, "up to date", english=share)
    if not record:
        return Status(lang, page, "outdated", ("never stamped: " + STAMP.format(page=site.display(lang, page)),), share)
    changes = section_changes(record.get("sections") or {}, english)
    return Status(lang, page, "outdated", tuple(changes) or ("changed outside any section",), share)


def section_changes(recorded: dict[str, str], english: Page) -> list[str]:
    """What changed in the English page's sections since ``recorded`` (heading -> digest): each section
    changed, renamed (a heading edited in place: same position, new text; and changed too when its
    text changed as well), new or removed."""
    name_of = lambda name: name or FIRST_SECTION  # noqa: E731
    changes = [f"changed: {name_of(name)}" for name, digest in english.sections.items()
               if name in recorded and recorded[name] != digest]
    added = [name for name in english.sections if name not in recorded]
    removed = [name for name in recorded if name not in english.sections]
    old_order, new_order = list(recorded), list(english.sections)
    for name in list(added):
        position = new_order.index(name)
        old = old_order[position] if position < len(old_order) else None
        if old and name and old in removed:
            changes.append(f"renamed: {old} → {name}")
            if english.digest_as(name, old) != recorded[old]:
                changes.append(f"changed: {name}")
            added.remove(name)
            removed.remove(old)
    changes += [f"new: {name_of(name)}" for name in added]
    changes += [f"removed: {name_of(name)}" for name in removed]
    return changes


def _prose(page: Page) -> list[str]:
    """The page's prose, line by line: code, cells, glued figures, links and markup aside."""
    return [MARKUP.sub(" ", glue.TOKEN.sub(" ", CODE_SPAN.sub(" ", line)))
            for _, line, code in directive.lines_with_code_flag(page.body)
            if not code and not line.lstrip().startswith("[[")]


def english_share(page: Page, lang: str, english: Page | None = None) -> float:
    """The share of English words in the prose of a page in another language, identifiers (anything
    capitalised) aside: against the words of the language's script, or, for a language written in Latin
    letters (no word of another script; given its English page), the words the English page uses too."""
    native_word = NATIVE.get(lang, OTHER_SCRIPT)
    prose = _prose(page)
    latin = [word for line in prose for word in LATIN_WORD.findall(line)]
    native = sum(len(native_word.findall(line)) for line in prose)
    if not native and lang not in NATIVE and english is not None and latin:
        vocabulary = {word for line in _prose(english) for word in LATIN_WORD.findall(line)}
        return sum(word in vocabulary for word in latin) / len(latin)
    return len(latin) / (len(latin) + native) if latin or native else 0.0


def report(site: Site) -> list[Status]:
    rows = []
    translations = site.languages()[1:]
    for page in site.pages():
        english = site.read(SOURCE, page)
        rows.extend(status(site, lang, page, english) for lang in translations)
    return rows


def stamp(site: Site, lang: str, page: str) -> None:
    """Record in a translated page that it follows the current English page, and its own text now."""
    english, translated = site.read(SOURCE, page), site.read(lang, page)
    record = {"version": english.version, "sections": dict(english.sections), "translated": translated.version}
    front = dict(translated.front, translation=record)
    dumped = yaml.safe_dump(front, allow_unicode=True, sort_keys=False, width=1000)
    site.path(lang, page).write_text(f"---\n{dumped}---\n{translated.body}", encoding="utf-8")


# ---- structure ------------------------------------------------------------------------

def structure_problems(site: Site, lang: str, page: str) -> list[GuideError]:
    """A translation must have English's heading levels and embed the same cells, in order."""
    english, translated = site.read(SOURCE, page), site.read(lang, page)
    problems = []
    for i, (ours, theirs) in enumerate(zip(translated.headings, english.headings), start=1):
        if ours.level != theirs.level:
            problems.append(GuideError(
                translated.path, ours.line,
                f"heading {i} '{ours.text}' is level {ours.level}; English {english.path}:{theirs.line} "
                f"'{theirs.text}' is level {theirs.level}", "use the same heading levels as the English page"))
            break
    if len(translated.headings) != len(english.headings):
        extra = translated.headings[len(english.headings):]
        line = extra[0].line if extra else (translated.headings[-1].line if translated.headings else 1)
        problems.append(GuideError(
            translated.path, line,
            f"has {len(translated.headings)} headings, English {english.path} has {len(english.headings)}",
            "translate every heading, and add none"))
    ours, theirs = translated.directives, english.directives
    for i in range(max(len(ours), len(theirs))):
        mine = ours[i] if i < len(ours) else None
        source = theirs[i] if i < len(theirs) else None
        if mine is None or source is None or mine.key != source.key:
            line = mine.line if mine else (ours[-1].line if ours else 1)
            found = f"[[cell {mine.key}]]" if mine else "nothing"
            wanted = f"[[cell {source.key}]] ({english.path}:{source.line})" if source else "nothing"
            problems.append(GuideError(translated.path, line, f"cell {i + 1} embeds {found}; English has {wanted}",
                                       "embed the same cells as the English page, in the same order"))
            break
    problems.extend(_figure_problems(translated, english))
    return problems


def _figures(page: Page) -> dict[str, int]:
    """The glued values and quotes a page refers to (format aside), each with the line of its first use."""
    found, _ = glue.find(page.body, page.path, start=page.body_line)
    figures: dict[str, int] = {}
    for ref in found:
        key = f"{{{{quote:{ref.quote[0]}}}}}" if ref.quote else "{{" + ":".join([ref.file, ".".join((ref.name, *ref.keys))]) + "}}"
        figures.setdefault(key, ref.line)
    return figures


def _figure_problems(translated: Page, english: Page) -> list[GuideError]:
    """A translation quotes the same measured figures as English (in any order and format)."""
    ours, theirs = _figures(translated), _figures(english)
    problems = [GuideError(translated.path, line, f"quotes {key}, which the English page does not",
                           "quote the figures the English page quotes") for key, line in ours.items() if key not in theirs]
    missing = [key for key in theirs if key not in ours]
    if missing:
        shown = ", ".join(f"{key} ({english.path}:{theirs[key]})" for key in missing[:3])
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        problems.append(GuideError(translated.path, 1, f"lacks {len(missing)} figure(s) of the English page: {shown}{more}",
                                   "glue the same values as the English page"))
    return problems


# ---- glossary -------------------------------------------------------------------------

def forbidden_variants(site: Site, lang: str) -> list[tuple[str, str, int]]:
    """(variant, what to write instead, line) from the glossary's 'Forbidden variants' table."""
    return glossary.forbidden_variants(glossary.path(site.root, lang))


def glossary_problems(site: Site, lang: str) -> list[GuideError]:
    """Every use of a forbidden variant in the prose of a language's pages (code aside)."""
    variants = [(re.compile(re.escape(v), re.I), v, instead) for v, instead, _ in forbidden_variants(site, lang)]
    problems = []
    base = site.root / site.docs / lang
    for path in sorted(base.rglob("*.md")) if variants else []:
        shown = str(path.relative_to(site.root))
        for number, line, code in directive.lines_with_code_flag(path.read_text(encoding="utf-8")):
            prose = "" if code else CODE_SPAN.sub(" ", line)
            for pattern, variant, instead in variants:
                if pattern.search(prose):
                    problems.append(GuideError(shown, number, f"uses «{variant}», a variant the glossary forbids",
                                               f"write {instead} (i18n/glossary-{lang}.md)"))
    return problems


def all_structure_problems(site: Site) -> list[GuideError]:
    problems = []
    for page in site.pages():
        for lang in site.languages()[1:]:
            if site.path(lang, page).exists():
                problems.extend(structure_problems(site, lang, page))
    for lang in site.languages()[1:]:
        problems.extend(glossary_problems(site, lang))
        base = site.root / site.docs / lang
        for orphan in sorted(base.rglob("*.md")) if base.exists() else []:
            rel = str(orphan.relative_to(base))
            if not site.path(SOURCE, rel).exists():
                problems.append(GuideError(site.display(lang, rel), None, "has no English source page",
                                           f"rename it to match a page in {site.docs}/{SOURCE}/, or delete it"))
    return problems
