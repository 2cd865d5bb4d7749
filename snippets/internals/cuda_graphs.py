# /// capture
# gpus = 1
# timeout = 300     # about 20 s on an H100: two compiles, both measures
# exclusive = true
# ///

# %% setup
import torch
from tabulate import tabulate

import timing

device = "cuda" if torch.cuda.is_available() else "cpu"


def small_mlp(width=256, depth=8):
    layers = []
    for _ in range(depth):
        layers += [torch.nn.Linear(width, width), torch.nn.LayerNorm(width),
                   torch.nn.GELU()]
    return torch.nn.Sequential(*layers).to(device).eval()


model = small_mlp()
x = torch.randn(1, 256, device=device)  # batch of one: every kernel is tiny

# %% compile-both
default_model = torch.compile(model)
graphed_model = torch.compile(model, mode="reduce-overhead")

with torch.no_grad():
    expected = model(x)
    for name, m in [("default", default_model),
                    ("reduce-overhead", graphed_model)]:
        for _ in range(3):  # compile, then warm up (and record the graph)
            out = m(x)
        same = torch.allclose(out, expected, atol=1e-5)
        print(f"{name}: same as eager:", same)

# %% per-call-time glue=per_call
# Both measures, each over 15 rounds with the three variants interleaved
# (timing.compare warms each first). Back to back: 20 calls queued between
# two CUDA events, the time per call of a loop that never waits. Latency
# from idle: one call, synchronised before and after, host's launch included.
variants = {"eager": lambda: model(x), "default": lambda: default_model(x),
            "graphed": lambda: graphed_model(x)}
labels = {"eager": "eager", "default": 'mode="default"',
          "graphed": 'mode="reduce-overhead"'}
with torch.no_grad():
    timed = {measure: timing.compare(variants, measure)
             for measure in ("back_to_back", "latency")}

per_call = {}
for measure, times in timed.items():
    per_call[measure] = {
        name: dict(t, us=t["ms"] * 1000, p10_us=t["p10"] * 1000,
                   p90_us=t["p90"] * 1000)
        for name, t in times.items()}
    eager, default, graphed = (times[k]["ms"] for k in variants)
    per_call[measure].update(default_speedup=eager / default,
                             graphed_speedup=eager / graphed,
                             graphed_over_default=default / graphed)


def shown(measure, name):
    t = per_call[measure][name]
    return (f"{t['us']:.1f} ({t['p10_us']:.1f}–{t['p90_us']:.1f})",
            f"{per_call[measure]['eager']['ms'] / t['ms']:.1f}×")


rows = [[labels[n], *shown("back_to_back", n), *shown("latency", n)]
        for n in variants]
print(tabulate(rows, headers=["variant", "back to back µs", "vs eager",
                              "latency from idle µs", "vs eager"]))

# %% outputs-are-overwritten
ones = torch.ones(1, 256, device=device)
zeros = torch.zeros(1, 256, device=device)

with torch.no_grad():
    first = graphed_model(ones)
    second = graphed_model(zeros)  # replays into the same output memory
    print("first and second share memory:",
          first.data_ptr() == second.data_ptr())
    print("first still equals model(ones): ",
          torch.allclose(first, model(ones), atol=1e-5))
    print("first now equals model(zeros):  ",
          torch.allclose(first, model(zeros), atol=1e-5))

# %% clone-what-you-keep
with torch.no_grad():
    first = graphed_model(ones).clone()  # a copy outside the graph's pool
    second = graphed_model(zeros)
    print("first still equals model(ones): ",
          torch.allclose(first, model(ones), atol=1e-5))
