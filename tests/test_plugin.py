"""The MkDocs plugin's own options: on and off, and the Markdown extensions it needs."""

import subprocess
import sys
from pathlib import Path

import pytest

EXTENSIONS = "markdown_extensions:\n  - pymdownx.highlight\n  - pymdownx.superfences\n"


def site(tmp_path: Path, extensions: str, plugin: str) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "snippets").mkdir()
    (tmp_path / "mkdocs.yml").write_text(f"site_name: t\n{extensions}plugins:\n{plugin}")
    (tmp_path / "docs" / "index.md").write_text("# Page\n\n[[cell a.py#c]]\n")
    (tmp_path / "snippets" / "a.py").write_text("# %% c\nprint(1)\n")
    return tmp_path


def build(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(root / "out")],
                          capture_output=True, text=True, cwd=root, timeout=300)


@pytest.mark.parametrize("missing", ["pymdownx.highlight", "pymdownx.superfences"])
def test_a_missing_markdown_extension_stops_the_build_naming_it(tmp_path, missing):
    extensions = EXTENSIONS.replace(f"  - {missing}\n", "")
    result = build(site(tmp_path, extensions, "  - tcguide\n"))
    assert result.returncode != 0
    assert f"lacks Markdown extensions the plugin needs: {missing}" in result.stderr
    assert "add them under markdown_extensions" in result.stderr and "Traceback" not in result.stderr


def test_a_disabled_plugin_leaves_the_pages_as_written(tmp_path):
    result = build(site(tmp_path, "", "  - tcguide:\n      enabled: false\n"))
    assert result.returncode == 0, result.stderr
    assert "[[cell a.py#c]]" in (tmp_path / "out" / "index.html").read_text()
