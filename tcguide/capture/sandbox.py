"""Where a snippet file runs: a scratch folder of its own, a minimal environment, and a
check that the checkout came through unchanged.

A file runs from a copy of itself (with the helper modules and data files it declares)
in a fresh folder that is also its working directory, HOME and TMPDIR; the tooling
runs from a copy too, so neither the file's paths nor its environment lead back to the
checkout. Its environment holds only what the allow-list passes on (``ENV_NAMES`` and
``ENV_PREFIXES``, minus anything that looks like a secret), never tokens or credentials.
Stdlib only.
"""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tcguide.core.discovery import import_roots, sha256_of
from tcguide.core.snippet import SnippetFile

# What a snippet's process sees of the driver's environment; everything else is dropped.
ENV_NAMES = {"PATH", "LANG", "LANGUAGE", "TZ", "TERM", "LD_LIBRARY_PATH", "OMP_NUM_THREADS", "MKL_NUM_THREADS"}
ENV_PREFIXES = ("LC_", "CUDA_", "NCCL_", "NVIDIA_", "CUBLAS_", "CUDNN_", "TORCH_", "TORCHINDUCTOR_",
                "TORCHDYNAMO_", "PYTORCH_", "TRITON_")
SECRET = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE|(^|_)KEY($|_)|AUTH", re.I)
TOOLING_PACKAGE = Path(__file__).resolve().parents[1]  # all of tcguide: the runner imports the core too


def passed_on(environ: dict[str, str]) -> dict[str, str]:
    """The allow-listed part of an environment."""
    return {k: v for k, v in environ.items()
            if (k in ENV_NAMES or k.startswith(ENV_PREFIXES)) and not SECRET.search(k)}


def copy_tooling(work_root: Path) -> Path:
    """A copy of this package for the runners to import; returns the folder to put on PYTHONPATH."""
    folder = work_root / "tooling"
    shutil.copytree(TOOLING_PACKAGE, folder / "tcguide", ignore=shutil.ignore_patterns("__pycache__"))
    return folder


@dataclass
class Sandbox:
    """One file's scratch folder: its copy of the snippet, HOME, TMPDIR and compiler caches."""

    root: Path
    shared: tuple[Path, ...] = ()  # shared helper folders, imported after the file's own folder

    @classmethod
    def create(cls, root: Path, snippet: SnippetFile, checkout: Path) -> "Sandbox":
        for shown in (snippet.path, *snippet.helpers, *snippet.depends):
            target = root / shown
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(checkout / shown, target)
        for folder in ("home", "tmp", "cache"):
            (root / folder).mkdir(parents=True, exist_ok=True)
        _, *shared = import_roots(root / Path(snippet.path).parent, snippet.path)
        return cls(root, tuple(folder for folder, _ in shared))

    def script(self, snippet: SnippetFile) -> Path:
        return self.root / snippet.path

    def environment(self, driver_env: dict[str, str], tooling: Path, extra: dict[str, str]) -> dict[str, str]:
        env = passed_on(driver_env)
        env.update({
            "HOME": str(self.root / "home"), "TMPDIR": str(self.root / "tmp"),
            "TMP": str(self.root / "tmp"), "TEMP": str(self.root / "tmp"),
            "XDG_CACHE_HOME": str(self.root / "cache"), "MPLCONFIGDIR": str(self.root / "cache" / "matplotlib"),
            "TORCHINDUCTOR_CACHE_DIR": str(self.root / "cache" / "inductor"),
            "TRITON_CACHE_DIR": str(self.root / "cache" / "triton"),
            "PYTHONPATH": os.pathsep.join(map(str, (tooling, *self.shared))),
            "PYTHONUSERBASE": site.getuserbase(),  # user-installed packages stay found
            "PYTHONUNBUFFERED": "1", "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg",
        })
        env.update(extra)
        return env

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


# ---- the checkout, before and after -------------------------------------------------

def _listed(root: Path) -> list[str]:
    """Files of the checkout: tracked ones and new ones git doesn't ignore."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                cwd=root, capture_output=True, timeout=60, check=True)
        return sorted({name for name in listed.stdout.decode("utf-8", "replace").split("\0") if name})
    except (OSError, subprocess.SubprocessError):  # not a git checkout: every file but hidden and built ones
        skip = {"site", "node_modules", "__pycache__"}
        return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                      if p.is_file() and not any(part.startswith(".") or part in skip
                                                 for part in p.relative_to(root).parts))


def _digest(path: Path) -> str:
    try:
        return sha256_of(path)
    except OSError:
        return ""  # gone


def snapshot(root: Path) -> dict[str, str]:
    """The digest of every file of the checkout."""
    return {name: _digest(root / name) for name in _listed(root)}


def changed(root: Path, before: dict[str, str], written: dict[str, str]) -> list[str]:
    """Files of the checkout that differ from the snapshot, but for the outputs the driver wrote
    (``written``: path -> digest of what it wrote), which must still hold just that."""
    after = snapshot(root)
    after.update({name: _digest(root / name) for name in written})
    expected = {**before, **written}
    return sorted(name for name in set(expected) | set(after) if after.get(name, "") != expected.get(name, ""))
