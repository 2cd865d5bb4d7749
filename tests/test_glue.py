"""Glued figures: values a cell names are captured with its output and quoted by pages."""

import json

import pytest

from tcguide.core import glue, store
from tcguide.core.catalog import Catalog
from tcguide.core.errors import GuideError

MEASURE = """
    # %% setup
    import numpy

    # %% measure glue=speedup,rows,count,label,scalar
    speedup = 1234.5678
    rows = {"default": {"ms": 5.25, "graphs": 2}, "reduce-overhead": {"ms": 3.0, "graphs": 1},
            "padded to 5 buckets": {"ms": 2.5, "graphs": 5}}
    count = 12345
    label = "NVIDIA H100"
    scalar = numpy.float32(0.5)
    print("measured")
    """


@pytest.fixture
def measured(project):
    project.snippet("m.py", MEASURE)
    assert project.capture("m.py") == 0
    return project


# ---- capture -----------------------------------------------------------------------------

def test_capture_stores_glued_values_with_the_cell(measured):
    record = store.load(measured.output("m.py")).cell("measure")
    assert record.glue == {"speedup": 1234.5678, "count": 12345, "label": "NVIDIA H100", "scalar": 0.5,
                           "rows": {"default": {"ms": 5.25, "graphs": 2}, "reduce-overhead": {"ms": 3.0, "graphs": 1},
                                    "padded to 5 buckets": {"ms": 2.5, "graphs": 5}}}
    assert record.outputs[0]["text"] == "measured\n"
    assert "glue" not in json.loads(measured.output("m.py").read_text())["cells"][0]  # setup glues nothing


def test_glued_text_names_no_path_of_the_capturing_machine(project):
    """A glued error message held the capture's temporary folder, which printed output never shows."""
    project.snippet("where.py", """
        # %% where glue=place
        place = f'File "{__file__}", line 3'
        print(place)
        """)
    assert project.capture("where.py") == 0
    record = store.load(project.output("where.py")).cell("where")
    assert record.glue["place"] == record.outputs[0]["text"].strip()
    assert "tcguide-capture" not in record.glue["place"] and "snippets/where.py" in record.glue["place"]


def test_a_glued_value_edited_by_hand_breaks_the_digest(measured):
    out = measured.output("m.py")
    out.write_text(out.read_text().replace("1234.5678", "9.99"))
    with pytest.raises(GuideError, match="edited by hand"):
        store.load(out)


@pytest.mark.parametrize("code, message", [
    ("speedup = 1.0\n", "sets no variable 'rows'"),
    ("speedup = 1.0\nrows = object()\n", "rows is a object"),
    ("speedup = float('nan')\nrows = 1\n", "speedup is nan"),
    ("speedup = 1.0\nrows = {1: 2}\n", "key that is not text"),
    ("speedup = 1.0\nrows = 'x' * 70000\n", "over the cap"),
])
def test_a_cell_that_cannot_glue_fails_naming_file_line_and_value(project, capsys, code, message):
    project.snippet("bad.py", "# %% measure glue=speedup,rows\n" + code)
    assert project.capture("bad.py") == 1
    err = capsys.readouterr().out + capsys.readouterr().err
    assert "snippets/bad.py:1: cell 'measure'" in err and message in err
    assert not project.output("bad.py").exists()  # nothing half-glued is stored


def test_a_figure_keeps_a_text_description_of_what_it_shows(project):
    pytest.importorskip("matplotlib")
    project.snippet("chart.py", """
        # %% chart
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots()
        ax.bar(["default", "reduce-overhead"], [1.86, 2.5])
        ax.set_ylabel("speedup over eager")
        fig.suptitle("resnet18 inference")
        """)
    assert project.capture("chart.py") == 0
    (figure,) = store.load(project.output("chart.py")).cell("chart").outputs
    assert figure["data"]["text/plain"] == \
        "resnet18 inference. speedup over eager: default 1.86, reduce-overhead 2.5"
    assert figure["data"]["image/svg+xml"].lstrip().startswith("<?xml")


# ---- pages -------------------------------------------------------------------------------

def _render(project, markdown, lang="en"):
    return glue.substitute(markdown, Catalog(project.root), "docs/en/page.md", lang)


@pytest.mark.parametrize("reference, lang, shown", [
    ("{{m.py:speedup:.2f}}", "en", "1234.57"),
    ("{{m.py:speedup:,.2f}}", "en", "1,234.57"),
    ("{{m.py:speedup:,.2f}}", "ru", "1\u202f234,57"),
    ("{{m.py:speedup:.1f}}", "ru", "1234,6"),
    ("{{m.py:rows.default.ms:.2f}}", "zh", "5.25"),
    ("{{m.py:rows.reduce-overhead.graphs}}", "ko", "1"),
    ("{{m.py:count}}", "en", "12,345"),
    ("{{m.py:count}}", "ru", "12\u202f345"),
    ("{{m.py:scalar:.0%}}", "en", "50%"),
    ("{{m.py:label}}", "ru", "NVIDIA H100"),
])
def test_a_reference_shows_the_value_the_way_the_language_writes_it(measured, reference, lang, shown):
    html, problems = _render(measured, f"It ran {reference}× faster.\n", lang)
    assert problems == []
    assert f">{shown}</span>× faster." in html
    assert 'data-cell="snippets/m.py#measure"' in html
    assert "CPU" in html.split('title="')[1]  # the tooltip names where it was captured


def test_a_key_may_be_a_label_of_words(measured):
    """Snippets key their results by the labels their tables print ("padded to 5 buckets")."""
    html, problems = _render(measured, "{{m.py:rows.padded to 5 buckets.graphs}} graphs\n")
    assert problems == [] and ">5</span> graphs" in html
    for broken in ("{{m.py:rows.padded  to 5.graphs}}", "{{m.py:rows. padded.graphs}}"):
        _, problems = _render(measured, broken + "\n")
        assert "malformed figure reference" in str(problems[0])


def test_the_tooltip_speaks_the_pages_language(measured):
    html, _ = _render(measured, "{{m.py:count}}\n", "ru")
    assert "Измерено: значение из ячейки measure файла snippets/m.py" in html


def test_references_in_code_are_left_alone_and_lines_keep_their_numbers(measured):
    page = "A `{{m.py:count}}` span\n\n```\n{{m.py:count}}\n```\nthen {{m.py:count}}\n"
    html, problems = _render(measured, page)
    assert problems == []
    lines = html.split("\n")
    assert lines[0] == "A `{{m.py:count}}` span" and lines[3] == "{{m.py:count}}"
    assert lines[5].startswith("then <span") and len(lines) == len(page.split("\n"))


def test_a_quoted_figure_is_marked_with_its_source(measured):
    html, problems = _render(measured, "once {{quote:0.004×|a published notebook}} here\n", "en")
    assert problems == []
    assert '<span class="tcg-quote" title="Quoted, not measured here: a published notebook">0.004×</span>' in html


@pytest.mark.parametrize("reference, message", [
    ("{{m.py:missing}}", "snippets/m.py glues no value 'missing' (it glues: speedup, rows, count, label, scalar)"),
    ("{{m.py:rows.eager.ms}}", "rows has no 'eager' (it has: default, padded to 5 buckets, reduce-overhead)"),
    ("{{m.py:rows:.2f}}", "not a number"),
    ("{{m.py:speedup:.2x}}", "format '.2x'"),
    ("{{nope.py:speedup}}", "no such snippet file"),
    ("{{m.py speedup}}", "malformed figure reference"),
])
def test_a_broken_reference_is_an_error_with_page_and_line(measured, reference, message):
    html, problems = _render(measured, f"intro\n\nsee {reference} here\n")
    (problem,) = problems
    assert str(problem).startswith("docs/en/page.md:3: ") and message in str(problem)
    assert 'class="tcg-glue tcg-missing"' in html


def test_a_stale_output_makes_its_references_errors(measured):
    source = measured.root / "snippets" / "m.py"
    source.write_text(source.read_text().replace("count = 12345", "count = 54321"))
    _, problems = _render(measured, "{{m.py:count}}\n")
    (problem,) = problems
    assert "docs/en/page.md:1: {{m.py:count}}: its output is not usable" in str(problem)
    assert "source changed" in str(problem) or "stale" in str(problem)


def test_check_reports_unresolvable_references(measured):
    from tcguide.core.check import check

    (measured.root / "docs" / "en").mkdir(parents=True)
    (measured.root / "docs" / "en" / "p.md").write_text("# P\n\nfine {{m.py:count}}, broken {{m.py:nope}}\n")
    problems = [str(p) for p in check(measured.root)]
    assert len(problems) == 1 and problems[0].startswith("docs/en/p.md:3: {{m.py:nope}}")


def test_glue_declarations_are_checked_when_the_snippet_is_parsed():
    from tcguide.core import snippet

    with pytest.raises(GuideError, match="t.py:3: glue name 'x' is already glued by cell 'a'"):
        snippet.parse("# %% a glue=x\nx = 1\n# %% b glue=x\nx = 2\n", "t.py")
    with pytest.raises(GuideError, match="a cell that raises cannot glue"):
        snippet.parse('# %% a raises="ValueError" glue=x\nx = 1\n', "t.py")


def test_a_glued_text_cannot_put_markup_into_a_page_or_a_notebook(project):
    project.snippet("h.py", '# %% hostile glue=label\nlabel = "<script>alert(1)</script>"\n')
    assert project.capture("h.py") == 0
    catalog = Catalog(project.root)
    html_page, _ = glue.substitute("{{h.py:label}}\n", catalog, "docs/en/p.md", "en")
    notebook_md, _ = glue.substitute("{{h.py:label}}\n", catalog, "docs/en/p.md", "en", as_text=True)
    for text in (html_page, notebook_md):
        assert "<script>" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
