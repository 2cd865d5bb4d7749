"""Benchmark: how long `make serve` takes to show a one-line edit, and whether live reload fires.

    .venv/bin/python benchmarks/serve_reload.py                  # the serve command `make serve` runs
    .venv/bin/python benchmarks/serve_reload.py --edits 7 --page docs/en/options.md
    .venv/bin/python benchmarks/serve_reload.py -- --dirty       # extra arguments for `mkdocs serve`

Starts `mkdocs serve` as `make serve` does (``TCGUIDE_NOTEBOOKS=false``, ``--no-strict --livereload``)
on a port of its own, waits for the first build, then edits one line of one English page several
times, each time the same line made different (a word appended to it), and restores the page at the
end, whatever happens. For each edit it measures, from the moment the file is written:

- ``reload``: until live reload tells the browser to reload. The page the server hands out carries
  MkDocs' live-reload script, which asks ``/livereload/<epoch>/<id>`` and reloads the page when the
  answer is a newer epoch; this script asks the same, as the browser would, from before the edit.
  With live reload off (``-- --no-livereload``, or MkDocs 1.6 without ``--livereload`` under a click
  release that loses its default), the page has no such script and nothing is rebuilt: the benchmark
  says so and stops.
- ``page``: until the edited page, asked again and again, is served with the edit in it: what the
  reader sees after the reload.

Prints each edit's two times and their medians, with the command that was measured. Stdlib only.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = re.compile(r"livereload\((\d+), (\d+)\);")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, timeout: float = 120) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read().decode("utf-8")


def page_url(page: Path, port: int) -> str:
    """The served address of a page of docs/<language>/ (the default language at the root)."""
    rel = page.relative_to(ROOT / "docs")
    lang, rest = rel.parts[0], Path(*rel.parts[1:])
    stem = rest.with_suffix("").as_posix()
    path = "" if stem == "index" else stem.removesuffix("/index") + "/"
    prefix = "" if lang == "en" else f"{lang}/"
    return f"http://127.0.0.1:{port}/{prefix}{path}"


def edited(text: str, n: int) -> tuple[str, str]:
    """The page with its first line of prose (after the title) ending in a word of its own; and that word."""
    lines = text.split("\n")
    i = next(i for i, line in enumerate(lines) if i > 0 and line and line[0].isalpha())
    word = f"reloadmark{n}x{int(time.time() * 1000) % 100000}"
    lines[i] = lines[i] + " " + word
    return "\n".join(lines), word


def wait_for_reload(url: str, epoch: str, found: dict) -> None:
    """What the live-reload script does: ask for a newer epoch than the page's (the server answers once there
    is one, or after its poll timeout with the same epoch: then ask again)."""
    while True:
        answer = get(f"{url.split('/', 3)[0]}//{url.split('/', 3)[2]}/livereload/{epoch}/{int(time.time() * 1000)}")
        if int(answer) > int(epoch):
            found["at"] = time.perf_counter()
            return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--page", default="docs/en/getting-started.md", help="the English page to edit")
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--notebooks", default="false", help="TCGUIDE_NOTEBOOKS, as `make serve NOTEBOOKS=`")
    parser.add_argument("--timeout", type=float, default=120, help="seconds to wait for one edit")
    parser.add_argument("serve_args", nargs="*", help="more arguments for `mkdocs serve` (after --)")
    args = parser.parse_args()
    page = (ROOT / args.page).resolve()
    original = page.read_text(encoding="utf-8")
    port = free_port()
    command = [sys.executable, "-m", "mkdocs", "serve", "--no-strict", "--livereload", "-a", f"127.0.0.1:{port}",
               *args.serve_args]
    env = dict(os.environ, TCGUIDE_NOTEBOOKS=args.notebooks, NO_MKDOCS_2_WARNING="1")
    shown = f"TCGUIDE_NOTEBOOKS={args.notebooks} {' '.join(['mkdocs', *command[3:]])}"
    log = open(ROOT / ".cache" / "serve-reload.log", "w", encoding="utf-8") \
        if (ROOT / ".cache").is_dir() else subprocess.DEVNULL
    started = time.perf_counter()
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = page_url(page, port)
    try:
        while True:
            if server.poll() is not None:
                sys.exit(f"`{shown}` ended with {server.returncode} before serving (log: .cache/serve-reload.log)")
            try:
                html = get(url)
                break
            except OSError:
                time.sleep(0.2)
        print(f"command: {shown}\nfirst build and serve: {time.perf_counter() - started:.1f} s\npage: {url}\n")
        reloads, pages = [], []
        for n in range(1, args.edits + 1):
            script = SCRIPT.search(html)
            if script is None:
                print("live reload: OFF (the served page has no live-reload script; edits are not rebuilt)")
                return
            found: dict = {}
            poller = threading.Thread(target=wait_for_reload, args=(url, script[1], found), daemon=True)
            poller.start()
            time.sleep(0.5)  # the poll is waiting at the server, as a browser's is
            text, word = edited(original, n)
            written = time.perf_counter()
            page.write_text(text, encoding="utf-8")
            while word not in (html := get(url)):
                if time.perf_counter() - written > args.timeout:
                    sys.exit(f"edit {n}: not served after {args.timeout:.0f} s (log: .cache/serve-reload.log)")
                time.sleep(0.02)
            served = time.perf_counter()
            poller.join(args.timeout)
            if "at" not in found:
                sys.exit(f"edit {n}: served, but live reload never fired")
            reloads.append(found["at"] - written)
            pages.append(served - written)
            print(f"edit {n}: reload {reloads[-1]:.2f} s, page {pages[-1]:.2f} s")
            time.sleep(1)  # the next edit is a change of its own, not part of this one's rebuild
        print(f"\nmedian of {len(pages)} edits: reload {statistics.median(reloads):.2f} s "
              f"(min {min(reloads):.2f}, max {max(reloads):.2f}), page {statistics.median(pages):.2f} s "
              f"(min {min(pages):.2f}, max {max(pages):.2f})")
    finally:
        page.write_text(original, encoding="utf-8")
        os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)


if __name__ == "__main__":
    main()
