# /// capture
# gpus = 1
# timeout = 300     # about 55 s on an H100: one compile of Adam's step, then three small compiles
# exclusive = true
# ///

# %% setup
import statistics
import time
from collections import Counter

import torch
from tabulate import tabulate
from torch._dynamo.utils import counters

import profiles
from timing import CUDA, compare, first_call, sync
from model import build, loss_of

model, batch = build()
# gradients for the optimizer steps below to apply
loss_of(model, *batch).backward()
params = list(model.parameters())


def kernels(step):
    """The GPU kernels one call of step() launches: {kernel name: launches}
    (None without CUDA)."""
    if not CUDA:
        return None
    return dict(Counter(e.name for e in profiles.kernels(
        profiles.profiled(step, calls=1))))


def kernel_ms(step):
    """GPU time of one call's kernels, in ms (None without CUDA)."""
    if not CUDA:
        return None
    return profiles.summary(profiles.profiled(step))["kernel_us"] / 1000


def host_ms(steps, calls=20, rounds=15):
    """Host time to issue one call of each step, in ms: the median over
    rounds, the steps interleaved, of `calls` calls issued without waiting
    for the GPU, which finishes its work between rounds."""
    times = {name: [] for name in steps}
    for _ in range(rounds):
        for name, step in steps.items():
            sync()
            started = time.perf_counter()
            for _ in range(calls):
                step()
            times[name].append((time.perf_counter() - started) * 1000
                               / calls)
    sync()
    return {name: statistics.median(t) for name, t in times.items()}


# %% adam-variants glue=adam
def compiled_adam(params):
    opt = torch.optim.Adam(params, lr=1e-3)

    @torch.compile
    def step():
        opt.step()

    return step


variants = {
    # eager; the default on a GPU
    "foreach": lambda p: torch.optim.Adam(p, lr=1e-3, foreach=True).step,
    # eager, one CUDA kernel per group
    "fused": lambda p: torch.optim.Adam(p, lr=1e-3, fused=True).step,
    "compiled": compiled_adam,
}
steps = {name: make(params) for name, make in variants.items()}
adam = {}
for name, step in steps.items():
    # creates the optimizer's state; compiles for "compiled"
    first_s = first_call(step)
    launched = kernels(step)
    adam[name] = {"first_s": first_s,
                  "kernels": (None if launched is None
                              else sum(launched.values())),
                  "distinct": None if launched is None else len(launched)}
    if launched:
        top = sorted(launched.items(), key=lambda kv: -kv[1])[:3]
        adam[name]["top"] = [f"{count} × {kernel[:70]}"
                             for kernel, count in top]
# Optimizer steps are a training loop's: timed back to back (GPU time per
# step), the three interleaved in rounds, each warmed first. Each step
# updates the same parameters in place.
timed = compare(steps, measure="back_to_back")
for name in adam:
    adam[name].update(timed[name])

print(f"Adam over {len(params)} parameter tensors, "
      f"{sum(p.numel() for p in params) / 1e6:.1f} M values")
print(tabulate([[name, f"{r['first_s']:.2f}", f"{r['ms']:.3f}",
                 f"{r['p10']:.3f}–{r['p90']:.3f}", r["kernels"],
                 r["distinct"]] for name, r in adam.items()],
               headers=["Adam step", "first call (s)",
                        "back to back, median (ms)", "p10–p90 (ms)",
                        "kernels launched", "distinct kernels"]))
for name, r in adam.items():
    for line in r.get("top", []):
        print(f"{name:9} {line}")

# Back to back, a step takes the longer of two times: its kernels' on the
# GPU, and the host's to issue it (Python, guards, launches).
issued = host_ms(steps)
for name, step in steps.items():
    adam[name]["kernel_ms"] = kernel_ms(step)
    adam[name]["host_ms"] = issued[name]
print()
print(tabulate([[name, r["kernel_ms"] and f"{r['kernel_ms']:.3f}",
                 f"{r['host_ms']:.3f}", f"{r['ms']:.3f}"]
                for name, r in adam.items()],
               headers=["Adam step", "its kernels on the GPU (ms)",
                        "host, to issue it (ms)", "back to back (ms)"]))

# %% lr-scheduler glue=schedules
# A scheduler changes the learning rate after every step. Stored as a Python
# float, each new value is a constant the compiled step was specialised on;
# stored as a tensor, it is an input.
def scheduled_steps(lr, steps=4):
    torch._dynamo.reset()
    small = torch.nn.Sequential(*[torch.nn.Linear(256, 256)
                                  for _ in range(3)]).to(params[0].device)
    small(torch.randn(8, 256, device=params[0].device)).sum().backward()
    opt = torch.optim.Adam(small.parameters(), lr=lr)
    scheduler = torch.optim.lr_scheduler.LinearLR(
        opt, start_factor=1.0, end_factor=0.5, total_iters=steps)

    @torch.compile
    def step():
        opt.step()

    counters.clear()
    seconds = []
    for _ in range(steps):
        seconds.append(first_call(step))
        scheduler.step()
    return {"graphs": counters["stats"]["unique_graphs"], "seconds": seconds}


schedules = {"float": scheduled_steps(0.01),
             "tensor": scheduled_steps(torch.tensor(0.01))}
for kind, s in schedules.items():
    print(f"lr as a {kind:6}: {s['graphs']} graphs compiled; "
          f"each step's first call (s):",
          ", ".join(f"{t:.2f}" for t in s["seconds"]))
