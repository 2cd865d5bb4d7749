"""Benchmark: the guide's build against a plain Material build of the same pages, side by side.

    .venv/bin/python benchmarks/docs_build.py --repeats 3

Three builds, interleaved in rounds (plain, guide cold, guide warm, plain, ...), each into a
folder of its own:

- plain: the same docs/ and nav with Material and mkdocs-static-i18n only (no tcguide, no
  notebooks, no search or date plugins): what the site's build costs without the guide's work;
- guide, cold: `mkdocs build --strict` with the notebook cache emptied first;
- guide, warm: the same build again, with the cache the cold build left.

For each: median, min and max wall time, and how many notebooks the build converted (the
"Converting notebook" lines of its log). Prints Markdown for benchmarks/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "mkdocs-jupyter"


class _Loader(yaml.SafeLoader):
    """Reads mkdocs.yml's tags (!ENV, !!python/...) as plain values: the plain config drops them."""


_Loader.add_multi_constructor("", lambda loader, suffix, node: None)


def plain_config(folder: Path) -> Path:
    """mkdocs.yml with the theme, the languages and the nav only."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
    i18n = next(p for p in config["plugins"] if isinstance(p, dict) and "i18n" in p)
    plain = {
        "site_name": config["site_name"], "docs_dir": str(ROOT / "docs"),
        "theme": {"name": "material", "language": "en", "font": False},
        "markdown_extensions": [e for e in config["markdown_extensions"] if isinstance(e, str)],
        "plugins": [i18n], "nav": config["nav"],
    }
    path = folder / "plain.yml"
    path.write_text(yaml.safe_dump(plain, allow_unicode=True), encoding="utf-8")
    return path


def build(args: list[str], out: Path) -> tuple[float, int]:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-d", str(out), *args], cwd=ROOT,
                          capture_output=True, text=True, env=env)
    took = time.perf_counter() - started
    if done.returncode:
        sys.exit(f"mkdocs build {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return took, done.stderr.count("Converting notebook")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    runs: dict[str, list[tuple[float, int]]] = {"plain": [], "guide, cold": [], "guide, warm": []}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        config = plain_config(folder)
        for r in range(args.repeats):
            runs["plain"].append(build(["-f", str(config)], folder / f"plain-{r}"))
            shutil.rmtree(CACHE, ignore_errors=True)
            runs["guide, cold"].append(build(["--strict"], folder / f"cold-{r}"))
            runs["guide, warm"].append(build(["--strict"], folder / f"warm-{r}"))
    plain = statistics.median(t for t, _ in runs["plain"])
    print(f"{args.repeats} rounds, interleaved (plain, cold, warm)\n")
    print("| build | median | min–max | × plain | notebooks converted |")
    print("|---|---|---|---|---|")
    for name, found in runs.items():
        times = [t for t, _ in found]
        converted = sorted({n for _, n in found})
        print(f"| {name} | {statistics.median(times):.1f} s | {min(times):.1f}–{max(times):.1f} s | "
              f"{statistics.median(times) / plain:.2f} | {', '.join(map(str, converted))} |")


if __name__ == "__main__":
    main()
