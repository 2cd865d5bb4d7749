"""Every committed output belongs to the current source of its snippet, and every directive resolves."""

from pathlib import Path

from tcguide.check import check

ROOT = Path(__file__).resolve().parent.parent


def test_every_committed_output_is_fresh():
    problems = check(ROOT)
    assert not problems, "\n".join(map(str, problems))
