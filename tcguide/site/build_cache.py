"""What a warm build reuses: entries kept in ``.cache/tcguide/<kind>/``, each named by a digest of
everything that went into it, so that an entry is found only when all of its inputs are what they
were (a changed input is another name, never a stale hit).

Every key includes ``code_version()``, a digest of the tooling's own source and of the Python and
every installed distribution with its version: an edit to tcguide, or an upgrade of MkDocs, Markdown,
Pygments or the theme, makes every entry another name. An entry is one JSON file, written whole
(a temporary file renamed over it), so a build that stops midway, or two builds at once, never leave
half an entry; one that cannot be read is a miss. At the end of a build, what it did not use is
removed beyond as much again as it used, and anything unused for ``KEEP_DAYS`` (``prune``): the cache
stays within two builds' worth (about 150 MB for the guide), however often the tooling changes.

What a cached step logged is kept with its result and logged again when the entry is used
(``logs_captured``, ``replay``): a warning that fails the strict build fails it on every build, cached
or not. Stdlib only.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from tcguide.core.languages import DOCS
from tcguide.site import built

FOLDER = Path(".cache") / "tcguide"
KEEP_DAYS = 14
SPARE = 1.0  # entries kept beyond a build's own, as a multiple of its own (see Store.prune)
FORMAT = 1  # bumped when what an entry holds changes shape


def digest(*parts) -> str:
    """A digest of JSON-able parts, in order. A string is digested as its UTF-8 bytes (a page's HTML is
    large: escaping it as JSON first took longer than digesting it), anything else as JSON; each part is
    framed by its kind and length, so that no two lists of parts give the same bytes."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else \
            json.dumps(part, sort_keys=True, ensure_ascii=False, default=_unknown).encode("utf-8", "surrogatepass")
        h.update(b"s" if isinstance(part, str) else b"j")
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


def memo(store: Store | None, key: str, make):
    """``make()``'s JSON-able value, from the store when it holds one under key (a tuple comes back a list)."""
    if store is None:
        return make()
    value = store.get(key)
    if value is None:
        value = make()
        store.put(key, value)
    return value


def _unknown(value):
    raise TypeError(f"not a cache key part: {type(value).__name__}")


@functools.cache
def code_version() -> str:
    """The tooling's source, the Python, and every installed distribution's version, as one digest."""
    package = Path(__file__).resolve().parent.parent
    h = hashlib.sha256(f"format {FORMAT}\0python {sys.version}\0".encode())
    for path in sorted(package.rglob("*.py")):
        h.update(f"{path.relative_to(package).as_posix()}\0".encode())
        h.update(hashlib.sha256(path.read_bytes()).digest())
    h.update(";".join(built.installed()).encode())
    return h.hexdigest()


class Store:
    """Entries of one kind, a JSON file each, named by their key. The entries a build used stay in memory
    for the next build of the same process (``mkdocs serve``: reading and decoding each page's entries
    again was a tenth of a rebuild); one is still read from its file when the file changed since."""

    def __init__(self, root: Path, kind: str):
        self.kind = kind
        self.folder = Path(root) / FOLDER / kind
        self.hits = self.misses = 0  # since the last ``counted()``
        self._held: dict[str, tuple[int, object]] = {}  # key -> (its file's mtime in ns, its value)
        self._used: dict[str, tuple[int, object]] = {}  # what this build used or wrote, held for the next

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str):
        path = self._path(key)
        held = self._used.get(key) or self._held.get(key)
        try:
            if held is not None and path.stat().st_mtime_ns == held[0]:
                value = held[1]
            else:
                value = json.loads(path.read_text(encoding="utf-8"))
            os.utime(path)  # used now: pruning keeps it
            self._used[key] = (path.stat().st_mtime_ns, value)
        except (OSError, ValueError):
            self.misses += 1
            return None
        self.hits += 1
        return value

    def has(self, key: str) -> bool:
        """Whether an entry is there (used now: pruning keeps it)."""
        try:
            os.utime(self._path(key))
        except OSError:
            return False
        return True

    def counted(self) -> str:
        """How many lookups found their entry since the last call ("12 of 16 render"), and restart."""
        said = f"{self.hits} of {self.hits + self.misses} {self.kind}"
        self.hits = self.misses = 0
        return said

    def put(self, key: str, value) -> None:
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, suffix=".tmp",
                                             delete=False) as out:
                json.dump(value, out, ensure_ascii=False, separators=(",", ":"))
            os.replace(out.name, path)
            self._used[key] = (path.stat().st_mtime_ns, value)
        except OSError:  # a cache that cannot be written costs a later build time, never this one's result
            pass

    def prune(self, since: float, keep_days: float = KEEP_DAYS, spare: float = SPARE) -> int:
        """After a build that started at ``since``: keep what it used or wrote, and of the rest the most
        recently used, up to ``spare`` times the build's own (another configuration's entries, say those
        of ``make serve`` without notebooks), none unused for ``keep_days``; remove the others. Returns
        how many were removed. What this build used is what the next build of the process holds."""
        self._held, self._used = self._used, {}
        found = []
        for path in self.folder.glob("*/*.json"):
            try:
                stat = path.stat()
            except OSError:
                continue
            found.append((stat.st_mtime, stat.st_size, path))
        since -= 2  # a file system's coarse timestamps
        room = spare * sum(size for mtime, size, _ in found if mtime >= since)
        cutoff, removed = time.time() - keep_days * 86400, 0
        for mtime, size, path in sorted(found, key=lambda entry: entry[0], reverse=True):
            if mtime >= since:
                continue
            if mtime >= cutoff and size <= room:
                room -= size
                continue
            try:
                path.unlink()
                removed += 1
            except OSError:
                pass
        for stale in self.folder.glob("*/*.tmp"):  # a write that a stopped build left
            try:
                if stale.stat().st_mtime < since - 3600:
                    stale.unlink()
            except OSError:
                pass
        return removed


