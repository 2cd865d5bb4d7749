"""Child process: run one snippet file cell by cell and record what each cell did.

Started by the capture driver as ``python3 -m tcguide.capture.runner SNIPPET DISPLAY RESULT LOGS``
(or under torchrun, once per GPU; only rank 0 records), in the file's own scratch
folder, from a copy of the snippet. Per cell it records, in order: stdout and stderr
as one interleaved stream (file descriptors 1 and 2 both point at one file while the
cell runs, so output of C code and child processes is caught too), warnings,
matplotlib figures as SVG (with a text description of what each chart shows), any
exception with its traceback, the values of the variables it glues, and wall time, all
tidied and capped (``terminal``) and with machine paths neutralised (``normalize``).
The result file (``result``, the contract with the driver) is rewritten atomically after
every cell, so the driver knows how far a file got even when it crashed or hung.

Nothing the file starts outlives it. The runner adopts every orphaned descendant (it
is a child subreaper), dies with its parent (a parent-death signal, and a guard
thread watching for a new parent), and when the last cell is done it ends every
process and thread still running, recording which cell started each.
"""

from __future__ import annotations

import ast
import atexit
import builtins
import faulthandler
import io
import json
import os
import random
import signal
import sys
import threading
import time
import traceback
import types
import warnings
from pathlib import Path

from tcguide.capture import processes, result, terminal
from tcguide.capture.result import CellResult, Current, Failure, Leftover, RunResult
from tcguide.core import snippet as snippets
from tcguide.capture.normalize import Normalizer

SEED = 0
GLUE_BYTES = 64 * 1024  # of one glued value, as JSON
LOG_READ_BYTES = 4 * terminal.CELL_BYTES  # of a longer log, only its start and end are read
GUARD_POLL_S = 0.2
STARTUP_PATH = {str(Path(p or ".").resolve()) for p in sys.path}  # where the interpreter finds packages


# ---- processes and threads the file starts -------------------------------------------

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


def _matches(exc: BaseException, expected: str) -> bool:
    """The exception is (a subclass of) the declared Exception subclass."""
    for cls in type(exc).__mro__:
        if not issubclass(cls, Exception):
            return False  # SystemExit, KeyboardInterrupt and BaseException itself never count
        if expected in (cls.__name__, cls.__qualname__, f"{cls.__module__}.{cls.__qualname__}"):
            return True
    return False


class Tidy:
    """Terminal semantics, machine paths neutralised, and the file's caps, in that order."""

    def __init__(self, normalize: Normalizer):
        self.normalize = normalize
        self.budget = terminal.Budget()

    def __call__(self, text: str) -> str:
        return self.budget.fit(self.normalize(terminal.tidy(text)))


def _format_exception(exc: BaseException, snippet_path: str, tidy: Tidy) -> dict:
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != snippet_path:
        tb = tb.tb_next  # drop the runner's own frames
    lines = traceback.format_exception(type(exc), exc, tb)
    return {"output_type": "error", "ename": type(exc).__name__,
            "evalue": tidy(str(exc)), "traceback": tidy("".join(lines))}


