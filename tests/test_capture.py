"""The capture engine on small synthetic snippets (no torch, no GPU)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tcguide.core import store
from tcguide.capture.driver import Job, Scheduler
from tcguide.core.errors import GuideError
from tcguide.capture.shards import Planned, assign, shard
from tcguide.core.snippet import Requirements, SnippetFile
from tests.helpers import CPU_ONLY

ROOT = Path(__file__).resolve().parent.parent


def outputs_of(project, name):
    return {c.name: c for c in store.load(project.output(name)).cells}


def test_streams_are_interleaved_in_order(project):
    project.snippet("streams.py", """
        # %% talk
        import os, subprocess, sys
        print("one")
        print("two", file=sys.stderr)
        os.write(1, b"three\\n")
        os.write(2, b"four\\n")
        subprocess.run([sys.executable, "-c", "print('five')"])
        print("six")
        """)
    assert project.capture("streams.py") == 0
    (stream,) = outputs_of(project, "streams.py")["talk"].outputs
    assert stream == {"output_type": "stream", "name": "stdout", "text": "one\ntwo\nthree\nfour\nfive\nsix\n"}


def test_warnings_declared_exceptions_and_wall_time(project):
    project.snippet("cells.py", """
        # %% warn
        import time, warnings
        warnings.warn("mind the gap", UserWarning)
        time.sleep(0.2)

        # %% fails raises="ZeroDivisionError"
        print("before")
        1 / 0

        # %% later
        print("still runs")
        """)
    assert project.capture("cells.py") == 0
    cells = outputs_of(project, "cells.py")
    (warning,) = cells["warn"].outputs
    assert warning["category"] == "UserWarning" and warning["message"] == "mind the gap"
    assert warning["filename"] == "snippets/cells.py" and warning["lineno"] == 3
    assert cells["warn"].wall_time_s >= 0.2
    stream, error = cells["fails"].outputs
    assert stream["text"] == "before\n"
    assert error["ename"] == "ZeroDivisionError" and error["expected"] is True
    assert 'File "snippets/cells.py", line 8, in <module>' in error["traceback"]
    assert "tcguide" not in error["traceback"]  # the runner's own frames are dropped
    assert cells["later"].outputs[0]["text"] == "still runs\n"


def test_dotted_and_base_class_names_match_declared_exceptions(project):
    project.snippet("names.py", """
        # %% dotted raises="json.decoder.JSONDecodeError"
        import json
        json.loads("{")

        # %% base raises="ValueError"
        json.loads("{")
        """)
    assert project.capture("names.py") == 0


def _good_then(project, name, good, bad, capsys):
    """Capture a good version, break it, recapture everything: (exit status, report, old bytes, new bytes)."""
    project.snippet(name, good)
    assert project.capture(name) == 0
    before = project.output(name).read_bytes()
    project.snippet(name, bad)
    capsys.readouterr()
    status = project.capture()
    return status, capsys.readouterr().out, before, project.output(name).read_bytes()


def test_undeclared_exception_fails_and_keeps_last_good_output(project, capsys):
    project.snippet("other.py", "# %% fine\nprint('fine')\n")
    status, report, before, after = _good_then(
        project, "a.py", "# %% cell\nprint('ok')\n", "# %% first\nprint(1)\n\n# %% cell\nx = {}['missing']\n", capsys)
    assert status == 1
    assert "FAIL  snippets/a.py:4: cell 'cell' raised KeyError: 'missing'" in report
    assert "declare the exception" in report
    assert before == after
    assert project.output("other.py").exists()  # the rest of the run is captured


def test_declared_exception_that_does_not_happen_fails(project, capsys):
    status, report, before, after = _good_then(
        project, "a.py", "# %% cell\nprint('ok')\n", '# %% cell raises="KeyError"\nprint("no")\n', capsys)
    assert status == 1
    assert "snippets/a.py:1: cell 'cell': declared raises=KeyError but the cell finished without raising" in report
    assert before == after


def test_timeout_stops_a_hung_file_and_keeps_output(project, capsys):
    hung = "# /// capture\n# timeout = 2\n# ///\n# %% setup\nx = 1\n# %% hang\nimport time\nprint('waiting')\ntime.sleep(60)\n"
    started = time.monotonic()
    status, report, before, after = _good_then(project, "slow.py", "# %% setup\nx = 1\n", hung, capsys)
    assert time.monotonic() - started < 30
    assert status == 1
    assert "snippets/slow.py:6: cell 'hang' still running after the file's timeout of 2 s" in report
    assert "| waiting" in report  # the cell's last output is shown
    assert before == after


@pytest.mark.parametrize("crash, words", [
    ("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)", "crashed (killed by SIGSEGV)"),
    ("import os\nos._exit(3)", "exited with status 3"),
])
def test_crash_is_reported_and_keeps_output(project, capsys, crash, words):
    status, report, before, after = _good_then(
        project, "c.py", "# %% cell\nprint(1)\n", f"# %% cell\nprint('about to go')\n{crash}\n", capsys)
    assert status == 1
    assert f"snippets/c.py:1: cell 'cell' {words}" in report
    assert "| about to go" in report
    assert before == after


def test_interrupt_exits_130_and_keeps_output(project):
    project.snippet("s.py", "# %% cell\nprint(1)\n")
    assert project.capture("s.py") == 0
    before = project.output("s.py").read_bytes()
    started = project.root / "started"  # the cell creates it once it is running
    project.snippet("s.py", f"# %% cell\nimport pathlib, time\npathlib.Path({str(started)!r}).touch()\ntime.sleep(60)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "tcguide", "capture", "--force", "snippets/s.py"],
                            cwd=project.root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 50
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    if not started.exists():
        proc.kill()
        pytest.fail(f"the cell never started: {proc.communicate()[0]}")
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, out
    assert "snippets/s.py:1: interrupted in cell 'cell' of snippets/s.py; its last good output is kept" in out
    assert "before any snippet file started" not in out
    assert project.output("s.py").read_bytes() == before


def test_write_atomic_never_leaves_a_partial_file(tmp_path, monkeypatch):
    target = tmp_path / "x.out.json"
    target.write_text("old")

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        store.write_atomic(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["x.out.json"]


def test_output_is_normalised(project):
    project.snippet("paths.py", """
        # %% paths
        import json, os, tempfile
        print(tempfile.gettempdir() + "/scratch")
        print(os.path.expanduser("~") + "/.cache")
        print(os.getcwd() + "/snippets/paths.py")
        print(json.__file__)
        print(object())
        """)
    assert project.capture("paths.py") == 0
    text = outputs_of(project, "paths.py")["paths"].outputs[0]["text"].splitlines()
    assert text[0] in ("<tmp>/scratch", "<work>/scratch")
    assert text[1] == "~/.cache"
    assert text[2] == "snippets/paths.py"
    assert text[3] == "<python>/json/__init__.py"
    assert text[4] == "<object object at 0x…>"


def test_seeds_make_random_output_reproducible(project):
    project.snippet("r.py", "# %% draw\nimport random\nprint(random.random())\n")
    assert project.capture("r.py") == 0
    first = outputs_of(project, "r.py")["draw"].outputs
    assert project.capture("r.py", force=True) == 0
    assert outputs_of(project, "r.py")["draw"].outputs == first


def test_incremental_skip_force_and_environment_change(project, capsys):
    project.snippet("a.py", "# %% cell\nprint(1)\n")
    assert project.capture("a.py") == 0
    stamp = project.output("a.py").stat().st_mtime_ns
    capsys.readouterr()
    assert project.capture("a.py") == 0
    assert "skip  snippets/a.py  unchanged since its capture" in capsys.readouterr().out
    assert project.output("a.py").stat().st_mtime_ns == stamp
    project.snippet("a.py", "# %% cell\nprint(2)\n")  # one character changed
    assert project.capture("a.py") == 0
    assert "ok    snippets/a.py" in capsys.readouterr().out
    assert project.capture("a.py", env=dict(CPU_ONLY, torch="9.9")) == 0
    assert "ok    snippets/a.py" in capsys.readouterr().out
    assert project.capture("a.py", env=dict(CPU_ONLY, torch="9.9"), force=True) == 0
    assert "ok    snippets/a.py" in capsys.readouterr().out


def test_gpu_file_on_a_cpu_machine(project, capsys):
    project.snippet("g.py", "# /// capture\n# gpus = 1\n# ///\n# %% cell\nprint(1)\n")
    assert project.capture("g.py") == 1
    assert "needs 1 GPU(s), this machine has 0" in capsys.readouterr().out
    assert not project.output("g.py").exists()


def test_broken_snippet_is_an_error_naming_file_and_line(project, capsys):
    project.snippet("bad.py", "# %% a\nx = 1\n# %% a\n")
    project.snippet("good.py", "# %% a\nprint(1)\n")
    assert project.capture() == 1
    out = capsys.readouterr().out
    assert "ERROR snippets/bad.py:3: duplicate cell name 'a'" in out
    assert project.output("good.py").exists()


def test_figures_are_captured_as_reproducible_svg(project):
    pytest.importorskip("matplotlib")
    project.snippet("fig.py", """
        # %% plot
        import matplotlib.pyplot as plt
        plt.plot([1, 2, 3], [1, 4, 9])
        """)
    assert project.capture("fig.py") == 0
    (figure,) = outputs_of(project, "fig.py")["plot"].outputs
    svg = figure["data"]["image/svg+xml"]
    assert svg.lstrip().startswith("<?xml") and "</svg>" in svg
    assert project.capture("fig.py", force=True) == 0
    assert outputs_of(project, "fig.py")["plot"].outputs[0]["data"]["image/svg+xml"] == svg


def _job(gpus=0, exclusive=False, ids=()):
    sf = SnippetFile("x.py", "", Requirements(gpus=gpus, exclusive=exclusive))
    return Job(sf, {}, Path("w"), Path("."), gpu_ids=ids)


def test_scheduler_shares_gpus_but_not_exclusive_ones():
    one = Scheduler(gpu_count=1, max_jobs=4)
    assert one.place(_job(1), []) == (0,)
    assert one.place(_job(1), [_job(1, ids=(0,))]) == (0,)
    assert one.place(_job(1, exclusive=True), [_job(1, ids=(0,))]) is None
    assert one.place(_job(1), [_job(1, exclusive=True, ids=(0,))]) is None
    two = Scheduler(gpu_count=2, max_jobs=4)
    assert two.place(_job(1, exclusive=True), [_job(1, ids=(0,))]) == (1,)
    assert two.place(_job(2, exclusive=True), [_job(1, ids=(0,))]) is None
    assert two.place(_job(1), [_job(1, ids=(0,))]) == (1,)
    assert Scheduler(gpu_count=1, max_jobs=1).place(_job(1), [_job(1, ids=(0,))]) is None
    cpu = Scheduler(gpu_count=0, max_jobs=2)
    assert cpu.place(_job(), [_job()]) == ()
    assert cpu.place(_job(exclusive=True), [_job()]) is None


def test_shards_are_balanced_by_recorded_time_with_exclusive_files_spread():
    times = {"a": 300, "b": 200, "c": 120, "d": 100, "e": 90, "f": 30, "g": 20, "h": 10}
    files = [Planned(f"{n}.py", t, exclusive=n in "ab", recorded=True) for n, t in times.items()]
    shards = assign(files, 2)
    assert {f.path for f in shards[0]} | {f.path for f in shards[1]} == {f.path for f in files}
    assert [sum(f.exclusive for f in s) for s in shards] == [1, 1]  # the two exclusive files apart
    loads = sorted(sum(f.seconds for f in s) for s in shards)
    assert loads[1] <= 1.25 * loads[0], loads
    assert shard(files, "1/2") == shards[0] and shard(files, None) == files
    with pytest.raises(GuideError, match="bad shard '3/2'"):
        shard(files, "3/2")


def test_stack_dumps_leave_out_the_runners_frames(project):
    project.snippet("stack.py", """
        # %% dump
        import traceback

        def inner():
            traceback.print_stack()

        inner()
        """)
    assert project.capture("stack.py") == 0
    text = outputs_of(project, "stack.py")["dump"].outputs[0]["text"]
    assert "runpy" not in text and "tcguide" not in text
    assert text.startswith('  File "snippets/stack.py", line 7, in <module>\n    inner()\n')
    assert 'File "snippets/stack.py", line 5, in inner' in text


def test_stack_dumps_in_log_records_leave_out_the_runners_frames(project):
    """torch's log formatter puts its prefix before every line of a stack dump (Dynamo's graph breaks)."""
    project.snippet("logged.py", """
        # %% dump
        import traceback

        def inner():
            for line in "".join(traceback.format_stack()).splitlines():
                print("V1122 12:03:50 443 x.py:1] [0/0] " + line)

        inner()
        """)
    assert project.capture("logged.py") == 0
    text = outputs_of(project, "logged.py")["dump"].outputs[0]["text"]
    assert text.replace("V1122 12:03:50 443 x.py:1] [0/0] ", "").splitlines() == [
        '  File "snippets/logged.py", line 8, in <module>',
        "    inner()",
        '  File "snippets/logged.py", line 5, in inner',
        '    for line in "".join(traceback.format_stack()).splitlines():',
    ]


def test_capture_side_needs_neither_mkdocs_nor_yaml():
    """The GPU machine has no MkDocs: every module of the core and the capture folder imports
    without it (tests/test_layout.py checks the same from the source), and so does the CLI."""
    code = ("import importlib, pkgutil, sys; sys.modules['mkdocs'] = None; sys.modules['yaml'] = None\n"
            "import tcguide.capture, tcguide.core, tcguide.cli\n"
            "for package in (tcguide.core, tcguide.capture):\n"
            "    for found in pkgutil.iter_modules(package.__path__, package.__name__ + '.'):\n"
            "        importlib.import_module(found.name)\n"
            "tcguide.cli.main(['capture', '--help'])")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "usage: python3 -m tcguide capture" in result.stdout


def test_merge_takes_each_output_from_one_runner_and_checks_it(project, tmp_path, capsys):
    from tcguide.capture.merge import merge

    project.snippet("a.py", "# %% c\nprint('a')\n")
    project.snippet("sub/b.py", "# %% c\nprint('b')\n")
    assert project.capture() == 0
    artifacts = tmp_path / "artifacts"
    for runner, name in (("outputs-h100-1", "a"), ("outputs-h100-2", "sub/b")):
        target = artifacts / runner / "snippets" / f"{name}.out.json"
        target.parent.mkdir(parents=True)
        target.write_bytes(project.output(f"{name}.py").read_bytes())
        project.output(f"{name}.py").unlink()
    capsys.readouterr()
    assert merge(artifacts, project.root) == 0
    assert store.load(project.output("a.py")).snippet == "snippets/a.py"
    assert store.load(project.output("sub/b.py")).snippet == "snippets/sub/b.py"
    # the same file from two runners, or an output edited on the way, and nothing is merged
    twice = artifacts / "outputs-h100-3" / "snippets" / "a.out.json"
    twice.parent.mkdir(parents=True)
    twice.write_bytes(project.output("a.py").read_bytes())
    edited = artifacts / "outputs-h100-2" / "snippets" / "sub" / "b.out.json"
    edited.write_text(edited.read_text().replace('"b\\n"', '"B\\n"'))
    project.output("a.py").unlink()
    capsys.readouterr()
    assert merge(artifacts, project.root) == 1
    out = capsys.readouterr().out
    assert "ERROR outputs-h100-3/snippets/a.out.json: also came from outputs-h100-1" in out
    assert "ERROR outputs-h100-2/snippets/sub/b.out.json:" in out and "edited by hand" in out
    assert "nothing merged" in out and not project.output("a.py").exists()
