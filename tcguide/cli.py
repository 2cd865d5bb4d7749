"""Command line: ``python3 -m tcguide capture|check``.

The capture side imports nothing from MkDocs: it runs on the GPU machine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tcguide.errors import GuideError


def _capture(args) -> int:
    from tcguide.capture import capture

    return capture(args.paths or ["snippets"], Path.cwd(), force=args.force, jobs=args.jobs,
                   shard_spec=args.shard, timeout_scale=args.timeout_scale)


def _check(args) -> int:
    from tcguide.check import check

    problems = check(Path.cwd(), args.docs, args.snippets)
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problem(s)" if problems else "every embedded cell has a fresh captured output")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m tcguide", description="Tooling of the torch.compile guide.")
    sub = parser.add_subparsers(dest="command", required=True)
    cap = sub.add_parser("capture", help="run snippet files and store their outputs")
    cap.add_argument("paths", nargs="*", help="snippet files or folders (default: snippets)")
    cap.add_argument("--force", action="store_true", help="recapture files even if unchanged")
    cap.add_argument("--jobs", type=int, help="files run at once (default: half the CPU cores, at most 8)")
    cap.add_argument("--shard", help="capture only share K of N (K/N), to spread capture over runners")
    cap.add_argument("--timeout-scale", type=float, default=1.0, help="multiply every file's timeout")
    cap.set_defaults(func=_capture)
    chk = sub.add_parser("check", help="check that every snippet has a fresh output and every directive resolves")
    chk.add_argument("--docs", default="docs")
    chk.add_argument("--snippets", default="snippets")
    chk.set_defaults(func=_check)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except GuideError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted before any snippet file started; nothing was written", file=sys.stderr)
        return 130
