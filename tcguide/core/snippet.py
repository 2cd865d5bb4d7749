"""Snippet files: plain runnable Python scripts divided into named cells.

A snippet file looks like this (the jupytext "percent" format)::

    # /// capture
    # gpus = 1            # needs CUDA and at least this many GPUs (0: runs anywhere)
    # timeout = 300       # seconds for the whole file
    # exclusive = true    # its timings need the GPU(s) to itself
    # launcher = "python" # or "torchrun": one process per GPU, rank 0 recorded
    # depends = ["data/prices.csv"]  # data files it reads, beside it in snippets/
    # machine = "2xh200"  # the machine class that captures it (default: the project's)
    # ///

    # %% setup
    import torch

    # %% broken-call raises="RuntimeError"
    torch.ones(2) @ torch.ones(3)

    # %% measure glue=speedup,eager_ms
    eager_ms, speedup = 2.0, 1.5

Cell names are lower-case words joined by ``-``; ``raises`` names the exception
(its class name or dotted path, an ``Exception`` subclass) that the cell is expected
to raise; ``glue`` names variables the cell sets whose values the capture stores, so
that pages can quote them (``{{file.py:speedup:.2f}}``, see ``glue``) instead of typing
the figures. For a reader the file stays plain Python: the marker is a comment. The capture block, if any, comes before the first cell, once. Every cell
must compile on its own (with the ``__future__`` imports of the cells before it), so
a cell that doesn't is reported at parse time as ``path:line``.
"""

from __future__ import annotations

import __future__
import functools
import hashlib
import json
import operator
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from tcguide.core.discovery import local_imports, sha256_of
from tcguide.core.errors import GuideError

MARKER = re.compile(r"^#\s*%%")
CELL_MARKER = re.compile(
    r"""(?x)^\#\ %%\ (?P<name>[a-z0-9][a-z0-9-]*)   # '# %% ' and the cell name
        (?P<meta>(?:\ +[a-z_]+=\S+)*)\ *$          # then key=value pairs"""
)
META_ITEM = re.compile(r"(?P<key>[a-z_]+)=(?P<value>\S+)")
HEADER_OPEN, HEADER_CLOSE = "# /// capture", "# ///"
CELL_KEYS = {"raises", "glue"}
GLUE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
LAUNCHERS = ("python", "torchrun")
# Names that a cell may not declare: not Exception subclasses, so "expecting" them would hide
# an interrupt, an exit or anything at all.
NOT_EXCEPTIONS = {"object", "BaseException", "SystemExit", "KeyboardInterrupt", "GeneratorExit",
                  "BaseExceptionGroup", "CancelledError"}
FUTURE_FLAGS = functools.reduce(operator.or_, (getattr(__future__, name).compiler_flag
                                               for name in __future__.all_feature_names))
REMEDY_MARKER = 'write it as "# %% cell-name" or "# %% cell-name raises=\\"ValueError\\""'


@dataclass(frozen=True)
class Requirements:
    """What a snippet file needs from the machine that captures it."""

    gpus: int = 0
    timeout: int = 300
    exclusive: bool = False
    launcher: str = "python"
    depends: tuple[str, ...] = ()  # data files it reads, relative to its folder
    machine: str = ""  # the machine class whose runners capture it ("": the project's default)


@dataclass(frozen=True)
class Cell:
    name: str
    line: int  # 1-based line of the cell's marker
    source: str  # the lines after the marker, trailing blank lines dropped
    raises: str | None = None
    glue: tuple[str, ...] = ()  # names of variables whose values the capture stores

    @property
    def code(self) -> str:
        """The code as shown to readers: without surrounding blank lines."""
        return self.source.strip("\n") + "\n"


@dataclass(frozen=True)
class SnippetFile:
    path: str  # as given, relative to the project root where possible
    sha256: str  # of the file's own bytes
    requirements: Requirements
    cells: tuple[Cell, ...] = field(default_factory=tuple)
    # What else it reads from the snippets tree, by display path: (file on disk, its sha256).
    helpers: dict[str, tuple[Path, str]] = field(default_factory=dict)  # modules and packages it imports
    depends: dict[str, tuple[Path, str]] = field(default_factory=dict)  # data files it declares

    def cell(self, name: str) -> Cell | None:
        return next((c for c in self.cells if c.name == name), None)

    def glued_by(self, name: str) -> Cell | None:
        """The cell that glues a value of this name (at most one does)."""
        return next((c for c in self.cells if name in c.glue), None)


