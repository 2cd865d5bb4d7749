"""The project's own files agree with each other: what installs the site, what CI runs, and the
Makefile's words for a new language."""

import os
import re
import shutil
import subprocess
import tomllib

import pytest
import yaml

from tests.helpers import ROOT


def pins(lines) -> dict[str, str]:
    found = {}
    for line in lines:
        requirement = line.split("#", 1)[0].strip()
        if requirement:
            name, version = requirement.split("==")
            found[re.sub(r"[-_.]+", "-", name).lower()] = version
    return found


def test_the_site_extra_pins_what_requirements_site_txt_pins():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    site_txt = (ROOT / "requirements" / "site.txt").read_text(encoding="utf-8").splitlines()
    assert pins(extra["site"]) == pins(site_txt)


def test_ci_and_the_ci_script_run_the_same_steps():
    """The workflow's test job runs .ci/run and no command of its own; .ci/run builds the site, runs the
    tests (which read that build rather than building the guide again) and the translations' report."""
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8"))
    (job,) = workflow["jobs"].values()
    assert [step["run"] for step in job["steps"] if "run" in step] == ["bash .ci/run"]
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    commands = [line.split("#", 1)[0].strip() for line in script if line.startswith("make ")]
    assert commands == ["make docs", "make test", "make i18n-status"]


@pytest.mark.skipif(shutil.which("make") is None, reason="no make on this machine")
def test_make_docs_records_its_build_only_after_the_strict_build_passed():
    """The tests reuse site/ on make docs's record (tcguide/site/built.py): the inputs are recorded before
    the build, and the site only by a command that runs once `mkdocs build --strict` has passed (make
    stops at a failed command), so a failed or lax build is never read as the guide's."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    done = subprocess.run(["make", "--no-print-directory", "-n", "docs"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    steps = [line.split("/")[-1] for line in lines[-3:]]
    assert steps == ["python -m tcguide built-site begin", "mkdocs build --strict --clean",
                     "python -m tcguide built-site end"], lines


@pytest.mark.skipif(shutil.which("make") is None, reason="no make on this machine")
def test_make_serve_asks_for_live_reload_and_the_benchmark_measures_the_same_command():
    """MkDocs 1.6 loses its --livereload default under click 8.2.2 to 8.3.1 (mkdocs issue 4032): then `make
    serve` neither watched nor reloaded. It asks for it; benchmarks/serve_reload.py runs the same command."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    done = subprocess.run(["make", "--no-print-directory", "-n", "serve"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    command = done.stdout.splitlines()[-1]
    assert command.startswith("TCGUIDE_NOTEBOOKS=false ") and command.endswith("mkdocs serve --no-strict --livereload")
    benchmark = (ROOT / "benchmarks" / "serve_reload.py").read_text(encoding="utf-8")
    assert '"serve", "--no-strict", "--livereload"' in benchmark


@pytest.mark.skipif(shutil.which("make") is None, reason="no make on this machine")
def test_new_language_takes_locale_not_the_shells_lang():
    def dry_run(*args):
        # as from a shell: not a sub-make of `make test`, which would print the folders it enters
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        return subprocess.run(["make", "--no-print-directory", "-n", "new-language", *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=60, env=env)

    refused = dry_run("LANG=ja")
    assert refused.returncode != 0 and "make new-language takes LOCALE=<locale>" in refused.stderr
    accepted = dry_run("LOCALE=ja")
    assert accepted.returncode == 0, accepted.stderr
    assert accepted.stdout.splitlines()[-1].endswith("-m tcguide new-language ja")
    assert "LANG=" not in accepted.stdout
