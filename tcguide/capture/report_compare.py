"""The recapture report's comparison: glued values flattened to numbers, timings, counts and text,
and what moved between two sides, per file and cell (warnings, errors, counts). Stdlib only."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

from tcguide.capture.report_sides import Side
from tcguide.core import store
from tcguide.core.output_format import from_lines

MOVE = 0.15  # a number moved when it changed by more than this fraction of its earlier value
COUNT_WORDS = ("graph", "recompile", "break")  # a glued key naming one of these holds a count to compare exactly
TIMING_KEYS = ("ms", "p10", "p90")
NUMBER = re.compile(r"\d+(?:\.\d+)?")


# ---- glued values, flattened ---------------------------------------------------------------------

@dataclass
class Values:
    """A file's glued values, flattened to paths such as ``result.eager.ms``."""
    numbers: dict[str, float] = field(default_factory=dict)  # every numeric leaf (the M of "N of M")
    loose: dict[str, float] = field(default_factory=dict)  # numbers judged on their own (the 15 % rule)
    timings: dict[str, tuple[float, float, float]] = field(default_factory=dict)  # summary -> (ms, p10, p90)
    counts: dict[str, object] = field(default_factory=dict)  # graph, recompile and break counts: exact
    texts: dict[str, object] = field(default_factory=dict)  # text, true/false and null
    cell_of: dict[str, str] = field(default_factory=dict)  # path -> the cell that glued it


def is_number(v) -> bool:
    return type(v) in (int, float)


def _is_count(path: str) -> bool:
    return any(word in part.lower() for part in re.split(r"[.:]", path) for word in COUNT_WORDS)


def flatten(capture: store.Capture) -> Values:
    values = Values()

    def walk(value, path: str, cell: str, in_timing: bool = False) -> None:
        values.cell_of[path] = cell
        if isinstance(value, dict):
            timing = all(is_number(value.get(k)) for k in TIMING_KEYS)
            if timing:
                values.timings[path] = tuple(float(value[k]) for k in TIMING_KEYS)
            for key, inner in value.items():
                walk(inner, f"{path}.{key}", cell, timing and key in TIMING_KEYS)
        elif isinstance(value, list) and _is_count(path) and not any(isinstance(v, (dict, list)) for v in value):
            values.counts[path] = value  # a list of counts or of reasons, compared as one
            for i, inner in enumerate(value):
                if is_number(inner):
                    values.numbers[f"{path}.{i}"] = inner
        elif isinstance(value, list):
            for i, inner in enumerate(value):
                walk(inner, f"{path}.{i}", cell)
        elif is_number(value):
            values.numbers[path] = value
            if _is_count(path) and isinstance(value, int):
                values.counts[path] = value
            elif not in_timing:
                values.loose[path] = value
        elif _is_count(path):
            values.counts[path] = value
        else:
            values.texts[path] = value

    for cell in capture.cells:
        for name, value in cell.glue.items():
            walk(value, name, cell.name)
    return values


def relative(old: float, new: float) -> float:
    if old == new:
        return 0.0
    return (new - old) / abs(old) if old else math.copysign(math.inf, new - old)


def moved(old: float, new: float) -> bool:
    return abs(relative(old, new)) > MOVE


# ---- the comparison ------------------------------------------------------------------------------

@dataclass
class Comparison:
    before: Side
    after: Side
    compared_numbers: int = 0
    moved_numbers: int = 0
    timings: list[tuple] = field(default_factory=list)  # (file, path, old, new, which)
    medians_left: int = 0  # new median outside the earlier p10-p90
    ranges_left: int = 0  # only the earlier median outside the new p10-p90
    numbers: list[tuple] = field(default_factory=list)  # (file, path, old, new)
    texts: list[tuple] = field(default_factory=list)  # (file, path, old, new)
    added_values: list[str] = field(default_factory=list)
    removed_values: list[str] = field(default_factory=list)
    events: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (file, cell) -> lines
    cells_added: list[str] = field(default_factory=list)
    cells_removed: list[str] = field(default_factory=list)
    recaptured: int = 0


def compare(before: Side, after: Side) -> Comparison:
    result = Comparison(before, after)
    for name in sorted(before.captures.keys() & after.captures.keys()):
        old, new = before.captures[name], after.captures[name]
        result.recaptured += old.captured_at != new.captured_at or old.cells != new.cells
        _compare_values(result, name, flatten(old), flatten(new))
        _compare_cells(result, name, old, new)
    return result


