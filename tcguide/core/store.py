"""Captured outputs: one JSON file per snippet file, beside it (``x.py`` -> ``x.out.json``).

The shape follows nbformat's outputs (``stream``, ``error`` with ``ename``/``evalue``/
``traceback``, ``display_data``) so that notebook export is a mapping, plus a
``warning`` output. Multi-line text is stored as a list of lines, keys are sorted
and indentation is fixed, so a recapture diffs line by line.

Every file is validated as a whole when read (``load``): a field of the wrong type, a
NaN time, a figure that is neither SVG nor PNG is a ``GuideError`` naming the file and
the line. Each file carries a digest of the rest of it, written by the capture; an
output or provenance edited by hand no longer matches it. (A digest catches edits,
not a forger who recomputes it.)
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import os
import re
import tempfile
from dataclasses import dataclass, field
from json.decoder import JSONDecoder, scanstring
from pathlib import Path

from tcguide.core.errors import GuideError

FORMAT = "tcguide-capture/2"
SUFFIX = ".out.json"
RECAPTURE = "recapture it with: make capture SNIPPETS={snippet}"


def output_path(snippet: str | Path) -> Path:
    snippet = Path(snippet)
    return snippet.with_name(snippet.stem + SUFFIX)


@dataclass(frozen=True)
class CellRecord:
    name: str
    outputs: tuple[dict, ...]
    wall_time_s: float
    glue: dict = field(default_factory=dict)  # variable name -> its value (JSON data), for pages to quote

    @property
    def error(self) -> dict | None:
        return next((o for o in self.outputs if o["output_type"] == "error"), None)


@dataclass(frozen=True)
class Capture:
    snippet: str
    inputs: dict  # what it was captured from (see freshness.inputs)
    environment: dict  # where, and under what conditions, it ran
    captured_at: str  # ISO 8601, UTC
    cells: tuple[CellRecord, ...] = field(default_factory=tuple)
    packages: dict = field(default_factory=dict)  # distribution -> version, of those it imported

    def cell(self, name: str) -> CellRecord | None:
        return next((c for c in self.cells if c.name == name), None)


# ---- text as lines -------------------------------------------------------------------

def to_lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def from_lines(value) -> str:
    return "".join(value) if isinstance(value, list) else value


# ---- writing --------------------------------------------------------------------------

def digest(doc: dict) -> str:
    """The digest of a stored document, all of it but the digest itself."""
    rest = {k: v for k, v in doc.items() if k != "digest"}
    canonical = json.dumps(rest, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def dumps(capture: Capture) -> str:
    doc = {
        "format": FORMAT,
        "snippet": capture.snippet,
        "inputs": capture.inputs,
        "packages": capture.packages,
        "environment": capture.environment,
        "captured_at": capture.captured_at,
        "cells": [
            {"name": c.name, "wall_time_s": round(c.wall_time_s, 3), "outputs": [_encode(o) for o in c.outputs],
             **({"glue": c.glue} if c.glue else {})}
            for c in capture.cells
        ],
    }
    doc["digest"] = digest(doc)
    return json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


def _map_text(output: dict, convert) -> dict:
    """A copy of an output with its multi-line fields converted (to or from lists of lines)."""
    mapped = dict(output)
    for key in ("text", "traceback"):
        if key in mapped:
            mapped[key] = convert(mapped[key])
    if "data" in mapped:
        mapped["data"] = {mime: convert(value) for mime, value in mapped["data"].items()}
    return mapped


def _encode(output: dict) -> dict:
    return _map_text(output, to_lines)


def _decode(output: dict) -> dict:
    return _map_text(output, from_lines)


def write_atomic(path: str | Path, text: str) -> None:
    """Write text so that readers see the old file or the new one, never a mix."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fchmod(handle.fileno(), 0o644)  # world-readable, as a checkout's files are
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def save(capture: Capture, path: str | Path) -> None:
    write_atomic(path, dumps(capture))


# ---- reading --------------------------------------------------------------------------

REMEDY = "restore it with git checkout, or recapture it"
CELL_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


class _Invalid(Exception):
    """A field that does not fit the format: where it is (a path into the document) and why."""

    def __init__(self, where: tuple, problem: str):
        self.where, self.problem = where, problem


def _text(value) -> bool:
    return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))


def _expect(ok: bool, where: tuple, problem: str) -> None:
    if not ok:
        raise _Invalid(where, problem)


