# /// capture
# gpus = 1
# timeout = 240     # about 30 s on an H100: one compile, two short profiles, timings
# exclusive = true
# ///

# %% setup
import time

import torch
import torch.nn.functional as F
from tabulate import tabulate
from torch import nn

import timing
from profiles import lanes, profiled, summary, timeline, top
from timing import compare, overlap, spread

device = "cuda" if torch.cuda.is_available() else "cpu"
dtype = torch.bfloat16 if device == "cuda" else torch.float32
WIDTH, TOKENS = (1024, 4096) if device == "cuda" else (128, 256)


class MLPBlock(nn.Module):
    """LayerNorm, an MLP with a tanh GELU, a residual: a few matrix products
    and many small steps."""

    def __init__(self):
        super().__init__()
        self.norm, self.up, self.down = (
            nn.LayerNorm(WIDTH), nn.Linear(WIDTH, 4 * WIDTH),
            nn.Linear(4 * WIDTH, WIDTH))

    def forward(self, x):
        return x + self.down(
            F.gelu(self.up(self.norm(x)), approximate="tanh"))


torch.manual_seed(0)
model = (nn.Sequential(*[MLPBlock() for _ in range(4)])
         .to(device, dtype).eval())
x = torch.randn(TOKENS, WIDTH, device=device, dtype=dtype)
compiled = torch.compile(model)
torch.set_grad_enabled(False)

# %% profile glue=profiles,difference
eager_prof = profiled(lambda: model(x))
# its untimed first call compiles
compiled_prof = profiled(lambda: compiled(x))
profiles = {"eager": summary(eager_prof), "compiled": summary(compiled_prof)}

# Two measures of the same calls (see the Speedups chapter), eager and
# compiled interleaved in rounds. Back to back: 20 calls queued between two
# CUDA events, the GPU's time per call in a loop that never waits for a
# result. Latency from idle: one call, synchronised before and after, as a
# loop that waits for every result sees it: the GPU has nothing to do until
# the host has launched the call's first kernel. Last, the host's own time:
# from the call to its return, all its kernels launched.
steps = {"eager": lambda: model(x), "compiled": lambda: compiled(x)}
timed = {measure: compare(steps, measure=measure)
         for measure in ("back_to_back", "latency")}


def host_time(step, rounds=15):
    times = []
    for _ in range(rounds):
        timing.sync()
        started = time.perf_counter()
        step()
        times.append((time.perf_counter() - started) * 1000)
    timing.sync()
    return timing.summary(times)


for name, p in profiles.items():
    p["back_to_back"], p["latency"] = (timed["back_to_back"][name],
                                       timed["latency"][name])
    p["host"] = host_time(steps[name])
    # what waiting for each call adds
    p["latency_extra_ms"] = p["latency"]["ms"] - p["back_to_back"]["ms"]
    busy = "—" if p["busy"] is None else f"{p['busy']:.0%}"
    print(f"{name}: {p['kernels']:.0f} kernels per call, "
          f"{p['kernel_us']:.1f} µs of kernels per call, "
          f"GPU busy {busy}")
    print(f"    back to back:      {spread(p['back_to_back'])}")
    print(f"    latency from idle: {spread(p['latency'])}")
    print(f"    on the host, from the call to its return: "
          f"{p['host']['ms']:.3f} ms")

eager, comp = profiles["eager"], profiles["compiled"]
difference = {"kernels_ms": (comp["kernel_us"] - eager["kernel_us"]) / 1000,
              "host_ms": comp["host"]["ms"] - eager["host"]["ms"]}
for measure in timed:
    difference[f"{measure}_ms"] = comp[measure]["ms"] - eager[measure]["ms"]
    difference[f"{measure}_overlap"] = overlap(eager[measure], comp[measure])
print("compiled minus eager, per call:",
      ", ".join(f"{what} {difference[what + '_ms']:+.3f} ms" for what in
                ("kernels", "back_to_back", "latency", "host")))
for measure in timed:
    overlap = difference[measure + "_overlap"]
    print(f"{measure}: the ranges "
          f"{'overlap' if overlap else 'do not overlap'}")
print("compiled regions in the compiled profile:",
      *profiles["compiled"]["regions"], sep="\n    ")

# %% top-kernels
for name, prof in (("eager", eager_prof), ("compiled", compiled_prof)):
    print(f"{name}:")
    print(tabulate([(kernel, f"{n:g}", f"{us:.1f}", f"{share:.0%}")
                    for kernel, n, us, share in top(prof)],
                   headers=["kernel", "per call", "µs per call", "share"]))
    print()

# %% key-averages
# The profiler's own table, sorted by time on the device: the same kernels,
# plus the operators that launched them (for the compiled model, one
# "Torch-Compiled Region" for the whole model).
sort_by = ("self_device_time_total" if device == "cuda"
           else "self_cpu_time_total")
print(compiled_prof.key_averages().table(
    sort_by=sort_by, row_limit=8, max_name_column_width=50))

# %% timeline
import matplotlib.pyplot as plt

# narrow, so that its type stays readable on a phone
fig, axes = plt.subplots(2, 1, figsize=(4.2, 3.2), sharex=True)
for ax, (name, prof) in zip(axes, (("eager", eager_prof),
                                   ("compiled", compiled_prof))):
    timeline(ax, prof, f"{name}: {len(lanes(prof)['CPU: step()'])} calls")
axes[-1].set_xlabel("time since the first call started (ms)")
fig.tight_layout()
