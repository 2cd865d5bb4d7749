"""One snippet file's run as a job: its process, GPUs and scratch folders; where jobs may start
(shared GPUs for ordinary files, whole ones for exclusive files); starting a job's runner in its
sandbox, and stopping it with everything it started. Stdlib only."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tcguide.capture import processes
from tcguide.capture.sandbox import Sandbox
from tcguide.core import snippet as snippets
from tcguide.core import store

MARK = "TCGUIDE_CAPTURE"  # in every snippet process's environment, so the driver knows its own
KILL_GRACE_S = 5.0


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


def command(job: Job) -> list[str]:
    runner = ["-m", "tcguide.capture.runner", str(job.sandbox.script(job.snippet)), job.snippet.path,
              str(job.result_path), str(job.workdir)]
    if job.req.launcher == "torchrun":
        return [sys.executable, "-m", "torch.distributed.run", "--standalone",
                f"--nproc-per-node={job.req.gpus}", *runner]
    return [sys.executable, *runner]


def start(job: Job, scheduler: Scheduler, threads: int, tooling: Path) -> None:
    job.workdir.mkdir(parents=True, exist_ok=True)
    job.sandbox = Sandbox.create(job.workdir.with_name(job.workdir.name + ".sandbox"), job.snippet, job.root)
    env = job.sandbox.environment(dict(os.environ), tooling, {
        **scheduler.cuda_visible(job.gpu_ids), "TORCHINDUCTOR_COMPILE_THREADS": str(threads),
        MARK: str(os.getpid())})
    job.log = open(job.workdir / "runner.log", "wb")
    job.proc = subprocess.Popen(command(job), cwd=job.sandbox.root, env=env, stdout=job.log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=processes.die_with_parent)
    job.started = time.monotonic()


def ours(pid: int) -> bool:
    return processes.environment_of(pid).get(MARK) == str(os.getpid())


def kill(job: Job) -> None:
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


def reap(job: Job, running: list[Job]) -> None:
    """Once a file ended: kill whatever it left (compile workers, torchrun ranks, orphans we adopted)."""
    try:
        os.killpg(job.proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    processes.end_descendants(skip={r.proc.pid for r in running if r is not job and r.proc}, only=ours)
    job.log.close()
    job.sandbox.remove()
