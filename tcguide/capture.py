"""The capture driver: decide which snippet files need running, run them, store results.

Each file runs in its own subprocess (``tcguide.runner``) with a timeout, a fresh
compiler cache and its own working folder. Files that do not need the GPU to
themselves share GPUs and run in parallel; ``exclusive`` files get theirs alone.
A file's output is replaced, atomically, only when every one of its cells behaved
as declared; anything else (an undeclared exception, a hang, a crash, an
interrupt) is reported and leaves the last good output untouched.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from tcguide import snippet as snippets
from tcguide import store
from tcguide.errors import GuideError

POLL_S = 0.2
KILL_GRACE_S = 5.0
TAIL_LINES = 15


@dataclass
class Job:
    snippet: snippets.SnippetFile
    environment: dict
    workdir: Path
    root: Path
    proc: subprocess.Popen | None = None
    started: float = 0.0
    gpu_ids: tuple[int, ...] = ()
    log: object = None

    @property
    def req(self) -> snippets.Requirements:
        return self.snippet.requirements

    @property
    def result_path(self) -> Path:
        return self.workdir / "result.json"


@dataclass
class Report:
    """Prints one line per file as it is decided or finished, and counts the outcomes."""

    failed: int = 0
    captured: int = 0
    skipped: int = 0

    def add(self, status: str, text: str) -> None:
        print(f"{status:<5} {text}", flush=True)
        if status in ("FAIL", "ERROR"):
            self.failed += 1

    def kept(self, job: "Job") -> None:
        print(f"      last good output kept: {store.output_path(job.snippet.path)}", flush=True)


# ---- what to run --------------------------------------------------------------------

def discover(paths: list[str], root: Path) -> list[Path]:
    """Snippet files under the given paths (files or folders); '_'-prefixed files are helpers."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(p for p in sorted(path.rglob("*.py")) if not p.name.startswith("_"))
        elif path.is_file():
            found.append(path)
        else:
            raise GuideError(raw, None, "no such snippet file or folder", "check the path")
    unique = sorted({_relative(p, root) for p in found})
    return [Path(p) for p in unique]


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def shard(files: list[Path], spec: str | None) -> list[Path]:
    """Keep the K-th of N shares of the files ('K/N'), to spread capture over runners."""
    if not spec:
        return files
    try:
        k, n = (int(x) for x in spec.split("/"))
        assert 1 <= k <= n
    except (ValueError, AssertionError):
        raise GuideError("--shard", None, f"bad shard {spec!r}", "write it as K/N, e.g. 1/3") from None
    return [f for i, f in enumerate(files) if i % n == k - 1]


