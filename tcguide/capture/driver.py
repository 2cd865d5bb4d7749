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
import traceback
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from tcguide.capture import processes, shards
from tcguide.core import freshness, store
from tcguide.core import snippet as snippets
from tcguide.core.errors import GuideError
from tcguide.capture.sandbox import Sandbox, changed, copy_tooling, snapshot

POLL_S = 0.2
MARK = "TCGUIDE_CAPTURE"  # in every snippet process's environment, so the driver knows its own
KILL_GRACE_S = 5.0
TAIL_LINES = 15


@dataclass
class Job:
    snippet: snippets.SnippetFile
    environment: dict
    workdir: Path  # its logs and result; removed once its output is stored
    root: Path
    proc: subprocess.Popen | None = None
    started: float = 0.0
    gpu_ids: tuple[int, ...] = ()
    log: object = None
    sandbox: Sandbox | None = None
    side_by_side: int = 0  # the most other files that ran while this one did

    @property
    def req(self) -> snippets.Requirements:
        return self.snippet.requirements

    @property
    def result_path(self) -> Path:
        return self.workdir / "result.json"

    @property
    def has_output(self) -> bool:
        return store.output_path(self.root / self.snippet.path).exists()


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
        if job.has_output:
            print(f"      last good output kept: {store.output_path(job.snippet.path)}", flush=True)
        else:
            print("      it has no earlier output; none was written", flush=True)


# ---- what to run --------------------------------------------------------------------

def discover(paths: list[str], root: Path) -> list[Path]:
    """Snippet files under the given paths (files or folders), relative to the project root;
    files and folders whose name starts with '_' are helpers. Paths outside the checkout are refused."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if not path.resolve().is_relative_to(root.resolve()):
            raise GuideError(raw, None, "is outside the checkout", f"name snippet files under {root}")
        if path.is_dir():
            found.extend(p for p in sorted(path.rglob("*.py"))
                         if not any(part.startswith("_") for part in p.relative_to(path).parts))
        elif path.is_file():
            found.append(path)
        else:
            raise GuideError(raw, None, "no such snippet file or folder", "check the path")
    return sorted({Path(p.resolve().relative_to(root.resolve())) for p in found})


def machine_environment() -> dict:
    """Collect provenance in a subprocess, so this process never imports torch."""
    out = subprocess.run([sys.executable, "-m", "tcguide.core.environment"], capture_output=True, text=True,
                         timeout=300, env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2])))
    if out.returncode != 0:
        raise GuideError("tcguide.core.environment", None, f"could not read the environment:\n{out.stderr[-2000:]}")
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


# ---- running ------------------------------------------------------------------------

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
    runner = ["-m", "tcguide.capture.runner", str(job.sandbox.script(job.snippet)), job.snippet.path,
              str(job.result_path), str(job.workdir)]
    if job.req.launcher == "torchrun":
        return [sys.executable, "-m", "torch.distributed.run", "--standalone",
                f"--nproc-per-node={job.req.gpus}", *runner]
    return [sys.executable, *runner]


def _start(job: Job, scheduler: Scheduler, threads: int, tooling: Path) -> None:
    job.workdir.mkdir(parents=True, exist_ok=True)
    job.sandbox = Sandbox.create(job.workdir.with_name(job.workdir.name + ".sandbox"), job.snippet, job.root)
    env = job.sandbox.environment(dict(os.environ), tooling, {
        **scheduler.cuda_visible(job.gpu_ids), "TORCHINDUCTOR_COMPILE_THREADS": str(threads),
        MARK: str(os.getpid())})
    job.log = open(job.workdir / "runner.log", "wb")
    job.proc = subprocess.Popen(_command(job), cwd=job.sandbox.root, env=env, stdout=job.log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=processes.die_with_parent)
    job.started = time.monotonic()


def _ours(pid: int) -> bool:
    return processes.environment_of(pid).get(MARK) == str(os.getpid())


def _kill(job: Job) -> None:
    """Stop a running file: SIGTERM to its process group (the runner ends what it started), then SIGKILL."""
    if job.proc is None:
        return
    for sig, wait in ((signal.SIGTERM, KILL_GRACE_S), (signal.SIGKILL, 30.0)):
        try:
            os.killpg(job.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            job.proc.wait(wait)
            break
        except subprocess.TimeoutExpired:
            continue


def _reap(job: Job, running: list[Job]) -> None:
    """Once a file ended: kill whatever it left (compile workers, torchrun ranks, orphans we adopted)."""
    try:
        os.killpg(job.proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    processes.end_descendants(skip={r.proc.pid for r in running if r is not job and r.proc}, only=_ours)
    job.log.close()
    job.sandbox.remove()


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


def _store(job: Job, result: dict) -> tuple[str, str]:
    """Write the file's output; returns its path (relative to the root) and the digest of what was written."""
    capture = store.Capture(
        snippet=job.snippet.path, inputs=freshness.inputs(job.snippet), packages=result.get("packages", {}),
        environment={**job.environment, "side_by_side": job.side_by_side},
        captured_at=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        cells=tuple(store.CellRecord(c["name"], tuple(c["outputs"]), c["wall_time_s"], c.get("glue", {}))
                    for c in result["cells"]),
    )
    text = store.dumps(capture)
    path = store.output_path(job.root / job.snippet.path)
    store.write_atomic(path, text)
    return str(store.output_path(job.snippet.path)), store.sha256_text(text)


