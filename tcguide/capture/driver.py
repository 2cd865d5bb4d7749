"""The capture driver: decide which snippet files need running, run them, store results.

Each file runs in its own subprocess (``tcguide.capture.runner``) with a timeout, in a scratch
folder of its own with a minimal environment (``sandbox``) and a fresh compiler cache.
Files that do not need the GPU to themselves share GPUs and run in parallel;
``exclusive`` files get theirs alone. A file's output is replaced, atomically, only
when every one of its cells behaved as declared; anything else (an undeclared
exception, a hang, a crash, an interrupt) is reported and leaves the last good
output untouched. Only this driver writes outputs, and it checks at the end that
nothing else in the checkout changed.

Nothing a file starts outlives the capture: the driver adopts orphans (a child
subreaper), every runner dies with the driver (a parent-death signal) and ends what
its file left running; Ctrl-C, SIGTERM and SIGHUP stop every file and say where
each one was, and a second signal doesn't cut that cleanup short.

This module decides what runs (and prints a dry run); ``jobs`` starts and stops one file's
process, ``loop`` runs them all and handles signals, ``outcome`` reports how each ended and
stores its output, reading what the runner wrote through ``result``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from tcguide.capture import shards
from tcguide.capture.jobs import Job, Scheduler
from tcguide.capture.loop import Run
from tcguide.capture.outcome import Report
from tcguide.core import discovery, freshness, store
from tcguide.core import snippet as snippets
from tcguide.core.errors import GuideError


# ---- what to run --------------------------------------------------------------------

def discover(paths: list[str], root: Path) -> list[Path]:
    """Snippet files under the given paths (files or folders), relative to the project root;
    files and folders whose name starts with '_' are helpers. Paths outside the checkout are refused."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if not path.resolve().is_relative_to(root.resolve()):
            raise GuideError(raw, None, "is outside the checkout", "name snippet files under snippets/ of this checkout")
        top = root / discovery.FOLDER if path.resolve().is_relative_to((root / discovery.FOLDER).resolve()) else path
        if path.is_dir():
            found.extend(discovery.snippet_files(path, top if top != path else None))
        elif path.is_file():
            if discovery.is_helper(path.resolve().relative_to(Path(top).resolve())):
                raise GuideError(raw, None, "is a helper module (a name starting with '_'), not a snippet file: "
                                 "it is never captured", "capture the snippet files that import it")
            found.append(path)
        else:
            raise GuideError(raw, None, "no such snippet file or folder", "check the path")
    return sorted({Path(p.resolve().relative_to(root.resolve())) for p in found})


def machine_environment() -> dict:
    """Collect provenance in a subprocess, so this process never imports torch."""
    out = subprocess.run([sys.executable, "-m", "tcguide.core.environment"], capture_output=True, text=True,
                         timeout=300, env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2])))
    if out.returncode != 0:
        raise GuideError("capture", None, "could not read this machine's environment (GPU, driver, torch) "
                         f"for the provenance record:\n{out.stderr[-2000:]}",
                         "run `python3 -m tcguide.core.environment` with the python3 that runs capture, and fix "
                         "what it reports (torch missing from that environment, most often)")
    return json.loads(out.stdout)


def file_environment(machine: dict, req: snippets.Requirements) -> dict:
    """The environment as recorded for one file: the GPUs it used, not all the machine has."""
    env = dict(machine)
    if machine.get("gpu_count", 0):
        env["gpu_count"] = min(machine["gpu_count"], max(req.gpus, 1))
    return env


def existing_output(snippet_file: snippets.SnippetFile, root: Path) -> store.Capture | None:
    """The last good captured output of a file, if there is a readable one."""
    out = store.output_path(root / snippet_file.path)
    try:
        return store.load(out) if out.exists() else None
    except GuideError:
        return None


