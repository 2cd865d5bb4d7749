"""The stored document's format, field by field: what each field of a captured-output file must
hold (``check``, which raises ``Invalid`` at the first field that is off, naming where it is), its
multi-line text stored as lists of lines, and the line of the file a field sits on (``line_of``),
for messages that name it. ``store`` writes and reads the files; this is what it reads them against.
"""

from __future__ import annotations

import base64
import math
import re
from json.decoder import JSONDecoder, scanstring

FORMAT = "tcguide-capture/2"


def to_lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def from_lines(value) -> str:
    return "".join(value) if isinstance(value, list) else value


# ---- what each field holds -------------------------------------------------------------

CELL_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


class Invalid(Exception):
    """A field that does not fit the format: where it is (a path into the document) and why."""

    def __init__(self, where: tuple, problem: str):
        self.where, self.problem = where, problem


def _text(value) -> bool:
    return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))


def _expect(ok: bool, where: tuple, problem: str) -> None:
    if not ok:
        raise Invalid(where, problem)


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
                raise Invalid(where + ("data", mime), "is not a base64 PNG image") from None


def check(doc) -> None:
    """The whole document against the format; raises Invalid at the first field that is off."""
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


def line_of(text: str, where: tuple) -> int | None:
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