def _finish(job: Job, report: Report) -> tuple[str, str] | None:
    """Report how a file ended; store its output if it ended well (returns what was written)."""
    rc = job.proc.returncode
    elapsed = time.monotonic() - job.started
    result = _result(job)
    for left in (result or {}).get("leftovers", []):
        report.add("note", f"{job.snippet.path}: cell '{left['cell']}' left {left['what']} running; "
                           "it was ended with the file")
    if rc == 0 and result and result.get("status") == "complete":
        written = _store(job, result)
        report.captured += 1
        report.add("ok", f"{job.snippet.path}  {elapsed:.1f} s, {len(result['cells'])} cells")
        return written
    where, cell = _where(job, result)
    failure = (result or {}).get("failure")
    if failure and failure["kind"] == "exception":
        report.add("FAIL", f"{job.snippet.path}:{failure['line']}: cell '{failure['cell']}' raised "
                           f"{failure['message']}\n{_indent(failure['traceback'])}"
                           f"      — fix the cell, or declare the exception: '# %% {failure['cell']} raises=\"...\"'")
    elif failure:
        remedy = {"glue": "set the variable to a number, text, or a list or dict of them, or drop it from glue=",
                  "no-exception": "remove the raises= option, or make the cell raise"}[failure["kind"]]
        report.add("FAIL", f"{job.snippet.path}:{failure['line']}: cell '{failure['cell']}': {failure['message']}"
                           f" — {remedy}")
    elif rc is not None and rc < 0:
        name = signal.Signals(-rc).name if -rc in signal.Signals._value2member_map_ else str(-rc)
        report.add("FAIL", f"{where}: {cell} crashed (killed by {name}) after {elapsed:.1f} s"
                           f"{_last_output(job, result)}")
    else:
        report.add("FAIL", f"{where}: {cell} exited with status {rc} after {elapsed:.1f} s"
                           f"{_last_output(job, result)}")
    report.kept(job)
    return None


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

