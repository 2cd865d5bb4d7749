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

import torch
from torch._dynamo.utils import counters

import timing  # the guide's timing helpers, which the processes below use

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

x = torch.randn(16, 3, 64, 64, device=device)

# %% cold-and-warm glue=compiles
def cache_counts():
    """Lookups in Inductor's FX graph cache and in AOTAutograd's cache
    since counters.clear() (read afresh: compiling replaces the objects)."""
    fx, aot = counters["inductor"], counters["aot_autograd"]
    return {"fx_hits": fx["fxgraph_cache_hit"],
            "fx_misses": fx["fxgraph_cache_miss"],
            "aot_hits": aot["autograd_cache_hit"],
            "aot_misses": aot["autograd_cache_miss"],
            "aot_bypasses": aot["autograd_cache_bypass"]}


compiles = {}
model = build_model(device)
for run in ("cold", "warm"):
    torch._dynamo.reset()  # drop every compiled graph held in memory
    counters.clear()
    compiled = torch.compile(model)
    # the first call of a freshly compiled model: its compile time
    seconds = timing.first_call(lambda: compiled(x))
    compiles[run] = c = {"seconds": seconds, **cache_counts()}
    print(f"{run} compile: {seconds:4.1f} s")
    print(f"  FX graph cache hits/misses: {c['fx_hits']}/{c['fx_misses']}")
    print("  AOTAutograd cache hits/misses/bypasses: "
          f"{c['aot_hits']}/{c['aot_misses']}/{c['aot_bypasses']}")

# %% save-artifacts glue=artifacts
artifact_bytes, cache_info = torch.compiler.save_cache_artifacts()
print(f"{len(artifact_bytes) / 1024:.0f} KiB of cache artifacts")
artifacts = {"kib": len(artifact_bytes) / 1024}
for kind in ("inductor", "aot_autograd", "autotune", "pgo"):
    artifacts[kind] = len(getattr(cache_info, kind + "_artifacts"))
    print(f"  {kind} entries: {artifacts[kind]}")

artifact_path = os.path.join(tempfile.mkdtemp(), "compile_artifacts.bin")
with open(artifact_path, "wb") as f:
    f.write(artifact_bytes)

# %% fresh-process glue=fresh
CHILD = MODEL_CODE + textwrap.dedent("""
    import sys
    from timing import first_call

    device = sys.argv[1]
    if len(sys.argv) > 2:  # a path to saved artifacts
        with open(sys.argv[2], "rb") as f:
            torch.compiler.load_cache_artifacts(f.read())

    torch.manual_seed(0)
    model = torch.compile(build_model(device))
    x = torch.randn(16, 3, 64, 64, device=device)
    print(first_call(lambda: model(x)))  # its compile time, in seconds
""")


def compile_in_fresh_process(*args):
    """Run CHILD in a new Python process whose compile caches start empty."""
    empty = tempfile.mkdtemp()
    env = dict(os.environ,
               PYTHONPATH=os.path.dirname(os.path.abspath(timing.__file__)),
               TORCHINDUCTOR_CACHE_DIR=os.path.join(empty, "inductor"),
               TRITON_CACHE_DIR=os.path.join(empty, "triton"))
    done = subprocess.run([sys.executable, "-c", CHILD, device, *args],
                          env=env, capture_output=True, text=True,
                          check=True)
    return float(done.stdout.split()[-1])


fresh = {"empty_s": compile_in_fresh_process(),
         "loaded_s": compile_in_fresh_process(artifact_path)}
print(f"fresh process, empty cache:       {fresh['empty_s']:5.1f} s")
print(f"fresh process, artifacts loaded:  {fresh['loaded_s']:5.1f} s")
