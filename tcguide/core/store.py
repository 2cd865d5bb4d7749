"""Captured outputs: one JSON file per snippet file, beside it (``x.py`` -> ``x.out.json``).

The shape follows nbformat's outputs (``stream``, ``error`` with ``ename``/``evalue``/
``traceback``, ``display_data``) so that notebook export is a mapping, plus a
``warning`` output. Multi-line text is stored as a list of lines, keys are sorted
and indentation is fixed, so a recapture diffs line by line.

Every file is validated as a whole when read (``load``, against ``output_format``): a field of the wrong type, a
NaN time, a figure that is neither SVG nor PNG is a ``GuideError`` naming the file and
the line. Each file carries a digest of the rest of it, written by the capture; an
output or provenance edited by hand no longer matches it. (A digest catches edits,
not a forger who recomputes it.)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tcguide.core.errors import GuideError
from tcguide.core.output_format import FORMAT, Invalid, check, from_lines, line_of, to_lines

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
            str(path), line_of(text, ("format",)),
            f"captured output has format {doc.get('format')!r}; this tooling reads {FORMAT!r}",
            "recapture it with the tooling of this checkout",
        )
    try:
        check(doc)
        if doc["digest"] != digest(doc):
            raise Invalid(("digest",), "edited by hand — recapture: its content no longer matches the digest the "
                                       "capture wrote")
    except Invalid as bad:
        if bad.where == ("digest",):
            raise GuideError(shown, line_of(text, bad.where), bad.problem, REMEDY) from None
        field_name = ".".join(str(step) for step in bad.where) or "the document"
        raise GuideError(shown, line_of(text, bad.where), f"captured output is invalid: {field_name} {bad.problem}",
                         REMEDY) from None
    cells = tuple(CellRecord(c["name"], tuple(_decode(o) for o in c["outputs"]), float(c["wall_time_s"]),
                             c.get("glue", {}))
                  for c in doc["cells"])
    return Capture(doc["snippet"], doc["inputs"], doc["environment"], doc["captured_at"], cells, doc["packages"])
