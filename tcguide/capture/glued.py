"""What a cell glues: the values of the variables it names (``glue=``), as plain JSON data a page
can quote, or what is wrong with one (a name the cell did not set, a value that is not plain data,
or one too big to quote)."""

from __future__ import annotations

import json

from tcguide.core import snippet as snippets

GLUE_BYTES = 64 * 1024  # of one glued value, as JSON


def plain(value, where: str, normalize):
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
        return [plain(v, f"{where}[{i}]", normalize) for i, v in enumerate(value)]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise ValueError(f"{where} has a key that is not text")
        return {k: plain(v, f"{where}.{k}", normalize) for k, v in value.items()}
    item = getattr(value, "item", None)  # numpy scalars, one-element tensors and arrays
    if callable(item) and getattr(value, "ndim", 0) == 0:
        return plain(item(), where, normalize)
    raise ValueError(f"{where} is a {type(value).__name__}; glue numbers, text, or lists and dicts of them")


def values(cell: snippets.Cell, namespace: dict, normalize) -> tuple[dict, str | None]:
    """The values of the variables the cell glues, and what is wrong (a name it did not set, a value
    that is not plain data, or too big to quote)."""
    values = {}
    for name in cell.glue:
        if name not in namespace:
            return values, f"cell declares glue={','.join(cell.glue)} but sets no variable '{name}'"
        try:
            values[name] = plain(namespace[name], name, normalize)
        except ValueError as exc:
            return values, f"glued {exc}"
        except RecursionError:
            return values, f"glued {name} nests too deeply"
        size = len(json.dumps(values[name], ensure_ascii=False))
        if size > GLUE_BYTES:
            return values, f"glued {name} is {size:,} bytes as JSON, over the cap of {GLUE_BYTES:,}"
    return values, None
