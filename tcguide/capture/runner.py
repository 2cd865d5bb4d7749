"""Child process: run one snippet file cell by cell and record what each cell did.

Started by the capture driver as ``python3 -m tcguide.capture.runner SNIPPET DISPLAY RESULT LOGS``
(or under torchrun, once per GPU; only rank 0 records), in the file's own scratch
folder, from a copy of the snippet. Per cell it records, in order: stdout and stderr
as one interleaved stream (``streams``), warnings, matplotlib figures as SVG with a text
description of what each chart shows (``figures``), any exception with its traceback
(``exceptions``), the values of the variables it glues (``glued``), and wall time, all
tidied and capped and with machine paths neutralised (``tidy``). The result file
(``result``, the contract with the driver) is rewritten atomically after every cell, so the
driver knows how far a file got even when it crashed or hung; at the end it records the
distributions the file imported (``packages``).

Nothing the file starts outlives it (``lifetime``): when the last cell is done the runner ends
every process and thread still running, recording which cell started each.
"""

from __future__ import annotations

import ast
import atexit
import builtins
import faulthandler
import os
import random
import sys
import time
import types
import warnings
from pathlib import Path

from tcguide.capture import exceptions, figures, glued, lifetime, packages, processes, result
from tcguide.capture.normalize import SYSTEM_PREFIXES, Normalizer
from tcguide.capture.result import CellResult, Current, Failure, RunResult
from tcguide.capture.streams import Streams
from tcguide.capture.tidy import Tidy
from tcguide.core import snippet as snippets

SEED = 0


# ---- one cell -----------------------------------------------------------------------

class Recorder:
    """Keeps the file's result and rewrites it after every change (rank 0 alone has a path)."""

    def __init__(self, path: str | None, display: str):
        self.path = path
        self.result = RunResult(display)

    def update(self, **changes) -> None:
        for name, value in changes.items():
            setattr(self.result, name, value)
        if self.path:
            self.result.write(self.path)


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


def _run_cell(cell: snippets.Cell, compiler: snippets.CellCompiler, snippet_path: str, namespace: dict, log: Path,
              tidy: Tidy, warnings_caught: list[dict]) -> tuple[CellResult, Failure | None]:
    """Run one cell; returns its record and, if it did not behave as declared, the failure."""
    # Compiled on its own (the runner's __future__ imports don't leak in); the compiler keeps
    # the __future__ flags a cell sets for the cells after it, as a script would.
    code = compiler(cell, snippet_path)
    error = None
    started = time.perf_counter()
    with Streams(log) as streams:
        try:
            exec(code, namespace)
        except BaseException as exc:  # noqa: BLE001 - everything a cell raises is data
            error = exc
    elapsed = time.perf_counter() - started
    outputs: list[dict] = []
    text = tidy(streams.text())
    if text:
        outputs.append({"output_type": "stream", "name": "stdout", "text": text})
    outputs.extend(warnings_caught)
    outputs.extend(figures.collect(tidy))
    failure = None
    if error is not None:
        formatted = exceptions.format_exception(error, snippet_path, tidy)
        formatted["expected"] = bool(cell.raises) and exceptions.matches(error, cell.raises)
        outputs.append(formatted)
        if not formatted["expected"]:
            wanted = f" (declared raises={cell.raises})" if cell.raises else ""
            failure = Failure(result.EXCEPTION, cell.name, cell.line,
                              f"{formatted['ename']}: {formatted['evalue']}{wanted}".strip(), formatted["traceback"])
    elif cell.raises:
        failure = Failure(result.NO_EXCEPTION, cell.name, cell.line,
                          f"declared raises={cell.raises} but the cell finished without raising")
    record = CellResult(cell.name, outputs, elapsed)
    if cell.glue and failure is None:
        record.glue, problem = glued.values(cell, namespace, tidy.normalize)
        if problem:
            failure = Failure(result.GLUE, cell.name, cell.line, problem)
    return record, failure


# ---- the file -------------------------------------------------------------------------

def _scratch_paths(tooling: Path, logs: str) -> dict[str, str]:
    """The driver's folders, each by a neutral name: the tooling's copy, this file's logs, the run's
    scratch folder that holds them (``tcguide-capture-…``) and the temporary folder that holds it (the
    driver's, which the file's own TMPDIR hides from ``tempfile``)."""
    work = tooling.parent
    paths = {str(tooling): "<tooling>", logs: "<logs>", str(work): "<work>"}
    if str(work.parent) not in SYSTEM_PREFIXES:
        paths[str(work.parent)] = "<tmp>"
    return paths


def run(snippet_path: str, display: str, result_path: str, logs: str) -> int:
    lifetime.hold_on_to_children()
    rank = int(os.environ.get("RANK", "0"))
    snippet_file = snippets.load(snippet_path, display)
    tooling = Path(__file__).resolve().parents[2]  # the folder that holds the tcguide package
    normalize = Normalizer.for_this_machine(os.getcwd(), extra=_scratch_paths(tooling, logs),
                                            tails={Path.cwd().name + "/": "", tooling.parent.name + "/": "<work>/"})
    tidy = Tidy(normalize)
    recorder = Recorder(result_path if rank == 0 else None, display)
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(write_through=True)
    faulthandler.enable(all_threads=False)  # a segfault prints the crashing stack into the cell's log

    main = types.ModuleType("__main__")  # so pickle finds classes defined in cells
    main.__dict__.update({"__file__": snippet_path, "__builtins__": builtins})
    sys.modules["__main__"] = main
    sys.argv = [snippet_path]
    sys.path.insert(0, str(Path(snippet_path).parent.resolve()))
    _seed_everything("".join(c.source for c in snippet_file.cells))

    caught: list[dict] = []

    def record_warning(message, category, filename, lineno, file=None, line=None):
        caught.append({"output_type": "warning", "category": category.__name__,
                       "message": tidy(str(message)), "filename": normalize(str(filename)), "lineno": lineno})

    warnings.showwarning = record_warning
    compiler = snippets.CellCompiler()
    leftovers = lifetime.Leftovers()
    cells: list[CellResult] = []
    status = 0
    for index, cell in enumerate(snippet_file.cells):
        log = f"rank{rank}-cell{index}.log"
        recorder.update(current=Current(cell.name, cell.line, log))
        caught.clear()
        record, failure = _run_cell(cell, compiler, snippet_path, main.__dict__, Path(logs) / log, tidy, caught)
        cells.append(record)
        leftovers.after(cell.name)
        if failure:
            recorder.update(cells=cells, status=result.FAILED, failure=failure)
            status = 1
            break
        recorder.update(cells=cells)
    # The end of a script: its exit handlers run (torch's stop its compile workers); whatever still
    # runs after that is recorded, then ended. Non-daemon threads are not waited for.
    atexit._run_exitfuncs()
    running = leftovers.running()
    processes.end_descendants()
    recorder.update(leftovers=running, packages=packages.imported(),
                    **({} if status else {"status": result.COMPLETE, "current": None}))
    sys.stdout.flush(); sys.stderr.flush()
    os._exit(status)


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print("usage: python3 -m tcguide.capture.runner SNIPPET DISPLAY RESULT LOGS", file=sys.stderr)
        return 2
    return run(*argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
