"""Shared fixtures: a throw-away project with snippet files, captured without torch."""

from __future__ import annotations

import os
import tempfile
import textwrap
from pathlib import Path

import pytest

from tcguide import capture as capture_mod

os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")  # MkDocs' banner about its successor is not a build problem

CPU_ONLY = {"python": "3.x", "torch": "", "torchvision": "", "triton": "", "cuda": "", "gpu": "",
            "gpu_count": 0, "driver": "", "tooling": "test"}


class Project:
    def __init__(self, root: Path):
        self.root = root
        (root / "snippets").mkdir(parents=True)

    def snippet(self, name: str, text: str) -> Path:
        path = self.root / "snippets" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    def capture(self, *names: str, env: dict | None = None, **kwargs) -> int:
        paths = [str(self.root / "snippets" / n) for n in names] or [str(self.root / "snippets")]
        return capture_mod.capture(paths, self.root, machine_env=env or CPU_ONLY, **kwargs)

    def output(self, name: str) -> Path:
        return (self.root / "snippets" / name).with_suffix("").with_suffix(".out.json")


@pytest.fixture
def project(tmp_path, monkeypatch) -> Project:
    """A project in a temp folder; capture's work folders go under it too, not the shared /tmp."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", None)
    return Project(tmp_path / "project")


ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def guide_port() -> int:
    """A free local port: the guide is built for the address the browser tests serve it at."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def guide_site(tmp_path_factory, guide_port) -> Path:
    """The guide itself, built once per test session with --strict; returns the site folder."""
    import subprocess
    import sys

    out = tmp_path_factory.mktemp("guide") / "site"
    env = dict(os.environ, SITE_URL=f"http://127.0.0.1:{guide_port}/")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
                            capture_output=True, text=True, cwd=ROOT, timeout=900, env=env)
    assert result.returncode == 0, result.stderr
    return out


def pytest_terminal_summary(terminalreporter):
    """Report translations that fell behind their English page (a report, not a failure)."""
    from tcguide import i18n

    rows = [r for r in i18n.report(i18n.Site(ROOT)) if r.state != "up to date"]
    if not rows:
        return
    terminalreporter.section("translations behind the English pages")
    for row in rows:
        changes = "; ".join(row.changes)
        terminalreporter.write_line(f"docs/{row.lang}/{row.page}: {row.state}" + (f" ({changes})" if changes else ""))
    terminalreporter.write_line("update them and run: make i18n-stamp PAGE=docs/<lang>/<page>.md")