def _describe(figure) -> str:
    """What a chart shows, in words (a page's alt text): its title, and per panel its axis label
    and each bar's category and value, or each named line. Empty if nothing can be said."""
    parts = [figure._suptitle.get_text()] if getattr(figure, "_suptitle", None) else []
    for ax in figure.axes:
        values = []
        for container in ax.containers:
            horizontal = getattr(container, "orientation", "vertical") == "horizontal"
            ticks = dict(zip((ax.get_yticks() if horizontal else ax.get_xticks()),
                             (t.get_text() for t in (ax.get_yticklabels() if horizontal else ax.get_xticklabels()))))
            for patch in getattr(container, "patches", ()):
                where = patch.get_y() + patch.get_height() / 2 if horizontal else patch.get_x() + patch.get_width() / 2
                name = min(ticks.items(), key=lambda item: abs(item[0] - where))[1] if ticks else ""
                value = patch.get_width() if horizontal else patch.get_height()
                values.append(f"{name} {value:.3g}".strip())
        values += [line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")]
        what = ax.get_title() or (ax.get_xlabel() if ax.containers and all(
            getattr(c, "orientation", "") == "horizontal" for c in ax.containers) else ax.get_ylabel())
        if values:
            parts.append(f"{what}: {', '.join(values)}" if what else ", ".join(values))
    return ". ".join(p.strip() for p in parts if p.strip())


def _figures(tidy: Tidy) -> list[dict]:
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return []
    import matplotlib
    matplotlib.rcParams["svg.hashsalt"] = "tcguide"
    found = []
    for number in pyplot.get_fignums():
        buffer = io.StringIO()
        pyplot.figure(number).savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
        svg = buffer.getvalue()
        if len(svg.encode("utf-8")) > terminal.FIGURE_BYTES:
            found.append({"output_type": "stream", "name": "stdout",
                          "text": f"[figure {number} not stored: {len(svg):,} bytes of SVG, over the cap of "
                                  f"{terminal.FIGURE_BYTES:,} cut by capture]\n"})
        else:
            data = {"image/svg+xml": svg}
            try:
                description = tidy(_describe(pyplot.figure(number)))
            except Exception:  # noqa: BLE001 - a chart the description doesn't understand keeps its image
                description = ""
            if description:
                data["text/plain"] = description  # as a notebook stores it: the figure's text form
            found.append({"output_type": "display_data", "data": data})
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


def _run_cell(cell: snippets.Cell, compiler: snippets.CellCompiler, snippet_path: str, namespace: dict, log: Path,
              tidy: Tidy, warnings_caught: list[dict]) -> tuple[CellResult, Failure | None]:
    """Run one cell; returns its record and, if it did not behave as declared, the failure."""
    # Compiled on its own (the runner's __future__ imports don't leak in); the compiler keeps
    # the __future__ flags a cell sets for the cells after it, as a script would.
    code = compiler(cell, snippet_path)
    error = None
    started = time.perf_counter()
    with _Streams(log) as streams:
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
    outputs.extend(_figures(tidy))
    failure = None
    if error is not None:
        formatted = _format_exception(error, snippet_path, tidy)
        formatted["expected"] = bool(cell.raises) and _matches(error, cell.raises)
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
        record.glue, problem = _glued(cell, namespace, tidy.normalize)
        if problem:
            failure = Failure(result.GLUE, cell.name, cell.line, problem)
    return record, failure


def _plain(value, where: str, normalize):
    """A glued value as JSON data: numbers (numpy and torch scalars too), text (its machine paths
    neutralised as in printed output), true/false/null, and lists and string-keyed dicts of those.
    Raises ValueError saying what does not fit."""
    if isinstance(value, str):
        return normalize(value)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"{where} is {value}, which a page cannot quote")
        return float(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v, f"{where}[{i}]", normalize) for i, v in enumerate(value)]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise ValueError(f"{where} has a key that is not text")
        return {k: _plain(v, f"{where}.{k}", normalize) for k, v in value.items()}
    item = getattr(value, "item", None)  # numpy scalars, one-element tensors and arrays
    if callable(item) and getattr(value, "ndim", 0) == 0:
        return _plain(item(), where, normalize)
    raise ValueError(f"{where} is a {type(value).__name__}; glue numbers, text, or lists and dicts of them")


def _glued(cell: snippets.Cell, namespace: dict, normalize) -> tuple[dict, str | None]:
    """The values of the variables the cell glues, and what is wrong (a name it did not set, a value
    that is not plain data, or too big to quote)."""
    values = {}
    for name in cell.glue:
        if name not in namespace:
            return values, f"cell declares glue={','.join(cell.glue)} but sets no variable '{name}'"
        try:
            values[name] = _plain(namespace[name], name, normalize)
        except ValueError as exc:
            return values, f"glued {exc}"
        except RecursionError:
            return values, f"glued {name} nests too deeply"
        size = len(json.dumps(values[name], ensure_ascii=False))
        if size > GLUE_BYTES:
            return values, f"glued {name} is {size:,} bytes as JSON, over the cap of {GLUE_BYTES:,}"
    return values, None


def _on_startup_path(module: types.ModuleType | None) -> bool:
    """The top-level module was found on the interpreter's own path, not on one a package added
    later (setuptools puts its vendored copies of other distributions on the path)."""
    if module is None:
        return False
    file = getattr(module, "__file__", None)
    if file:
        where = Path(file).resolve().parent
        roots = [where.parent if where.name == module.__name__ else where]
    else:  # a namespace package: where its portions are
        roots = [Path(p).resolve().parent for p in getattr(module, "__path__", ())]
    return any(str(root) in STARTUP_PATH for root in roots)


def imported_distributions() -> dict[str, str]:
    """Name and version of every installed distribution the file imported (torch, numpy, ...),
    found on the interpreter's own path."""
    from importlib import metadata

    owners = metadata.packages_distributions()
    found = {}
    for module in {name.split(".")[0] for name in list(sys.modules)}:
        if not _on_startup_path(sys.modules.get(module)):
            continue
        for dist in owners.get(module, ()):
            if dist != "tcguide":
                try:
                    found[dist] = metadata.version(dist)
                except metadata.PackageNotFoundError:
                    pass
    return dict(sorted(found.items()))


# ---- the file -------------------------------------------------------------------------

def run(snippet_path: str, display: str, result_path: str, logs: str) -> int:
    hold_on_to_children()
    rank = int(os.environ.get("RANK", "0"))
    snippet_file = snippets.load(snippet_path, display)
    tooling = str(Path(__file__).resolve().parents[2])  # the folder that holds the tcguide package
    normalize = Normalizer.for_this_machine(os.getcwd(), extra={tooling: "<tooling>", logs: "<logs>"})
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
    leftovers = Leftovers()
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
    recorder.update(leftovers=running, packages=imported_distributions(),
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
