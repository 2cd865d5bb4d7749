"""Benchmark: the guide's build against a plain Material build of the same pages, side by side.

    .venv/bin/python benchmarks/docs_build.py --repeats 5 [--cold] [--before REF] [--no-strict]

Builds interleaved in rounds (plain, guide warm, plain, guide warm, ...), each into a folder of its
own, after one guide build that is not timed (it leaves the caches a warm build finds):

- plain: the same docs/ and nav with Material and mkdocs-static-i18n only (no tcguide, no
  notebooks, no search or date plugins): what the site's build costs without the guide's work;
- guide, warm: `mkdocs build --strict` as `make docs` runs it, a second build with nothing changed
  (the notebook pages' cache, mkdocs-jupyter's, and the guide's own, .cache/tcguide/, as the build
  before left them);
- with ``--cold``, guide, cold: the same build with both caches emptied first, before each warm one.

``--no-strict`` builds the guide without --strict (a tree whose outputs await a recapture fails the
strict build; the work is the same). The last line gives the ratio that issue 20 bounds: the warm
build's median over the plain build's, in CPU time and in wall time.

With ``--before REF``, the guide at another commit (a local clone of this checkout at REF, with
its history, so its pages are dated as these) is built cold and warm in the same rounds: before
and after a change, side by side.

For each: median, min and max wall time, the median CPU time (user and system, of the build's
process: on a machine shared with other work it moves less than the wall time), and how many
notebooks the build converted (the "Converting notebook" lines of its log). Prints Markdown for
benchmarks/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CACHES = (ROOT / ".cache" / "mkdocs-jupyter", ROOT / ".cache" / "tcguide")  # emptied for a cold build


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


def build(args: list[str], out: Path, root: Path = ROOT) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, notebooks converted) of one build."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    env.pop("SITE_URL", None)
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-d", str(out), *args], cwd=root,
                          capture_output=True, text=True, env=env)
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        sys.exit(f"mkdocs build {' '.join(args)} in {root} failed:\n{done.stderr[-3000:]}")
    return took, after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime, done.stderr.count("Converting notebook")


def clone_at(ref: str, folder: Path) -> Path:
    """This checkout at ref, with its history, in folder (git's local clone: its objects hard-linked)."""
    target = folder / "before"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(ROOT), str(target)], check=True)
    subprocess.run(["git", "-C", str(target), "checkout", "-q", "--detach", ref], check=True)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cold", action="store_true", help="also build the guide with its caches emptied, each round")
    parser.add_argument("--before", metavar="REF", help="also build the guide at this commit, in the same rounds")
    parser.add_argument("--no-strict", action="store_true", help="build the guide without --strict")
    args = parser.parse_args()
    strict = ["--no-strict"] if args.no_strict else ["--strict"]
    runs: dict[str, list[tuple[float, float, int]]] = {"plain": []}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        config = plain_config(folder)
        sides = [("guide", ROOT)]
        if args.before:
            sides.insert(0, (f"guide at {args.before}", clone_at(args.before, folder)))
        for name, root in sides:  # not timed: what it leaves is what a warm build finds
            build(strict, folder / f"{name}-first", root)
        for r in range(args.repeats):
            runs["plain"].append(build(["-f", str(config)], folder / f"plain-{r}"))
            for name, root in sides:
                if args.cold:
                    for cache in CACHES:
                        shutil.rmtree(root / cache.relative_to(ROOT), ignore_errors=True)
                    runs.setdefault(f"{name}, cold", []).append(build(strict, folder / f"{name}-cold-{r}", root))
                runs.setdefault(f"{name}, warm", []).append(build(strict, folder / f"{name}-warm-{r}", root))
    plain = statistics.median(t for t, _, _ in runs["plain"])
    plain_cpu = statistics.median(c for _, c, _ in runs["plain"])
    print(f"{args.repeats} rounds, interleaved ({'; '.join(runs)})\n")
    print("| build | wall, median | min–max | × plain | CPU, median | × plain | notebooks converted |")
    print("|---|---|---|---|---|---|---|")
    for name, found in runs.items():
        times, cpus = [t for t, _, _ in found], [c for _, c, _ in found]
        converted = sorted({n for _, _, n in found})
        print(f"| {name} | {statistics.median(times):.1f} s | {min(times):.1f}–{max(times):.1f} s | "
              f"{statistics.median(times) / plain:.2f} | {statistics.median(cpus):.1f} s | "
              f"{statistics.median(cpus) / plain_cpu:.2f} | {', '.join(map(str, converted))} |")
    warm = runs["guide, warm"]
    print(f"\nguide warm / plain, medians: CPU {statistics.median(c for _, c, _ in warm) / plain_cpu:.2f}×, "
          f"wall {statistics.median(t for t, _, _ in warm) / plain:.2f}× (issue 20's bound: 2.5×)")


if __name__ == "__main__":
    main()