def capture(paths: list[str], root: Path, *, force: bool = False, jobs: int | None = None,
            shard_spec: str | None = None, timeout_scale: float = 1.0, machine_env: dict | None = None,
            machine: str | None = None, dry_run: bool = False) -> int:
    """Capture the snippet files under paths that belong to this runner's machine class
    (and shard); returns the process exit status. ``dry_run`` only says what would run."""
    report = Report()
    default = shards.project_machine(root)
    machine = machine or default
    try:
        if shard_spec:
            shards.parse_spec(shard_spec)
        files = discover(paths, root)
    except GuideError as exc:
        report.add("ERROR", str(exc))
        return 2
    mine = {s.path: s for s in _of_class(files, root, machine, default, report)}
    outputs = {path: existing_output(s, root) for path, s in mine.items()}  # each read and checked once
    planned = shards.shard([_expected(s, outputs[path]) for path, s in mine.items()], shard_spec)
    chosen = [mine[p.path] for p in planned]
    if dry_run:
        return _dry_run(planned, chosen, outputs, force, report)
    machine_env = machine_env or machine_environment()
    max_jobs = jobs or max(1, min(8, (os.cpu_count() or 2) // 2))
    threads = max(1, (os.cpu_count() or 2) // max_jobs)  # Inductor's compile workers per file
    machine_env = {**machine_env, "compile_threads": threads}
    pending = _plan(chosen, outputs, root, machine_env, force, report)
    status = 0
    kept = ""
    if pending:
        expected = {p.path: p.seconds for p in planned}
        # Shared files first, longest first: they run side by side; exclusive (timing) files
        # then take whole GPUs one after another.
        pending.sort(key=lambda j: (j.req.exclusive, -expected[j.snippet.path]))
        run = Run(root, Scheduler(machine_env.get("gpu_count", 0), max_jobs), threads, timeout_scale, report)
        status = run.run(pending)
        kept = f" (logs kept in {run.work_root})" if run.work_root.exists() else ""
    print(f"{report.captured} captured, {report.skipped} unchanged, {report.failed} failed{kept}", flush=True)
    return status or (1 if report.failed else 0)


def _of_class(files: list[Path], root: Path, machine: str, default: str,
              report: Report) -> list[snippets.SnippetFile]:
    """The readable snippet files of this runner's machine class (``default``: the project's);
    reports the others."""
    mine, others = [], Counter()
    for path in files:
        try:
            snippet_file = snippets.load(root / path, str(path))
        except GuideError as exc:
            report.add("ERROR", str(exc))
            continue
        its = snippet_file.requirements.machine or default
        if its == machine:
            mine.append(snippet_file)
        else:
            others[its] += 1
    if others:
        counts = ", ".join(f"{n} of {name!r}" for name, n in sorted(others.items()))
        print(f"this runner captures machine class {machine!r}; left to other runners: {counts}", flush=True)
    return mine


def _expected(snippet_file: snippets.SnippetFile, existing: store.Capture | None) -> shards.Planned:
    seconds = shards.START_S + sum(c.wall_time_s for c in existing.cells) if existing else shards.NEW_FILE_S
    return shards.Planned(snippet_file.path, round(seconds, 1), snippet_file.requirements.exclusive, existing is not None)


def _dry_run(planned: list[shards.Planned], chosen: list[snippets.SnippetFile],
             outputs: dict[str, store.Capture | None], force: bool, report: Report) -> int:
    """Print what a capture would run (judged by the checkout alone: no torch, no GPU), with the
    seconds each file is expected to take, and the total."""
    total, count = 0.0, 0
    for plan, snippet_file in zip(planned, chosen):
        existing = outputs[snippet_file.path]
        if not force and existing is not None and not freshness.stale(snippet_file, existing):
            continue
        notes = [n for n, on in (("exclusive", plan.exclusive), ("never captured: default", not plan.recorded)) if on]
        print(f"{plan.seconds:8.1f} s  {plan.path}" + (f"  ({', '.join(notes)})" if notes else ""))
        total += plan.seconds
        count += 1
    print(f"total: {total:.1f} s over {count} files")
    return 1 if report.failed else 0


def _plan(chosen: list[snippets.SnippetFile], outputs: dict[str, store.Capture | None], root: Path,
          machine_env: dict, force: bool, report: Report) -> list[Job]:
    """The files that need running; reports the others."""
    gpu_count = machine_env.get("gpu_count", 0)
    installed = freshness.installed_versions()
    pending: list[Job] = []
    for snippet_file in chosen:
        path = snippet_file.path
        env = file_environment(machine_env, snippet_file.requirements)
        existing = outputs[path]
        if snippet_file.requirements.gpus > gpu_count:
            kept = existing is not None and not freshness.stale(snippet_file, existing)
            report.add("skip" if kept else "FAIL",
                       f"{path}  needs {snippet_file.requirements.gpus} GPU(s), this machine has {gpu_count}; "
                       "its last output is kept — capture it on a machine with enough GPUs")
            report.skipped += kept
            continue
        if not force and existing is not None and not freshness.stale(snippet_file, existing, env, installed):
            report.skipped += 1
            report.add("skip", f"{path}  unchanged since its capture")
            continue
        pending.append(Job(snippet_file, env, Path(str(path).replace(os.sep, "__")), root))
    return pending
