"""The glossaries, ``i18n/glossary-<lang>.md``, read in this one place: the Markdown tables of each
``## `` section, a header row, a separator row, then the rows. The translations' check takes the
variants to refuse from the "Forbidden variants" table, the search index the Chinese terms of the
second column, and the new-language scaffold the English column of the terms' table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

FOLDER = "i18n"
FORBIDDEN = "Forbidden variants"  # the section of variants a translation must not use
CELL_BORDER = re.compile(r"(?<!\\)\|")  # a "|" that is not escaped: "\|" is a "|" inside a cell, as GFM writes it


@dataclass(frozen=True)
class Row:
    line: int  # 1-based, in the glossary's file
    cells: list[str]


@dataclass
class Table:
    section: str  # the text of the "## " heading above it ("" before the first)
    header: list[str]
    rows: list[Row] = field(default_factory=list)


def path(root: Path, lang: str) -> Path:
    return Path(root) / FOLDER / f"glossary-{lang}.md"


def _cells(line: str) -> list[str]:
    inner = line.strip().removeprefix("|")
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [cell.strip().replace("\\|", "|") for cell in CELL_BORDER.split(inner)]


def _separator(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith("|") and "-" in stripped and set(stripped) <= set("|-: ")


def tables(file: Path) -> list[Table]:
    """Every table of a glossary, in order; none where the file does not exist."""
    if not Path(file).exists():
        return []
    lines = Path(file).read_text(encoding="utf-8-sig").splitlines()
    found: list[Table] = []
    section, table = "", None
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped.startswith("## "):
            section, table = stripped[3:].strip(), None
        elif not stripped.startswith("|"):
            table = None
        elif table is not None:
            if not _separator(line):
                table.rows.append(Row(number, _cells(line)))
        elif number < len(lines) and _separator(lines[number]):  # a header row: the separator follows it
            table = Table(section, _cells(line))
            found.append(table)
    return found


def forbidden_variants(file: Path) -> list[tuple[str, str, int]]:
    """(variant, what to write instead, line) from the glossary's "Forbidden variants" table."""
    return [(row.cells[0].strip("«»`\"'"), row.cells[1], row.line)
            for table in tables(file) if table.section == FORBIDDEN
            for row in table.rows if len(row.cells) >= 2 and row.cells[0]]


def translations(file: Path) -> list[str]:
    """The second cell of every row of every table: the words the language uses."""
    return [row.cells[1] for table in tables(file) for row in table.rows if len(row.cells) >= 2]


def english_terms(file: Path) -> list[str]:
    """The English column of the tables whose first header is "English" (the terms)."""
    return [row.cells[0] for table in tables(file) if table.header[:1] == ["English"]
            for row in table.rows if row.cells[0]]