class Interrupted(Exception):
    """A signal asked the capture to stop (Ctrl-C, SIGTERM from a cancelled CI job, SIGHUP)."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _raise_interrupt(signum, frame):
    raise Interrupted(signum)


def _still_stopping(signum, frame):
    print(f"({signal.Signals(signum).name} again: still ending the snippet processes, one moment)", flush=True)


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


class Run:
    """One capture run: starts, watches and stops the jobs, and owns their scratch folders."""

    def __init__(self, root: Path, scheduler: Scheduler, threads: int, timeout_scale: float, report: Report):
        self.root, self.scheduler, self.threads = root, scheduler, threads
        self.timeout_scale, self.report = timeout_scale, report
        self.running: list[Job] = []
        self.written: dict[str, str] = {}
        self.work_root = Path(tempfile.mkdtemp(prefix="tcguide-capture-"))

    def run(self, pending: list[Job]) -> int:
        """Run the jobs to the end; returns the exit status (130 when interrupted)."""
        status = 0
        processes.adopt_orphans()
        previous = {signum: signal.signal(signum, _raise_interrupt) for signum in STOP_SIGNALS}
        before = snapshot(self.root)
        try:
            tooling = copy_tooling(self.work_root)
            self._loop(pending, tooling)
        except Interrupted as stop:
            for signum in STOP_SIGNALS:
                signal.signal(signum, _still_stopping)
            print(f"{stop}: stopping every snippet file", flush=True)
            self._stop_all(pending)
            status = 130
        except BaseException:
            for signum in STOP_SIGNALS:
                signal.signal(signum, _still_stopping)
            self._stop_all(pending)
            print("internal error in the capture driver; every snippet process was ended", file=sys.stderr)
            traceback.print_exc()
            status = 70
        finally:
            for signum in STOP_SIGNALS:
                signal.signal(signum, _still_stopping)
            self._stop_all([])
            for name in changed(self.root, before, self.written):
                self.report.add("ERROR", f"{name}: changed while snippet files ran, not by the capture — a snippet "
                                         "wrote into the checkout; look at it with git diff and restore it")
            self._tidy()
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            processes.adopt_orphans(False)
        return status or (1 if self.report.failed else 0)

    def _loop(self, pending: list[Job], tooling: Path) -> None:
        while pending or self.running:
            for job in list(pending):
                ids = self.scheduler.place(job, self.running)
                if ids is not None:
                    job.gpu_ids = ids
                    job.workdir = self.work_root / job.workdir
                    pending.remove(job)
                    self.running.append(job)
                    _start(job, self.scheduler, self.threads, tooling)
            time.sleep(POLL_S)
            for job in list(self.running):
                job.side_by_side = max(job.side_by_side, len(self.running) - 1)
                timeout = job.req.timeout * self.timeout_scale
                if job.proc.poll() is not None:
                    self._end(job)
                    written = _finish(job, self.report)
                    if written:
                        self.written[written[0]] = written[1]
                        shutil.rmtree(job.workdir, ignore_errors=True)
                elif time.monotonic() - job.started > timeout:
                    _kill(job)
                    self._end(job)
                    _timed_out(job, self.report, timeout)

    def _end(self, job: Job) -> None:
        self.running.remove(job)
        _reap(job, self.running)

    def _stop_all(self, pending: list[Job]) -> None:
        """Stop every running file, saying where each one was; name the files never started."""
        for job in list(self.running):
            _kill(job)
            self._end(job)
            result = _result(job)
            where, cell = _where(job, result)
            self.report.add("FAIL", f"{where}: interrupted in {cell} of {job.snippet.path}; "
                            + ("its last good output is kept" if job.has_output else "it has no earlier output"))
        for job in pending:
            self.report.add("FAIL", f"{job.snippet.path}: not started (interrupted)")
        pending.clear()
        processes.end_descendants(only=_ours)

    def _tidy(self) -> None:
        """Leave no scratch behind: only failed files' logs stay, and the work folder only if it holds some."""
        shutil.rmtree(self.work_root / "tooling", ignore_errors=True)
        for leftover in self.work_root.glob("*.sandbox"):
            shutil.rmtree(leftover, ignore_errors=True)
        if not self.report.failed or not any(self.work_root.iterdir()):
            shutil.rmtree(self.work_root, ignore_errors=True)
