"""A cell's output: file descriptors 1 and 2 (and ``sys.stdout``/``sys.stderr``) point at one log
file while the cell runs, so that output of C code and child processes is caught too, as one
interleaved stream; of a huge log only its start and its end are read back."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tcguide.capture import terminal

LOG_READ_BYTES = 4 * terminal.CELL_BYTES  # of a longer log, only its start and end are read


class Streams:
    """Point fds 1 and 2 (and sys.stdout/err) at one log file while a cell runs."""

    def __init__(self, log_path: Path):
        self.log_path = log_path

    def __enter__(self):
        sys.stdout.flush(); sys.stderr.flush()
        self.saved = (os.dup(1), os.dup(2))
        self.log = open(self.log_path, "wb", buffering=0)
        os.dup2(self.log.fileno(), 1)
        os.dup2(self.log.fileno(), 2)
        return self

    def __exit__(self, *exc_info):
        sys.stdout.flush(); sys.stderr.flush()
        os.dup2(self.saved[0], 1); os.dup2(self.saved[1], 2)
        os.close(self.saved[0]); os.close(self.saved[1])
        self.log.close()
        return False

    def text(self) -> str:
        """The log as text; of a huge log only its start and its end are read."""
        with open(self.log_path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size <= LOG_READ_BYTES:
                return handle.read().decode("utf-8", "replace")
            head = handle.read(LOG_READ_BYTES // 2)
            handle.seek(size - LOG_READ_BYTES // 2)
            tail = handle.read()
        skipped = size - len(head) - len(tail)
        return (head.decode("utf-8", "replace") + f"\n[… {skipped:,} bytes cut here by capture: over its caps …]\n"
                + tail.decode("utf-8", "replace"))
