# /// capture
# gpus = 1
# timeout = 300
# exclusive = true
# ///

# %% setup
import torch
import torch.utils.benchmark as benchmark
from tabulate import tabulate

device = "cuda" if torch.cuda.is_available() else "cpu"


def small_mlp(width=256, depth=8):
    layers = []
    for _ in range(depth):
        layers += [torch.nn.Linear(width, width), torch.nn.LayerNorm(width), torch.nn.GELU()]
    return torch.nn.Sequential(*layers).to(device).eval()


model = small_mlp()
x = torch.randn(1, 256, device=device)  # batch of one: every kernel is tiny


def median_us(fn):
    timer = benchmark.Timer(stmt="fn(x)", globals={"fn": fn, "x": x})
    return timer.blocked_autorange(min_run_time=1.0).median * 1e6


# %% compile-both
default_model = torch.compile(model)
graphed_model = torch.compile(model, mode="reduce-overhead")

with torch.no_grad():
    expected = model(x)
    for name, m in [("default", default_model), ("reduce-overhead", graphed_model)]:
        for _ in range(3):  # compile, then warm up (reduce-overhead records the graph here)
            out = m(x)
        print(f"{name}: same as eager:", torch.allclose(out, expected, atol=1e-5))

# %% per-call-time glue=per_call
with torch.no_grad():
    times = {
        "eager": median_us(model),
        'torch.compile (mode="default")': median_us(default_model),
        'torch.compile (mode="reduce-overhead")': median_us(graphed_model),
    }

rows = [[name, f"{us:.1f}", f"{times['eager'] / us:.1f}x"] for name, us in times.items()]
print(tabulate(rows, headers=["variant", "median µs per call", "vs eager"]))
eager_us, default_us, graphed_us = times.values()
per_call = {"eager_us": eager_us, "default_us": default_us, "graphed_us": graphed_us,
            "default_speedup": eager_us / default_us, "graphed_speedup": eager_us / graphed_us,
            "graphed_over_default": default_us / graphed_us}

# %% outputs-are-overwritten
ones = torch.ones(1, 256, device=device)
zeros = torch.zeros(1, 256, device=device)

with torch.no_grad():
    first = graphed_model(ones)
    second = graphed_model(zeros)  # replays the graph into the same output memory
    print("first and second share memory:", first.data_ptr() == second.data_ptr())
    print("first still equals model(ones): ", torch.allclose(first, model(ones), atol=1e-5))
    print("first now equals model(zeros):  ", torch.allclose(first, model(zeros), atol=1e-5))

# %% clone-what-you-keep
with torch.no_grad():
    first = graphed_model(ones).clone()  # a copy outside the graph's memory pool
    second = graphed_model(zeros)
    print("first still equals model(ones): ", torch.allclose(first, model(ones), atol=1e-5))
