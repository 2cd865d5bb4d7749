"""Child process: run one snippet file cell by cell and record what each cell did.

Started by the capture driver as ``python3 -m tcguide.runner SNIPPET RESULT WORKDIR``
(or under torchrun, once per GPU; only rank 0 records). Per cell it records, in
order: stdout and stderr as one interleaved stream (file descriptors 1 and 2 both
point at one file while the cell runs, so output of C code and child processes is
caught too), warnings, matplotlib figures as SVG, any exception with its traceback,
and wall time. The result file is rewritten atomically after every cell, so the
driver knows how far a file got even when it crashed or hung.
"""

from __future__ import annotations

import ast
import builtins
import faulthandler
import io
import json
import os
import random
import sys
import time
import traceback
import types
import warnings
from pathlib import Path

from tcguide import snippet as snippets
from tcguide.normalize import Normalizer
from tcguide.store import write_atomic

SEED = 0


class Recorder:
    """Keeps the result document and rewrites it after every change."""

    def __init__(self, path: str | None, snippet_file: snippets.SnippetFile):
        self.path = path
        self.doc = {"snippet": snippet_file.path, "source_sha256": snippet_file.sha256,
                    "status": "running", "current": None, "cells": [], "failure": None}

    def update(self, **changes) -> None:
        self.doc.update(changes)
        if self.path:
            write_atomic(self.path, json.dumps(self.doc, ensure_ascii=False))


def _seed_everything(source: str) -> None:
    random.seed(SEED)
    imported = {alias.name.split(".")[0] for node in ast.walk(ast.parse(source))
                if isinstance(node, (ast.Import, ast.ImportFrom))
                for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")])}
    if "numpy" in imported:
        import numpy
        numpy.random.seed(SEED)
    if "torch" in imported or "torchvision" in imported:
        import torch
        torch.manual_seed(SEED)


def _matches(exc: BaseException, expected: str) -> bool:
    for cls in type(exc).__mro__:
        if expected in (cls.__name__, cls.__qualname__, f"{cls.__module__}.{cls.__qualname__}"):
            return True
    return False


def _format_exception(exc: BaseException, snippet_path: str, normalize) -> dict:
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != snippet_path:
        tb = tb.tb_next  # drop the runner's own frames
    lines = traceback.format_exception(type(exc), exc, tb)
    return {"output_type": "error", "ename": type(exc).__name__,
            "evalue": normalize(str(exc)), "traceback": normalize("".join(lines))}


def _figures() -> list[dict]:
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return []
    import matplotlib
    matplotlib.rcParams["svg.hashsalt"] = "tcguide"
    found = []
    for number in pyplot.get_fignums():
        buffer = io.StringIO()
        pyplot.figure(number).savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
        found.append({"output_type": "display_data", "data": {"image/svg+xml": buffer.getvalue()}})
    pyplot.close("all")
    return found


class _Streams:
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
        return self.log_path.read_bytes().decode("utf-8", "replace")


def _run_cell(cell: snippets.Cell, snippet_path: str, namespace: dict, log: Path, normalize,
              warnings_caught: list[dict]) -> tuple[dict, dict | None]:
    """Run one cell; returns its record and, if it did not behave as declared, the failure."""
    code = compile("\n" * cell.line + cell.source, snippet_path, "exec")  # real file name and lines
    error = None
    started = time.perf_counter()
    with _Streams(log) as streams:
        try:
            exec(code, namespace)
        except BaseException as exc:  # noqa: BLE001 - everything a cell raises is data
            error = exc
    elapsed = time.perf_counter() - started
    outputs: list[dict] = []
    text = normalize(streams.text())
    if text:
        outputs.append({"output_type": "stream", "name": "stdout", "text": text})
    outputs.extend(warnings_caught)
    outputs.extend(_figures())
    failure = None
    if error is not None:
        formatted = _format_exception(error, snippet_path, normalize)
        formatted["expected"] = bool(cell.raises) and _matches(error, cell.raises)
        outputs.append(formatted)
        if not formatted["expected"]:
            wanted = f" (declared raises={cell.raises})" if cell.raises else ""
            failure = {"kind": "exception", "cell": cell.name, "line": cell.line,
                       "message": f"{formatted['ename']}: {formatted['evalue']}{wanted}".strip(),
                       "traceback": formatted["traceback"]}
    elif cell.raises:
        failure = {"kind": "no-exception", "cell": cell.name, "line": cell.line,
                   "message": f"declared raises={cell.raises} but the cell finished without raising"}
    return {"name": cell.name, "outputs": outputs, "wall_time_s": elapsed}, failure


def run(snippet_path: str, result_path: str, workdir: str) -> int:
    rank = int(os.environ.get("RANK", "0"))
    snippet_file = snippets.load(snippet_path)
    normalize = Normalizer.for_this_machine(os.getcwd(), extra={workdir: "<work>"})
    recorder = Recorder(result_path if rank == 0 else None, snippet_file)
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(write_through=True)
    faulthandler.enable()  # a segfault prints the Python stack into the cell's log

    main = types.ModuleType("__main__")  # so pickle finds classes defined in cells
    main.__dict__.update({"__file__": snippet_path, "__builtins__": builtins})
    sys.modules["__main__"] = main
    sys.argv = [snippet_path]
    sys.path.insert(0, str(Path(snippet_path).parent.resolve()))
    _seed_everything("".join(c.source for c in snippet_file.cells))

    caught: list[dict] = []

    def record_warning(message, category, filename, lineno, file=None, line=None):
        caught.append({"output_type": "warning", "category": category.__name__,
                       "message": normalize(str(message)), "filename": normalize(str(filename)),
                       "lineno": lineno})

    warnings.showwarning = record_warning
    cells: list[dict] = []
    for index, cell in enumerate(snippet_file.cells):
        log = f"rank{rank}-cell{index}.log"
        recorder.update(current={"name": cell.name, "line": cell.line, "log": log})
        caught.clear()
        record, failure = _run_cell(cell, snippet_path, main.__dict__, Path(workdir) / log, normalize, caught)
        cells.append(record)
        if failure:
            recorder.update(cells=cells, status="failed", failure=failure)
            return 1
        recorder.update(cells=cells)
    recorder.update(status="complete", current=None)
    return 0


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python3 -m tcguide.runner SNIPPET RESULT WORKDIR", file=sys.stderr)
        return 2
    return run(*argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
