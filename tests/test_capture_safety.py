"""Capture treats snippet files as untrusted: isolated, leak-free, bounded, and nothing outlives its file.

Process tests poll for what they wait on (never a fixed sleep) and end what they started,
so they hold on a loaded 2-core machine.
"""

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tcguide.capture import outcome
from tcguide.core import store
from tests.helpers import ROOT, alive, pids_in, wait_for


def outputs_of(project, name):
    return {c.name: c for c in store.load(project.output(name)).cells}


def text_of(project, name, cell):
    return "".join(o.get("text", "") for o in outputs_of(project, name)[cell].outputs)


def driver(project, *args) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "tcguide", "capture", *args], cwd=project.root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def stop(proc: subprocess.Popen) -> None:
    proc.kill()
    proc.communicate()


# ---- isolation ------------------------------------------------------------------------

def test_a_file_runs_in_its_own_folder_from_a_copy_with_an_allow_listed_environment(project, monkeypatch):
    for name, value in {"GITHUB_TOKEN": "gh-secret", "AWS_SECRET_ACCESS_KEY": "aws-secret",
                        "TORCH_API_KEY": "torch-secret", "MY_PASSWORD": "pw", "TORCH_LOGS_OUT": "kept"}.items():
        monkeypatch.setenv(name, value)
    project.snippet("other.py", "# %% c\nprint(1)\n")
    project.snippet("env.py", f"""
        # %% look
        import os, sys
        checkout = {str(project.root)!r}
        print("secrets:", sorted(v for v in os.environ.values() if "secret" in v or v == "pw"))
        print("kept:", os.environ.get("TORCH_LOGS_OUT"))
        print("cwd in checkout:", os.path.realpath(os.getcwd()).startswith(checkout))
        print("file in checkout:", os.path.realpath(__file__).startswith(checkout))
        print("path in checkout:", any(p.startswith(checkout) for p in sys.path + [os.environ.get("PYTHONPATH", "")]))
        print("sibling copied:", os.path.exists(os.path.join(os.path.dirname(__file__), "other.py")))
        print("file:", __file__)
        print("home:", os.path.expanduser("~"), "tmp:", os.environ["TMPDIR"])
        """)
    assert project.capture("env.py") == 0
    assert text_of(project, "env.py", "look").splitlines() == [
        "secrets: []", "kept: kept", "cwd in checkout: False", "file in checkout: False",
        "path in checkout: False", "sibling copied: False", "file: snippets/env.py", "home: ~ tmp: <tmp>"]


def test_no_path_of_the_capturing_machine_reaches_an_output(project):
    """Each way a file can name a folder of the machine that captures comes out neutral: the
    account's own home (not HOME), the scratch folder's parent and the driver's temporary folder
    above it, the tooling's copy, the file's logs, the user site and the interpreter."""
    project.snippet("where.py", """
        # %% paths
        import os, pwd, site, sys, tempfile, tcguide
        from pathlib import Path
        print("account home:", pwd.getpwuid(os.getuid()).pw_dir)
        print("expanded:", os.path.expanduser("~" + pwd.getpwuid(os.getuid()).pw_name))
        print("scratch parent:", Path.cwd().parent)
        print("driver tmp:", Path.cwd().parent.parent)
        print("tooling:", Path(tcguide.__file__).parent)
        print("user base:", site.getuserbase())
        print("python:", sys.executable)
        print("cwd:", os.getcwd(), "tmp:", tempfile.gettempdir())
        print("cut:", (os.getcwd() + "/snippets/where.py")[-60:])  # as Dynamo's guard lines cut a path
        """)
    assert project.capture("where.py") == 0
    printed = text_of(project, "where.py", "paths")
    home = os.path.realpath(os.path.expanduser("~"))
    machine = {home, os.path.realpath(tempfile.gettempdir()), str(project.root), sys.prefix}
    assert not [p for p in machine if len(p) > 1 and p in printed], printed
    assert printed.splitlines()[:5] == [
        "account home: ~", "expanded: ~", "scratch parent: <work>", "driver tmp: <tmp>", "tooling: <tooling>/tcguide"]
    assert printed.splitlines()[5].startswith("user base: ~") or "<" in printed.splitlines()[5]
    assert printed.splitlines()[6:] == ["python: python3", "cwd: . tmp: <tmp>", "cut: snippets/where.py"]


def test_what_a_snippet_writes_stays_out_of_the_checkout(project, capsys):
    project.snippet("victim.py", "# %% c\nprint('victim')\n")
    assert project.capture("victim.py") == 0
    victim = project.output("victim.py").read_bytes()
    project.snippet("writer.py", """
        # %% write
        import os, pathlib
        here = pathlib.Path(__file__)
        here.with_name("victim.out.json").write_text("{}")
        here.with_name("new.py").write_text("# %% x\\nprint(1)\\n")
        pathlib.Path("in-the-working-folder.txt").write_text("x")
        print("wrote")
        """)
    before = sorted(p.relative_to(project.root) for p in project.root.rglob("*"))
    assert project.capture("writer.py") == 0
    after = sorted(p.relative_to(project.root) for p in project.root.rglob("*"))
    assert set(after) - set(before) == {Path("snippets/writer.out.json")}
    assert project.output("victim.py").read_bytes() == victim


