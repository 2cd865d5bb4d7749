# /// capture
# gpus = 1
# timeout = 480     # about 150 s on an H100: seven fresh processes, each compiling the model once
# exclusive = true
# ///

# %% setup
import json
import os
import subprocess
import sys
import tempfile

import torch
from tabulate import tabulate

# the timing helpers (snippets/_shared/timing.py), which the child
# processes import too
import timing
import model  # the transformer of model.py, beside this file

# What one fresh process does: optionally load cache artifacts, build the
# model, compile it one way, time the first call (the compile) apart from
# the steady state, report what the compiler did, and optionally save the
# cache artifacts of everything it compiled.
CHILD = """
import json, sys, torch
from torch._dynamo.utils import compile_times, counters
from timing import back_to_back, first_call
from model import STRATEGIES, build

strategy, load_from, save_to = sys.argv[1:4]
if load_from != "-":
    with open(load_from, "rb") as f:
        torch.compiler.load_cache_artifacts(f.read())
block, compile_it = STRATEGIES[strategy]
net, x = build(block)
net = compile_it(net)
counters.clear()  # count this compile only
with torch.no_grad():
    first_s = first_call(lambda: net(x))
    # the GPU's time per call, calls queued
    steady = back_to_back(lambda: net(x))
# Read the counters afresh: the first compile of a process replaces
# counters["inductor"].
inductor, aot = counters["inductor"], counters["aot_autograd"]
names, values = compile_times(repr="csv", aggregate=True)
stage = {n: float(v) for n, v in zip(names, values)}
total = stage.get("_compile.compile_inner", 0.0)
backend = stage.get("OutputGraph.call_user_compiler", 0.0)
inductor_s = stage.get("compile_fx_inner", 0.0)
result = {
    "first_s": first_s, **steady,
    "graphs": counters["stats"]["unique_graphs"],
    "fx_hits": inductor["fxgraph_cache_hit"],
    "fx_misses": inductor["fxgraph_cache_miss"],
    "aot_hits": aot["autograd_cache_hit"],
    "aot_misses": aot["autograd_cache_miss"],
    "dynamo_s": total - backend, "aot_s": backend - inductor_s,
    "inductor_s": inductor_s,
}
if save_to != "-":
    data, info = torch.compiler.save_cache_artifacts()
    with open(save_to, "wb") as f:
        f.write(data)
    result["saved_kib"] = len(data) / 1024
    result["saved"] = {
        kind: len(getattr(info, kind + "_artifacts", []))
        for kind in ("inductor", "aot_autograd", "autotune", "pgo",
                     "precompile")}
print(json.dumps(result))
"""


def run_fresh(strategy, cache, load_from="-", save_to="-"):
    """Run CHILD in a new Python process whose compile caches live in the
    folder `cache`."""
    env = dict(os.environ,
               PYTHONPATH=os.pathsep.join(
                   os.path.dirname(os.path.abspath(m.__file__))
                   for m in (model, timing)),
               TORCHINDUCTOR_CACHE_DIR=os.path.join(cache, "inductor"),
               TRITON_CACHE_DIR=os.path.join(cache, "triton"))
    done = subprocess.run(
        [sys.executable, "-c", CHILD, strategy, load_from, save_to],
        env=env, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines()[-1] if done.stderr.strip()
                else "no message")
        print(f"{strategy}: the process failed with exit status "
              f"{done.returncode}: {last}")
        return {"error": last}
    return json.loads(done.stdout.strip().splitlines()[-1])


def cache_counts(r):
    return (f"{r['fx_hits']}/{r['fx_misses']}",
            f"{r['aot_hits']}/{r['aot_misses']}")


# %% cold-and-warm glue=runs
# Each way of compiling gets its own empty cache folder: the first process
# compiles cold and fills it, the second one is a restart that finds the
# first one's work there. The cold whole-model process also saves portable
# cache artifacts (used further down).
artifact_path = os.path.join(tempfile.mkdtemp(), "compile_artifacts.bin")
runs = {}
for strategy in model.STRATEGIES:
    cache = tempfile.mkdtemp()
    cold = run_fresh(strategy, cache,
                     save_to=artifact_path if strategy == "whole" else "-")
    runs[strategy] = {"cold": cold, "warm": run_fresh(strategy, cache)}

rows = []
for strategy, both in runs.items():
    for start, r in both.items():
        if "error" in r:
            rows.append([strategy, start, "failed"])
            continue
        rows.append([strategy, start, f"{r['first_s']:.1f}",
                     f"{r['ms']:.2f}", f"{r['p10']:.2f}–{r['p90']:.2f}",
                     r["graphs"], *cache_counts(r)])
print(tabulate(rows, headers=["compiled", "start", "first call (s)",
                              "median (ms)", "p10–p90 (ms)", "graphs",
                              "FX graph cache hit/miss",
                              "AOTAutograd cache hit/miss"]))

