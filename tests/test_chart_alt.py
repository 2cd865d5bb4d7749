"""A chart's text alternative: the description captured with it, its numbers written as the page's prose
writes figures (the language's decimal sign and thousands, never an exponent)."""

import html
import re

import pytest

from tcguide.site.render import figures_as_prose

CAPTURED = "tokens per second (batch 1): eager 424, default 702.5, reduce-overhead 4.43e+03; resnet18 on H100, 24-block."


@pytest.mark.parametrize("lang, written", [
    ("en", "eager 424, default 702.5, reduce-overhead 4,430; resnet18 on H100, 24-block."),
    ("ru", "eager 424, default 702,5, reduce-overhead 4\u202f430; resnet18 on H100, 24-block."),
    ("zh", "eager 424, default 702.5, reduce-overhead 4,430; resnet18 on H100, 24-block."),
    ("ko", "eager 424, default 702.5, reduce-overhead 4,430; resnet18 on H100, 24-block."),
])
def test_a_charts_numbers_are_written_the_languages_way(lang, written):
    assert figures_as_prose(CAPTURED, lang) == "tokens per second (batch 1): " + written


@pytest.mark.build  # reads the guide's build (guide_site)
@pytest.mark.parametrize("lang", ["en", "ru", "zh", "ko"])
def test_the_guides_charts_say_what_they_show_with_figures_as_in_prose(guide_site, lang):
    prefix = "" if lang == "en" else f"{lang}/"
    alts = []
    for chapter in ("speedups", "llm-inference", "compile-time"):
        page = (guide_site / prefix / chapter / "index.html").read_text(encoding="utf-8")
        alts += [html.unescape(a) for a in re.findall(r'<img class="tcg-figure" alt="([^"]*)"', page)]
    assert len(alts) == 8
    assert not [a for a in alts if re.search(r"\de[+-]\d", a)]  # no 4.43e+03
    decimal = "," if lang == "ru" else "."
    assert all(re.search(rf"\d{re.escape(decimal)}\d", a) for a in alts if "speedup" in a), alts
    grouped = r"\d\u202f\d{3}\b" if lang == "ru" else r"\d,\d{3}\b"  # thousands, as prose groups them
    assert any(re.search(grouped, a) for a in alts), alts
