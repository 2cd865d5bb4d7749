"""Benchmark: how long `make docs` takes, and how long capturing the first chapter takes.

    python3 benchmarks/build_and_capture.py --docs      # needs MkDocs (make bench runs this)
    python3 benchmarks/build_and_capture.py --capture   # on the GPU machine: cold, then unchanged

Prints one line per measurement; the figures go into the issue notes.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRST_CHAPTER = "snippets/getting_started"


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def bench_docs(repeats: int) -> None:
    with tempfile.TemporaryDirectory() as out:
        runs = [timed([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", out]) for _ in range(repeats)]
    print(f"mkdocs build --strict: median {statistics.median(runs):.2f} s, "
          f"min {min(runs):.2f} s, max {max(runs):.2f} s over {repeats} runs")


def bench_capture(paths: list[str]) -> None:
    cold = timed([sys.executable, "-m", "tcguide", "capture", "--force", *paths])
    print(f"capture {' '.join(paths)}, cold (--force, fresh compiler caches): {cold:.1f} s")
    again = timed([sys.executable, "-m", "tcguide", "capture", *paths])
    print(f"capture {' '.join(paths)}, again with nothing changed: {again:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", action="store_true", help="time the strict site build")
    parser.add_argument("--capture", nargs="*", metavar="PATH", help=f"time a capture (default: {FIRST_CHAPTER})")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if not args.docs and args.capture is None:
        parser.error("say --docs and/or --capture")
    if args.docs:
        bench_docs(args.repeats)
    if args.capture is not None:
        bench_capture(args.capture or [FIRST_CHAPTER])


if __name__ == "__main__":
    main()