def machine_environment() -> dict:
    """Collect provenance in a subprocess, so this process never imports torch."""
    out = subprocess.run([sys.executable, "-m", "tcguide.provenance"], capture_output=True,
                         text=True, timeout=300, env=_child_env({}))
    if out.returncode != 0:
        raise GuideError("tcguide.provenance", None, f"could not read the environment:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout)


def file_environment(machine: dict, req: snippets.Requirements) -> dict:
    """The environment as recorded for one file: the GPUs it used, not all the machine has."""
    env = dict(machine)
    if machine.get("gpu_count", 0):
        env["gpu_count"] = min(machine["gpu_count"], max(req.gpus, 1))
    return env


def fingerprint(env: dict) -> dict:
    return {k: v for k, v in env.items() if k != "captured_at"}


def existing_output(snippet_file: snippets.SnippetFile, root: Path) -> store.Capture | None:
    """The last good captured output of a file, if there is a readable one."""
    out = store.output_path(root / snippet_file.path)
    try:
        return store.load(out) if out.exists() else None
    except GuideError:
        return None


def is_fresh(snippet_file: snippets.SnippetFile, env: dict, root: Path) -> bool:
    """Captured from this very source, in this very environment."""
    existing = existing_output(snippet_file, root)
    return (existing is not None and existing.source_sha256 == snippet_file.sha256
            and fingerprint(existing.environment) == fingerprint(env))


# ---- running ------------------------------------------------------------------------

def _child_env(extra: dict) -> dict:
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    env.update({"PYTHONUNBUFFERED": "1", "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg"})
    env.update(extra)
    return env


class Scheduler:
    """Starts jobs while GPUs and job slots allow: shared GPUs for ordinary files, whole ones for exclusive."""

    def __init__(self, gpu_count: int, max_jobs: int):
        self.gpu_count = gpu_count
        self.max_jobs = max(1, max_jobs)
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        self.physical = visible.split(",") if visible else [str(i) for i in range(gpu_count)]

    def place(self, job: Job, running: list[Job]) -> tuple[int, ...] | None:
        """GPU ids for the job if it can start now, else None."""
        if len(running) >= self.max_jobs:
            return None
        if self.gpu_count == 0:
            blocked = any(r.req.exclusive for r in running) or (job.req.exclusive and running)
            return None if blocked else ()
        users = {g: [r for r in running if g in r.gpu_ids] for g in range(self.gpu_count)}
        need = max(job.req.gpus, 1)
        if job.req.exclusive:
            free = [g for g in range(self.gpu_count) if not users[g]]
        else:
            free = sorted((g for g in range(self.gpu_count) if not any(r.req.exclusive for r in users[g])),
                          key=lambda g: len(users[g]))
        return tuple(sorted(free[:need])) if len(free) >= need else None

    def cuda_visible(self, ids: tuple[int, ...]) -> dict:
        return {"CUDA_VISIBLE_DEVICES": ",".join(self.physical[i] for i in ids)} if ids else {}


def _command(job: Job) -> list[str]:
    runner = ["-m", "tcguide.runner", job.snippet.path, str(job.result_path), str(job.workdir)]
    if job.req.launcher == "torchrun":
        return [sys.executable, "-m", "torch.distributed.run", "--standalone",
                f"--nproc-per-node={job.req.gpus}", *runner]
    return [sys.executable, *runner]


def _start(job: Job, scheduler: Scheduler, threads: int) -> None:
    job.workdir.mkdir(parents=True, exist_ok=True)
    env = _child_env({
        **scheduler.cuda_visible(job.gpu_ids),
        "TORCHINDUCTOR_CACHE_DIR": str(job.workdir / "inductor-cache"),
        "TRITON_CACHE_DIR": str(job.workdir / "triton-cache"),
        "TORCHINDUCTOR_COMPILE_THREADS": str(threads),
    })
    job.log = open(job.workdir / "runner.log", "wb")
    job.proc = subprocess.Popen(_command(job), cwd=job.root, env=env, stdout=job.log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    job.started = time.monotonic()


def _kill(job: Job) -> None:
    if job.proc is None:
        return
    for sig, wait in ((signal.SIGTERM, KILL_GRACE_S), (signal.SIGKILL, 30.0)):
        try:
            os.killpg(job.proc.pid, sig)
        except ProcessLookupError:
            pass
        try:
            job.proc.wait(wait)
            break
        except subprocess.TimeoutExpired:
            continue


def _reap(job: Job) -> None:
    """Kill whatever the file left running (compile workers, torchrun ranks)."""
    try:
        os.killpg(job.proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    job.log.close()


def _result(job: Job) -> dict | None:
    try:
        return json.loads(job.result_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _tail(path: Path) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return "\n".join("      | " + l for l in lines[-TAIL_LINES:])


def _where(job: Job, result: dict | None) -> tuple[str, str]:
    """'path:line' of the cell that was running, and its name."""
    current = (result or {}).get("current")
    if current:
        return f"{job.snippet.path}:{current['line']}", f"cell '{current['name']}'"
    return job.snippet.path, "before the first cell"


def _last_output(job: Job, result: dict | None) -> str:
    current = (result or {}).get("current")
    log = job.workdir / current["log"] if current else job.workdir / "runner.log"
    tail = _tail(log) or _tail(job.workdir / "runner.log")
    return f"\n      last output:\n{tail}" if tail else ""


def _finish(job: Job, report: Report) -> None:
    rc = job.proc.returncode
    elapsed = time.monotonic() - job.started
    result = _result(job)
    if rc == 0 and result and result.get("status") == "complete":
        capture = store.Capture(
            snippet=job.snippet.path, source_sha256=job.snippet.sha256, environment=job.environment,
            captured_at=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            cells=tuple(store.CellRecord(c["name"], tuple(c["outputs"]), c["wall_time_s"]) for c in result["cells"]),
        )
        store.save(capture, store.output_path(job.root / job.snippet.path))
        report.captured += 1
        report.add("ok", f"{job.snippet.path}  {elapsed:.1f} s, {len(capture.cells)} cells")
        return
    where, cell = _where(job, result)
    failure = (result or {}).get("failure")
    if failure and failure["kind"] == "exception":
        report.add("FAIL", f"{job.snippet.path}:{failure['line']}: cell '{failure['cell']}' raised "
                           f"{failure['message']}\n{_indent(failure['traceback'])}"
                           f"      — fix the cell, or declare the exception: '# %% {failure['cell']} raises=\"...\"'")
    elif failure:
        report.add("FAIL", f"{job.snippet.path}:{failure['line']}: cell '{failure['cell']}': {failure['message']}"
                           " — remove the raises= option, or make the cell raise")
    elif rc is not None and rc < 0:
        name = signal.Signals(-rc).name if -rc in signal.Signals._value2member_map_ else str(-rc)
        report.add("FAIL", f"{where}: {cell} crashed (killed by {name}) after {elapsed:.1f} s"
                           f"{_last_output(job, result)}")
    else:
        report.add("FAIL", f"{where}: {cell} exited with status {rc} after {elapsed:.1f} s"
                           f"{_last_output(job, result)}")
    report.kept(job)


def _indent(text: str) -> str:
    lines = text.rstrip("\n").splitlines()[-TAIL_LINES:]
    return "".join(f"      | {l}\n" for l in lines)


def _timed_out(job: Job, report: Report, timeout: float) -> None:
    result = _result(job)
    where, cell = _where(job, result)
    report.add("FAIL", f"{where}: {cell} still running after the file's timeout of {timeout:.0f} s; stopped it"
                       f"{_last_output(job, result)}\n      — make it faster, or raise 'timeout' in its '# /// capture' block")
    report.kept(job)


# ---- the command --------------------------------------------------------------------

def capture(paths: list[str], root: Path, *, force: bool = False, jobs: int | None = None,
            shard_spec: str | None = None, timeout_scale: float = 1.0, machine_env: dict | None = None) -> int:
    """Capture the snippet files under paths; returns the process exit status."""
    report = Report()
    try:
        files = shard(discover(paths, root), shard_spec)
    except GuideError as exc:
        report.add("ERROR", str(exc))
        return 2
    machine_env = machine_env or machine_environment()
    max_jobs = jobs or max(1, min(8, (os.cpu_count() or 2) // 2))
    work_root = Path(tempfile.mkdtemp(prefix="tcguide-capture-"))
    pending = _plan(files, root, machine_env, force, work_root, report)
    scheduler = Scheduler(machine_env.get("gpu_count", 0), max_jobs)
    threads = max(1, (os.cpu_count() or 2) // max_jobs)  # Inductor's compile workers per file
    interrupted = _run(pending, scheduler, threads, timeout_scale, report)
    if not report.failed:
        shutil.rmtree(work_root, ignore_errors=True)
    summary = f"{report.captured} captured, {report.skipped} unchanged, {report.failed} failed"
    print(summary + (f" (logs kept in {work_root})" if report.failed else ""), flush=True)
    if interrupted:
        return 130
    return 1 if report.failed else 0


def _plan(files: list[Path], root: Path, machine_env: dict, force: bool, work_root: Path,
          report: Report) -> list[Job]:
    """The files that need running, in the order to start them; reports the others."""
    gpu_count = machine_env.get("gpu_count", 0)
    pending: list[Job] = []
    for path in files:
        try:
            snippet_file = snippets.load(root / path, str(path))
        except GuideError as exc:
            report.add("ERROR", str(exc))
            continue
        env = file_environment(machine_env, snippet_file.requirements)
        if snippet_file.requirements.gpus > gpu_count:
            existing = existing_output(snippet_file, root)
            kept = existing is not None and existing.source_sha256 == snippet_file.sha256
            report.add("skip" if kept else "FAIL",
                       f"{path}  needs {snippet_file.requirements.gpus} GPU(s), this machine has {gpu_count}; "
                       "its last output is kept — capture it on a machine with enough GPUs")
            report.skipped += kept
            continue
        if not force and is_fresh(snippet_file, env, root):
            report.skipped += 1
            report.add("skip", f"{path}  unchanged since its capture")
            continue
        pending.append(Job(snippet_file, env, work_root / str(path).replace(os.sep, "__"), root))
    # Shared files first: they run side by side and finish soon; exclusive (timing) files then
    # take whole GPUs one after another, shortest timeout first, so most results land early.
    pending.sort(key=lambda j: (j.req.exclusive, j.req.timeout))
    return pending


def _run(pending: list[Job], scheduler: Scheduler, threads: int, timeout_scale: float, report: Report) -> bool:
    """Run the jobs to the end; returns whether the run was interrupted."""
    running: list[Job] = []
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        while pending or running:
            for job in list(pending):
                ids = scheduler.place(job, running)
                if ids is not None:
                    job.gpu_ids = ids
                    _start(job, scheduler, threads)
                    pending.remove(job)
                    running.append(job)
            time.sleep(POLL_S)
            for job in list(running):
                timeout = job.req.timeout * timeout_scale
                if job.proc.poll() is not None:
                    _reap(job)
                    _finish(job, report)
                    running.remove(job)
                elif time.monotonic() - job.started > timeout:
                    _kill(job)
                    _reap(job)
                    _timed_out(job, report, timeout)
                    running.remove(job)
    except KeyboardInterrupt:
        for job in running:
            _kill(job)
            _reap(job)
            where, cell = _where(job, _result(job))
            report.add("FAIL", f"{where}: interrupted in {cell}; its last good output is kept")
        for job in pending:
            report.add("FAIL", f"{job.snippet.path}: not started (interrupted)")
        return True
    finally:
        signal.signal(signal.SIGTERM, previous)
    return False


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt
