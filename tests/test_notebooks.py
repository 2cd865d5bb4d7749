"""Chapters as notebooks: made from the page and its cells, valid nbformat, runnable top to bottom."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from tcguide.notebooks import execution
from tcguide.notebooks import build as notebooks
from tcguide.core.catalog import Catalog
from tcguide.core.snippet import load
from tests.helpers import write_captured

ROOT = Path(__file__).resolve().parent.parent
ENV = {"gpu": "NVIDIA H100 80GB HBM3", "gpu_count": 1, "torch": "2.11.0+cu130", "cuda": "13.0"}
SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="5" height="5"/></svg>'

A = '''\
# %% setup
import warnings
x = 1
print("setup of a")

# %% shown glue=ratio
ratio = 1234.5
print(f"x is {x}")
warnings.warn("mind the gap")

# %% oops raises="KeyError"
{}["k"]

# %% later
print(f"x is still {x}")
'''
B = '''\
# %% setup
x = 2
print("b sets x too")

# %% figure
print("a chart")
'''
TORCHRUN = '''\
# /// capture
# gpus = 2
# launcher = "torchrun"
# ///

# %% setup
import torch.distributed
raise SystemExit("never run here")
'''
PAGE = """\
---
translation:
  version: abc
---
# Глава

Ускорение: {{a.py:ratio:,.1f}}× ({{quote:0,004×|старый блокнот}}), см. [другую главу](other.md#part).

[[cell a.py#shown]]

!!! note "Заметка"
    Текст заметки.

## Второй раздел { #second-part }

[[cell b.py#figure]]

[[cell a.py#oops]]

[[cell a.py#later]]
"""

OUTPUTS = {
    "a.py": {"setup": [{"output_type": "stream", "name": "stdout", "text": "setup of a\n"}],
             "shown": [{"output_type": "stream", "name": "stdout", "text": "x is 1\n"},
                       {"output_type": "warning", "category": "UserWarning", "message": "mind the gap",
                        "filename": "snippets/a.py", "lineno": 9}],
             "oops": [{"output_type": "error", "ename": "KeyError", "evalue": "'k'", "expected": True,
                       "traceback": "Traceback (most recent call last):\nKeyError: 'k'\n"}],
             "later": [{"output_type": "stream", "name": "stdout", "text": "x is still 1\n"}]},
    "b.py": {"setup": [{"output_type": "stream", "name": "stdout", "text": "b sets x too\n"}],
             "figure": [{"output_type": "display_data", "data": {"image/svg+xml": SVG, "text/plain": "a square"}}]},
    "dist.py": {"setup": []},
}


def captured(root: Path, name: str, source: str) -> None:
    """A snippet file and its output as a capture writes one, with the outputs of OUTPUTS."""
    write_captured(root, name, source, OUTPUTS[name], ENV, glued={"ratio": 1234.5})


@pytest.fixture
def chapter(tmp_path) -> Path:
    captured(tmp_path, "a.py", A)
    captured(tmp_path, "b.py", B)
    return tmp_path


def make(root: Path, page: str = PAGE, lang: str = "ru", cuda: dict | None = None):
    return notebooks.build(f"docs/{lang}/chapter.md", "chapter.md", textwrap.dedent(page), lang, Catalog(root),
                           "https://guide.example/ru/", cuda)


def code_cells(nb: dict) -> list[dict]:
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def test_a_chapter_is_a_valid_notebook_of_its_prose_code_and_captured_outputs(chapter):
    nb, problems = make(chapter)
    assert problems == []
    nbformat.validate(nbformat.from_dict(nb))
    markdown = [c["source"] for c in nb["cells"] if c["cell_type"] == "markdown"]
    assert markdown[0] == "# Глава" and "translation" not in json.dumps(nb["cells"])  # front matter stays out
    assert "«Глава»" in markdown[1] and "NVIDIA H100 80GB HBM3 · torch 2.11.0 · CUDA 13.0" in markdown[1]
    # a link that ends where the address does (a bare address would take the CJK text after it in)
    assert "([https://guide.example/ru/chapter/](https://guide.example/ru/chapter/))" in markdown[1]
    assert markdown[2].startswith("**Что нужно этому блокноту**")  # what it needs (test_what_the_notebook_needs…)
    # glued figures as the language writes them, quotes as their figure, links to the site
    assert markdown[3] == ("Ускорение: 1\u202f234,5× (0,004×), см. "
                           "[другую главу](https://guide.example/ru/other/#part).")
    assert markdown[4] == "> **Заметка**\n>\n> Текст заметки."
    assert markdown[5].split("\n")[0] == "## Второй раздел"  # its id is the site's: Jupyter would show it
    cells = code_cells(nb)
    assert [(c["metadata"]["tcguide"].get("cell"), c["metadata"].get("tags", [])) for c in cells] == [
        ("setup", ["setup"]), ("shown", []), (None, ["setup", "namespace"]), ("setup", ["setup"]), ("figure", []),
        (None, ["setup", "namespace"]), ("oops", ["raises-exception"]), ("later", [])]
    assert cells[1]["source"] == 'ratio = 1234.5\nprint(f"x is {x}")\nwarnings.warn("mind the gap")'
    assert cells[0]["metadata"]["jupyter"] == {"source_hidden": True, "outputs_hidden": True}
    assert cells[1]["metadata"]["tcguide"] == {
        "snippet": "snippets/a.py", "cell": "shown", "line": 6, "shown": True, "captured_at": "2026-11-22T10:15:00Z",
        "environment": ENV, "wall_time_s": 0.25}
    assert cells[1]["outputs"][:-1] == [
        {"output_type": "stream", "name": "stdout", "text": "x is 1\n"},
        {"output_type": "stream", "name": "stderr", "text": "snippets/a.py:9: UserWarning: mind the gap\n"}]
    assert cells[4]["outputs"][:-1] == [{"output_type": "display_data", "metadata": {},
                                         "data": {"image/svg+xml": SVG, "text/plain": "a square"}}]
    assert cells[6]["outputs"][:-1] == [{"output_type": "error", "ename": "KeyError", "evalue": "'k'",
                                         "traceback": ["Traceback (most recent call last):", "KeyError: 'k'"]}]
    # under the captured outputs, where and when they ran: a line Jupyter and Colab show, as the page does
    assert cells[1]["outputs"][-1] == {
        "output_type": "display_data", "metadata": {"tcguide": {"provenance": True}},
        "data": {"text/markdown": "*Получено для руководства: NVIDIA H100 80GB HBM3 · torch 2.11.0 · CUDA 13.0 · "
                                  "2026-11-22 10:15 UTC · 0,2 с*",
                 "text/plain": "Получено для руководства: NVIDIA H100 80GB HBM3 · torch 2.11.0 · CUDA 13.0 · "
                               "2026-11-22 10:15 UTC · 0,2 с"}}
    assert all(c["outputs"][-1]["metadata"] == {"tcguide": {"provenance": True}} for c in cells
               if "namespace" not in c["metadata"].get("tags", []))
    assert cells[6]["metadata"]["tcguide"]["raises"] == "KeyError"
    assert nb["metadata"]["tcguide"]["environment"] == ENV
    assert nb["metadata"]["kernelspec"]["language"] == "python"


@pytest.mark.notebooks
def test_a_page_that_comes_back_to_a_file_gets_its_names_back_when_run(chapter):
    nb, _ = make(chapter)
    result = execution.run(nb, "docs/ru/chapter.md", timeout=60)
    assert result.ok, result.failures
    later = code_cells(result.notebook)[-1]
    assert later["outputs"][0]["text"] == "x is still 1\n"  # not b.py's x
    keep, restore = (c for c in code_cells(nb) if c["metadata"].get("tags") == ["setup", "namespace"])
    assert keep["source"].startswith("# snippets/a.py продолжается ниже")
    assert restore["source"] == "# снова snippets/a.py: его имена такими, какими их оставили его ячейки\n" \
                                "globals().update(_tcguide_names.pop('a.py'))"


@pytest.mark.notebooks
def test_an_error_the_page_does_not_declare_fails_the_run_naming_page_file_and_cell(chapter):
    (chapter / "snippets" / "a.py").write_text(A.replace('print(f"x is still {x}")', "print(y)"))
    nb, _ = make(chapter)
    result = execution.run(nb, "docs/ru/chapter.md", timeout=60)
    assert result.failures == ["docs/ru/chapter.md: snippets/a.py:14 (cell later): NameError: name 'y' is not "
                               "defined — an error the page does not declare"]


@pytest.mark.notebooks
def test_a_cell_that_raises_something_else_than_declared_fails(chapter):
    (chapter / "snippets" / "a.py").write_text(A.replace('{}["k"]', "1 / 0"))
    nb, _ = make(chapter)
    result = execution.run(nb, "docs/ru/chapter.md", timeout=60)
    assert result.failures == ["docs/ru/chapter.md: snippets/a.py:11 (cell oops): raised ZeroDivisionError: division "
                               "by zero; the page declares KeyError"]


@pytest.mark.notebooks
def test_multi_gpu_and_cuda_only_cells_are_shown_not_run_and_say_why(chapter):
    captured(chapter, "dist.py", TORCHRUN)
    page = "# T\n\n[[cell dist.py#setup]]\n\n[[cell b.py#figure]]\n"
    nb, _ = make(chapter, page, "en", cuda={"b.py#figure": "draws on the GPU"})
    nbformat.validate(nbformat.from_dict(nb))
    note = next(c for c in nb["cells"] if c["id"] == "multi-gpu")
    assert "`torchrun --nproc-per-node=2 snippets/dist.py`" in note["source"]
    dist, b_setup, figure = code_cells(nb)
    assert dist["metadata"]["tags"] == ["skip-execution", "multi-gpu"]
    assert figure["metadata"]["tags"] == ["needs-cuda"] and figure["metadata"]["tcguide"]["needs_cuda"] == "draws on the GPU"
    result = execution.run(nb, "docs/en/chapter.md", timeout=60)
    assert result.ok, result.failures
    assert result.skipped == [
        "docs/en/chapter.md: snippets/dist.py:6 (cell setup): runs under torchrun, one process per GPU",
        "docs/en/chapter.md: snippets/b.py:5 (cell figure): needs CUDA: draws on the GPU"]
    assert result.executed == 1  # b.py's setup


@pytest.mark.notebooks
def test_helper_modules_a_file_imports_are_written_before_its_cells(tmp_path):
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "helper.py").write_text("def twice(n):\n    return 2 * n\n")
    OUTPUTS["uses.py"] = {"go": [{"output_type": "stream", "name": "stdout", "text": "4\n"}]}
    captured(tmp_path, "uses.py", "# %% go\nfrom helper import twice\nprint(twice(2))\n")
    nb, _ = make(tmp_path, "# T\n\n[[cell uses.py#go]]\n", "en")
    helper, go = code_cells(nb)
    assert helper["source"] == "%%writefile helper.py\ndef twice(n):\n    return 2 * n"
    assert helper["metadata"]["tags"] == ["setup", "helper"]
    result = execution.run(nb, "docs/en/chapter.md", timeout=60)
    assert result.ok, result.failures
    assert code_cells(result.notebook)[1]["outputs"][0]["text"] == "4\n"


@pytest.mark.notebooks
def test_a_shared_helper_is_written_where_import_finds_it_from_the_notebook(tmp_path):
    (tmp_path / "snippets" / "_shared").mkdir(parents=True)
    (tmp_path / "snippets" / "_shared" / "timing.py").write_text("def thrice(n):\n    return 3 * n\n")
    OUTPUTS["topic/uses.py"] = {"go": [{"output_type": "stream", "name": "stdout", "text": "6\n"}]}
    captured(tmp_path, "topic/uses.py", "# %% go\nfrom timing import thrice\nprint(thrice(2))\n")
    nb, _ = make(tmp_path, "# T\n\n[[cell topic/uses.py#go]]\n", "en")
    helper, go = code_cells(nb)
    assert helper["source"].startswith("%%writefile timing.py\n")
    assert helper["metadata"]["tcguide"]["helper"] == "snippets/_shared/timing.py"
    result = execution.run(nb, "docs/en/chapter.md", timeout=60)
    assert result.ok, result.failures
    assert code_cells(result.notebook)[1]["outputs"][0]["text"] == "6\n"


def test_a_helper_that_several_files_import_is_written_once_unless_a_torchrun_file_wrote_it(tmp_path):
    """Files of one notebook that import the same module find it where the first wrote it: a second
    ``%%writefile`` of the same text would only repeat it (the speedups notebook wrote its timing module
    five times). A module another file wrote with other text, or that only a torchrun file's cell (never
    run) wrote, is written again."""
    (tmp_path / "snippets" / "_shared").mkdir(parents=True)
    (tmp_path / "snippets" / "_shared" / "timing.py").write_text("def thrice(n):\n    return 3 * n\n")
    (tmp_path / "snippets" / "other").mkdir()
    (tmp_path / "snippets" / "other" / "timing.py").write_text("def thrice(n):\n    return n + n + n\n")
    uses = "# %% go\nfrom timing import thrice\nprint(thrice(2))\n"
    for name in ("topic/first.py", "topic/second.py", "other/third.py", "topic/fourth.py"):
        OUTPUTS[name] = {"go": [{"output_type": "stream", "name": "stdout", "text": "6\n"}]}
        captured(tmp_path, name, uses)
    OUTPUTS["topic/dist.py"] = {"go": []}
    captured(tmp_path, "topic/dist.py", TORCHRUN.split("# %% setup")[0] + "# %% go\nimport timing\n")
    page = "# T\n\n" + "".join(f"[[cell topic/{name}.py#go]]\n\n" for name in ("dist", "first", "second")) + \
        "[[cell other/third.py#go]]\n\n[[cell topic/fourth.py#go]]\n"
    nb, problems = make(tmp_path, page, "en")
    assert problems == []
    writes = [(c["metadata"]["tcguide"]["snippet"], c["metadata"]["tags"]) for c in code_cells(nb)
              if c["source"].startswith("%%writefile")]
    assert writes == [("snippets/topic/dist.py", ["setup", "helper", "skip-execution"]),  # not run: not written
                      ("snippets/topic/first.py", ["setup", "helper"]),
                      ("snippets/other/third.py", ["setup", "helper"]),  # its own timing.py, other text
                      ("snippets/topic/fourth.py", ["setup", "helper"])]  # the shared one, over third's


def test_what_the_notebook_needs_is_said_after_its_title_and_its_first_code_cell_installs_the_packages(tmp_path):
    """A CUDA GPU and how to pick one in Colab, the torch and CUDA of the captures, and the packages the code
    imports by the name of a distribution its capture recorded: not a helper module, not a module a cell
    imports to show the error, not what only torch itself imported."""
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "helper.py").write_text("import numpy\n\ndef twice(n):\n    return 2 * n\n")
    OUTPUTS["uses.py"] = {"go": [{"output_type": "stream", "name": "stdout", "text": "4\n"}], "fails": []}
    write_captured(tmp_path, "uses.py", "# %% go\nimport tabulate\nfrom helper import twice\nprint(twice(2))\n\n"
                   '# %% fails raises="ModuleNotFoundError"\nimport a_package_that_is_not_installed\n',
                   OUTPUTS["uses.py"], ENV,
                   packages={"tabulate": "0.10.0", "numpy": "2.5.2", "Jinja2": "3.1.6", "torch": "2.11.0"})
    nb, problems = notebooks.build("docs/ko/chapter.md", "chapter.md", "# 장\n\n글.\n\n[[cell uses.py#go]]\n", "ko",
                                   Catalog(tmp_path), "https://guide.example/ko/", colab_gpu="L4")
    assert problems == []
    nbformat.validate(nbformat.from_dict(nb))
    assert [c["id"] for c in nb["cells"]][:4] == ["text", "about", "needs", "install"]
    needs = nb["cells"][2]["source"]
    assert needs.startswith("**이 노트북에 필요한 것**\n\n- CUDA GPU: 여기 보이는 출력은 NVIDIA H100 80GB HBM3에서")
    assert '"런타임 → 런타임 유형 변경"' in needs and "GPU 유형 L4" in needs
    assert "- torch 2.11.0(CUDA 13.0): 출력을 캡처한 버전입니다." in needs
    assert "- 코드가 가져오는 패키지: `numpy`, `tabulate`." in needs
    install = nb["cells"][3]
    assert install["metadata"]["tags"] == ["install"]
    assert install["metadata"]["tcguide"] == {"install": {"numpy": "numpy==2.5.2", "tabulate": "tabulate==0.10.0"}}
    assert "%pip install --quiet {_install}" in install["source"]
    assert nb["metadata"]["accelerator"] == "GPU" and nb["metadata"]["colab"] == {"gpuType": "L4"}


@pytest.mark.notebooks
def test_the_install_cell_asks_pip_only_for_what_cannot_be_imported():
    """Run in a kernel whose %pip only says what it was asked: nothing where every module is there, and
    only the missing distribution, in its captured version, where one is not."""
    from tcguide.notebooks import needs

    spy = ("from IPython.core.magic import register_line_magic\n\n"
           "@register_line_magic\ndef pip(line):\n    print('pip', line)")
    for wanted, said in (({"json": "json==0"}, []),
                         ({"json": "json==0", "no_such_module_here": "no-such-dist==1.0"},
                          ["pip install --quiet no-such-dist==1.0\n"])):
        cells = [nbformat.v4.new_code_cell(spy), nbformat.v4.new_code_cell(needs.install_cell(wanted))]
        result = execution.run(nbformat.v4.new_notebook(cells=cells), "install", timeout=60)
        assert result.ok, result.failures
        assert [o["text"] for o in result.notebook.cells[1].outputs] == said


def test_a_missing_cell_is_a_problem_named_by_page_and_line(chapter):
    nb, problems = make(chapter, "# T\n\n[[cell a.py#nope]]\n", "en")
    assert [str(p) for p in problems] == ["docs/en/chapter.md:3: [[cell a.py#nope]]: snippets/a.py: has no cell 'nope' "
                                          "— its cells are: setup, shown, oops, later"]
    assert "has no cell 'nope'" in nb["cells"][-1]["source"]


# ---- the guide ------------------------------------------------------------------------------

def guide_chapters() -> list[str]:
    return sorted(p.name for p in (ROOT / "docs" / "en").glob("*.md") if notebooks.is_chapter(p.read_text()))


def guide_notebook(lang: str, name: str) -> dict:
    page = ROOT / "docs" / lang / name
    nb, _ = notebooks.build(f"docs/{lang}/{name}", name, page.read_text(), lang, Catalog(ROOT),
                            "https://guide.example/", notebooks.needs_cuda(ROOT))
    return nb


@pytest.mark.parametrize("name", guide_chapters())
def test_every_chapter_is_a_valid_notebook_with_the_same_code_in_every_language(name):
    english = guide_notebook("en", name)
    for lang in ("en", "ru", "zh", "ko"):
        nb = guide_notebook(lang, name) if lang != "en" else english
        nbformat.validate(nbformat.from_dict(nb))
        text = json.dumps([c["source"] for c in nb["cells"] if c["cell_type"] == "markdown"], ensure_ascii=False)
        assert "[[cell" not in text and "{{" not in text, (lang, name)
        assert [c["source"] for c in code_cells(nb) if "namespace" not in c["metadata"].get("tags", [])] == \
               [c["source"] for c in code_cells(english) if "namespace" not in c["metadata"].get("tags", [])]
    shown = [c for c in code_cells(english) if c["metadata"]["tcguide"].get("shown")]
    embedded = (ROOT / "docs" / "en" / name).read_text().count("\n[[cell ")
    assert len(shown) == embedded


def test_every_snippet_file_opens_in_jupytext_as_the_cells_tcguide_finds():
    import jupytext

    files = Catalog(ROOT).files()
    assert len(files) > 30
    for name in files:
        parsed = load(ROOT / "snippets" / name, f"snippets/{name}")
        cells = jupytext.read(ROOT / "snippets" / name, fmt="py:percent").cells
        cells = [c for c in cells if "title" in c.metadata]  # the capture block before the first cell is a comment
        assert [c.metadata["title"] for c in cells] == [c.name for c in parsed.cells], name
        assert all(c.cell_type == "code" for c in cells), name
        for ours, theirs in zip(parsed.cells, cells):
            assert theirs.source.strip("\n") + "\n" == ours.code, (name, ours.name)
            assert theirs.metadata.get("raises") == ours.raises, (name, ours.name)
            if ours.glue:  # jupytext keeps an unquoted option as text
                assert theirs.metadata["incorrectly_encoded_metadata"] == "glue=" + ",".join(ours.glue)


def test_writing_notebooks_needs_only_the_standard_library(tmp_path):
    """GPU machines have Python and torch, not Jupyter nor MkDocs: the CLI writes notebooks without them."""
    blocked = ("mkdocs", "yaml", "pymdownx", "nbformat", "nbclient", "jupyter_client", "jupytext", "torch")
    code = (f"import sys; sys.modules.update(dict.fromkeys({blocked!r})); import tcguide.cli; "
            f"sys.exit(tcguide.cli.main(['notebooks', '--out', {str(tmp_path)!r}, 'getting-started']))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    for lang in ("en", "ru", "zh", "ko"):
        nb = nbformat.read(tmp_path / lang / "getting-started.ipynb", as_version=4)
        nbformat.validate(nb)
        assert nb.metadata.tcguide.page == f"docs/{lang}/getting-started.md"


def test_the_cli_names_what_is_not_a_chapter(tmp_path, capsys):
    from tcguide.cli import main

    assert main(["notebooks", "--out", str(tmp_path), "contributing"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: contributing: is not a chapter — name one of: compile-time, cpu-backend, cuda-graphs, custom-ops, ")
    assert "getting-started" in err and "contributing" not in err.split("name one of:")[1]


# Chapters whose notebooks run on a CPU (the others need a GPU); the code is the same in every language.
CPU_CHAPTERS = ["getting-started.md", "tracing-compared.md", "dynamo-and-graphs.md", "under-the-hood.md"]


@pytest.mark.notebooks
@pytest.mark.parametrize("name", CPU_CHAPTERS)
def test_the_chapters_notebook_runs_top_to_bottom_on_a_cpu(name, record_property):
    nb = guide_notebook("en", name)
    result = execution.run(nb, f"docs/en/{name}", timeout=300)
    record_property("seconds", round(result.seconds))
    print(f"docs/en/{name}: {result.executed} cells in {result.seconds:.0f} s; skipped: {result.skipped}")
    assert result.ok, result.failures
    assert result.executed + len(result.skipped) == len(code_cells(nb))  # every cell ran or was skipped, saying why
    assert all(": needs CUDA: " in line for line in result.skipped)
