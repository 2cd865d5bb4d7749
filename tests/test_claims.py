"""Claims: sentences about measurements, bound to conditions the build checks on captured values."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tcguide.core import claims, glue
from tcguide.core.catalog import Catalog
from tcguide.core.check import check
from tcguide.core.errors import GuideError
from tests.helpers import write_claimed_chapter

ROOT = Path(__file__).resolve().parent.parent
LANGS = ("ru", "zh", "ko")

TIMES = """
    # %% measure glue=t
    t = {{"eager": {{"ms": {e}, "p10": {e_lo}, "p90": {e_hi}}},
         "compiled": {{"ms": {c}, "p10": {c_lo}, "p90": {c_hi}}}, "graphs": {graphs}}}
    print("timed")
    """
PAGE = """
    # Timings

    [[cell bench/times.py#measure]]

    Here {{claim:compiled-faster}}compiled takes {{bench/times.py:t.compiled.ms:.1f}} ms,
    less than eager{{/claim}}, and {{claim:one-graph}}the model compiles to one graph{{/claim}}.
    Again: {{claim:compiled-faster}}faster{{/claim}} and {{claim:one-graph}}one graph{{/claim}}.
    """


def _write(project, **values) -> None:
    write_claimed_chapter(project, TIMES.format(**values), PAGE)


FAST = dict(e=2.0, e_lo=1.9, e_hi=2.2, c=1.0, c_lo=0.9, c_hi=1.1, graphs=1)


def test_a_recapture_that_flips_a_claim_fails_check_with_page_line_and_values(project):
    _write(project, **FAST)
    assert project.capture() == 0
    assert check(project.root) == []
    _write(project, **dict(FAST, c=2.1, c_lo=1.95, c_hi=2.3))  # the recapture: compiled no faster
    assert project.capture() == 0
    problem, again = check(project.root)  # the page states it twice
    assert (problem.path, problem.line, again.line) == ("docs/en/timings.md", 5, 7)
    assert "claim 'compiled-faster' no longer holds: below(compiled, eager) is false" in str(problem)
    assert "compiled.p90 = 2.3" in str(problem) and "eager.p10 = 1.9" in str(problem)
    assert "claims/timings.toml:2" in str(problem)  # where to change it


def test_the_page_shows_a_claim_as_a_span_naming_it_with_the_values_in_its_language(project):
    _write(project, **dict(FAST, c=1.25, c_lo=1.2, c_hi=1.3))
    assert project.capture() == 0
    catalog = Catalog(project.root)
    text = (project.root / "docs" / "en" / "timings.md").read_text()
    page = "docs/ru/timings.md"
    checked, problems = claims.check_page(text, project.root, catalog, page, "ru")
    assert problems == []
    html, _ = glue.substitute(claims.substitute(text, checked, "ru"), catalog, page, "ru")
    span = re.search(r'<span class="tcg-claim" data-claim="compiled-faster"[^>]*title="([^"]*)">', html)
    assert span, html
    assert span[1].startswith("Утверждение проверено по измеренным значениям: below(compiled, eager)")
    assert "compiled.p90 = 1,3" in span[1]  # the page's language writes the numbers
    assert html.count("</span>") == html.count("<span")
    assert "{{" not in html
    # two claims that open on one line each get their own span
    spans = re.findall(r'data-claim="([a-z-]+)" data-holds="([^"]*)"', html)
    assert spans == [("compiled-faster", "below(compiled, eager)"), ("one-graph", "t.graphs == 1")] * 2
    notebook_text = claims.substitute(text, {}, "en", as_text=True)
    assert "compiled takes {{bench/times.py:t.compiled.ms:.1f}} ms,\nless than eager, and the model" in notebook_text


@pytest.mark.parametrize("page, words, line", [
    ("A {{claim:one-graph}}claim never closed.\n\nNext paragraph.\n", "is not closed in its paragraph", 1),
    ("Closed {{/claim}} with nothing open.\n", "closes no claim", 1),
    ("\n{{claim:nobody}}unknown{{/claim}}\n", "claim 'nobody' is not declared in claims/timings.toml", 2),
    ("{{claim:Bad Id}}x{{/claim}}\n", "malformed claim mark", 1),
    ("```\n{{claim:nobody}}in code{{/claim}}\n```\n{{claim:one-graph}}ok{{/claim}}\n", None, None),
])
def test_marks_that_are_wrong_name_page_and_line(project, page, words, line):
    _write(project, **FAST)
    assert project.capture() == 0
    _, problems = claims.check_page(page, project.root, Catalog(project.root), "docs/en/timings.md", "en")
    if words is None:  # the mark in code is no mark; on the English page the claim not stated is reported
        assert [str(p) for p in problems] == [
            "claims/timings.toml:2: claim 'compiled-faster' is declared but the English page never states it"
            " — mark the sentence that states it, or remove the declaration"]
    else:
        assert any(words in str(p) and p.line == line for p in problems), problems


def test_a_declared_claim_no_english_sentence_states_fails(project):
    _write(project, **FAST)
    assert project.capture() == 0
    page = project.root / "docs" / "en" / "timings.md"
    page.write_text(page.read_text().replace("{{claim:one-graph}}", "").replace("graph{{/claim}}", "graph"))
    (problem,) = check(project.root)
    assert (problem.path, problem.line) == ("claims/timings.toml", 6)
    assert "declared but the English page never states it" in str(problem)


@pytest.mark.parametrize("holds, words", [
    ("__import__('os')", "calls only"),
    ("t.graphs.__class__", None),  # no attribute of Python objects: only keys of captured objects
    ("lambda: 1", "Lambda is not allowed"),
    ("nobody > 1", "'nobody' is not one of its values"),
])
def test_a_condition_is_data_only(tmp_path, holds, words):
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "p.toml").write_text(f'[c]\nvalues = {{ t = "a.py:t" }}\nholds = "{holds}"\n')
    if words is None:
        claim = claims.load(tmp_path, "p")["c"]
        with pytest.raises(ValueError, match="has no '__class__'"):
            claims._eval(claims._compile(claim), {"t": claims._Value("t", {"graphs": 1})}, {})
        return
    with pytest.raises(GuideError, match=re.escape(words)):
        claims.load(tmp_path, "p")


def test_the_functions_say_what_they_compare():
    used = {}
    a = claims._Value("a", {"ms": 1.0, "p10": 0.9, "p90": 1.1})
    b = claims._Value("b", {"ms": 1.05, "p10": 1.0, "p90": 1.2})
    c = claims._Value("c", {"ms": 2.0, "p10": 1.9, "p90": 2.2})
    assert claims.FUNCTIONS["overlap"](used, a, b) and not claims.FUNCTIONS["overlap"](used, a, c)
    assert claims.FUNCTIONS["below"](used, a, c) and not claims.FUNCTIONS["below"](used, a, b)
    assert claims.FUNCTIONS["ratio"](used, c, a) == 2.0
    assert used["a.p90"] == 1.1 and used["c.ms"] == 2.0


def _marks(lang: str, page: str) -> list[str]:
    path = ROOT / "docs" / lang / page
    return sorted(m.id for m in claims.find(path.read_text(encoding="utf-8"), str(path))[0]) if path.exists() else []


@pytest.mark.parametrize("lang", LANGS)
def test_each_translation_states_exactly_its_english_pages_claims(lang):
    wrong = []
    for english in sorted((ROOT / "docs" / "en").glob("*.md")):
        if not (ROOT / "docs" / lang / english.name).exists():
            continue
        want, have = _marks("en", english.name), _marks(lang, english.name)
        if want != have:
            wrong.append(f"docs/{lang}/{english.name}: states {have}, the English page {want}")
    assert not wrong, "\n".join(wrong)


def test_every_chapter_with_claims_declares_them_for_a_page_that_exists():
    for declared in sorted((ROOT / claims.FOLDER).glob("*.toml")):
        assert (ROOT / "docs" / "en" / f"{declared.stem}.md").exists(), f"{declared}: no English page of that name"
        assert claims.load(ROOT, declared.stem), f"{declared}: declares no claim"
