"""Nothing a snippet file starts outlives it. The runner adopts every orphaned descendant (it is a
child subreaper), dies with its parent (a parent-death signal, and a guard thread watching for a
new parent); ``Leftovers`` records which cell started each thread and process still running when
the last cell is done, before the runner ends them."""

from __future__ import annotations

import os
import signal
import threading
import time

from tcguide.capture import processes
from tcguide.capture.result import Leftover

GUARD_POLL_S = 0.2


def _stop(signum, frame) -> None:
    """SIGTERM or SIGHUP (the driver stopping, or dying): end everything the file started, then exit."""
    processes.end_descendants()
    os._exit(128 + signum)


def _guard(parent: int) -> None:
    """Watch for the parent's death (a missed or delayed signal); then end everything."""
    while os.getppid() == parent:
        time.sleep(GUARD_POLL_S)
    processes.end_descendants()
    os._exit(128 + signal.SIGKILL)


def hold_on_to_children() -> None:
    parent = os.getppid()
    processes.adopt_orphans()  # orphans (a double fork, setsid) become our children
    processes.die_with_parent()
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _stop)
    if os.getppid() != parent or parent == 1:  # the parent died before the signal was armed
        os._exit(128 + signal.SIGKILL)
    threading.Thread(target=_guard, args=(parent,), name="tcguide-guard", daemon=True).start()


class Leftovers:
    """Which cell started each thread and process that is still running."""

    def __init__(self):
        self.threads = {t.ident for t in threading.enumerate()}
        self.pids: dict[int, str] = {}
        self.started: dict[int, str] = {}

    def after(self, cell: str) -> None:
        for thread in threading.enumerate():
            if thread.ident not in self.threads and thread.ident not in self.started:
                self.started[thread.ident] = cell
        for pid in processes.descendants(os.getpid()):
            self.pids.setdefault(pid, cell)

    def running(self) -> list[Leftover]:
        found = [Leftover(self.started[t.ident], f"thread {t.name!r}" + (" (daemon)" if t.daemon else ""))
                 for t in threading.enumerate() if t.ident in self.started and t.is_alive()]
        for pid in processes.descendants(os.getpid()):
            found.append(Leftover(self.pids.get(pid, "(after the last cell)"),
                                  f"process {pid}: {processes.command_line(pid)}"))
        return found
