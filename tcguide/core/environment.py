"""Where a capture ran: GPU model and count, driver, CUDA, torch, torchvision, Python.

Run as ``python3 -m tcguide.core.environment`` (in a subprocess, so the capture driver
itself never imports torch or touches CUDA); prints one JSON object.
"""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
from importlib import metadata

from tcguide.core.store import FORMAT


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return ""


def _driver() -> str:
    if not shutil.which("nvidia-smi"):
        return ""
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=20, check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.splitlines()[0].strip() if out.strip() else ""


def host_cpu() -> str:
    """The host CPU's model name: host-side time (launches, guards, Python) depends on it."""
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8", errors="replace"):
            if line.startswith("model name"):
                return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    return platform.processor() or ""


def collect() -> dict:
    env = {
        "python": platform.python_version(),
        "host_cpu": host_cpu(),
        "torch": "", "torchvision": _version("torchvision"), "triton": _version("triton"),
        "cuda": "", "gpu": "", "gpu_count": 0, "driver": "",
        "tooling": FORMAT,
    }
    try:
        import torch
    except ImportError:
        return env
    env["torch"] = torch.__version__
    env["cuda"] = torch.version.cuda or ""
    if torch.cuda.is_available():
        env["gpu_count"] = torch.cuda.device_count()
        env["gpu"] = torch.cuda.get_device_name(0)
        env["driver"] = _driver()
    return env


def describe(env: dict) -> str:
    """A short human label: '2 × NVIDIA H200 · torch 2.11.0 · CUDA 13.0'."""
    parts = []
    if env.get("gpu"):
        count = env.get("gpu_count", 1)
        parts.append(f"{count} × {env['gpu']}" if count > 1 else env["gpu"])
    else:
        parts.append("CPU")
    if env.get("torch"):
        parts.append("torch " + env["torch"].split("+")[0])
    if env.get("cuda"):
        parts.append("CUDA " + env["cuda"])
    return " · ".join(parts)


if __name__ == "__main__":
    print(json.dumps(collect(), sort_keys=True))
