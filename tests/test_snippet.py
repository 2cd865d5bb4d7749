import pytest

from tcguide.errors import GuideError
from tcguide.snippet import Requirements, parse

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


def test_sibling_modules_it_imports_are_part_of_its_hash(tmp_path):
    from tcguide.snippet import load

    (tmp_path / "helpers.py").write_text("K = 1\n")
    (tmp_path / "a.py").write_text("# %% c\nfrom helpers import K\nimport json\nprint(K)\n")
    (tmp_path / "b.py").write_text("# %% c\nprint(2)\n")
    a, b = load(tmp_path / "a.py").sha256, load(tmp_path / "b.py").sha256
    (tmp_path / "helpers.py").write_text("K = 2\n")
    assert load(tmp_path / "a.py").sha256 != a
    assert load(tmp_path / "b.py").sha256 == b


def test_syntax_error_names_the_line(tmp_path):
    from tcguide.snippet import load

    (tmp_path / "a.py").write_text("# %% c\nx = (\n")
    with pytest.raises(GuideError, match=r"a.py:2: syntax error"):
        load(tmp_path / "a.py", "snippets/a.py")
