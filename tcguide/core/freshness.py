"""When a captured output still belongs to its snippet: defined once, for capture, check and the site.

An output is fresh when none of its inputs changed since the capture:

- the snippet file itself;
- the helper modules and packages it imports from its folder of the snippets tree;
- the data files it declares (``depends = [...]`` in its capture block);
- the output version of the capture tooling (``OUTPUT_VERSION``): a number the tooling
  declares and bumps when what it stores for a given snippet changes. Refactoring, comments
  and moves change no output and stale none; the golden tests (``tests/test_golden.py``) run
  fixture snippets through the real runner and fail when what is stored changes without a
  bump;

and, where it is known (on the machine that captures, not on a docs build):

- the environment it ran in (``Environment.fingerprint``: GPU model and count, driver major version, CUDA, Python's
  major.minor version, torch, torchvision, triton);
- the version of every distribution the file imported (torch, numpy, scipy, ...), as far as
  this Python finds it on its own path (a package vendored inside another, such as
  setuptools' copies of jaraco.* and more-itertools, counts through the one that vendors it).

Stdlib only: capture runs on a GPU machine without MkDocs.
"""

from __future__ import annotations

from importlib import metadata

from tcguide.core.environment import Environment
from tcguide.core.snippet import SnippetFile

# What the capture tooling stores for a given snippet file, as a version: bump it in the same
# change that alters what ends up in a stored output (what the runner records, how it tidies
# text or neutralises paths, how a figure is written), and regenerate the golden outputs.
OUTPUT_VERSION = 2

# Outputs written before the tooling declared a version recorded a digest of the runner's,
# normalisation's and terminal handling's source instead. The one digest below is the tooling
# whose stored outputs version 1 reproduces byte for byte, so those outputs stay fresh.
LEGACY_TOOLING = {"6a8c277a926c3ff5457afe152a369b4a40fdd68ca8cdcb42b10b57d733dae208": 1}


def tooling_mark(version: int = OUTPUT_VERSION) -> str:
    """How a stored output records the output version it was captured with."""
    return f"output-version {version}"


def tooling_version(mark: str | None) -> int | None:
    """The output version a stored ``inputs.tooling`` names (None if it names none we know)."""
    if mark in LEGACY_TOOLING:
        return LEGACY_TOOLING[mark]
    prefix = tooling_mark(0)[:-1]
    if isinstance(mark, str) and mark.startswith(prefix) and mark[len(prefix):].isdigit():
        return int(mark[len(prefix):])
    return None


def inputs(snippet_file: SnippetFile) -> dict:
    """Everything in the checkout that a capture of this file depends on, as digests."""
    return {
        "source": snippet_file.sha256,
        "helpers": {shown: sha for shown, (_, sha) in sorted(snippet_file.helpers.items())},
        "depends": {shown: sha for shown, (_, sha) in sorted(snippet_file.depends.items())},
        "tooling": tooling_mark(),
    }


def installed_versions() -> dict[str, str]:
    """Every distribution installed for this Python, by name (no import: the driver stays torch-free)."""
    found = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            found.setdefault(name, dist.version)
    return found


def _date(capture) -> str:
    return capture.captured_at[:10]


def stale(snippet_file: SnippetFile, capture, machine_env: dict | None = None,
          installed: dict[str, str] | None = None) -> str | None:
    """Why the capture no longer belongs to the snippet, or None if it does.

    ``machine_env`` (the environment this file would be captured in now) and ``installed``
    (distribution versions) are known only where capture runs; without them, only the
    checkout's side is compared.
    """
    now, then = inputs(snippet_file), capture.inputs
    when = f"since its output was captured on {_date(capture)} (the output is stale)"
    if now["source"] != then.get("source"):
        return f"changed {when}"
    for kind, noun in (("helpers", "helper module"), ("depends", "data file")):
        for shown in sorted(set(now[kind]) | set(then.get(kind, {}))):
            if now[kind].get(shown) != then.get(kind, {}).get(shown):
                verb = "is new" if shown not in then.get(kind, {}) else "is gone" if shown not in now[kind] else "changed"
                return f"its {noun} {shown} {verb} {when}"
    version = tooling_version(then.get("tooling"))
    if version != OUTPUT_VERSION:
        was = f"output version {version}" if version is not None else "an unknown output version"
        return (f"was captured with {was} of the capture tooling; this checkout stores "
                f"output version {OUTPUT_VERSION} (the output is stale)")
    if machine_env is not None:
        old, new = Environment.of(capture.environment).fingerprint(), Environment.of(machine_env).fingerprint()
        changed = [f"{k} {old.get(k) or '-'} → {new.get(k) or '-'}" for k in sorted(set(old) | set(new))
                   if old.get(k) != new.get(k)]
        if changed:
            return "captured in another environment: " + ", ".join(changed)
    if installed is not None:
        # A distribution this Python can't see from its own path is one vendored inside another
        # (setuptools' jaraco.* and more-itertools): the version of the one that vendors it counts.
        changed = [f"{dist} {version} → {installed[dist]}"
                   for dist, version in sorted(capture.packages.items()) if installed.get(dist, version) != version]
        if changed:
            return "captured with other package versions: " + ", ".join(changed)
    return None