def _compare_values(result: Comparison, name: str, old: Values, new: Values) -> None:
    for path in old.numbers.keys() & new.numbers.keys():
        result.compared_numbers += 1
        result.moved_numbers += moved(old.numbers[path], new.numbers[path])
    for path in sorted(old.timings.keys() & new.timings.keys()):
        (m0, lo0, hi0), (m1, lo1, hi1) = old.timings[path], new.timings[path]
        which = []
        if not lo0 <= m1 <= hi0:
            which.append(f"new median {'above' if m1 > hi0 else 'below'} the earlier range")
            result.medians_left += 1
        if not lo1 <= m0 <= hi1:
            which.append(f"earlier median {'above' if m0 > hi1 else 'below'} the new range")
            result.ranges_left += len(which) == 1
        if which:
            result.timings.append((name, path, old.timings[path], new.timings[path], "; ".join(which)))
    for path in sorted(old.loose.keys() & new.loose.keys()):
        if moved(old.loose[path], new.loose[path]):
            result.numbers.append((name, path, old.loose[path], new.loose[path]))
    for path in sorted(old.texts.keys() & new.texts.keys()):
        if old.texts[path] != new.texts[path]:
            result.texts.append((name, path, old.texts[path], new.texts[path]))
    leaves = lambda v: v.numbers.keys() | v.texts.keys() | v.counts.keys()  # noqa: E731
    result.added_values += [f"{name}:{p}" for p in sorted(leaves(new) - leaves(old))]
    result.removed_values += [f"{name}:{p}" for p in sorted(leaves(old) - leaves(new))]
    for path in sorted(old.counts.keys() | new.counts.keys()):
        was, now = old.counts.get(path, _ABSENT), new.counts.get(path, _ABSENT)
        if was == now:
            continue
        cell = new.cell_of.get(path) or old.cell_of[path]
        what = (f"`{name}:{path}` appeared: {as_value(now)}" if was is _ABSENT else
                f"`{name}:{path}` disappeared (was {as_value(was)})" if now is _ABSENT else
                f"`{name}:{path}` changed: {as_value(was)} → {as_value(now)}")
        result.events.setdefault((name, cell), []).append(what)


_ABSENT = object()


def mask(message: str) -> str:
    """A warning's message with its numbers masked, so a count or a size that differs is no new warning."""
    return NUMBER.sub("N", " ".join(message.split()))


def _cell_events(record: store.CellRecord | None) -> tuple[dict[tuple[str, str], str], Counter]:
    warnings, errors = {}, Counter()
    for output in record.outputs if record else ():
        if output["output_type"] == "warning":
            message = from_lines(output["message"])
            warnings.setdefault((output["category"], mask(message)), message)
        elif output["output_type"] == "error":
            errors[output["ename"] + ("" if output.get("expected") else " (undeclared)")] += 1
    return warnings, errors


def _compare_cells(result: Comparison, name: str, old: store.Capture, new: store.Capture) -> None:
    old_names, new_names = [c.name for c in old.cells], [c.name for c in new.cells]
    result.cells_added += [f"{name}#{c}" for c in new_names if c not in old_names]
    result.cells_removed += [f"{name}#{c}" for c in old_names if c not in new_names]
    for cell in [*old_names, *(c for c in new_names if c not in old_names)]:
        (w0, e0), (w1, e1) = _cell_events(old.cell(cell)), _cell_events(new.cell(cell))
        lines = [f"warning appeared: {_warning(key, w1[key])}" for key in w1 if key not in w0]
        lines += [f"warning disappeared: {_warning(key, w0[key])}" for key in w0 if key not in w1]
        lines += [f"error appeared: {code_span(e)}" for e in sorted(e1.keys() - e0.keys())]
        lines += [f"error disappeared: {code_span(e)}" for e in sorted(e0.keys() - e1.keys())]
        if lines:
            result.events.setdefault((name, cell), [])[:0] = lines


# ---- how a value is quoted in the report's lines ----------------------------------------------

def code_span(text: str, limit: int = 200) -> str:
    """Text as a Markdown code span, shortened, whatever backticks it holds."""
    text = " ".join(str(text).split())
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _warning(key: tuple[str, str], message: str) -> str:
    return code_span(f"{key[0]}: {message}")


def as_number(v) -> str:
    if isinstance(v, bool) or not is_number(v):
        return str(v)
    if isinstance(v, int):
        return str(v)
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.3g}"


def as_value(v) -> str:
    return code_span(v if isinstance(v, str) else str(v).replace("'", '"') if isinstance(v, list) else as_number(v))
