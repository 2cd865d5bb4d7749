"""The project's settings: the ``[tool.tcguide]`` table of pyproject.toml, read in this one place.

- ``machine``: the machine class that captures a snippet file unless its capture block names another;
- ``needs-cuda``: the cells a notebook cannot run without CUDA, "topic/file.py[#cell]" → why;
- ``colab-gpu``: the GPU type a chapter's notebook asks Colab for (its ``gpuType``).

A missing file or table gives the defaults; a malformed one is an error for every command alike
(capture once fell back to the default machine where the notebooks stopped).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from tcguide.core.errors import GuideError

DEFAULT_MACHINE = "h100"
DEFAULT_COLAB_GPU = "A100"
FILE = "pyproject.toml"


@dataclass(frozen=True)
class Settings:
    machine: str = DEFAULT_MACHINE
    needs_cuda: dict[str, str] = field(default_factory=dict)
    colab_gpu: str = DEFAULT_COLAB_GPU


def load(root: Path) -> Settings:
    """The settings of the project at ``root``."""
    try:
        with open(Path(root) / FILE, "rb") as handle:
            table = tomllib.load(handle).get("tool", {}).get("tcguide", {})
    except FileNotFoundError:
        return Settings()
    except tomllib.TOMLDecodeError as exc:
        raise GuideError(FILE, None, f"malformed TOML ({exc})", "fix the TOML syntax at the place it names") from None
    if not isinstance(table, dict):
        raise GuideError(FILE, None, "[tool.tcguide] is not a table", "write it as a [tool.tcguide] section")
    machine = table.get("machine", DEFAULT_MACHINE)
    if not isinstance(machine, str) or not machine:
        raise GuideError(FILE, None, "[tool.tcguide] machine must be a machine class (text)",
                         f'write machine = "{DEFAULT_MACHINE}", say')
    cuda = table.get("needs-cuda", {})
    if not isinstance(cuda, dict) or not all(isinstance(v, str) for v in cuda.values()):
        raise GuideError(FILE, None, "[tool.tcguide.needs-cuda] must map cells to reasons (text)",
                         'write "topic/file.py#cell" = "why it needs CUDA"')
    colab_gpu = table.get("colab-gpu", DEFAULT_COLAB_GPU)
    if not isinstance(colab_gpu, str) or not colab_gpu:
        raise GuideError(FILE, None, "[tool.tcguide] colab-gpu must be one of Colab's GPU types (text)",
                         f'write colab-gpu = "{DEFAULT_COLAB_GPU}", say')
    return Settings(machine, dict(cuda), colab_gpu)