def test_a_write_into_the_checkout_by_its_absolute_path_is_an_error(project, capsys):
    project.snippet("victim.py", "# %% c\nprint('victim')\n")
    assert project.capture("victim.py") == 0
    target = project.output("victim.py")
    project.snippet("forger.py", f"""
        # %% forge
        open({str(target)!r}, "w").write("forged")
        """)
    capsys.readouterr()
    assert project.capture("forger.py") == 1
    assert ("ERROR snippets/victim.out.json: changed while snippet files ran, not by the capture — a snippet wrote "
            "into the checkout") in capsys.readouterr().out


def test_paths_are_relative_to_the_project_root_from_any_folder_and_outside_files_are_refused(project, tmp_path):
    project.snippet("sub/a.py", "# %% c\nprint(1)\n")
    (project.root / "mkdocs.yml").write_text("site_name: t\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-m", "tcguide", "capture", "a.py"], cwd=project.root / "snippets" / "sub",
                         env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert store.load(project.output("sub/a.py")).snippet == "snippets/sub/a.py"
    outside = tmp_path / "elsewhere.py"
    outside.write_text("# %% c\nprint(1)\n")
    run = subprocess.run([sys.executable, "-m", "tcguide", "capture", str(outside)], cwd=project.root,
                         env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert f"ERROR {outside}: is outside the checkout" in run.stdout


def test_no_work_folder_is_left_behind_and_failed_files_keep_only_logs(project):
    scratch = Path(os.environ["TMPDIR"])
    project.snippet("ok.py", "# %% c\nprint(1)\n")
    assert project.capture("ok.py") == 0
    assert list(scratch.iterdir()) == []
    project.snippet("bad.py", "# %% c\nraise ValueError('no')\n")
    assert project.capture("bad.py") == 1
    (work,) = scratch.iterdir()
    assert [p.name for p in work.iterdir()] == ["snippets__bad.py"]  # its logs; no sandbox, no tooling copy
    assert {p.name for p in (work / "snippets__bad.py").iterdir()} >= {"runner.log", "result.json"}


# ---- nothing outlives its file -----------------------------------------------------------

LEAVES_EVERYTHING_RUNNING = """
    # %% detached
    import os, subprocess, sys, threading, time
    record = open({pids!r}, "a")
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True)
    print(child.pid, file=record, flush=True)

    # %% double-fork
    shell = subprocess.run(["sh", "-c", "sleep 300 >/dev/null 2>&1 & echo $!"], capture_output=True, text=True)
    print(shell.stdout.strip(), file=record, flush=True)

    # %% threads
    threading.Thread(target=time.sleep, args=(300,), name="sleepy-daemon", daemon=True).start()
    threading.Thread(target=time.sleep, args=(300,), name="sleepy-worker").start()

    # %% done
    print("done")
    """


def test_processes_and_threads_left_running_are_ended_and_reported_by_cell(project, tmp_path, capsys):
    pids = tmp_path / "pids"
    project.snippet("leaky.py", LEAVES_EVERYTHING_RUNNING.format(pids=str(pids)))
    started = time.monotonic()
    assert project.capture("leaky.py") == 0
    assert time.monotonic() - started < 120  # the non-daemon thread was not waited for
    report = capsys.readouterr().out
    assert "note  snippets/leaky.py: cell 'detached' left process" in report
    assert "note  snippets/leaky.py: cell 'double-fork' left process" in report
    assert "note  snippets/leaky.py: cell 'threads' left thread 'sleepy-worker' running" in report
    assert "note  snippets/leaky.py: cell 'threads' left thread 'sleepy-daemon' (daemon) running" in report
    assert text_of(project, "leaky.py", "done") == "done\n"
    assert len(pids_in(pids)) == 2
    wait_for(lambda: not any(alive(p) for p in pids_in(pids)), 30, "the detached processes to end")


STUCK = """
    # %% stuck
    import subprocess, sys, time
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True)
    with open({pids!r}, "w") as f:
        print(child.pid, file=f)
    {extra}
    time.sleep(300)
    """


@pytest.mark.capture
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_stops_every_file_says_where_and_ends_its_processes(project, tmp_path, signum):
    pids = tmp_path / "pids"
    project.snippet("stuck.py", STUCK.format(pids=str(pids), extra=""))
    proc = driver(project, "snippets/stuck.py")
    try:
        wait_for(lambda: pids_in(pids), 90, "the cell to start its child")
        proc.send_signal(signum)
        out, _ = proc.communicate(timeout=90)
    finally:
        stop(proc)
    assert proc.returncode == 130, out
    assert "snippets/stuck.py:1: interrupted in cell 'stuck' of snippets/stuck.py; it has no earlier output" in out
    assert "last good output kept" not in out and "before any snippet file started" not in out
    wait_for(lambda: not alive(pids_in(pids)[0]), 30, "the child to end")


@pytest.mark.capture
def test_a_second_ctrl_c_does_not_cut_the_cleanup_short(project, tmp_path):
    pids = tmp_path / "pids"
    ignore = "import signal; signal.signal(signal.SIGTERM, signal.SIG_IGN); signal.signal(signal.SIGHUP, signal.SIG_IGN)"
    project.snippet("stubborn.py", STUCK.format(pids=str(pids), extra=ignore))
    proc = driver(project, "snippets/stubborn.py")
    try:
        wait_for(lambda: pids_in(pids), 90, "the cell to start its child")
        proc.send_signal(signal.SIGINT)
        time.sleep(1)  # the driver is now waiting for the runner, which ignores SIGTERM
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=90)
    finally:
        stop(proc)
    assert proc.returncode == 130, out
    assert "still ending the snippet processes" in out
    assert "interrupted in cell 'stuck' of snippets/stubborn.py" in out
    wait_for(lambda: not alive(pids_in(pids)[0]), 30, "the child to end")