def _keys(obj, where: tuple, required: set, optional: set = frozenset()) -> None:
    _expect(isinstance(obj, dict), where, "is not an object")
    missing = sorted(required - obj.keys())
    _expect(not missing, where, f"has no {', '.join(repr(m) for m in missing)}")
    extra = sorted(obj.keys() - required - optional)
    _expect(not extra, where + (extra[0],) if extra else where, f"unknown field {extra[0]!r}" if extra else "")


def _strings(obj, where: tuple) -> None:
    _expect(isinstance(obj, dict) and all(isinstance(v, str) for v in obj.values()), where,
            "must map names to strings")


OUTPUT_KEYS = {
    "stream": ({"text", "name"}, set()),
    "error": ({"ename", "evalue", "traceback", "expected"}, set()),
    "display_data": ({"data"}, set()),
    "warning": ({"category", "message", "filename", "lineno"}, set()),
}


def _check_output(o, where: tuple) -> None:
    _expect(isinstance(o, dict) and o.get("output_type") in OUTPUT_KEYS, where + ("output_type",),
            f"must be one of {', '.join(OUTPUT_KEYS)}")
    required, optional = OUTPUT_KEYS[o["output_type"]]
    _keys(o, where, required | {"output_type"}, optional)
    for key in ("text", "traceback", "evalue", "ename", "category", "message", "filename"):
        if key in o:
            _expect(_text(o[key]), where + (key,), "must be text")
    if "name" in o:
        _expect(o["name"] in ("stdout", "stderr"), where + ("name",), "a stream is stdout or stderr")
    if "expected" in o:
        _expect(isinstance(o["expected"], bool), where + ("expected",), "must be true or false")
    if "lineno" in o:
        _expect(type(o["lineno"]) is int, where + ("lineno",), "must be a whole number")
    if "data" in o:
        data = o["data"]
        images = data.keys() & {"image/svg+xml", "image/png"} if isinstance(data, dict) else set()
        _expect(len(images) == 1 and data.keys() <= images | {"text/plain"}, where + ("data",),
                "a figure is one image/svg+xml or image/png, and optionally its text/plain description")
        if "text/plain" in data:
            _expect(_text(data["text/plain"]), where + ("data", "text/plain"), "must be text")
        mime = images.pop()
        value = data[mime]
        _expect(_text(value), where + ("data", mime), "a figure must be text")
        value = from_lines(value)
        if mime == "image/svg+xml":
            head = value.lstrip()[:200]
            _expect(head.startswith(("<?xml", "<svg")) and "<svg" in value and value.rstrip().endswith("</svg>"),
                    where + ("data", mime), "is not an SVG document")
        else:
            try:
                _expect(base64.b64decode(value, validate=True).startswith(b"\x89PNG\r\n\x1a\n"),
                        where + ("data", mime), "is not a base64 PNG image")
            except ValueError:
                raise _Invalid(where + ("data", mime), "is not a base64 PNG image") from None


def _check(doc) -> None:
    """The whole document against the format; raises _Invalid at the first field that is off."""
    _keys(doc, (), {"format", "snippet", "inputs", "packages", "environment", "captured_at", "cells", "digest"})
    _expect(isinstance(doc["snippet"], str), ("snippet",), "must be text")
    _keys(doc["inputs"], ("inputs",), {"source", "helpers", "depends", "tooling"})
    _expect(isinstance(doc["inputs"]["source"], str), ("inputs", "source"), "must be a digest")
    _expect(isinstance(doc["inputs"]["tooling"], str), ("inputs", "tooling"), "must name an output version")
    for key in ("helpers", "depends"):
        _strings(doc["inputs"][key], ("inputs", key))
    _strings(doc["packages"], ("packages",))
    env = doc["environment"]
    _expect(isinstance(env, dict), ("environment",), "must be an object")
    for key, value in env.items():
        _expect(value is None or isinstance(value, (str, int, bool)), ("environment", key),
                "must be text or a whole number")
    _expect(isinstance(doc["captured_at"], str) and TIMESTAMP.fullmatch(doc["captured_at"]), ("captured_at",),
            "must be a UTC time written as 2026-11-22T10:15:00Z")
    _expect(isinstance(doc["cells"], list), ("cells",), "must be a list")
    for i, cell in enumerate(doc["cells"]):
        _keys(cell, ("cells", i), {"name", "wall_time_s", "outputs"}, {"glue"})
        if "glue" in cell:
            _expect(isinstance(cell["glue"], dict) and cell["glue"] and all(
                isinstance(k, str) and _plain_data(v) for k, v in cell["glue"].items()), ("cells", i, "glue"),
                "must map variable names to numbers, text, true/false/null, or lists and objects of them")
        _expect(isinstance(cell["name"], str) and CELL_NAME.fullmatch(cell["name"]), ("cells", i, "name"),
                "is not a cell name")
        time_s = cell["wall_time_s"]
        _expect(type(time_s) in (int, float) and math.isfinite(time_s) and time_s >= 0, ("cells", i, "wall_time_s"),
                f"must be a number of seconds, not {time_s!r}")
        _expect(isinstance(cell["outputs"], list), ("cells", i, "outputs"), "must be a list")
        for j, output in enumerate(cell["outputs"]):
            _check_output(output, ("cells", i, "outputs", j))
    _expect(doc["digest"] == digest(doc), ("digest",),
            "edited by hand — recapture: its content no longer matches the digest the capture wrote")


