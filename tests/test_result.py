"""The runner → driver result: one module writes and reads it."""

import json

from tcguide.capture.result import (COMPLETE, EXCEPTION, OTHER_REMEDY, CellResult, Current, Failure, Leftover,
                                    RunResult)


def test_a_result_reads_back_as_it_was_written(tmp_path):
    written = RunResult("snippets/a.py", COMPLETE, None,
                        [CellResult("c", [{"output_type": "stream", "name": "stdout", "text": "hi\n"}], 0.5, {"x": 1}),
                         CellResult("d", [], 0.1)],
                        Failure(EXCEPTION, "d", 7, "ValueError: no", "Traceback ..."),
                        [Leftover("c", "thread 'w'")], {"torch": "2.11.0"})
    written.write(tmp_path / "result.json")
    assert RunResult.read(tmp_path / "result.json") == written
    assert "glue" not in json.loads(written.to_json())["cells"][1]  # a cell that glues nothing stores no glue


def test_a_failure_of_a_kind_the_driver_does_not_know_reads_with_a_general_remedy(tmp_path):
    doc = {"snippet": "snippets/a.py", "status": "failed", "current": {"name": "c", "line": 3, "log": "x.log"},
           "cells": [], "failure": {"kind": "out-of-memory", "cell": "c", "line": 3, "message": "too big"}}
    (tmp_path / "result.json").write_text(json.dumps(doc))
    result = RunResult.read(tmp_path / "result.json")
    assert result.failure == Failure("out-of-memory", "c", 3, "too big")
    assert result.failure.remedy == OTHER_REMEDY
    assert result.current == Current("c", 3, "x.log") and not result.complete


def test_a_result_cut_short_or_missing_reads_as_none(tmp_path):
    (tmp_path / "result.json").write_text('{"snippet": "snippets/a.py", "cells": [{"na')
    assert RunResult.read(tmp_path / "result.json") is None
    assert RunResult.read(tmp_path / "none.json") is None

