# /// capture
# gpus = 1
# timeout = 240     # about 30 s on an H100: three small compiles and one child process
# exclusive = false
# ///

# %% setup
import json
import os
import re
import subprocess
import sys
from collections import Counter

import torch

device = "cuda" if torch.cuda.is_available() else "cpu"

# %% perf-hints
# perf_hints logs what Inductor could not optimise. Here: topk has no
# Inductor lowering, so it runs as the ATen kernel ("FallbackKernel") and the
# pointwise work around it cannot fuse into it.
def top_k_probs(logits, k: int = 50):
    values, indices = torch.topk(logits / 0.7, k)
    return torch.softmax(values, dim=-1), indices


torch._logging.set_logs(perf_hints=True)
torch.compile(top_k_probs)(torch.randn(8, 32000, device=device))
torch._logging.set_logs()  # back to the defaults

# %% output-code
# output_code logs the Python module Inductor generated for each graph: its
# kernels (Triton on a GPU, C++ on a CPU) and the call() function that
# launches them, and where the file is.
def scaled_softplus(x):
    return torch.nn.functional.softplus(x) * 2


torch._logging.set_logs(output_code=True)
torch.compile(scaled_softplus)(torch.randn(1024, device=device))
torch._logging.set_logs()

# %% trace glue=trace
# TORCH_TRACE makes a process write a structured trace of every compilation
# into a folder: the input of tlparse. A child process compiles a function
# with a graph break, then recompiles it.
CHILD = """
import torch

def f(x):
    y = torch.sin(x) * 2
    if y.sum() > 0:  # depends on the values: a graph break
        return y.cos()
    return y.tan()

g = torch.compile(f)
g(torch.randn(64, device=DEVICE))
g(torch.randn(128, device=DEVICE))  # a new size: a recompile
""".replace("DEVICE", repr(device))
# inside this file's working directory
folder = os.path.abspath("torch_trace")
subprocess.run([sys.executable, "-c", CHILD],
               env=dict(os.environ, TORCH_TRACE=folder), check=True)

trace = {"files": [], "records": Counter(), "compile_ids": []}
for name in sorted(os.listdir(folder)):
    trace["files"].append(
        {"name": name,
         "kib": os.path.getsize(os.path.join(folder, name)) / 1024})
    with open(os.path.join(folder, name)) as f:
        for line in f:
            record = re.match(r"^\S+ \S+ \d+ \S+\] (\{.*)$",
                              line.rstrip("\n"))
            if not record:
                # a payload line: the text of the record above it
                continue
            data = json.loads(record.group(1))
            kind = next(k for k in data
                        if k not in ("frame_id", "frame_compile_id",
                                     "attempt", "has_payload"))
            trace["records"][kind] += 1
            if kind == "compilation_metrics":
                trace["compile_ids"].append(
                    f"{data['frame_id']}/{data['frame_compile_id']}")

for file in trace["files"]:
    print(f"{file['name']}: {file['kib']:,.0f} KiB")
print("records:", ", ".join(
    f"{k} {n}" for k, n in trace["records"].most_common()))
print("compilations (frame/compile):", ", ".join(trace["compile_ids"]))
trace["records"] = dict(trace["records"])
