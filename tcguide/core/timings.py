"""How long captures took, in the page's language: one wall time, the provenance line under a
captured output (where, when, how long), and the table of a folder's capture times that a page or its
notebook shows for ``[[capture-times folder]]``. Stdlib only."""

from __future__ import annotations

import html

from tcguide.core.environment import Environment
from tcguide.core.labels import label


def duration(seconds: float, lang: str) -> str:
    """A wall time in the page's language: '45 ms', '3.2 s', '2 min 53 s' (and '2 мин 53 с', ...)."""
    if seconds < 0.1:
        return label(lang, "ms").format(n=f"{seconds * 1000:.0f}")
    if seconds < 60:
        return label(lang, "s").format(n=f"{seconds:.1f}".replace(".", label(lang, "decimal_sep")))
    whole = round(seconds)
    return label(lang, "min_s").format(m=whole // 60, s=whole % 60)


def provenance(capture, record, lang: str) -> tuple[str, str]:
    """The provenance line of a captured cell, as the chapter page and the notebook show it under the
    output ('NVIDIA H100 80GB HBM3 · torch 2.11.0 · CUDA 13.0 · 2026-11-22 10:15 UTC · 3.2 s · ran
    alone'), and what its parts are, with how it ran besides (the chapter page's tooltip)."""
    stamp = capture.captured_at.replace("T", " ")[:16] + " UTC"
    parts = [Environment.of(capture.environment).describe(), stamp]
    if record is not None:
        parts.append(duration(record.wall_time_s, lang))
    env = capture.environment
    if "side_by_side" in env:  # the conditions of a timing: did other files share the machine?
        beside = env["side_by_side"]
        parts.append(label(lang, "alone") if not beside else label(lang, "beside").format(n=beside))
    title = label(lang, "provenance")
    if env.get("compile_threads"):
        title += " · " + label(lang, "threads").format(n=env["compile_threads"])
    if env.get("host_cpu"):
        title += " · " + label(lang, "host_cpu").format(cpu=env["host_cpu"])
    return " · ".join(parts), title


def capture_times(captures, lang: str) -> str:
    """Per snippet file: its cells' total wall time, where and when it was captured."""
    rows = []
    for capture in captures:
        total = sum(c.wall_time_s for c in capture.cells)
        rows.append(f"<tr><td><code>{html.escape(capture.snippet)}</code></td><td>{len(capture.cells)}</td>"
                    f"<td>{html.escape(duration(total, lang))}</td><td>{html.escape(Environment.of(capture.environment).describe())}</td>"
                    f"<td>{html.escape(capture.captured_at[:10])}</td></tr>")
    head = "".join(f"<th>{html.escape(label(lang, k))}</th>" for k in ("t_file", "t_cells", "t_time", "t_where", "t_date"))
    # where and when each file ran: the reader's answer on the page, not a search's (data-search-exclude)
    return f'<table class="tcg-times" data-search-exclude><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>\n'
