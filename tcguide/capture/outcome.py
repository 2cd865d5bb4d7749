"""How each snippet file ended, told one line at a time: its output stored when every cell behaved
as declared, else the failure with its place (``path:line``), the last lines it printed and what
to do, and the last good output kept. Reads the runner's result through ``result`` alone. Stdlib only."""

from __future__ import annotations

import signal
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from tcguide.capture.jobs import Job
from tcguide.capture.result import EXCEPTION, RunResult
from tcguide.core import freshness, store

TAIL_LINES = 15


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


def _result(job: Job) -> RunResult | None:
    return RunResult.read(job.result_path)


def _tail(path: Path) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return "\n".join("      | " + l for l in lines[-TAIL_LINES:])


def where(job: Job, result: RunResult | None = None) -> tuple[str, str]:
    """'path:line' of the cell that was running, and its name."""
    result = result or _result(job)
    current = result.current if result else None
    if current:
        return f"{job.snippet.path}:{current.line}", f"cell '{current.name}'"
    return job.snippet.path, "before the first cell"


def _last_output(job: Job, result: RunResult | None) -> str:
    current = result.current if result else None
    log = job.workdir / current.log if current else job.workdir / "runner.log"
    tail = _tail(log) or _tail(job.workdir / "runner.log")
    return f"\n      last output:\n{tail}" if tail else ""


def _store(job: Job, result: RunResult) -> tuple[str, str]:
    """Write the file's output; returns its path (relative to the root) and the digest of what was written."""
    capture = store.Capture(
        snippet=job.snippet.path, inputs=freshness.inputs(job.snippet), packages=result.packages,
        environment={**job.environment, "side_by_side": job.side_by_side},
        captured_at=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        cells=tuple(store.CellRecord(c.name, tuple(c.outputs), c.wall_time_s, c.glue or {}) for c in result.cells),
    )
    text = store.dumps(capture)
    path = store.output_path(job.root / job.snippet.path)
    store.write_atomic(path, text)
    return str(store.output_path(job.snippet.path)), store.sha256_text(text)


def finish(job: Job, report: Report) -> tuple[str, str] | None:
    """Report how a file ended; store its output if it ended well (returns what was written)."""
    rc = job.proc.returncode
    elapsed = time.monotonic() - job.started
    result = _result(job)
    for left in result.leftovers if result else ():
        report.add("note", f"{job.snippet.path}: cell '{left.cell}' left {left.what} running; "
                           "it was ended with the file")
    if rc == 0 and result and result.complete:
        written = _store(job, result)
        report.captured += 1
        report.add("ok", f"{job.snippet.path}  {elapsed:.1f} s, {len(result.cells)} cells")
        return written
    place, cell = where(job, result)
    failure = result.failure if result else None
    if failure and failure.kind == EXCEPTION:
        report.add("FAIL", f"{job.snippet.path}:{failure.line}: cell '{failure.cell}' raised "
                           f"{failure.message}\n{_indent(failure.traceback)}      — {failure.remedy}")
    elif failure:
        report.add("FAIL", f"{job.snippet.path}:{failure.line}: cell '{failure.cell}': {failure.message}"
                           f" — {failure.remedy}")
    elif rc is not None and rc < 0:
        name = signal.Signals(-rc).name if -rc in signal.Signals._value2member_map_ else str(-rc)
        report.add("FAIL", f"{place}: {cell} crashed (killed by {name}) after {elapsed:.1f} s"
                           f"{_last_output(job, result)}")
    else:
        report.add("FAIL", f"{place}: {cell} exited with status {rc} after {elapsed:.1f} s"
                           f"{_last_output(job, result)}")
    report.kept(job)
    return None


def _indent(text: str) -> str:
    lines = text.rstrip("\n").splitlines()[-TAIL_LINES:]
    return "".join(f"      | {l}\n" for l in lines)


def timed_out(job: Job, report: Report, timeout: float) -> None:
    result = _result(job)
    place, cell = where(job, result)
    report.add("FAIL", f"{place}: {cell} still running after the file's timeout of {timeout:.0f} s; stopped it"
                       f"{_last_output(job, result)}\n      — make it faster, or raise 'timeout' in its '# /// capture' block")
    report.kept(job)
