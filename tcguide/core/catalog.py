"""The snippet files and their captured outputs, loaded once and checked together.

Used by the MkDocs plugin (to embed cells) and by ``python3 -m tcguide check``
(to prove every committed output is fresh). Stdlib only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tcguide.core import discovery, freshness, store
from tcguide.core import snippet as snippets
from tcguide.core.errors import GuideError


@dataclass(frozen=True)
class Embedded:
    """One cell ready to show: its code, what it printed when captured, and what is wrong."""

    snippet: snippets.SnippetFile
    cell: snippets.Cell
    capture: store.Capture | None  # None when there is no readable output at all
    problem: GuideError | None  # missing, corrupt, stale or failed output

    @property
    def record(self) -> store.CellRecord | None:
        return self.capture.cell(self.cell.name) if self.capture else None


class Catalog:
    def __init__(self, project_root: str | Path, folder: str = discovery.FOLDER):
        self.folder = folder
        self.root = Path(project_root) / folder
        self._snippets: dict[str, snippets.SnippetFile | GuideError] = {}
        self._captures: dict[str, tuple[store.Capture | None, GuideError | None]] = {}
        self._files: list[str] | None = None

    def files(self) -> list[str]:
        """The snippet files, listed once (a catalog is one build's or one check's view of the tree)."""
        if self._files is None:
            self._files = sorted(str(p.relative_to(self.root)) for p in discovery.snippet_files(self.root))
        return list(self._files)

    def snippet(self, name: str) -> snippets.SnippetFile:
        """A snippet file by its path under snippets/; GuideError if there is none, or if the path
        names a helper module (one page embeds and quotes snippet files only, for check and build alike)."""
        if discovery.is_helper(name):
            raise GuideError(f"{self.folder}/{name}", None,
                             "is a helper module (a name starting with '_'), not a snippet file: it is never captured",
                             "embed or quote a cell of the snippet file that uses it")
        if name not in self._snippets:
            try:
                self._snippets[name] = snippets.load(self._path(name), f"{self.folder}/{name}")
            except GuideError as exc:
                self._snippets[name] = exc
        found = self._snippets[name]
        if isinstance(found, GuideError):
            raise found
        return found

    def capture(self, name: str) -> tuple[store.Capture | None, GuideError | None]:
        """The captured output of a snippet file (if readable) and what is wrong with it (if anything)."""
        if name not in self._captures:
            self._captures[name] = self._load_capture(name, self.snippet(name))
        return self._captures[name]

    def _load_capture(self, name: str, snippet_file: snippets.SnippetFile):
        recapture = store.RECAPTURE.format(snippet=snippet_file.path)
        out = store.output_path(self.root / name)
        if not out.exists():
            return None, GuideError(snippet_file.path, None, "has no captured output", recapture)
        try:
            found = store.load(out, f"{self.folder}/{store.output_path(name)}")
        except GuideError as exc:
            return None, exc
        reason = freshness.stale(snippet_file, found)
        if reason:
            return found, GuideError(snippet_file.path, None, reason, recapture)
        for cell in snippet_file.cells:
            record = found.cell(cell.name)
            if record is None:
                return found, GuideError(snippet_file.path, cell.line, f"cell '{cell.name}' has no captured output", recapture)
            error = record.error
            if error and not error.get("expected"):
                return found, GuideError(
                    snippet_file.path, cell.line,
                    f"captured output of cell '{cell.name}' holds an undeclared {error['ename']}",
                    "fix the cell or declare raises=, then " + recapture)
            if cell.raises and not error:
                return found, GuideError(
                    snippet_file.path, cell.line,
                    f"cell '{cell.name}' declares raises={cell.raises} but its captured output has no exception", recapture)
        return found, None

    def embed(self, name: str, cell_name: str) -> Embedded:
        """The cell and its output; raises GuideError only when there is no such file or cell."""
        snippet_file = self.snippet(name)
        cell = snippet_file.cell(cell_name)
        if cell is None:
            known = ", ".join(c.name for c in snippet_file.cells)
            raise GuideError(snippet_file.path, None, f"has no cell '{cell_name}'", f"its cells are: {known}")
        found, problem = self.capture(name)
        return Embedded(snippet_file, cell, found, problem)

    def captures_under(self, folder: str) -> list[store.Capture]:
        """The readable captured outputs of the snippet files in a folder of snippets/."""
        names = [n for n in self.files() if n.startswith(folder.rstrip("/") + "/")]
        if not names:
            raise GuideError(f"{self.folder}/{folder}", None, "no snippet files there", "check the folder name")
        return [c for c in (self.capture(n)[0] for n in names) if c is not None]

    def problems(self) -> list[GuideError]:
        """Everything wrong with the snippets and outputs: unreadable, missing, stale, orphaned."""
        found: list[GuideError] = []
        for name in self.files():
            try:
                problem = self.capture(name)[1]
            except GuideError as exc:
                problem = exc
            if problem:
                found.append(problem)
        for out in sorted(self.root.rglob("*" + store.SUFFIX)):
            source = out.with_name(out.name[: -len(store.SUFFIX)] + ".py")
            if not source.exists():
                found.append(GuideError(f"{self.folder}/{out.relative_to(self.root)}", None, "captured output of a snippet file that no longer exists",
                                        "delete it with git rm"))
        return found

    def _path(self, name: str) -> Path:
        path = (self.root / name).resolve()
        if not path.is_relative_to(self.root.resolve()):
            raise GuideError(name, None, "snippet path leaves the snippets folder", f"name a file under {self.folder}/")
        if not path.is_file():
            raise GuideError(f"{self.folder}/{name}", None, "no such snippet file", f"check the name; files are under {self.folder}/")
        return self.root / name
