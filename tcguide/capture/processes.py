"""Processes a snippet file starts, found and ended: Linux's /proc and prctl, stdlib only.

Used by the runner (to end what its file left running) and by the capture driver (to
end what a crashed or killed runner left behind). Where there is no /proc or prctl,
the functions find nothing and do nothing.
"""

from __future__ import annotations

import ctypes
import os
import signal
import time

PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36


def _prctl(option: int, value: int) -> bool:
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def adopt_orphans(on: bool = True) -> bool:
    """Make this process a child subreaper: orphans below it become its children, not init's."""
    return _prctl(PR_SET_CHILD_SUBREAPER, int(on))


def die_with_parent(signum: int = signal.SIGTERM) -> bool:
    """Have the kernel send signum to this process when its parent dies (kept across exec)."""
    return _prctl(PR_SET_PDEATHSIG, signum)


def _children_by_parent() -> dict[int, list[int]]:
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    stat = handle.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if stat[0] != b"Z":  # a zombie is already dead
                parents.setdefault(int(stat[1]), []).append(int(entry))
    return parents


def descendants(pid: int, skip: set[int] = frozenset()) -> list[int]:
    """Every live process under pid, children before grandchildren; subtrees of skip left out."""
    parents = _children_by_parent()
    found, queue = [], [pid]
    while queue:
        for child in parents.get(queue.pop(), []):
            if child not in skip:
                found.append(child)
                queue.append(child)
    return found


def command_line(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()[:200] or "?"
    except OSError:
        return "?"


def environment_of(pid: int) -> dict[str, str]:
    """The environment a process started with (empty if it can't be read)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            pairs = handle.read().decode("utf-8", "replace").split("\0")
    except OSError:
        return {}
    return dict(pair.split("=", 1) for pair in pairs if "=" in pair)


def _reap(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass  # not our child: its parent collects it


def end_descendants(skip: set[int] = frozenset(), only=None) -> list[int]:
    """SIGKILL every process under this one, until none is left, and return them. The subtrees of
    skip are left alone, and so are processes for which ``only(pid)`` is false, if it is given."""
    ended: list[int] = []
    for _ in range(100):  # they may fork while being ended
        found = [pid for pid in descendants(os.getpid(), skip) if only is None or only(pid)]
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                ended.append(pid)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.02)
        _reap(found)
    return ended
