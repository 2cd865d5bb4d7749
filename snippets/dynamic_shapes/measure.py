# /// capture
# gpus = 1
# timeout = 360
# exclusive = true
# ///

# %% setup
import statistics
import time

import torch
from tabulate import tabulate

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.set_float32_matmul_precision("high")


def sync():
    if device == "cuda":
        torch.cuda.synchronize()


def wall_ms(fn, *args):
    """Wall time of one call in milliseconds, GPU work included."""
    sync()
    start = time.perf_counter()
    fn(*args)
    sync()
    return (time.perf_counter() - start) * 1000


def per_call_ms(fn, *args, calls=100, repeats=5):
    """Median over repeats of the average time per call in a loop of calls."""
    for _ in range(10):  # warm-up
        fn(*args)
    times = []
    for _ in range(repeats):
        sync()
        start = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        sync()
        times.append((time.perf_counter() - start) * 1000 / calls)
    return statistics.median(times)


class GraphCounter:
    """A backend that counts graphs, then hands each one to Inductor."""

    def __init__(self):
        self.count = 0

    def __call__(self, gm, example_inputs):
        self.count += 1
        return torch._inductor.compile(gm, example_inputs)


def make_block(salt):
    # salt: a distinct constant per setting, so that no setting reuses kernels
    # that an earlier one left in the compile caches
    def block(x, w, b):
        h = torch.nn.functional.gelu(x @ w + b)
        return torch.nn.functional.layer_norm(h * salt + x, h.shape[-1:])

    return block


width = 2048
w = torch.randn(width, width, device=device) / width**0.5
b = torch.randn(width, device=device)
sizes = [256, 384, 512, 768, 1024, 1536]
inputs = [torch.randn(n, width, device=device) for n in sizes]
print("batch sizes:", sizes)

# pay one-time start-up costs (compiler imports, worker processes) before measuring
torch.compile(lambda t: torch.relu(t) + 1)(torch.randn(8, device=device))

# %% compare-settings glue=results
settings = {  # short key: (name in the table, torch.compile arguments)
    "default": ("default (automatic dynamic)", {}),
    "dynamic": ("dynamic=True", {"dynamic": True}),
    "static": ("dynamic=False", {"dynamic": False}),
    "mark_dynamic": ("mark_dynamic(x, 0)", {}),
}

rows, results = [], {}
for salt, (key, (name, kwargs)) in enumerate(settings.items(), start=1):
    torch._dynamo.reset()
    counter = GraphCounter()
    block = make_block(1.0 + salt / 1000)
    compiled = torch.compile(block, backend=counter, **kwargs)
    if name.startswith("mark_dynamic"):
        torch._dynamo.mark_dynamic(inputs[0], 0)

    # first call with each size: compile time (if any) plus one run
    first_calls = sum(wall_ms(compiled, x, w, b) for x in inputs) / 1000
    # steady state: time per call once compiled, averaged over the sizes
    steady = statistics.mean(per_call_ms(compiled, x, w, b) for x in inputs)
    rows.append([name, counter.count, f"{first_calls:.2f}", f"{steady:.3f}"])
    results[key] = {"graphs": counter.count, "first_calls_s": first_calls, "steady_ms": steady}

eager = make_block(1.0)
steady = statistics.mean(per_call_ms(eager, x, w, b) for x in inputs)
rows.append(["eager (no compile)", 0, "-", f"{steady:.3f}"])
results["eager"] = {"steady_ms": steady}
compiled_steady = [r["steady_ms"] for k, r in results.items() if k != "eager"]
results["compiled_steady_ms"] = {"min": min(compiled_steady), "max": max(compiled_steady)}

print(tabulate(rows, headers=["setting", "graphs", "first calls (s)", "steady call (ms)"]))
