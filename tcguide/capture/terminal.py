"""What a cell printed, as a terminal would have shown it, within fixed bounds.

A snippet's raw output may hold progress bars redrawn with ``\\r``, ANSI colour codes,
stray control bytes (NUL, BEL, backspace, DEL), bidirectional overrides that reorder
text on screen, or megabytes of logs. ``tidy`` turns it into plain text a page can
show faithfully: each line in its final state, colours stripped, every other
invisible character shown visibly escaped. ``Budget`` cuts what is too long, with a
marker saying what was cut and how much. Stdlib only: this runs on the GPU machine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Caps on what one cell, and one whole file, may store (the README states them). The
# longest output of the guide today is 239 lines and 38 KB in one cell, 360 lines in one
# file, and its longest line 795 characters; figures are at most 46 KB.
CELL_LINES, CELL_BYTES = 2_000, 256_000
FILE_LINES, FILE_BYTES = 5_000, 1_000_000
LINE_CHARS = 4_000
FIGURE_BYTES = 2_000_000

# ESC [ ... final (CSI: colours, cursor moves), ESC ] ... BEL or ESC \ (OSC: titles, links),
# and two-character ESC sequences.
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
INVISIBLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]")


def _visible(match: re.Match) -> str:
    char = match.group()
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode control pictures: ␀ ␇ ␈ ␛ ...
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"\u27e8U+{code:04X}\u27e9"  # ⟨U+202E⟩: format and bidi characters, C1 controls


def _final_state(line: str) -> str:
    """A line with carriage returns: what stays on screen once each part overwrote the last."""
    if "\r" not in line:
        return line
    shown = ""
    for part in line.split("\r"):
        shown = part + shown[len(part):]
    return shown


def tidy(text: str) -> str:
    """Terminal semantics for captured text; see the module docstring."""
    text = text.replace("\r\n", "\n")
    text = ANSI.sub("", text)
    text = "\n".join(_final_state(line) for line in text.split("\n"))
    return INVISIBLE.sub(_visible, text)


def _cut_line(line: str, limit: int) -> str:
    if len(line) <= limit:
        return line
    return f"{line[:limit]}… [{len(line) - limit:,} more characters cut by capture]"


def _take(lines, max_lines: int, max_bytes: int) -> list[str]:
    taken, used = [], 0
    for line in lines:
        used += len(line.encode("utf-8")) + 1
        if len(taken) >= max_lines or used > max_bytes:
            break
        taken.append(line)
    return taken


def _size(lines) -> int:
    return sum(len(line.encode("utf-8")) + 1 for line in lines)


@dataclass
class Budget:
    """What is left for one file's stored text; each cell also gets its own cap."""

    lines: int = FILE_LINES
    bytes: int = FILE_BYTES

    def fit(self, text: str) -> str:
        """The text cut to this cell's and this file's caps; its first and last lines stay."""
        ending = "\n" if text.endswith("\n") else ""
        lines = [_cut_line(line, LINE_CHARS) for line in (text[:-1] if ending else text).split("\n")] if text else []
        max_lines = max(0, min(CELL_LINES, self.lines))
        max_bytes = max(0, min(CELL_BYTES, self.bytes))
        if len(lines) > max_lines or _size(lines) > max_bytes:
            head = _take(lines, max_lines // 2, max_bytes // 2)
            tail = _take(reversed(lines[len(head):]), max_lines - len(head) - 1,
                         max_bytes - _size(head) - 200)[::-1]  # room for the marker
            cut = lines[len(head): len(lines) - len(tail)]
            marker = f"[… {len(cut):,} lines ({_size(cut):,} bytes) cut here by capture: over its caps …]"
            lines = head + [marker] + tail
        result = "\n".join(lines) + ending if lines else ""
        self.lines -= min(self.lines, len(lines))
        self.bytes -= min(self.bytes, len(result.encode("utf-8")))
        return result
