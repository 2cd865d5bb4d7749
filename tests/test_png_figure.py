"""A stored PNG figure reaches the page as an image file, and an output the renderer does not know
is a page:line problem, not a traceback (a real MkDocs build of a small site)."""

import base64
import struct
import subprocess
import sys
import zlib
from pathlib import Path

from tcguide.site import render
from tcguide.core import freshness, store
from tcguide.core.snippet import load

CONFIG = "site_name: t\ntheme:\n  name: material\nmarkdown_extensions:\n  - pymdownx.highlight\n  - pymdownx.superfences\nplugins:\n  - tcguide\n"


def png(width=2, height=1) -> bytes:
    """A real PNG image: a signature, a header, one compressed row per line of pixels, an end."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def small_site(tmp_path: Path, output: dict) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "snippets").mkdir()
    (tmp_path / "mkdocs.yml").write_text(CONFIG)
    (tmp_path / "docs" / "index.md").write_text("# Page\n\nA chart:\n\n[[cell a.py#chart]]\n")
    (tmp_path / "snippets" / "a.py").write_text("# %% chart\nprint('drawn')\n")
    inputs = freshness.inputs(load(tmp_path / "snippets" / "a.py", "snippets/a.py"))
    capture = store.Capture("snippets/a.py", inputs, {"gpu": "NVIDIA H100 80GB HBM3", "gpu_count": 1,
                            "torch": "2.11.0+cu130", "cuda": "13.0"}, "2026-11-22T10:15:00Z",
                            (store.CellRecord("chart", (output,), 0.5),))
    store.save(capture, tmp_path / "snippets" / "a.out.json")
    store.load(tmp_path / "snippets" / "a.out.json")  # what the build reads passes validation
    return tmp_path


def build(site: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(site / "mkdocs.yml"),
                           "-d", str(site / "out")], capture_output=True, text=True, cwd=site, timeout=300)


def test_a_png_figure_is_served_as_its_own_image_file(tmp_path):
    image = png()
    figure = {"output_type": "display_data",
              "data": {"image/png": base64.b64encode(image).decode(), "text/plain": "a red bar"}}
    site = small_site(tmp_path, figure)
    result = build(site)
    assert result.returncode == 0, result.stderr
    html = (site / "out" / "index.html").read_text()
    served = list((site / "out" / "assets" / "figures").glob("*.png"))
    assert len(served) == 1 and served[0].read_bytes() == image
    assert f'src="assets/figures/{served[0].name}"' in html
    assert 'alt="' in html and "a red bar" in html


def test_the_renderer_inlines_a_png_as_a_data_address():
    data = base64.b64encode(png()).decode()
    assert render.data_uri("image/png", data) == "data:image/png;base64," + data


def test_an_output_the_renderer_does_not_know_is_a_page_and_line_problem(tmp_path, monkeypatch):
    site = small_site(tmp_path, {"output_type": "stream", "name": "stdout", "text": "drawn\n"})
    # A stored output of a kind added to the store but not to the renderer: simulated by a
    # renderer that fails on it.
    bad = site / "bad_render.py"
    bad.write_text("from tcguide.site import render\n"
                   "def broken(*a, **k):\n    raise KeyError('image/webp')\n"
                   "render.outputs = broken\n")
    runner = ("import runpy, sys; sys.path.insert(0, '.'); import bad_render; "
              "sys.argv = ['mkdocs', 'build', '--strict', '-d', 'out']; runpy.run_module('mkdocs', run_name='__main__')")
    result = subprocess.run([sys.executable, "-c", runner], capture_output=True, text=True, cwd=site, timeout=300)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert "index.md:5: [[cell a.py#chart]]: its captured output holds something the site cannot show" in result.stderr
    assert "recapture it with: make capture SNIPPETS=snippets/a.py" in result.stderr
