"""One capture run: start jobs as GPUs and slots allow, watch them to their end or timeout, and stop
them all on a signal (Ctrl-C, SIGTERM from a cancelled CI job, SIGHUP), saying where each one
was; a second signal doesn't cut that cleanup short. At the end, the checkout must hold what it
held before, but for the outputs this run wrote. Stdlib only."""

from __future__ import annotations

import shutil
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path

from tcguide.capture import jobs, outcome, processes
from tcguide.capture.jobs import Job, Scheduler
from tcguide.capture.outcome import Report
from tcguide.capture.sandbox import changed, copy_tooling, snapshot

POLL_S = 0.2


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
                    jobs.start(job, self.scheduler, self.threads, tooling)
            time.sleep(POLL_S)
            for job in list(self.running):
                job.side_by_side = max(job.side_by_side, len(self.running) - 1)
                timeout = job.req.timeout * self.timeout_scale
                if job.proc.poll() is not None:
                    self._end(job)
                    written = outcome.finish(job, self.report)
                    if written:
                        self.written[written[0]] = written[1]
                        shutil.rmtree(job.workdir, ignore_errors=True)
                elif time.monotonic() - job.started > timeout:
                    jobs.kill(job)
                    self._end(job)
                    outcome.timed_out(job, self.report, timeout)

    def _end(self, job: Job) -> None:
        self.running.remove(job)
        jobs.reap(job, self.running)

    def _stop_all(self, pending: list[Job]) -> None:
        """Stop every running file, saying where each one was; name the files never started."""
        for job in list(self.running):
            jobs.kill(job)
            self._end(job)
            place, cell = outcome.where(job)
            self.report.add("FAIL", f"{place}: interrupted in {cell} of {job.snippet.path}; "
                            + ("its last good output is kept" if job.has_output else "it has no earlier output"))
        for job in pending:
            self.report.add("FAIL", f"{job.snippet.path}: not started (interrupted)")
        pending.clear()
        processes.end_descendants(only=jobs.ours)

    def _tidy(self) -> None:
        """Leave no scratch behind: only failed files' logs stay, and the work folder only if it holds some."""
        shutil.rmtree(self.work_root / "tooling", ignore_errors=True)
        for leftover in self.work_root.glob("*.sandbox"):
            shutil.rmtree(leftover, ignore_errors=True)
        if not self.report.failed or not any(self.work_root.iterdir()):
            shutil.rmtree(self.work_root, ignore_errors=True)
