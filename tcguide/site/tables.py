"""Tables that snippets print (tabulate's "simple" and "plain"-with-rule layouts, and torch's profiler
tables): found in a captured stream's text by their dashed rule, so the site can show them as HTML
tables while a copy still gives the text as printed. Stdlib only.

A table is a header line, a rule of dash runs two or more spaces apart (one run per column), and the
rows under it: lines that fit the columns (blank at every gap between the rule's runs, and no longer
than the rule). A rule over the header, and a closing rule equal to the header's, belong to the table.
No parser of fixed-width text fits here: the site's requirements have none, and the rule already says
where every column starts and ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

RULE = re.compile(r"^ *-{2,}(?: {2,}-{2,})+ *$")


@dataclass(frozen=True)
class Table:
    text: str  # exactly the lines printed, rules included, each with its newline
    header: list[str]
    rows: list[list[str]]
    numeric: list[bool]  # per column: right-aligned as printed (numbers)


def _columns(rule: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"-+", rule)]


def _fits(line: str, columns: list[tuple[int, int]]) -> bool:
    """Blank at every gap between columns, and not longer than the last column's end."""
    body = line.rstrip("\n").rstrip()
    if not body.strip() or len(body) > columns[-1][1]:
        return False
    gaps = [(end, nxt) for (_, end), (nxt, _) in zip(columns, columns[1:])]
    return all(not body[a:b].strip() for a, b in gaps)


def _cells(line: str, columns: list[tuple[int, int]]) -> list[str]:
    body = line.rstrip("\n")
    return [body[start:end].strip() for start, end in columns]


def _right_aligned(lines: list[str], column: tuple[int, int]) -> bool:
    """Every filled cell ends at the column's end, and some start after its start: tabulate's numbers."""
    start, end = column
    cells = [line.rstrip("\n")[start:end].ljust(end - start) for line in lines]
    filled = [cell for cell in cells if cell.strip()]
    return bool(filled) and all(cell[-1] != " " for cell in filled) and any(cell[0] == " " for cell in filled)


def _table_at(lines: list[str], i: int) -> tuple[int, int, Table] | None:
    """The table whose header rule is lines[i]: (first line, line after the last, the table), or None."""
    rule = lines[i].rstrip("\n")
    columns = _columns(rule)
    if i == 0 or not _fits(lines[i - 1], columns):
        return None
    first = i - 2 if i >= 2 and lines[i - 2].rstrip("\n") == rule else i - 1
    end, rows = i + 1, []
    while end < len(lines) and lines[end].rstrip("\n") != rule and _fits(lines[end], columns):
        rows.append(lines[end])
        end += 1
    if not rows:
        return None
    if end < len(lines) and lines[end].rstrip("\n") == rule:
        end += 1  # the closing rule
    numeric = [_right_aligned(rows, column) for column in columns]
    table = Table("".join(lines[first:end]), _cells(lines[i - 1], columns), [_cells(r, columns) for r in rows], numeric)
    return first, end, table


def split(text: str) -> list[str | Table]:
    """The text in order: runs of plain text (as printed) and the tables in it; joined back (a table by
    its ``text``) they are the text itself."""
    lines = text.splitlines(keepends=True)
    parts: list[str | Table] = []
    done = i = 0
    while i < len(lines):
        found = _table_at(lines, i) if RULE.match(lines[i].rstrip("\n")) else None
        if found and found[0] >= done:
            first, end, table = found
            if first > done:
                parts.append("".join(lines[done:first]))
            parts.append(table)
            done = i = end
        else:
            i += 1
    if done < len(lines):
        parts.append("".join(lines[done:]))
    return parts
