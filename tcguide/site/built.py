"""What a strict build of the site was made from, recorded so that a later reader (the test suite)
can tell, without building it again, whether ``site/`` is what a build of the tree as it is now
would make.

``make docs`` records a digest of the build's inputs before it builds (``begin``) and, once the
strict build has passed, the digest of what it wrote (``end``), if the inputs did not change
meanwhile. ``reusable`` answers yes only when the inputs digest now equals the recorded one and
the site folder still holds exactly what the build wrote. Anything else (a failed or interrupted
build, an edit since, a build by hand into the same folder, another address or package version,
a tree outside git) answers no, and the reader builds the site itself.

The inputs are every file git sees in the checkout (tracked or not, unless ignored): more than
the build reads (the tests, the workflows), so that nothing it reads is missed; the commit
checked out (each page is dated by its last commit); the values of the environment variables
that mkdocs.yml reads (``!ENV``); the Python and the version of every installed distribution; and
the day (a page not committed yet is dated by the build's day). Stdlib only.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import importlib.metadata
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Callable

STAMP = Path(".cache") / "tcguide" / "built-site.json"
ENV_TAG = re.compile(r"!ENV\s*\[?\s*([A-Za-z_][A-Za-z0-9_]*)")


def _git(root: Path, *args: str) -> bytes | None:
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def inputs_digest(root: Path, env: dict[str, str], day: bool = True) -> str | None:
    """A digest of what a build of the site at ``root`` with the environment ``env`` reads; None
    outside a git checkout (then the pages' dates are not the tree's). Without ``day``, the build's day
    is left out: what does not date a page by the build does not depend on it."""
    found = tree(root, env, day)
    return found[0] if found is not None else None


def tree(root: Path, env: dict[str, str], day: bool = True,
         apart: Callable[[str], bool] = lambda name: False) -> tuple[str, dict[str, str]] | None:
    """``inputs_digest`` of every file but those whose name (relative to ``root``) ``apart`` picks, and
    the digest of each of those by its name: a cache can then key an entry on the few of them it read
    (a page's own Markdown, say) instead of all. None outside a git checkout."""
    head, listed = _git(root, "rev-parse", "HEAD"), _git(root, "ls-files", "-z", "--cached", "--others",
                                                        "--exclude-standard")
    if head is None or listed is None:
        return None
    digest = hashlib.sha256(b"head\0" + head.strip() + b"\0")
    kept: dict[str, str] = {}
    for name in sorted({n for n in listed.decode("utf-8", "surrogateescape").split("\0") if n}):
        path = root / name
        content = path.read_bytes() if path.is_file() else b"(none)"
        if apart(name):
            kept[name] = hashlib.sha256(content).hexdigest()
            continue
        digest.update(f"file\0{name}\0{hashlib.sha256(content).hexdigest()}\0".encode("utf-8", "surrogateescape"))
    config = root / "mkdocs.yml"
    names = sorted(set(ENV_TAG.findall(config.read_text(encoding="utf-8")))) if config.is_file() else []
    for name in names:
        digest.update(f"env\0{name}\0{env.get(name, '(unset)')}\0".encode())
    digest.update(f"python\0{sys.version}\0{';'.join(installed())}\0".encode())
    if day:
        digest.update(f"day\0{datetime.datetime.now(datetime.timezone.utc).date()}\0".encode())
    return digest.hexdigest(), kept


@functools.cache
def installed() -> tuple[str, ...]:
    """Every installed distribution with its version, read once per process (each build of ``mkdocs serve``
    read them twice: a fifth of a second), as ``build_cache.code_version`` reads them."""
    return tuple(sorted(f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions()))


def site_digest(site_dir: Path) -> str:
    """A digest of every file under the site folder, by its path and content."""
    digest = hashlib.sha256()
    for path in sorted(p for p in site_dir.rglob("*") if p.is_file()):
        digest.update(f"{path.relative_to(site_dir).as_posix()}\0".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _stamp(root: Path) -> Path:
    return root / STAMP


def _read(root: Path) -> dict:
    try:
        found = json.loads(_stamp(root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def begin(root: Path, site_dir: Path, env: dict[str, str]) -> None:
    """Before a build into site_dir: the inputs it starts from (and no site digest yet)."""
    stamp = _stamp(root)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(json.dumps({"site_dir": str(site_dir.resolve()), "inputs": inputs_digest(root, env)}),
                     encoding="utf-8")


def end(root: Path, site_dir: Path, env: dict[str, str]) -> bool:
    """After a build that passed: the site's digest, if the inputs are still those it began from
    (else the record is removed). Returns whether the build is recorded."""
    recorded = _read(root)
    inputs = inputs_digest(root, env)
    if (inputs is None or recorded.get("inputs") != inputs
            or recorded.get("site_dir") != str(site_dir.resolve()) or not site_dir.is_dir()):
        _stamp(root).unlink(missing_ok=True)
        return False
    recorded["site"] = site_digest(site_dir)
    _stamp(root).write_text(json.dumps(recorded), encoding="utf-8")
    return True


def reusable(root: Path, site_dir: Path, env: dict[str, str]) -> bool:
    """Whether site_dir holds exactly what a recorded build wrote from the inputs the tree has now."""
    recorded = _read(root)
    if not recorded.get("site") or recorded.get("site_dir") != str(site_dir.resolve()) or not site_dir.is_dir():
        return False
    inputs = inputs_digest(root, env)
    return inputs is not None and recorded.get("inputs") == inputs and site_digest(site_dir) == recorded["site"]
