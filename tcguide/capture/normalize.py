"""Rewrite machine-specific text in captured output to short neutral forms.

Paths of the capturing machine (site-packages, the standard library, temp dirs,
the home directory, the checkout itself) must not leak into the published site,
and object addresses change on every run, so they are folded too.
"""

from __future__ import annotations

import functools
import os
import pwd
import re
import sys
import site
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

# A memory address, by its context: Python's "<... at 0x7f...>" reprs, "address 0x...", "ptr=0x...".
# Other hex literals (masks, hashes, sizes in hex) are left alone.
ADDRESS = re.compile(r"(?P<lead>\bat |\baddress |\baddr |\bpointer |\bptr[ =:]|\bdata_ptr[ =:(]|\bid )0x[0-9a-fA-F]{6,16}\b")
# Characters that continue a path: a prefix matches only where the path ends or a folder begins.
PATH_CHAR = r"[\w.~+-]"
SYSTEM_PREFIXES = {"/", "/usr", "/usr/local"}  # the same on every machine: nothing to hide
# Stack dumps printed while a cell runs (Dynamo's "user code traceback", for one) start at the
# capture runner's own frames; readers running the file themselves never see those. A frame is
# its "File" line and the deeper-indented lines under it, each after the same lead: the indent,
# plus whatever prefix a log formatter puts before every line of a record.
TOOLING_FRAME = re.compile(
    r'^(?P<lead>.*?)File "(?:<frozen runpy>|[^"]*tcguide/capture/\w+\.py)", line \d+, in .*\n'
    r"(?:(?P=lead)[ \t]+.*\n)*",
    re.M,
)


@dataclass(frozen=True)
class Normalizer:
    replacements: tuple[tuple[str, str], ...]  # (prefix, neutral form), longest prefix first
    # (a folder's own name and "/", the neutral form of the folder): a path that a log cut from the left
    # ("…mp/tcguide-capture-x1y2/a.py.sandbox/snippets/a.py", as Dynamo's guard lines print it) still
    # names the folder, and everything before it goes. Only for names made unique by the capture.
    tails: tuple[tuple[str, str], ...] = ()

    @classmethod
    def for_this_machine(cls, root: str | Path, extra: dict[str, str] | None = None,
                         tails: dict[str, str] | None = None) -> "Normalizer":
        pairs: dict[str, str] = {}
        pairs[sys.executable] = "python3"
        pairs[os.path.realpath(sys.executable)] = "python3"
        for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix} - SYSTEM_PREFIXES:
            pairs[prefix] = "<prefix>"
        for path, neutral in (extra or {}).items():
            pairs[os.path.realpath(path)] = neutral
            pairs[str(path)] = neutral
        for site_dir in _site_dirs():
            pairs[site_dir] = "<site-packages>"
        stdlib = sysconfig.get_paths().get("stdlib")
        if stdlib:
            pairs[stdlib] = "<python>"
        pairs[os.path.realpath(tempfile.gettempdir())] = "<tmp>"
        pairs[tempfile.gettempdir()] = "<tmp>"
        for home in {os.path.expanduser("~"), _account_home()}:  # the scratch HOME, and the account's own
            if home not in ("", "/", "~"):
                pairs[home] = "~"
                pairs[os.path.realpath(home)] = "~"
        root = os.path.realpath(root)
        pairs[root + os.sep] = ""
        pairs[root] = "."
        ordered = sorted(((p.rstrip(os.sep) if v else p, v) for p, v in pairs.items() if len(p) > 1),
                         key=lambda item: -len(item[0]))
        return cls(tuple(ordered), tuple(sorted((tails or {}).items(), key=lambda item: -len(item[0]))))

    @functools.cached_property
    def _pattern(self) -> re.Pattern:
        """All prefixes in one pattern, longest first, each only at path boundaries."""
        alternatives = "|".join(re.escape(prefix) + ("" if prefix.endswith(os.sep) else f"(?!{PATH_CHAR})")
                                for prefix, _ in self.replacements)
        return re.compile(rf"(?<!{PATH_CHAR})(?:{alternatives})")

    @functools.cached_property
    def _cut_pattern(self) -> re.Pattern:
        """A path up to the last of the tails it holds, from wherever the path starts."""
        alternatives = "|".join(f"(?P<t{i}>{re.escape(tail)})" for i, (tail, _) in enumerate(self.tails))
        return re.compile(rf"(?<![\w.~+/-])[\w.~+/-]*(?:{alternatives})")

    def __call__(self, text: str) -> str:
        if self.replacements:
            neutral = dict(self.replacements)
            text = self._pattern.sub(lambda m: neutral[m.group()], text)
        if self.tails:
            text = self._cut_pattern.sub(lambda m: self.tails[int(m.lastgroup[1:])][1], text)
        return TOOLING_FRAME.sub("", ADDRESS.sub(lambda m: m["lead"] + "0x…", text))


def _account_home() -> str:
    """The home folder of the account that captures, which ``pwd`` (``os.path.expanduser("~user")``,
    ``Path.home()`` without HOME) still gives when HOME points to the scratch folder."""
    try:
        return pwd.getpwuid(os.getuid()).pw_dir
    except (KeyError, OSError):
        return ""


def _site_dirs() -> list[str]:
    dirs = set(site.getsitepackages()) | {site.getusersitepackages()}
    for key in ("purelib", "platlib"):
        dirs.add(sysconfig.get_paths()[key])
    found = set()
    for d in dirs:
        found.add(d)
        found.add(os.path.realpath(d))
    return sorted(found)