# %% where-the-time-goes
# Each first call's compile, split by stage
# (torch._dynamo.utils.compile_times): Dynamo tracing the Python code and
# building guards; AOTAutograd (on a warm start: loading from its cache);
# Inductor lowering, generating code and compiling kernels.
rows = [[strategy, start, f"{r['dynamo_s']:.1f}", f"{r['aot_s']:.1f}",
         f"{r['inductor_s']:.1f}"]
        for strategy, both in runs.items() for start, r in both.items()
        if "error" not in r]
print(tabulate(rows, headers=["compiled", "start", "Dynamo (s)",
                              "AOTAutograd (s)", "Inductor (s)"]))

# %% chart
import matplotlib.pyplot as plt

ok = [s for s in runs if all("error" not in r for r in runs[s].values())]
ok = ok[::-1]  # the first setting on top
# two panels one above the other, one bar a row: readable on a phone
fig, (top, bottom) = plt.subplots(2, 1, figsize=(4.2, 4.6))
height = 0.38
for i, start in enumerate(("cold", "warm")):
    bars = top.barh([j - (i - 0.5) * height for j in range(len(ok))],
                    [runs[s][start]["first_s"] for s in ok],
                    height, label=f"{start} start",
                    color=("#ff9800", "#3f51b5")[i])
    top.bar_label(bars, fmt="%.1f", fontsize=10, padding=3)
top.set_yticks(range(len(ok)), ok)
top.set_xlabel("first call (s)")
top.legend(fontsize=10, loc="lower right")
steady = [runs[s]["cold"] for s in ok]
bottom.barh(ok, [r["ms"] for r in steady], color="#3f51b5",
            xerr=[[r["ms"] - r["p10"] for r in steady],
                  [r["p90"] - r["ms"] for r in steady]], capsize=4)
bottom.set_xlabel("forward pass, median (ms)")
for ax in (top, bottom):
    ax.tick_params(labelsize=10)
    ax.margins(x=0.2)
fig.suptitle(f"{model.LAYERS}-block transformer, inference,\n"
             f"{model.device}", fontsize=10)
fig.tight_layout()

# %% artifacts glue=artifacts
# What the cold whole-model process saved with
# torch.compiler.save_cache_artifacts()
cold = runs["whole"]["cold"]
artifacts = ({"kib": cold["saved_kib"], **cold["saved"]}
             if "error" not in cold else cold)
if "error" not in cold:
    print(f"{artifacts['kib']:,.0f} KiB of cache artifacts")
    for kind, count in cold["saved"].items():
        print(f"  {kind:13} {count} entries")

# %% artifacts-loaded glue=loaded
# A new process with new, empty cache folders (another machine, say) loads
# the artifacts with torch.compiler.load_cache_artifacts() before it
# compiles.
loaded = run_fresh("whole", tempfile.mkdtemp(), load_from=artifact_path)
if "error" not in loaded:
    fx, aot = cache_counts(loaded)
    print(f"artifacts loaded: first call {loaded['first_s']:.1f} s "
          f"(cold {runs['whole']['cold']['first_s']:.1f} s, "
          f"warm restart {runs['whole']['warm']['first_s']:.1f} s)")
    print(f"FX graph cache hit/miss {fx}, AOTAutograd cache hit/miss {aot}")

# %% cache-settings glue=settings
# The caches of this torch, whether each is on, and the variable that
# switches it.
caches = [
    ("FX graph cache, local", "fx_graph",
     torch._inductor.config.fx_graph_cache, "TORCHINDUCTOR_FX_GRAPH_CACHE"),
    ("AOTAutograd cache, local", "aot_autograd",
     torch._functorch.config.enable_autograd_cache,
     "TORCHINDUCTOR_AUTOGRAD_CACHE"),
    ("autotuning results, local", "autotune",
     torch._inductor.config.autotune_local_cache, "-"),
    ("FX graph cache, remote", "fx_graph_remote",
     torch._inductor.config.fx_graph_remote_cache,
     "TORCHINDUCTOR_FX_GRAPH_REMOTE_CACHE"),
    ("AOTAutograd cache, remote", "aot_autograd_remote",
     torch._functorch.config.enable_remote_autograd_cache,
     "TORCHINDUCTOR_AUTOGRAD_REMOTE_CACHE"),
    ("autotuning results, remote", "autotune_remote",
     torch._inductor.config.autotune_remote_cache,
     "TORCHINDUCTOR_AUTOTUNE_REMOTE_CACHE"),
]
print(tabulate([[name, {True: "on", False: "off", None: "off (not set)"}[on],
                 variable]
                for name, _, on, variable in caches],
               headers=["cache", "here", "switched by"]))
print("cache folder: TORCHINDUCTOR_CACHE_DIR (and TRITON_CACHE_DIR for "
      "Triton's own kernels)")
print("remote caches use a Redis server: TORCHINDUCTOR_REDIS_HOST, "
      "TORCHINDUCTOR_REDIS_PORT")
settings = {key: on for _, key, on, _ in caches}
