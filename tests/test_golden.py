"""The output version holds: what the real runner stores for fixture snippets, against goldens.

Freshness does not hash the capture tooling's source (a comment or a move would stale every
output of the guide); the tooling declares an output version instead
(``freshness.OUTPUT_VERSION``). These tests keep that declaration honest: they capture the
fixture snippets in ``tests/golden/snippets/`` with the real runner, on the CPU, and compare
what is stored with ``tests/golden/outputs/``. A change to what the runner stores fails here
until the version is bumped and the goldens are written again:

    TCGUIDE_WRITE_GOLDEN=1 .venv/bin/python -m pytest tests/test_golden.py

which refuses to overwrite goldens of the version they were written for.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tcguide.capture import driver as capture
from tcguide.core import freshness, store

HERE = Path(__file__).resolve().parent / "golden"
FIXTURES = sorted((HERE / "snippets").glob("*.py"))
CPU = {"python": "3.x", "torch": "", "torchvision": "", "triton": "", "cuda": "", "gpu": "",
       "gpu_count": 0, "driver": "", "tooling": "test"}
WRITE = os.environ.get("TCGUIDE_WRITE_GOLDEN") == "1"


def _stored(doc: dict) -> dict:
    """What the runner decided, without when, where and how long it ran (and without figure bytes,
    which are matplotlib's, not ours: a figure keeps its format and its description)."""
    def output(o: dict) -> dict:
        if "data" in o:
            o = dict(o, data={k: (v if k == "text/plain" else f"<{k}>") for k, v in o["data"].items()})
        return o

    return {
        "format": doc["format"],
        "tooling": doc["inputs"]["tooling"],
        "cells": [{"name": c["name"], "outputs": [output(o) for o in c["outputs"]],
                   **({"glue": c["glue"]} if "glue" in c else {})} for c in doc["cells"]],
    }


@pytest.fixture(scope="module")
def captured(tmp_path_factory) -> dict[str, dict]:
    root = tmp_path_factory.mktemp("golden") / "project"
    (root / "snippets").mkdir(parents=True)
    for fixture in FIXTURES:
        shutil.copy(fixture, root / "snippets" / fixture.name)
    scratch = root.parent / "scratch"
    scratch.mkdir()
    old = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(scratch)
    try:
        capture.capture([str(root / "snippets")], root, machine_env=CPU)
    finally:
        os.environ.pop("TMPDIR") if old is None else os.environ.__setitem__("TMPDIR", old)
    found = {}
    for fixture in FIXTURES:
        path = store.output_path(root / "snippets" / fixture.name)
        found[fixture.stem] = _stored(json.loads(path.read_text(encoding="utf-8")))
    return found


def _golden(stem: str) -> Path:
    return HERE / "outputs" / f"{stem}.json"


@pytest.mark.parametrize("fixture", [f.stem for f in FIXTURES])
def test_the_runner_stores_what_its_output_version_says(fixture, captured):
    now = captured[fixture]
    path = _golden(fixture)
    written = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
    if WRITE:
        if written and written["output_version"] == freshness.OUTPUT_VERSION and written["stored"] != now:
            pytest.fail(f"{path.name}: refusing to overwrite the golden of output version "
                        f"{freshness.OUTPUT_VERSION} with something else: bump OUTPUT_VERSION in "
                        "tcguide/core/freshness.py first")
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps({"output_version": freshness.OUTPUT_VERSION, "stored": now},
                                   indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
        return
    assert written is not None, f"no golden for {fixture}: write it with TCGUIDE_WRITE_GOLDEN=1"
    assert written["output_version"] == freshness.OUTPUT_VERSION, (
        f"{path.name} was written for output version {written['output_version']}, the tooling declares "
        f"{freshness.OUTPUT_VERSION}: write the goldens again with TCGUIDE_WRITE_GOLDEN=1")
    assert now == written["stored"], (
        f"what the runner stores for tests/golden/snippets/{fixture}.py changed, but the output version "
        f"is still {freshness.OUTPUT_VERSION}: bump OUTPUT_VERSION in tcguide/core/freshness.py (every "
        "stored output of the guide then needs a recapture), then write the goldens again")


def test_every_fixture_records_the_declared_version(captured):
    assert {c["tooling"] for c in captured.values()} == {freshness.tooling_mark()}
