"""Benchmark: the built site's weight, before and after a change, both built in one run.

    .venv/bin/python benchmarks/site_weight.py --before REV     # REV's tree against the working tree
    .venv/bin/python benchmarks/site_weight.py SITE [SITE ...]  # sites built already

Each side is built with `mkdocs build --strict` (notebooks included) into a folder of its own, REV
from `git archive` of that commit, the working tree as it is, both with this checkout's packages.
For each: the total, the size by kind of file, the heaviest files, the heaviest pages cold with the
shared assets cached (HTML and its images), and the files held twice (tcguide/site/weight.py).
Prints Markdown for benchmarks/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tcguide.site import weight  # noqa: E402


def build(tree: Path, out: Path) -> None:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(tree))  # the tree's own tcguide
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)], cwd=tree, env=env,
                   check=True)


def tree_at(rev: str, folder: Path) -> Path:
    """The commit's files (a build needs git history for page dates: the archive is built in a
    fresh repository of one commit, so every page has that date, on both sides alike)."""
    data = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        archive.extractall(folder, filter="data")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sites", nargs="*", type=Path, help="sites built already")
    parser.add_argument("--before", help="a commit to build and measure beside the working tree")
    args = parser.parse_args()
    sides: list[tuple[str, Path]] = [(str(site), site) for site in args.sites]
    with tempfile.TemporaryDirectory(prefix="site-weight-") as scratch:
        if args.before:
            before = tree_at(args.before, Path(scratch) / "before")
            build(before, Path(scratch) / "before-site")
            sides.append((f"before ({args.before})", Path(scratch) / "before-site"))
            build(ROOT, Path(scratch) / "after-site")
            sides.append(("after (the working tree)", Path(scratch) / "after-site"))
        if not sides:
            parser.error("name sites built already, or --before REV")
        for name, site in sides:
            print(f"### {name}\n\n{weight.report(weight.measure(site))}\n")


if __name__ == "__main__":
    main()