def toc_tokens(toc) -> list[dict]:
    """A page's table of contents as the toc extension's tokens (what ``mkdocs.structure.toc.get_toc`` reads)."""
    return [{"level": item.level, "id": item.id, "name": item.title, "children": toc_tokens(item.children)}
            for item in toc or ()]


class TreeKeyed:
    """Entries that depend on more than one can name: tcguide's work on a page reads its snippet files,
    their outputs and helper modules, the claims, the translations' records and their history. They are
    keyed by the tree instead: every file git sees in the checkout (tracked, or new and not ignored), the
    commit, the environment variables mkdocs.yml reads and the installed versions (``built.tree``, without
    the day), so any change anywhere is another key; but for the pages of docs/ (its Markdown files), which
    are kept apart, each with its own digest (``pages``): an entry names the pages it read besides its own
    (``page``, ``every_page``), so that an edit to one page is another key only for the entries that read
    it. What a build makes is stored at its end, and only if the tree and the pages are then still what
    they were at its start (an edit made during the build would otherwise be stored under the key of the
    tree before it)."""

    def __init__(self, root: Path, env: dict[str, str], docs: str = DOCS):
        folder = docs.rstrip("/") + "/"
        self._state = lambda: built.tree(root, env, day=False,
                                         apart=lambda name: name.startswith(folder) and name.endswith(".md"))
        found = self._state()
        self.tree, self.pages = found if found is not None else (None, {})
        self._pending: list[tuple[Store, str, object]] = []

    def key(self, *parts) -> str | None:
        """None outside a git checkout: then nothing is kept."""
        return None if self.tree is None else digest("tree", code_version(), self.tree, *parts)

    def page(self, name: str) -> str | None:
        """The digest of a page of docs/ (its name relative to the project: docs/en/x.md); None if there is none."""
        return self.pages.get(name)

    def every_page(self) -> str:
        """One digest of every page of docs/, by name."""
        return digest("pages", sorted(self.pages.items()))

    def later(self, store: Store, key: str, value) -> None:
        self._pending.append((store, key, value))

    def flush(self) -> None:
        if self._pending and self._state() == (self.tree, self.pages):
            for store, key, value in self._pending:
                store.put(key, value)
        self._pending = []


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.NOTSET)
        self.records: list[list] = []
        self._last: logging.LogRecord | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if record is not self._last:  # a record that reaches both loggers, one after the other, is one message
            self._last = record
            self.records.append([record.name, record.levelno, record.getMessage()])


# MkDocs' loggers do not propagate to the root: a step's messages are taken from both.
_LOGGERS = ("mkdocs", "")


@contextmanager
def logs_captured():
    """What is logged inside the block, as [logger name, level, message] lists (it is still logged)."""
    handler = _Records()
    loggers = [logging.getLogger(name) for name in _LOGGERS]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield handler.records
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


def replay(records) -> None:
    """Log again what a cached step logged, through the same loggers."""
    for name, level, message in records:
        logging.getLogger(name).log(level, "%s", message)
