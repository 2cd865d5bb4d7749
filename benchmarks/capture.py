"""Capture benchmark, run on a GPU runner of the project's default machine class (h100).

    python3 benchmarks/capture.py                # unchanged capture, one small file changed, shard balance
    python3 benchmarks/capture.py --cold         # also a full cold capture of every file (about half an hour)

Prints one table. What each row measures:

- recorded sum: the files' times at their last capture (cells' wall time plus start-up),
  as `capture --dry-run --force` adds them up; the sum the shards are balanced on;
- nothing changed: `make capture` of every file when every output is fresh (target: under
  10 s, and no snippet process started);
- one small file changed: a comment appended to SMALL, then `make capture` of everything
  (target: that file's own time plus at most 15 s); the file and its output are restored;
- full cold capture (with --cold): `capture --force` of every file of the class;
- 4 shards: the largest and smallest shard total from the dry run (target: at most 1.25).

The figures of the last run are in BENCHMARKS.md beside this file.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMALL = "snippets/dynamo/explain.py"
TOTAL = re.compile(r"^total: (?P<seconds>[\d.]+) s over (?P<files>\d+) files$", re.M)


def tcguide(*args: str) -> tuple[float, str]:
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "tcguide", "capture", *args], cwd=ROOT, capture_output=True,
                         text=True)
    elapsed = time.perf_counter() - started
    if out.returncode != 0:
        sys.exit(f"capture {' '.join(args)} failed ({out.returncode}):\n{out.stdout}{out.stderr}")
    return elapsed, out.stdout


def dry_total(*args: str) -> tuple[float, int]:
    _, out = tcguide("--dry-run", "--force", *args)
    found = TOTAL.search(out)
    return float(found["seconds"]), int(found["files"])


def unchanged() -> tuple[float, str]:
    elapsed, out = tcguide()
    started = re.findall(r"^ok ", out, re.M)
    return elapsed, f"{len(started)} files run" if started else "no snippet process started"


def one_small_file_changed() -> tuple[float, str]:
    snippet = ROOT / SMALL
    output = snippet.with_name(snippet.stem + ".out.json")
    saved = snippet.read_bytes(), output.read_bytes()
    try:
        snippet.write_bytes(saved[0] + b"\n# changed for the capture benchmark\n")
        elapsed, out = tcguide()
    finally:
        snippet.write_bytes(saved[0])
        output.write_bytes(saved[1])
    own = re.search(rf"^ok +{re.escape(SMALL)} +(?P<s>[\d.]+) s", out, re.M)
    return elapsed, f"{SMALL} itself took {own['s']} s, so {elapsed - float(own['s']):.1f} s more"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cold", action="store_true", help="also capture every file cold (about half an hour)")
    args = parser.parse_args()
    rows = []
    recorded, files = dry_total()
    rows.append(("recorded sum (dry run)", f"{recorded:.0f} s", f"{files} files"))
    shards = [dry_total("--shard", f"{k}/4")[0] for k in range(1, 5)]
    rows.append(("4 shards, largest / smallest", f"{max(shards) / min(shards):.3f}",
                 " + ".join(f"{s:.0f}" for s in shards) + " s"))
    elapsed, note = unchanged()
    rows.append(("nothing changed", f"{elapsed:.1f} s", note))
    elapsed, note = one_small_file_changed()
    rows.append(("one small file changed", f"{elapsed:.1f} s", note))
    if args.cold:
        elapsed, out = tcguide("--force")
        rows.append(("full cold capture", f"{elapsed:.0f} s", f"{elapsed / recorded:.2f} × the recorded sum"))
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'figure':>10}  note")
    for name, figure, note in rows:
        print(f"{name:<{width}}  {figure:>10}  {note}")


if __name__ == "__main__":
    main()