class CellCompiler:
    """Compiles cells one by one as a script's parts: nothing of the caller's compiler flags
    leaks in (``dont_inherit``), and the ``__future__`` imports of a cell hold for the cells after it."""

    def __init__(self):
        self.flags = 0

    def __call__(self, cell: "Cell", filename: str):
        source = "\n" * cell.line + cell.source  # so tracebacks name the file's own lines
        code = compile(source, filename, "exec", flags=self.flags, dont_inherit=True)
        self.flags |= code.co_flags & FUTURE_FLAGS
        return code


def load(path: str | Path, display: str | None = None) -> SnippetFile:
    """Read and parse a snippet file; raises GuideError naming file and line.

    ``display`` is the path used in messages and recorded outputs (default: ``path``).
    """
    path = Path(path)
    display = display or str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise GuideError(display, None, f"cannot read snippet file ({exc.strerror})",
                         "check the path, and that the file is readable") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise GuideError(display, None, "snippet file is not UTF-8", "save it as UTF-8") from None
    parsed = parse(text, display, hashlib.sha256(data).hexdigest())
    helpers = {shown: (file, sha256_of(file)) for shown, file in local_imports(text, path.parent, display).items()}
    depends = {}
    for name in parsed.requirements.depends:
        file = (path.parent / name).resolve()
        shown = str(Path(display).parent / name)
        if not file.is_relative_to(path.parent.resolve()) or not file.is_file():
            raise GuideError(display, _line_of(text, name), f"depends names {name!r}, which is not a file beside it",
                             "name data files in the snippet's own folder (or below it)")
        depends[shown] = (file, sha256_of(file))
    return SnippetFile(parsed.path, parsed.sha256, parsed.requirements, parsed.cells, helpers, depends)


def _line_of(text: str, needle: str) -> int | None:
    return next((n for n, line in enumerate(text.splitlines(), start=1) if needle in line), None)


def parse(text: str, path: str, sha256: str = "") -> SnippetFile:
    lines = text.splitlines()
    requirements, body_start = _parse_header(lines, path)
    cells: list[Cell] = []
    current: tuple[int, str, str | None, tuple[str, ...]] | None = None
    body: list[str] = []

    def close() -> None:
        if current is None:
            return
        line, name, raises, glue = current
        while body and not body[-1].strip():
            body.pop()
        if not any(l.strip() for l in body):
            raise GuideError(path, line, f"cell '{name}' is empty", "put code in it or remove the marker")
        cells.append(Cell(name, line, "\n".join(body) + "\n", raises, glue))

    for number, line in enumerate(lines[body_start:], start=body_start + 1):
        if MARKER.match(line):
            close()
            current = _parse_marker(line, number, path, {c.name: c.line for c in cells},
                                    {n: c for c in cells for n in c.glue})
            body = []
        elif current is None:
            if line.strip() and not line.lstrip().startswith("#"):
                raise GuideError(
                    path, number, "code before the first cell marker",
                    "start the file's code with a '# %% cell-name' line",
                )
        else:
            body.append(line)
    close()
    if not cells:
        raise GuideError(path, None, "no cells found", "divide the file with '# %% cell-name' lines")
    compiler = CellCompiler()
    for cell in cells:
        try:
            compiler(cell, path)
        except SyntaxError as exc:
            raise GuideError(path, exc.lineno or cell.line, f"cell '{cell.name}' does not compile on its own: {exc.msg}",
                             "each cell must be complete Python; fix the code or move the cell marker") from None
    return SnippetFile(path, sha256, requirements, tuple(cells))


def _parse_glue(raw: str, number: int, path: str, glued: dict[str, Cell]) -> tuple[str, ...]:
    names = tuple(raw.split(","))
    for name in names:
        if not GLUE_NAME.fullmatch(name):
            raise GuideError(path, number, f"glue={raw}: {name!r} is not a variable name",
                             "list the variables the cell sets, separated by commas: glue=eager_ms,speedup")
        if name in glued:
            raise GuideError(path, number, f"glue name '{name}' is already glued by cell '{glued[name].name}' "
                             f"(line {glued[name].line})", "glue each value in one cell; rename one of them")
    if len(set(names)) != len(names):
        raise GuideError(path, number, f"glue={raw} names a variable twice", "name each variable once")
    return names


