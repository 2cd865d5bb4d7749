"""Captured outputs: one JSON file per snippet file, beside it (``x.py`` -> ``x.out.json``).

The shape follows nbformat's outputs (``stream``, ``error`` with ``ename``/``evalue``/
``traceback``, ``display_data``) so that notebook export is a mapping, plus a
``warning`` output. Multi-line text is stored as a list of lines, keys are sorted
and indentation is fixed, so a recapture diffs line by line.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tcguide.errors import GuideError

FORMAT = "tcguide-capture/1"
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

    @property
    def error(self) -> dict | None:
        return next((o for o in self.outputs if o["output_type"] == "error"), None)


@dataclass(frozen=True)
class Capture:
    snippet: str
    source_sha256: str
    environment: dict
    captured_at: str  # ISO 8601, UTC
    cells: tuple[CellRecord, ...] = field(default_factory=tuple)

    def cell(self, name: str) -> CellRecord | None:
        return next((c for c in self.cells if c.name == name), None)


# ---- text as lines -------------------------------------------------------------------

def to_lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def from_lines(value) -> str:
    return "".join(value) if isinstance(value, list) else value


# ---- writing --------------------------------------------------------------------------

def dumps(capture: Capture) -> str:
    doc = {
        "format": FORMAT,
        "snippet": capture.snippet,
        "source_sha256": capture.source_sha256,
        "environment": capture.environment,
        "captured_at": capture.captured_at,
        "cells": [
            {"name": c.name, "wall_time_s": round(c.wall_time_s, 3), "outputs": [_encode(o) for o in c.outputs]}
            for c in capture.cells
        ],
    }
    return json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


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
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save(capture: Capture, path: str | Path) -> None:
    write_atomic(path, dumps(capture))


# ---- reading --------------------------------------------------------------------------

OUTPUT_KEYS = {
    "stream": {"text"},
    "error": {"ename", "evalue", "traceback", "expected"},
    "display_data": {"data"},
    "warning": {"category", "message", "filename", "lineno"},
}


def load(path: str | Path) -> Capture:
    """Read a captured-output file; a corrupt or foreign file raises GuideError."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise GuideError(str(path), None, f"cannot read captured output ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise GuideError(str(path), None, "captured output is not UTF-8", "recapture it") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GuideError(str(path), exc.lineno, f"captured output is corrupt JSON ({exc.msg})",
                         "restore it with git checkout, or recapture it") from None
    return _from_doc(doc, str(path))


def _from_doc(doc, path: str) -> Capture:
    remedy = "restore it with git checkout, or recapture it"
    if not isinstance(doc, dict):
        raise GuideError(path, 1, "captured output is not a JSON object", remedy)
    if doc.get("format") != FORMAT:
        raise GuideError(
            path, None, f"captured output has format {doc.get('format')!r}; this tooling reads {FORMAT!r}",
            "recapture it with the tooling of this checkout",
        )
    try:
        cells = []
        for c in doc["cells"]:
            outputs = []
            for o in c["outputs"]:
                kind = o["output_type"]
                missing = OUTPUT_KEYS[kind] - o.keys()
                if missing:
                    raise KeyError(", ".join(sorted(missing)))
                outputs.append(_decode(o))
            cells.append(CellRecord(str(c["name"]), tuple(outputs), float(c["wall_time_s"])))
        env = doc["environment"]
        if not isinstance(env, dict):
            raise TypeError("environment")
        return Capture(str(doc["snippet"]), str(doc["source_sha256"]), env, str(doc["captured_at"]), tuple(cells))
    except (KeyError, TypeError, ValueError) as exc:
        raise GuideError(path, None, f"captured output is corrupt (bad or missing field: {exc})", remedy) from None
