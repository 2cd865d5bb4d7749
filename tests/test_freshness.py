"""Every committed output belongs to the current source of its snippet, and every directive resolves."""

import dataclasses
from pathlib import Path

import pytest

from tcguide.core.check import check

ROOT = Path(__file__).resolve().parent.parent


def test_every_committed_output_is_fresh():
    problems = check(ROOT)
    assert not problems, "\n".join(map(str, problems))


def test_committed_outputs_name_no_path_of_the_capturing_machine():
    import re

    machine_path = re.compile(r"(/root\b|/home/|/tmp/|/usr/(local/)?lib/python|/opt/)")
    leaks = []
    for out in sorted((ROOT / "snippets").rglob("*.out.json")):
        for number, line in enumerate(out.read_text(encoding="utf-8").splitlines(), start=1):
            if machine_path.search(line):
                leaks.append(f"{out.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    assert not leaks, "\n".join(leaks)


# ---- what makes an output stale (on small synthetic projects) ----------------------------

from tcguide.core import freshness
from tcguide.core import store  # noqa: E402
from tcguide.core.snippet import load  # noqa: E402
from tests.helpers import CPU_ONLY, ROOT  # noqa: E402


def _stale(project, name):
    snippet = load(project.root / "snippets" / name, f"snippets/{name}")
    return freshness.stale(snippet, store.load(project.output(name)))


@pytest.mark.parametrize("change, words", [
    (lambda s: (s / "_helpers.py").write_text("K = 2\n"), "its helper module snippets/_helpers.py changed"),
    (lambda s: (s / "_pkg" / "sub.py").write_text("J = 3\n"), "its helper module snippets/_pkg/sub.py changed"),
    (lambda s: (s / "data.txt").write_text("other\n"), "its data file snippets/data.txt changed"),
    (lambda s: (s / "a.py").write_text((s / "a.py").read_text() + "\n# a comment\n"), "changed since its output"),
])
def test_a_change_to_any_input_in_the_checkout_makes_the_output_stale(project, change, words):
    s = project.root / "snippets"
    (s / "_pkg").mkdir(parents=True)
    (s / "_helpers.py").write_text("K = 1\n")
    (s / "_pkg" / "__init__.py").write_text("")
    (s / "_pkg" / "sub.py").write_text("J = 2\n")
    (s / "data.txt").write_text("data\n")
    project.snippet("a.py", """
        # /// capture
        # depends = ["data.txt"]
        # ///
        # %% c
        from _helpers import K
        from _pkg.sub import J
        print(K, J, open("snippets/data.txt").read())
        """)
    project.snippet("b.py", "# %% c\nprint(2)\n")
    assert project.capture() == 0
    assert "1 2 data" in "".join(store.load(project.output("a.py")).cells[0].outputs[0]["text"])
    assert _stale(project, "a.py") is None
    change(s)
    assert words in _stale(project, "a.py")
    assert _stale(project, "b.py") is None


def test_a_file_imports_helpers_from_its_folder_first_then_from_the_shared_folder(project):
    s = project.root / "snippets"
    (s / "_shared").mkdir(parents=True)
    (s / "_shared" / "timing.py").write_text("SOURCE = 'shared'\n")
    (s / "_shared" / "units.py").write_text("from timing import SOURCE\nMS = 'ms from ' + SOURCE\n")
    project.snippet("own/timing.py", "# %% c\nSOURCE = 'own folder'\n")  # a snippet file that b.py imports
    project.snippet("topic/a.py", "# %% c\nfrom timing import SOURCE\nfrom units import MS\nprint(SOURCE, '|', MS)\n")
    project.snippet("own/b.py", "# %% c\nfrom timing import SOURCE\nfrom units import MS\nprint(SOURCE, '|', MS)\n")
    assert project.capture() == 0
    printed = {n: "".join(store.load(project.output(n)).cells[0].outputs[0]["text"]) for n in ("topic/a.py", "own/b.py")}
    assert printed == {"topic/a.py": "shared | ms from shared\n", "own/b.py": "own folder | ms from own folder\n"}
    assert sorted(load(s / "topic" / "a.py", "snippets/topic/a.py").helpers) == [
        "snippets/_shared/timing.py", "snippets/_shared/units.py"]
    assert _stale(project, "topic/a.py") is None
    (s / "_shared" / "timing.py").write_text("SOURCE = 'changed'\n")
    assert "its helper module snippets/_shared/timing.py changed" in _stale(project, "topic/a.py")
    assert "its helper module snippets/_shared/timing.py changed" not in (_stale(project, "own/b.py") or "")


def test_a_new_output_version_makes_every_output_stale_and_its_source_does_not(project, monkeypatch):
    project.snippet("a.py", "# %% c\nprint(1)\n")
    assert project.capture() == 0
    now = freshness.OUTPUT_VERSION
    assert store.load(project.output("a.py")).inputs["tooling"] == f"output-version {now}"
    tooling = Path(freshness.__file__).resolve().parents[1] / "capture"
    assert all((tooling / name).exists() for name in ("runner.py", "normalize.py", "terminal.py"))
    assert _stale(project, "a.py") is None  # the tooling's source takes no part: comments and moves stale nothing
    monkeypatch.setattr(freshness, "OUTPUT_VERSION", now + 1)
    assert _stale(project, "a.py") == (f"was captured with output version {now} of the capture tooling; "
                                       f"this checkout stores output version {now + 1} (the output is stale)")


def test_outputs_from_before_the_declared_version_stay_fresh_by_their_digest():
    """The guide's outputs record the digest of the tooling that wrote them; that digest is version 1."""
    (legacy,) = freshness.LEGACY_TOOLING
    assert freshness.tooling_version(legacy) == 1
    assert freshness.tooling_version(freshness.tooling_mark()) == freshness.OUTPUT_VERSION
    assert freshness.tooling_version("0" * 64) is None
    assert freshness.tooling_version("output-version x") is None
    assert freshness.LEGACY_TOOLING[legacy] <= freshness.OUTPUT_VERSION


def test_python_counts_by_its_minor_version_as_the_driver_by_its_major(project, capsys):
    project.snippet("a.py", "# %% c\nprint(1)\n")
    env = dict(CPU_ONLY, python="3.12.3", driver="580.159.04")
    assert project.capture(env=env) == 0
    capsys.readouterr()
    assert project.capture(env=dict(env, python="3.12.11", driver="580.200.01")) == 0
    assert "skip  snippets/a.py  unchanged since its capture" in capsys.readouterr().out
    assert project.capture(env=dict(env, python="3.13.0")) == 0
    assert "ok    snippets/a.py" in capsys.readouterr().out


@pytest.mark.capture  # the probe imports torch where it is installed
def test_the_host_probe_is_recorded_as_the_format_keeps_it_and_stales_nothing(project, capsys):
    """A capture records how fast its host ran a fixed Python loop and a tensor op as it began
    (whole numbers, as the stored format keeps an environment's values); another host's figures are
    no reason to recapture, as its CPU model is none."""
    from tcguide.core import environment

    probe = environment.host_probe()
    assert set(probe) <= {"host_loop_us", "host_op_ns"} and "host_loop_us" in probe
    assert all(isinstance(v, int) and v > 0 for v in probe.values()), probe
    project.snippet("a.py", "# %% c\nprint(1)\n")
    assert project.capture(env=dict(CPU_ONLY, **probe)) == 0
    assert {k: store.load(project.output("a.py")).environment[k] for k in probe} == probe  # read back, valid
    capsys.readouterr()
    assert project.capture(env=dict(CPU_ONLY, host_loop_us=3 * probe["host_loop_us"], host_op_ns=7)) == 0
    assert "skip  snippets/a.py  unchanged since its capture" in capsys.readouterr().out


def test_package_versions_and_environment_decide_at_capture_time(project, monkeypatch, capsys):
    project.snippet("a.py", "# %% c\nimport yaml\nprint(yaml.__name__)\n")
    env = dict(CPU_ONLY, driver="580.159.04")
    assert project.capture(env=env) == 0
    packages = store.load(project.output("a.py")).packages
    assert packages.get("PyYAML") == freshness.installed_versions()["PyYAML"]
    capsys.readouterr()
    assert project.capture(env=dict(env, driver="580.200.01")) == 0  # a patch level is no reason
    assert "skip  snippets/a.py  unchanged since its capture" in capsys.readouterr().out
    assert project.capture(env=dict(env, driver="590.10.01")) == 0
    assert "ok    snippets/a.py" in capsys.readouterr().out
    monkeypatch.setattr(freshness, "installed_versions", lambda: {"PyYAML": "0.0.1"})
    assert project.capture(env=dict(env, driver="590.10.01")) == 0
    assert "ok    snippets/a.py" in capsys.readouterr().out


def test_a_vendored_package_counts_through_the_one_that_vendors_it(project):
    project.snippet("a.py", "# %% c\nprint(1)\n")
    assert project.capture() == 0
    captured = dataclasses.replace(store.load(project.output("a.py")),
                                   packages={"setuptools": "81.0.0", "jaraco.text": "4.0.0"})
    snippet = load(project.root / "snippets" / "a.py", "snippets/a.py")
    assert freshness.stale(snippet, captured, installed={"setuptools": "81.0.0"}) is None
    assert "setuptools 81.0.0 → 82.0.0" in freshness.stale(snippet, captured, installed={"setuptools": "82.0.0"})


def test_check_rejects_embedding_a_helper_module_as_the_build_does(project):
    """One validation for check and the strict build: a '_' module is never captured, so never embedded."""
    from tcguide.core.check import check

    project.snippet("topic/_helper.py", "# %% c\nK = 1\n")
    project.snippet("topic/a.py", "# %% c glue=k\nfrom _helper import K\nk = K\n")
    assert project.capture() == 0
    page = project.root / "docs" / "en" / "p.md"
    page.parent.mkdir(parents=True)
    page.write_text("# P\n\n[[cell topic/_helper.py#c]]\n\nK is {{topic/_helper.py:K}} and {{topic/a.py:k}}.\n")
    problems = sorted(str(p) for p in check(project.root))
    assert len(problems) == 2, problems
    assert problems[0].startswith("docs/en/p.md:3: [[cell topic/_helper.py#c]]: snippets/topic/_helper.py")
    assert problems[1].startswith("docs/en/p.md:5: {{topic/_helper.py:K}}: snippets/topic/_helper.py")
    assert all("is a helper module" in p and "embed or quote a cell of the snippet file" in p for p in problems)


def test_no_stored_output_names_the_capture_machines_scratch_folders():
    """The scratch folders' names (``tcguide-capture-…``, ``….sandbox``) are the capturing machine's:
    normalisation turns them into neutral forms, even in a path a log cut from the left."""
    found = []
    for output in sorted((ROOT / "snippets").rglob("*.out.json")):
        text = output.read_text(encoding="utf-8")
        for marker in ("tcguide-capture-", ".sandbox/"):
            if marker in text:
                found.append(f"{output.relative_to(ROOT)}: {marker}")
    assert not found, "recapture these files: " + ", ".join(found)
