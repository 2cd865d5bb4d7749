import pytest

from tcguide.core.errors import GuideError
from tcguide.core.snippet import Requirements, parse

GOOD = """\
# /// capture
# gpus = 2
# timeout = 60
# exclusive = true
# launcher = "torchrun"
# ///

# %% setup
import os

# %% boom raises="ValueError"
raise ValueError("x")


"""


def test_cells_requirements_and_lines():
    sf = parse(GOOD, "snippets/a.py", "h")
    assert sf.requirements == Requirements(gpus=2, timeout=60, exclusive=True, launcher="torchrun")
    assert [(c.name, c.line, c.raises) for c in sf.cells] == [("setup", 8, None), ("boom", 11, "ValueError")]
    assert sf.cell("boom").source == 'raise ValueError("x")\n'


def test_no_header_means_defaults():
    sf = parse("# %% only\nprint(1)\n", "a.py")
    assert sf.requirements == Requirements()


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("# %% ok\nx = 1\n# %%bad name\n", 3, "malformed cell marker"),
        ("# %% Upper\nx = 1\n", 1, "malformed cell marker"),
        ("# %% a\nx = 1\n# %% a\ny = 2\n", 3, "duplicate cell name 'a' (first used on line 1)"),
        ("# %% a colour=red\nx = 1\n", 1, "unknown cell option 'colour'"),
        ('# %% a raises="not a name"\nx = 1\n', 1, "malformed cell marker"),
        ('# %% a raises="1abc"\nx = 1\n', 1, "is not an exception name"),
        ("import os\n# %% a\nx = 1\n", 1, "code before the first cell marker"),
        ("# %% a\n\n\n# %% b\nx = 1\n", 1, "cell 'a' is empty"),
        ("# /// capture\n# gpus = 1\n# %% a\nx = 1\n", None, "never closed"),
        ("# /// capture\n# gpus = \n# ///\n# %% a\nx = 1\n", 2, "malformed capture metadata"),
        ("# /// capture\n# gpu = 1\n# ///\n# %% a\nx = 1\n", 1, "unknown capture setting 'gpu'"),
        ('# /// capture\n# gpus = "1"\n# ///\n# %% a\nx = 1\n', 1, "must be a whole number"),
        ('# /// capture\n# launcher = "torchrun"\n# ///\n# %% a\nx = 1\n', 1, "needs gpus >= 1"),
        ("x = 1\n", 1, "code before the first cell marker"),
        ("# just a comment\n", None, "no cells found"),
        ("# %% a\nx = 1\n# /// capture\n# gpus = 1\n# ///\n", 3, "'# /// capture' block after the first cell"),
        ("# /// capture\n# gpus = 1\n# ///\n# /// capture\n# timeout = 5\n# ///\n# %% a\nx = 1\n", 4,
         "second '# /// capture' block (the first is on line 1)"),
        ('# %% a raises="BaseException"\nx = 1\n', 1, "raises=BaseException does not name an Exception subclass"),
        ('# %% a raises="object"\nx = 1\n', 1, "raises=object does not name an Exception subclass"),
        ('# %% a raises="builtins.KeyboardInterrupt"\nx = 1\n', 1, "does not name an Exception subclass"),
        ("# %% a\nif True:\n    x = 1\n# %% b\n    y = 2\n", 5, "cell 'b' does not compile on its own: unexpected indent"),
        ("# %% a\nx = 1\n# %% b\nreturn x\n", 4, "cell 'b' does not compile on its own: 'return' outside function"),
        ('# /// capture\n# depends = "data.csv"\n# ///\n# %% a\nx = 1\n', 1, "'depends' must be a list"),
    ],
)
def test_bad_input_names_file_and_line(text, line, words):
    with pytest.raises(GuideError) as caught:
        parse(text, "snippets/bad.py")
    error = caught.value
    assert error.path == "snippets/bad.py"
    if line is not None:
        assert error.line == line
    assert words in str(error)
    assert str(error).startswith("snippets/bad.py")


def test_syntax_error_names_the_line(tmp_path):
    from tcguide.core.snippet import load

    (tmp_path / "a.py").write_text("# %% c\nx = (\n")
    with pytest.raises(GuideError, match=r"a.py:2: cell 'c' does not compile on its own: '\(' was never closed"):
        load(tmp_path / "a.py", "snippets/a.py")


def test_depends_must_name_files_beside_the_snippet(tmp_path):
    from tcguide.core.snippet import load

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.py").write_text('# /// capture\n# depends = ["../secret.txt"]\n# ///\n# %% c\nx = 1\n')
    (tmp_path / "secret.txt").write_text("s")
    with pytest.raises(GuideError, match=r"snippets/sub/a.py:2: depends names '../secret.txt', which is not a file beside it"):
        load(tmp_path / "sub" / "a.py", "snippets/sub/a.py")


def test_future_imports_carry_to_later_cells_and_nothing_else_leaks_in():
    """The tooling's own 'from __future__ import annotations' must not change snippet code; a cell's does."""
    from tcguide.core.snippet import CellCompiler

    sf = parse("# %% plain\ndef f(x: int): pass\n"
               "# %% future\nfrom __future__ import annotations\ndef g(x: int): pass\n"
               "# %% later\ndef h(x: int): pass\n", "s.py")
    compiler, namespace = CellCompiler(), {}
    for cell in sf.cells:
        exec(compiler(cell, "s.py"), namespace)
    assert namespace["f"].__annotations__ == {"x": int}  # this module has the future import; the cell doesn't
    assert namespace["g"].__annotations__ == {"x": "int"}
    assert namespace["h"].__annotations__ == {"x": "int"}  # as in a script, the flag holds from there on


def test_every_line_a_reader_sees_fits_the_code_column():
    """Snippet files and their helper modules are shown on the pages and in the notebooks: a line
    over 77 characters scrolls sideways in the desktop column. The cell markers and the capture
    block are not shown."""
    from tests.helpers import ROOT

    too_long = []
    for path in sorted((ROOT / "snippets").rglob("*.py")):
        header = False
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip() == "# /// capture" or (header and line.strip() == "# ///"):
                header = not header
                continue
            if header or line.lstrip().startswith("# %%"):
                continue
            if len(line) > 77:
                too_long.append(f"{path.relative_to(ROOT)}:{number}: {len(line)} characters")
    assert not too_long, "wrap these lines to 77 characters:\n" + "\n".join(too_long)
