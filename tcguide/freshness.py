"""When a captured output still belongs to its snippet: defined once, for capture, check and the site.

An output is fresh when none of its inputs changed since the capture:

- the snippet file itself;
- the helper modules and packages it imports from its folder of the snippets tree;
- the data files it declares (``depends = [...]`` in its capture block);
- the capture tooling that shaped the output (the runner, normalisation and terminal
  handling: a change to them may change what any output holds);

and, where it is known (on the machine that captures, not on a docs build):

- the environment it ran in (GPU model and count, driver major version, CUDA, Python,
  torch, torchvision, triton);
- the version of every distribution the file imported (torch, numpy, scipy, ...), as far as
  this Python finds it on its own path (a package vendored inside another, such as
  setuptools' copies of jaraco.* and more-itertools, counts through the one that vendors it).

Stdlib only: capture runs on a GPU machine without MkDocs.
"""

from __future__ import annotations

import hashlib
from importlib import metadata
from pathlib import Path

from tcguide.snippet import SnippetFile

TOOLING_MODULES = ("runner.py", "normalize.py", "terminal.py")
CONDITIONS = {"captured_at", "compile_threads", "side_by_side"}  # how it ran, not what it ran on


def tooling_sha256() -> str:
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in TOOLING_MODULES:
        digest.update(name.encode() + b"\0" + (here / name).read_bytes() + b"\0")
    return digest.hexdigest()


def inputs(snippet_file: SnippetFile) -> dict:
    """Everything in the checkout that a capture of this file depends on, as digests."""
    return {
        "source": snippet_file.sha256,
        "helpers": {shown: sha for shown, (_, sha) in sorted(snippet_file.helpers.items())},
        "depends": {shown: sha for shown, (_, sha) in sorted(snippet_file.depends.items())},
        "tooling": tooling_sha256(),
    }


def fingerprint(env: dict) -> dict:
    """The environment as far as it decides what a file prints; a driver's patch level doesn't."""
    found = {k: v for k, v in env.items() if k not in CONDITIONS}
    if found.get("driver"):
        found["driver"] = str(found["driver"]).split(".")[0]
    return found


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
    if now["tooling"] != then.get("tooling"):
        return f"the capture tooling (runner, normalisation, terminal handling) changed {when}"
    if machine_env is not None:
        old, new = fingerprint(capture.environment), fingerprint(machine_env)
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
