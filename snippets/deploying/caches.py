# /// capture
# gpus = 1
# timeout = 360
# exclusive = true
# ///

# %% setup
import os
import subprocess
import sys
import tempfile
import textwrap
import time

import torch
from torch._dynamo.utils import counters

device = "cuda" if torch.cuda.is_available() else "cpu"

# The same model code runs in this process and in the fresh processes below.
MODEL_CODE = textwrap.dedent("""
    import torch
    from torch import nn

    def build_model(device):
        return nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10),
        ).to(device)
""")
exec(MODEL_CODE)


def first_call_seconds(model, x):
    """Time one call of a freshly compiled model: this is the compile time."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    model(x)
    torch.cuda.synchronize()
    return time.perf_counter() - start


x = torch.randn(16, 3, 64, 64, device=device)

# %% cold-and-warm
model = build_model(device)

counters.clear()
cold = first_call_seconds(torch.compile(model), x)
print(f"cold compile: {cold:5.1f} s   FX graph cache hits/misses:",
      counters["inductor"]["fxgraph_cache_hit"], counters["inductor"]["fxgraph_cache_miss"])

torch._dynamo.reset()  # drop every compiled graph held in memory
counters.clear()
warm = first_call_seconds(torch.compile(model), x)
print(f"warm compile: {warm:5.1f} s   FX graph cache hits/misses:",
      counters["inductor"]["fxgraph_cache_hit"], counters["inductor"]["fxgraph_cache_miss"])

# %% save-artifacts
artifact_bytes, cache_info = torch.compiler.save_cache_artifacts()
print(f"{len(artifact_bytes) / 1024:.0f} KiB of cache artifacts")
for kind in ("inductor", "aot_autograd", "autotune", "pgo"):
    print(f"  {kind} entries: {len(getattr(cache_info, kind + '_artifacts'))}")

artifact_path = os.path.join(tempfile.mkdtemp(), "compile_artifacts.bin")
with open(artifact_path, "wb") as f:
    f.write(artifact_bytes)

# %% fresh-process
CHILD = MODEL_CODE + textwrap.dedent("""
    import sys, time

    if len(sys.argv) > 1:  # a path to saved artifacts
        with open(sys.argv[1], "rb") as f:
            torch.compiler.load_cache_artifacts(f.read())

    torch.manual_seed(0)
    model = torch.compile(build_model("cuda"))
    x = torch.randn(16, 3, 64, 64, device="cuda")
    torch.cuda.synchronize()
    start = time.perf_counter()
    model(x)
    torch.cuda.synchronize()
    print(f"{time.perf_counter() - start:.1f}")
""")


def compile_in_fresh_process(*args):
    """Run CHILD in a new Python process whose compile caches start empty."""
    empty = tempfile.mkdtemp()
    env = dict(os.environ,
               TORCHINDUCTOR_CACHE_DIR=os.path.join(empty, "inductor"),
               TRITON_CACHE_DIR=os.path.join(empty, "triton"))
    done = subprocess.run([sys.executable, "-c", CHILD, *args], env=env,
                          capture_output=True, text=True, check=True)
    return float(done.stdout.split()[-1])


print(f"fresh process, empty cache:       {compile_in_fresh_process():5.1f} s")
print(f"fresh process, artifacts loaded:  {compile_in_fresh_process(artifact_path):5.1f} s")
