"""Benchmark: the test suite as CI runs it on a fresh clone, before and after a change, in one run.

    .venv/bin/python benchmarks/test_suite.py --before REV [--repeats N]

Each run clones this checkout at its commit (REV, or HEAD: commit the change first), so that nothing
an earlier run left (site/, .cache/, a recorded build) is found; builds the guide there as `make docs`
does (the recorded strict build, which the tests then read instead of building it again); and times
the command `make test` runs, `pytest -n auto --dist worksteal`, with this checkout's packages and an
empty compile cache of its own, as on a fresh machine. The sides take turns, and their order
alternates from round to round. Prints each run's wall time and, per side, the median, min and max.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from docs_build import clone_at  # this checkout at a commit, with its history (benchmarks/ is the script's folder)

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent  # this checkout's virtual environment
SUMMARY = re.compile(r"^=* ?(\d+ (?:passed|failed).*?) in [\d.]+s", re.M)  # pytest's last line, -q or not


def run_once(ref: str, scratch: Path) -> tuple[float, str]:
    """One fresh clone at ref: the guide built as make docs builds it, then the tests, timed."""
    tree = clone_at(ref, Path(tempfile.mkdtemp(dir=scratch)))  # with its history: page dates come from git
    env = dict(os.environ, PYTHONPATH=str(tree), NO_MKDOCS_2_WARNING="1",
               TORCHINDUCTOR_CACHE_DIR=tempfile.mkdtemp(dir=scratch))
    py = str(BIN / "python")
    for command in ([py, "-m", "tcguide", "built-site", "begin"], [str(BIN / "mkdocs"), "build", "--strict", "-q"],
                    [py, "-m", "tcguide", "built-site", "end"]):
        subprocess.run(command, cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
    started = time.monotonic()
    done = subprocess.run([py, "-m", "pytest", "-n", "auto", "--dist", "worksteal", "-q", "-p", "no:cacheprovider"],
                          cwd=tree, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - started
    found = SUMMARY.findall(done.stdout)
    return seconds, (found[-1] if found else f"exit status {done.returncode}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", metavar="REV", required=True, help="the commit to compare HEAD with")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()
    sides = [args.before, head]
    times: dict[str, list[float]] = {side: [] for side in sides}
    with tempfile.TemporaryDirectory(prefix="test-suite-") as scratch:
        for r in range(args.repeats):
            for side in (sides if r % 2 == 0 else sides[::-1]):
                seconds, summary = run_once(side, Path(scratch))
                times[side].append(seconds)
                print(f"round {r + 1}: {side}: {seconds:.0f} s ({summary})", flush=True)
    print("\n| side | runs | median | min–max |\n|---|---|---|---|")
    for side, found in times.items():
        print(f"| {side} | {len(found)} | {statistics.median(found):.0f} s | {min(found):.0f}–{max(found):.0f} s |")


if __name__ == "__main__":
    main()
