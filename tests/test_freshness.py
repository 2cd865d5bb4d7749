"""Every committed output belongs to the current source of its snippet, and every directive resolves."""

from pathlib import Path

from tcguide.check import check

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
