"""No measured figure typed by hand: every number with a unit in a chapter's prose, in every
language, is glued from a captured output ({{file.py:name}}) or marked as a quote
({{quote:FIGURE|SOURCE}}). Code, directives and links are not prose."""

import re
from pathlib import Path

import pytest

from tcguide.core import directive, glue

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").glob("*/*.md"))

NUMBER = r"(?<![\w.\-/])\d[\d.,\u202f\u00a0]*"
# units of time, size, rate and ratio; Latin and Cyrillic ones must end a word, CJK ones need not
WORD_UNITS = ["ms", "µs", "us", "s", "sec", "seconds?", "min", "minutes?", "hours?", "KiB", "MiB", "GiB", "KB", "MB",
              "GB", "TB", "GB/s", "TB/s", "x", "мс", "мкс", "с", "сек", "секунд[аы]?", "мин", "минут[аы]?", "час(?:а|ов)?",
              "КиБ", "МиБ", "ГиБ", "КБ", "МБ", "ГБ", "ТБ", "раза?"]
CJK_UNITS = ["×", "%", "毫秒", "微秒", "秒", "分钟", "小时", "倍", "밀리초", "마이크로초", "초", "분", "시간", "배"]
FIGURE = re.compile(rf"{NUMBER}\s?(?:(?:{'|'.join(WORD_UNITS)})(?![\w/])|(?:{'|'.join(CJK_UNITS)}))")
DIMENSIONS = re.compile(r"\d+\s?×\s?\d+")  # 224×224 pixels, a 1×1 convolution: sizes, not measurements
VERSIONS = re.compile(r"\b\d+\.x\b")  # PyTorch 2.x
LINK_TARGET = re.compile(r"\]\([^)]*\)")
HTML_COMMENT = re.compile(r"<!--.*?-->")


def typed_figures(text: str) -> list[tuple[int, str]]:
    """(line, figure) for each number with a unit in the prose that is neither glued nor quoted."""
    found = []
    for number, line, code in directive.lines_with_code_flag(text):
        if code or directive.DIRECTIVE.match(line) or line.lstrip().startswith("|---"):
            continue
        prose = glue.TOKEN.sub(" ", glue.CODE_SPAN.sub(" ", LINK_TARGET.sub("]", HTML_COMMENT.sub(" ", line))))
        prose = VERSIONS.sub(" ", DIMENSIONS.sub(" ", prose))
        found += [(number, m.group().strip()) for m in FIGURE.finditer(prose)]
    return found


def test_the_detector_finds_typed_figures_and_ignores_glued_quoted_and_code():
    page = ("It took 2.7 s, then {{a.py:t:.1f}} s, and `3 ms` in code;\n"
            "a {{quote:0.004×|a notebook}} speedup, 1.42× here, 5.2x there, 12% more, 526 KiB,\n"
            "на 2,7 с и в 1,4 раза; 快 2.9 倍，用了 3 秒; 2.7초, 3배 빨라짐\n"
            "a 224×224 image, [link](speedups.md#1-5-s), 10-bit mantissa, Python 3.12, 2 GPUs, PyTorch 2.x\n"
            "```\nprint('5 ms')\n```\n")
    figures = [f for _, f in typed_figures(page)]
    assert figures == ["2.7 s", "1.42×", "5.2x", "12%", "526 KiB", "2,7 с", "1,4 раза", "2.9 倍", "3 秒", "2.7초", "3배"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT / "docs")))
def test_no_measured_figure_is_typed_by_hand(page):
    found = typed_figures(page.read_text(encoding="utf-8"))
    where = "\n".join(f"  {page.relative_to(ROOT)}:{line}: {figure}" for line, figure in found)
    assert not found, ("figures typed by hand; glue them from a captured output ({{file.py:name:.2f}}) "
                       f"or mark them as quotes ({{{{quote:FIGURE|SOURCE}}}}):\n{where}")