@pytest.mark.capture
def test_killing_the_driver_outright_still_ends_the_file(project, tmp_path):
    pids = tmp_path / "pids"
    project.snippet("orphan.py", STUCK.format(pids=str(pids), extra=""))
    proc = driver(project, "snippets/orphan.py")
    try:
        wait_for(lambda: pids_in(pids), 90, "the cell to start its child")
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        stop(proc)
    wait_for(lambda: not alive(pids_in(pids)[0]), 30, "the child to end after the driver died")
    assert not project.output("orphan.py").exists()


def test_an_error_inside_the_driver_ends_every_file(project, tmp_path, monkeypatch, capsys):
    pids = tmp_path / "pids"
    project.snippet("a_quick.py", "# %% c\nprint(1)\n")
    project.snippet("b_stuck.py", STUCK.format(pids=str(pids), extra=""))

    def broken(job, report):
        wait_for(lambda: pids_in(pids), 90, "the other file to start its child")
        raise RuntimeError("a bug in the driver")

    monkeypatch.setattr(outcome, "finish", broken)
    assert project.capture(jobs=2) == 70
    assert "internal error in the capture driver" in capsys.readouterr().err
    wait_for(lambda: not alive(pids_in(pids)[0]), 30, "the other file's child to end")


# ---- bounded, faithful output --------------------------------------------------------------

def test_huge_output_is_cut_to_the_caps_with_a_marker(project):
    project.snippet("flood.py", """
        # %% flood
        import sys
        for i in range(200_000):
            print(f"line {i:06d} " + "x" * 40)

        # %% wide
        print("y" * 100_000)
        """)
    assert project.capture("flood.py") == 0
    cells = outputs_of(project, "flood.py")
    flood = cells["flood"].outputs[0]["text"]
    assert len(flood.encode()) <= 300_000
    assert flood.startswith("line 000000 ") and flood.rstrip().endswith("line 199999 " + "x" * 40)
    assert "lines (" in flood and "cut here by capture: over its caps" in flood
    wide = cells["wide"].outputs[0]["text"]
    assert wide.startswith("y" * 4000 + "… [96,000 more characters cut by capture]")
    assert project.output("flood.py").stat().st_size < 1_500_000


def test_terminal_semantics_and_invisible_characters(project):
    project.snippet("tty.py", r"""
        # %% tty
        import os, sys
        for p in range(0, 101, 25):
            sys.stdout.write(f"\rprogress {p:3d}%")
        print()
        print("\x1b[1;31mred\x1b[0m and \x1b]8;;http://x\x07link\x1b]8;;\x07")
        print("bell\x07 nul\x00 bs\x08 del\x7f rlo\u202eabc")
        sys.stdout.flush()
        os.write(1, b"bad \xff\xfe bytes\n")
        """)
    assert project.capture("tty.py") == 0
    assert text_of(project, "tty.py", "tty").splitlines() == [
        "progress 100%", "red and link", "bell␇ nul␀ bs␈ del␡ rlo⟨U+202E⟩abc", "bad \ufffd\ufffd bytes"]


def test_an_exit_or_interrupt_never_counts_as_a_declared_exception(project, capsys):
    project.snippet("exits.py", '# %% c raises="Exception"\nraise SystemExit(3)\n')
    assert project.capture("exits.py") == 1
    assert "cell 'c' raised SystemExit" in capsys.readouterr().out