def _plain_data(value, depth: int = 0) -> bool:
    if depth > 32:
        return False
    if value is None or isinstance(value, (bool, str)):
        return True
    if type(value) in (int, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_plain_data(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain_data(v, depth + 1) for k, v in value.items())
    return False


def _line_of(text: str, where: tuple) -> int | None:
    """The line of a field in a JSON text, by its path of keys and indices (None if not found)."""
    space = re.compile(r"[ \t\n\r]*")
    decoder = JSONDecoder()
    try:
        pos = space.match(text).end()
        for step in where:
            pos = space.match(text, pos + 1).end()  # past '[' or '{'
            index = 0
            while True:
                key = None
                if isinstance(step, str):
                    key, pos = scanstring(text, pos + 1)
                    pos = space.match(text, space.match(text, pos).end() + 1).end()  # past ':'
                if key == step or index == step:
                    break
                _, pos = decoder.raw_decode(text, pos)
                pos = space.match(text, space.match(text, pos).end() + 1).end()  # past ','
                index += 1
        return text.count("\n", 0, pos) + 1
    except (ValueError, IndexError):
        return None


def load(path: str | Path, display: str | None = None) -> Capture:
    """Read and validate a captured-output file; anything wrong raises GuideError with file and line.

    ``display`` is the path used in messages (default: ``path``)."""
    path = Path(path)
    shown = display or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise GuideError(shown, None, f"cannot read captured output ({exc.strerror})",
                         REMEDY) from None
    except UnicodeDecodeError:
        raise GuideError(shown, None, "captured output is not UTF-8", "recapture it") from None

    def no_constants(name):
        raise ValueError(f"{name} is not a number JSON allows")

    try:
        doc = json.loads(text, parse_constant=no_constants)
    except json.JSONDecodeError as exc:
        raise GuideError(shown, exc.lineno, f"captured output is corrupt JSON ({exc.msg})", REMEDY) from None
    except ValueError as exc:
        line = next((n for n, l in enumerate(text.splitlines(), 1) if re.search(r"\b(NaN|-?Infinity)\b", l)), None)
        raise GuideError(shown, line, f"captured output is corrupt ({exc})", REMEDY) from None
    if not isinstance(doc, dict):
        raise GuideError(shown, 1, "captured output is not a JSON object", REMEDY)
    if doc.get("format") != FORMAT:
        raise GuideError(
            str(path), _line_of(text, ("format",)),
            f"captured output has format {doc.get('format')!r}; this tooling reads {FORMAT!r}",
            "recapture it with the tooling of this checkout",
        )
    try:
        _check(doc)
    except _Invalid as bad:
        if bad.where == ("digest",):
            raise GuideError(shown, _line_of(text, bad.where), bad.problem, REMEDY) from None
        field_name = ".".join(str(step) for step in bad.where) or "the document"
        raise GuideError(shown, _line_of(text, bad.where), f"captured output is invalid: {field_name} {bad.problem}",
                         REMEDY) from None
    cells = tuple(CellRecord(c["name"], tuple(_decode(o) for o in c["outputs"]), float(c["wall_time_s"]),
                             c.get("glue", {}))
                  for c in doc["cells"])
    return Capture(doc["snippet"], doc["inputs"], doc["environment"], doc["captured_at"], cells, doc["packages"])
