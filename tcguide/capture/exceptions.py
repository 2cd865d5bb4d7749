"""An exception a cell raised: whether it is the one the cell declares (``raises=``), and the
error output that records it (nbformat's ``error``: name, message and the snippet's traceback,
without the runner's own frames)."""

from __future__ import annotations

import traceback

from tcguide.capture.tidy import Tidy


def matches(exc: BaseException, expected: str) -> bool:
    """The exception is (a subclass of) the declared Exception subclass."""
    for cls in type(exc).__mro__:
        if not issubclass(cls, Exception):
            return False  # SystemExit, KeyboardInterrupt and BaseException itself never count
        if expected in (cls.__name__, cls.__qualname__, f"{cls.__module__}.{cls.__qualname__}"):
            return True
    return False


def format_exception(exc: BaseException, snippet_path: str, tidy: Tidy) -> dict:
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != snippet_path:
        tb = tb.tb_next  # drop the runner's own frames
    lines = traceback.format_exception(type(exc), exc, tb)
    return {"output_type": "error", "ename": type(exc).__name__,
            "evalue": tidy(str(exc)), "traceback": tidy("".join(lines))}
