"""Tables that snippets print, found in captured text and shown as HTML tables that copy as printed."""

import html
import re

from tabulate import tabulate

from tcguide.core.store import load, output_path
from tcguide.site import render, tables
from tests.helpers import ROOT

ROWS = [["whole", "cold", 12.6, 3.41, "3.34–4.32"], ["regional", "warm", 1.1, 14.85, "4.69–6.45"]]
HEADERS = ["compiled", "start", "first call (s)", "median (ms)", "p10–p90 (ms)"]


def joined(parts) -> str:
    return "".join(part.text if isinstance(part, tables.Table) else part for part in parts)


def test_a_tabulate_table_is_found_between_the_lines_around_it():
    printed = tabulate(ROWS, headers=HEADERS)
    text = f"before the table\n{printed}\ncache folder: TORCHINDUCTOR_CACHE_DIR (and TRITON_CACHE_DIR for its own)\n"
    parts = tables.split(text)
    assert joined(parts) == text
    assert [type(part) for part in parts] == [str, tables.Table, str]
    table = parts[1]
    assert table.header == HEADERS
    assert table.rows == [["whole", "cold", "12.6", "3.41", "3.34–4.32"], ["regional", "warm", "1.1", "14.85", "4.69–6.45"]]
    assert table.numeric == [False, False, True, True, False]
    assert table.text == printed + "\n"


def test_a_table_with_a_rule_over_its_header_and_a_closing_rule_keeps_both():
    rule = "-" * 9 + "  " + "-" * 10
    lines = [rule, f"{'Name':9}  {'Self CPU %':>10}", rule, f"{'aten::mm':9}  {'51.0%':>10}",
             f"{'aten::add':9}  {'49.0%':>10}", rule, "Self CPU time total: 3ms"]
    parts = tables.split("\n".join(lines) + "\n")
    assert isinstance(parts[0], tables.Table) and parts[1] == "Self CPU time total: 3ms\n"
    assert parts[0].rows == [["aten::mm", "51.0%"], ["aten::add", "49.0%"]]
    assert parts[0].text.count(rule) == 3 and parts[0].numeric == [False, True]


def test_text_without_a_table_or_with_a_rule_and_no_rows_stays_text():
    for text in ("a line\n----  ----\n", "no table here\n", "x  y\n----  ----\n\nafter\n", ""):
        parts = tables.split(text)
        assert not any(isinstance(part, tables.Table) for part in parts) and joined(parts) == text


def test_every_table_a_snippet_printed_is_found_and_its_text_kept_exactly():
    found = 0
    for path in sorted((ROOT / "snippets").rglob("*.py")):
        if not output_path(path).exists():
            continue
        for cell in load(output_path(path)).cells:
            for output in cell.outputs:
                if output["output_type"] == "stream":
                    parts = tables.split(output["text"])
                    assert joined(parts) == output["text"], (path, cell.name)
                    found += sum(isinstance(part, tables.Table) for part in parts)
    assert found >= 30  # tabulate's tables across the guide


def test_a_printed_table_renders_as_a_table_whose_copy_is_the_text_as_printed():
    printed = tabulate(ROWS, headers=HEADERS) + "\n"
    out = render._stream("Results:\n" + printed, "en")
    assert out.startswith('<pre class="tcg-stream"><code>Results:&#10;</code></pre>')
    copy = re.search(r'data-copy="([^"]*)"', out)[1]
    assert html.unescape(copy) == printed and "\n" not in out
    assert '<th scope="col" class="tcg-num"><span>first</span> <span>call</span> <span>(s)</span></th>' in out
    assert '<td><span>3.34–4.32</span></td>' not in out and '<td class="tcg-word">3.34–4.32</td>' in out
    assert '<th scope="row">regional</th><td class="tcg-word">warm</td><td class="tcg-num">1.1</td>' in out
