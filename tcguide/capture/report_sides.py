"""The recapture report's sides: the captured outputs and English claims of a tree (the working
tree, or REF taken from git into a temporary folder), or one tree's claims evaluated against
another's outputs. Stdlib only."""

from __future__ import annotations

import io
import subprocess
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

from tcguide.core import claims as claims_mod
from tcguide.core import discovery, glue, store
from tcguide.core.catalog import Catalog
from tcguide.core.errors import GuideError
from tcguide.core.languages import DOCS, SOURCE

SNIPPETS, CLAIMS = discovery.FOLDER, claims_mod.FOLDER


# ---- one side: the outputs and claims of a tree ------------------------------------------------

@dataclass(frozen=True)
class _StoredSnippet:
    """What glue needs of a snippet file, taken from its stored output instead of its source."""
    path: str
    cells: tuple[store.CellRecord, ...]

    def glued_by(self, name: str) -> store.CellRecord | None:
        return next((c for c in self.cells if name in c.glue), None)


class StoredValues(Catalog):
    """A catalog of stored outputs as they are: glued values without freshness or snippet sources."""

    def __init__(self, root: Path, captures: dict[str, store.Capture]):
        super().__init__(root, SNIPPETS)
        self.stored = captures

    def files(self) -> list[str]:
        return sorted(self.stored)

    def snippet(self, name: str) -> _StoredSnippet:
        found = self.stored.get(name)
        if found is None:
            raise GuideError(f"{SNIPPETS}/{name}", None, "has no readable captured output here",
                             "capture it on this side, or compare sides that both have it")
        return _StoredSnippet(f"{SNIPPETS}/{name}", found.cells)

    def capture(self, name: str) -> tuple[store.Capture | None, GuideError | None]:
        found = self.stored.get(name)
        return found, None if found else GuideError(f"{SNIPPETS}/{name}", None, "has no readable captured output",
                                                      "capture it (make capture FILES=...)")


@dataclass
class ClaimState:
    page: str
    line: int
    claim: claims_mod.Claim | None
    verdict: claims_mod.Verdict | None = None
    problem: str = ""  # why it could not be evaluated

    @property
    def state(self) -> str:
        return "holds" if self.verdict and self.verdict.holds else "false" if self.verdict else "unchecked"


@dataclass
class Side:
    name: str  # "HEAD~5 (1a2b3c4)" or "the working tree"
    root: Path
    captures: dict[str, store.Capture] = field(default_factory=dict)  # "topic/file.py" -> its output
    unreadable: dict[str, str] = field(default_factory=dict)  # "topic/file.py" -> why
    claims: dict[tuple[str, str], ClaimState] = field(default_factory=dict)  # (page, claim id) -> its state
    quoted: dict[str, set[str]] = field(default_factory=dict)  # "topic/file.py:name.key" -> pages quoting it


def read_side(root: Path, name: str, outputs: Path | None = None) -> Side:
    """The outputs, English pages and claims of the tree at ``root``. With ``outputs``, the stored outputs
    are read from that other tree instead, so that one tree's claims are evaluated against another's
    captures."""
    side = Side(name, root)
    folder = (outputs or root) / SNIPPETS
    for out in sorted(folder.rglob("*" + store.SUFFIX)) if folder.is_dir() else []:
        rel = out.relative_to(folder).as_posix()
        snippet = rel[: -len(store.SUFFIX)] + ".py"
        try:
            side.captures[snippet] = store.load(out, f"{SNIPPETS}/{rel}")
        except GuideError as exc:
            side.unreadable[snippet] = exc.problem
    catalog = StoredValues(root, side.captures)
    pages = root / DOCS / SOURCE
    for path in sorted(pages.rglob("*.md")) if pages.is_dir() else []:
        page = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        for ref in glue.find(text, page)[0]:
            if not ref.quote:
                side.quoted.setdefault(f"{ref.file}:{'.'.join((ref.name, *ref.keys))}", set()).add(path.name)
        _claims_of_page(side, root, catalog, page, text)
    return side


def _claims_of_page(side: Side, root: Path, catalog: Catalog, page: str, text: str) -> None:
    marks = claims_mod.find(text, page)[0]
    try:
        book = claims_mod.load(root, claims_mod.page_stem(page))
    except GuideError as exc:
        book, broken = {}, str(exc)
    else:
        broken = ""
    for mark in marks:
        key = (page, mark.id)
        if key in side.claims:
            continue
        claim = book.get(mark.id)
        state = side.claims[key] = ClaimState(page, mark.line, claim)
        if claim is None:
            state.problem = broken or f"not declared in {CLAIMS}/{claims_mod.page_stem(page)}.toml"
            continue
        try:
            state.verdict = claims_mod.evaluate(claim, catalog, page, mark.line)
        except GuideError as exc:
            state.problem = exc.problem


# ---- REF, taken from git ------------------------------------------------------------------------

def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, timeout=120)
    except FileNotFoundError:
        raise GuideError("git", None, "is not installed", "install git to compare with a commit") from None


def materialise(root: Path, ref: str, into: Path) -> str:
    """Write REF's snippets/, claims/ and English pages of this project into a folder; returns the
    commit's short id. GuideError if this is no git checkout or REF names no commit."""
    inside = _git(root, "rev-parse", "--show-prefix")
    if inside.returncode != 0:
        raise GuideError(".", None, "the project folder is not a git checkout",
                         "run the report in a clone of the guide's repository")
    prefix = inside.stdout.decode().strip()
    top = Path(_git(root, "rev-parse", "--show-toplevel").stdout.decode().strip())  # where pathspecs start
    found = _git(root, "rev-parse", "--verify", "--quiet", "--short", f"{ref}^{{commit}}")
    if found.returncode != 0 or not found.stdout.strip():
        raise GuideError("report --against", None, f"'{ref}' is no commit, branch or tag of this repository",
                         "name one, such as HEAD~1, main or a commit id (a shallow clone has only its last commit: "
                         "fetch more history first)")
    commit = found.stdout.decode().strip()
    wanted = [SNIPPETS, CLAIMS, f"{DOCS}/{SOURCE}"]
    listed = _git(top, "ls-tree", "--name-only", f"{commit}:{prefix}", "--", *wanted)
    present = [p for p in listed.stdout.decode().splitlines() if p] if listed.returncode == 0 else []
    if present:
        archive = _git(top, "archive", "--format=tar", f"{commit}:{prefix}", "--", *present)
        if archive.returncode != 0:
            raise GuideError("report --against", None, f"git could not read {ref}: "
                             f"{archive.stderr.decode(errors='replace').strip()}", "check that the commit is fetched")
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(into, filter="data")
            else:  # a Python without extraction filters; git wrote this archive itself
                tar.extractall(into)
    return commit
