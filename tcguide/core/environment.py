"""Where a capture ran: GPU model and count, driver, CUDA, torch, torchvision, Triton, Python,
the host CPU and how fast it was as the capture began (``host_probe``), and how it ran (compile
threads, files side by side).

``Environment`` is that record, read from what a stored output holds (``Environment.of``):
``fingerprint()`` is the part that decides what a file prints, and so the freshness policy in
one place; ``describe()`` the short label the site and notebooks show. ``collect()`` reads this
machine's, run as ``python3 -m tcguide.core.environment`` (in a subprocess, so the capture
driver itself never imports torch or touches CUDA), which prints it as one JSON object.
Stdlib only.
"""

from __future__ import annotations

import json
import platform
import shutil
import statistics
import subprocess
import time
from dataclasses import dataclass, field
from importlib import metadata

from tcguide.core.output_format import FORMAT


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


PROBE_ROUNDS = 7
PROBE_LOOP = 200_000  # iterations of the Python loop: about 13 ms on the host of an H100 capture machine
PROBE_OPS = 10_000  # tensor additions per round


def _python_loop() -> None:
    table: dict[int, int] = {}
    for i in range(PROBE_LOOP):
        key = i & 255
        table[key] = table.get(key, 0) + 1


def host_probe() -> dict:
    """How fast this host runs the work that paces host-bound timings, measured once as a capture
    begins: the median over rounds of a fixed Python loop (calls and dictionary lookups, the kind of
    work guards do), in µs (``host_loop_us``), and where torch is installed, of one eager addition of
    two one-element CPU tensors (Python, the dispatcher, an allocation: what every eager launch pays),
    in ns (``host_op_ns``): whole numbers, as the stored format keeps an environment's values. Machines
    of one GPU model differ in both, and so do their host-paced figures; a busy machine shows here too.
    A recapture report compares the two sides' probes."""
    rounds = []
    for _ in range(PROBE_ROUNDS):
        started = time.perf_counter()
        _python_loop()
        rounds.append(time.perf_counter() - started)
    probe = {"host_loop_us": round(statistics.median(rounds) * 1e6)}
    try:
        import torch
    except ImportError:
        return probe
    a, b = torch.ones(1), torch.ones(1)
    rounds = []
    for _ in range(PROBE_ROUNDS):
        started = time.perf_counter()
        for _ in range(PROBE_OPS):
            torch.add(a, b)
        rounds.append(time.perf_counter() - started)
    probe["host_op_ns"] = round(statistics.median(rounds) / PROBE_OPS * 1e9)
    return probe


# How it ran, not what it ran on. The host CPU and its probe are recorded (host-side time depends on
# them) but, like the driver's patch level, are no reason to recapture: machines of one GPU model differ.
CONDITIONS = {"captured_at", "compile_threads", "side_by_side", "host_cpu", "host_loop_us", "host_op_ns"}


@dataclass(frozen=True)
class Environment:
    """The environment a stored output records, by name (kept as recorded: a key this tooling
    does not name still counts in the fingerprint)."""

    recorded: dict = field(default_factory=dict)

    @classmethod
    def of(cls, recorded: dict) -> "Environment":
        return cls(dict(recorded))

    @classmethod
    def collect(cls) -> "Environment":
        """This machine's environment (imports torch: run it in a process of its own)."""
        return cls(collect())

    def fingerprint(self) -> dict:
        """The environment as far as it decides what a file prints.

        Neither a driver's patch level nor Python's does: the driver counts by its major version,
        Python by major.minor; how it ran (``CONDITIONS``) does not count at all."""
        found = {k: v for k, v in self.recorded.items() if k not in CONDITIONS}
        if found.get("driver"):
            found["driver"] = str(found["driver"]).split(".")[0]
        if found.get("python"):
            found["python"] = ".".join(str(found["python"]).split(".")[:2])
        return found

    def describe(self) -> str:
        """A short human label: '2 × NVIDIA H200 · torch 2.11.0 · CUDA 13.0'."""
        env = self.recorded
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


def collect() -> dict:
    """This machine's environment, as a stored output records it."""
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
        return {**env, **host_probe()}
    env["torch"] = torch.__version__
    env["cuda"] = torch.version.cuda or ""
    if torch.cuda.is_available():
        env["gpu_count"] = torch.cuda.device_count()
        env["gpu"] = torch.cuda.get_device_name(0)
        env["driver"] = _driver()
    return {**env, **host_probe()}


if __name__ == "__main__":
    print(json.dumps(collect(), sort_keys=True))
