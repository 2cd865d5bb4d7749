# /// capture
# gpus = 1
# timeout = 360
# exclusive = true
# ///

# %% setup
import torch
from tabulate import tabulate

import timing  # the guide's timing helpers (snippets/_shared/timing.py)

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.set_float32_matmul_precision("high")


class GraphCounter:
    """A backend that counts graphs, then hands each one to Inductor."""

    def __init__(self):
        self.count = 0

    def __call__(self, gm, example_inputs):
        self.count += 1
        return torch._inductor.compile(gm, example_inputs)


def make_block(salt, name):
    """The same small function for every setting, under a name of its own.

    salt: a distinct constant per setting, so that no setting reuses kernels
    that an earlier one left in the compile caches. name: TorchDynamo keeps
    graphs, guards and the sizes it has seen per code object, so each setting
    gets a code object of its own, and all stay compiled side by side.
    """
    def block(x, w, b):
        h = torch.nn.functional.gelu(x @ w + b)
        return torch.nn.functional.layer_norm(h * salt + x, h.shape[-1:])

    block.__code__ = block.__code__.replace(co_name=name, co_qualname=name)
    return block


width = 2048
w = torch.randn(width, width, device=device) / width**0.5
b = torch.randn(width, device=device)
sizes = [256, 384, 512, 768, 1024, 1536]
inputs = [torch.randn(n, width, device=device) for n in sizes]
print("batch sizes:", sizes)

# pay one-time start-up costs (compiler imports, worker processes) first
torch.compile(lambda t: torch.relu(t) + 1)(torch.randn(8, device=device))

# %% compare-settings glue=results
settings = {  # short key: (name in the table, torch.compile arguments)
    "default": ("default (automatic dynamic)", {}),
    "dynamic": ("dynamic=True", {"dynamic": True}),
    "static": ("dynamic=False", {"dynamic": False}),
    "mark_dynamic": ("mark_dynamic(x, 0)", {}),
}

results, steps, counters = {}, {}, {}
for salt, (key, (_, kwargs)) in enumerate(settings.items(), start=1):
    counters[key] = counter = GraphCounter()
    block = make_block(1.0 + salt / 1000, f"block_{key}")
    compiled = torch.compile(block, backend=counter, **kwargs)
    xs = [x.clone() for x in inputs]  # its own tensors: a mark stays on them
    if key == "mark_dynamic":
        torch._dynamo.mark_dynamic(xs[0], 0)
    # first call with each size: compile time (if any) plus one run
    first_calls = sum(timing.first_call(lambda: compiled(x, w, b))
                      for x in xs)
    results[key] = {"first_calls_s": first_calls}
    steps[key] = lambda f=compiled, xs=xs: [f(x, w, b) for x in xs]

eager = make_block(1.0, "block_eager")
steps["eager"] = lambda: [eager(x, w, b) for x in inputs]

# Steady state, back to back: a step calls the function once per size;
# 15 rounds of 20 steps queued between two CUDA events, every setting
# warmed, then interleaved. Divided by six: the time per call.
steady = timing.compare(steps, "back_to_back")
for key, t in steady.items():
    per_call = {k: t[k] / len(sizes)
                for k in ("ms", "p10", "p90", "min", "max")}
    results.setdefault(key, {}).update(steady=dict(t, **per_call),
                                       steady_ms=per_call["ms"])
for key, counter in counters.items():  # every graph, steady state included
    results[key]["graphs"] = counter.count
compiled_steady = [results[k]["steady_ms"] for k in settings]
results["compiled_steady_ms"] = {"min": min(compiled_steady),
                                 "max": max(compiled_steady)}

labels = {key: name for key, (name, _) in settings.items()}
rows = []
for key, label in {**labels, "eager": "eager (no compile)"}.items():
    r, t = results[key], results[key]["steady"]
    first = f"{r['first_calls_s']:.2f}" if key in settings else "-"
    rows.append([label, r.get("graphs", 0), first,
                 f"{t['ms']:.3f} ({t['p10']:.3f}–{t['p90']:.3f})"])
print(tabulate(rows, headers=["setting", "graphs", "first calls (s)",
                              "back to back ms per call"]))