def _parse_marker(line: str, number: int, path: str, seen: dict[str, int], glued: dict[str, Cell]):
    match = CELL_MARKER.match(line)
    if not match:
        raise GuideError(path, number, f"malformed cell marker {line.strip()!r}", REMEDY_MARKER)
    name = match["name"]
    if name in seen:
        raise GuideError(
            path, number, f"duplicate cell name '{name}' (first used on line {seen[name]})",
            "give every cell in a file its own name",
        )
    meta: dict[str, str] = {}
    for item in META_ITEM.finditer(match["meta"]):
        key, raw = item["key"], item["value"]
        if key not in CELL_KEYS:
            raise GuideError(
                path, number, f"unknown cell option '{key}'", f"known options: {', '.join(sorted(CELL_KEYS))}"
            )
        if key == "glue":
            meta[key] = _parse_glue(raw, number, path, glued)
            continue
        try:
            value = json.loads(raw) if raw.startswith('"') else raw
        except json.JSONDecodeError:
            raise GuideError(path, number, f"option {key} has a malformed value {raw}", 'quote it: raises="ValueError"') from None
        if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z_][\w.]*", value):
            raise GuideError(path, number, f"option {key}={raw} is not an exception name", 'write raises="ValueError"')
        if value.rsplit(".", 1)[-1] in NOT_EXCEPTIONS:
            raise GuideError(path, number, f"raises={value} does not name an Exception subclass",
                             "declare the exception the cell really raises, e.g. raises=\"ValueError\"")
        meta[key] = value
    if "raises" in meta and "glue" in meta:
        raise GuideError(path, number, "a cell that raises cannot glue values (it stops before setting them)",
                         "glue the values in a cell that finishes")
    return number, name, meta.get("raises"), meta.get("glue", ())


def _parse_header(lines: list[str], path: str) -> tuple[Requirements, int]:
    """Parse the optional '# /// capture' block; returns requirements and where the body starts."""
    opens = [i for i, l in enumerate(lines) if l.strip() == HEADER_OPEN]
    first_marker = next((i for i, l in enumerate(lines) if MARKER.match(l)), len(lines))
    if not opens:
        return Requirements(), 0
    start = opens[0]
    if start > first_marker:
        raise GuideError(path, start + 1, "'# /// capture' block after the first cell",
                         "move it to the top of the file, before the first '# %%' line")
    if len(opens) > 1:
        raise GuideError(path, opens[1] + 1, f"second '# /// capture' block (the first is on line {start + 1})",
                         "merge the settings into one block at the top")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].strip() == HEADER_CLOSE), None)
    if end is None:
        raise GuideError(path, start + 1, "'# /// capture' block is never closed", "end it with a '# ///' line")
    toml_lines = []
    for i in range(start + 1, end):
        if not lines[i].startswith("#"):
            raise GuideError(path, i + 1, "line inside the '# /// capture' block is not a comment", "start it with '# '")
        toml_lines.append(lines[i][2:] if lines[i].startswith("# ") else lines[i][1:])
    try:
        table = tomllib.loads("\n".join(toml_lines))
    except tomllib.TOMLDecodeError as exc:
        offset = getattr(exc, "lineno", 0) or _toml_line(str(exc))
        line = start + 1 + offset if offset else end  # 'at end of document': the block's last line
        raise GuideError(path, line, f"malformed capture metadata ({exc})", "write it as TOML: key = value") from None
    return _requirements(table, path, start + 1), end + 1


def _toml_line(message: str) -> int:
    found = re.search(r"line (\d+)", message)
    return int(found[1]) if found else 0


def _requirements(table: dict, path: str, line: int) -> Requirements:
    types = {"gpus": int, "timeout": int, "exclusive": bool, "launcher": str, "depends": list, "machine": str}
    nouns = {int: "whole number", bool: "boolean (true or false)", str: "quoted string",
             list: "list of quoted file names"}
    for key, value in table.items():
        if key not in types:
            raise GuideError(path, line, f"unknown capture setting '{key}'", f"known settings: {', '.join(types)}")
        if type(value) is not types[key] or (key == "depends" and not all(isinstance(v, str) for v in value)):
            raise GuideError(path, line, f"capture setting '{key}' must be a {nouns[types[key]]}, not {value!r}",
                             f"write {key} as a {nouns[types[key]]}")
    req = Requirements(**{**table, "depends": tuple(table.get("depends", ()))})
    if req.launcher not in LAUNCHERS:
        raise GuideError(path, line, f"unknown launcher {req.launcher!r}", f"use one of: {', '.join(LAUNCHERS)}")
    if req.timeout <= 0 or req.gpus < 0:
        raise GuideError(path, line, "timeout must be positive and gpus not negative",
                         "set timeout to seconds above 0 and gpus to 0 or more")
    if req.launcher == "torchrun" and req.gpus < 1:
        raise GuideError(path, line, "launcher 'torchrun' needs gpus >= 1", "set gpus = 2 (one process per GPU)")
    return req
