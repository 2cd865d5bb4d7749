"""Shared fixtures: a throw-away project with snippet files, captured without torch, and the guide
itself, built once per test run as `make docs` builds it (no site address: it must work on any host
and port) and served on a port the run holds, which is not the one `make serve` uses.

Markers (`make test-fast` leaves out the four tiers below; `make test` runs everything):
browser, notebooks, capture and build, registered in pyproject.toml.

With pytest-xdist (`make test`: -n auto) every worker is a session of its own, so a session-scoped
fixture would build the guide once per worker. Instead, the process that runs the whole test run
(xdist's controller, or pytest alone) makes a folder for the guide and serves it from a port it holds
until the run ends; its workers find both in the environment, and the first that needs the guide
builds it there (or copies the site/ that `make docs` built from this very tree), under a lock, for
the others to read.
"""

from __future__ import annotations

import fcntl
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from tcguide.site import built
from tests.helpers import ROOT, Project, SiteServer, StaticSiteHandler

os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")  # MkDocs' banner about its successor is not a build problem

GUIDE_FOLDER = "TCGUIDE_TESTS_GUIDE_FOLDER"  # the run's guide folder: site/, the lock, the build's result
GUIDE_PORT = "TCGUIDE_TESTS_GUIDE_PORT"  # the port it is served at, and built for


@pytest.fixture
def project(tmp_path, monkeypatch) -> Project:
    """A project in a temp folder; capture's work folders go under it too, not the shared /tmp."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", None)
    return Project(tmp_path / "project")


def pytest_configure(config):
    """In the process that runs the test run (not in an xdist worker): the guide's folder, and a server
    for it on a port bound now and held until the run ends, which every worker's tests reach."""
    if hasattr(config, "workerinput"):
        return
    folder = Path(tempfile.mkdtemp(prefix="tcguide-tests-guide-"))
    server = SiteServer(("127.0.0.1", 0), functools.partial(StaticSiteHandler, directory=str(folder / "site")))
    thread = threading.Thread(target=server.serve_forever, name="guide-server", daemon=True)
    thread.start()
    os.environ[GUIDE_FOLDER] = str(folder)
    os.environ[GUIDE_PORT] = str(server.server_address[1])

    def stop():
        server.shutdown()
        server.server_close()
        thread.join()
        shutil.rmtree(folder, ignore_errors=True)

    config.add_cleanup(stop)


@pytest.fixture(scope="session")
def guide_port() -> int:
    """The port the guide is served at: held by the run since it started."""
    return int(os.environ[GUIDE_PORT])


@pytest.fixture(scope="session")
def guide_site(guide_port) -> Path:
    """The guide itself, built as `make docs` builds it (--strict, no SITE_URL: the published address
    is the deploy workflow's) once per test run, whichever worker asks first; returns the site folder.
    A worker that asks while another builds waits for that build and shares its result.

    Where `make docs` has built site/ from the tree as it is now (the same files, commit, package
    versions and environment, and site/ untouched since: tcguide/site/built.py checks the digests it
    recorded), that strict build is copied instead of building the guide a second time (CI runs
    make docs, then make test). Otherwise, as on a fresh clone, the tests build it."""
    folder = Path(os.environ[GUIDE_FOLDER])
    out, result_file = folder / "site", folder / "build-result"
    with open(folder / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if not result_file.exists():
            env = {name: value for name, value in os.environ.items() if name != "SITE_URL"}
            if built.reusable(ROOT, ROOT / "site", env):  # `make docs` built it from this very tree
                shutil.copytree(ROOT / "site", out)
                result_file.write_text("0\n", encoding="utf-8")
        if not result_file.exists():
            result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
                                    capture_output=True, text=True, cwd=ROOT, timeout=900, env=env)
            result_file.write_text(f"{result.returncode}\n{result.stderr}", encoding="utf-8")
        status, stderr = result_file.read_text(encoding="utf-8").split("\n", 1)
    assert status == "0", stderr
    return out


def pytest_collection_modifyitems(config, items):
    """A test that reads the built guide is in the build tier: `make test-fast` must never build it."""
    strays = [item.nodeid for item in items
              if "guide_site" in getattr(item, "fixturenames", ()) and item.get_closest_marker("build") is None]
    if strays:
        raise pytest.UsageError("tests that read the built guide must be marked build: " + ", ".join(strays))


def pytest_terminal_summary(terminalreporter):
    """Report translations that fell behind their English page (a report, not a failure)."""
    from tcguide.i18n import translations as i18n

    rows = [r for r in i18n.report(i18n.Site(ROOT)) if r.state != "up to date"]
    if not rows:
        return
    terminalreporter.section("translations behind the English pages")
    for row in rows:
        changes = "; ".join(row.changes)
        terminalreporter.write_line(f"docs/{row.lang}/{row.page}: {row.state}" + (f" ({changes})" if changes else ""))
    terminalreporter.write_line("update them and run: make i18n-stamp PAGE=docs/<lang>/<page>.md")
