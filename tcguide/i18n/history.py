"""The pages' git history, as the translations' tools read it: the commits that changed a page, the
page's text at a commit, the commit that wrote a given stamp, and the diff of a page since a commit.

Paths are relative to the project's root (which may be a folder inside the repository). Each
function raises GuideError, saying what to do, when git is missing or the project is no git checkout.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tcguide.core.errors import GuideError


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, timeout=120)
    except FileNotFoundError:
        raise GuideError("git", None, "is not installed", "install git: the page's history is in it") from None
    if done.returncode != 0 and b"not a git repository" in done.stderr:
        raise GuideError(".", None, "the project folder is not a git checkout",
                         "run this in a clone of the guide's repository")
    return done


def _lines(done: subprocess.CompletedProcess) -> list[str]:
    return [line for line in done.stdout.decode("utf-8", "replace").splitlines() if line] if done.returncode == 0 else []


def commits(root: Path, path: str) -> list[str]:
    """The commits that changed the file at ``path``, newest first ([] if none is committed)."""
    return _lines(_git(root, "log", "--format=%H", "--", path))


def shallow(root: Path) -> bool:
    """Whether the checkout holds only part of the history (a CI clone, say)."""
    return _lines(_git(root, "rev-parse", "--is-shallow-repository")) == ["true"]


def text_at(root: Path, commit: str, path: str) -> str | None:
    """The file's text at a commit, or None where the commit has no such file."""
    done = _git(root, "show", f"{commit}:./{path}")
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


def text_where_added(root: Path, path: str, words: str) -> str | None:
    """The file's text at the newest commit that added ``words`` to it (such as a stamp's digest), or None
    where no commit did. Never raises: without git there is no such commit."""
    try:
        found = _lines(_git(root, "log", "--format=%H", "-S", words, "--", path))
    except GuideError:
        return None
    for commit in found:  # the newest commit that changed how often the words occur, and has them
        text = text_at(root, commit, path)
        if text is not None and words in text:
            return text
    return None


def diff(root: Path, commit: str, path: str) -> str:
    """The unified diff of the file from ``commit`` to the working tree ("" when they are the same)."""
    done = _git(root, "diff", "--no-color", commit, "--", path)
    if done.returncode != 0:
        raise GuideError(path, None, f"git could not compare it with {commit[:12]}: "
                         f"{done.stderr.decode(errors='replace').strip()}", "check that the commit is fetched")
    return done.stdout.decode("utf-8", "replace")


def changed_files(root: Path, since: str, folder: str) -> list[str]:
    """The files under ``folder`` that differ between commit ``since`` and the working tree."""
    found = _git(root, "rev-parse", "--verify", "--quiet", f"{since}^{{commit}}")
    if found.returncode != 0:
        raise GuideError("--since", None, f"'{since}' is no commit, branch or tag of this repository",
                         "name one, such as main or a commit id (a shallow clone lacks older commits: fetch them)")
    return _lines(_git(root, "diff", "--name-only", "--relative", since, "--", folder))
