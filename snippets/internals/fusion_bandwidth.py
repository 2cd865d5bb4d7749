# /// capture
# gpus = 1
# timeout = 300
# exclusive = true
# ///

# %% setup
import torch
import torch.utils.benchmark as benchmark
from tabulate import tabulate
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

device = "cuda" if torch.cuda.is_available() else "cpu"


def chain(x, y):
    a = x * 1.5
    b = a + y
    c = torch.sin(b)
    d = c * a
    e = torch.exp(-d)
    f = e - y
    return torch.relu(f)


n = 64 * 1024 * 1024  # 64M float32 elements: 256 MiB per tensor
x = torch.randn(n, device=device)
y = torch.randn(n, device=device)

# %% count-eager-traffic glue=traffic
class CountTraffic(TorchDispatchMode):
    """Counts the ATen operators eager mode runs and the bytes each reads and writes."""

    def __init__(self):
        super().__init__()
        self.ops, self.bytes = [], 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        inputs = {id(t): t for t in tree_leaves((args, kwargs)) if isinstance(t, torch.Tensor)}
        outputs = [t for t in tree_leaves(out) if isinstance(t, torch.Tensor)]
        self.ops.append(func.__name__)
        self.bytes += sum(t.nbytes for t in [*inputs.values(), *outputs])
        return out


with CountTraffic() as counter:
    chain(x, y)

eager_bytes = counter.bytes
fused_bytes = x.nbytes + y.nbytes + x.nbytes  # read x and y once, write the result once
print("eager runs", len(counter.ops), "kernels:", ", ".join(counter.ops))
print(f"eager moves {eager_bytes / 1e9:.2f} GB, one fused kernel {fused_bytes / 1e9:.2f} GB")
traffic = {"eager_kernels": len(counter.ops), "eager_gb": eager_bytes / 1e9, "fused_gb": fused_bytes / 1e9,
           "ratio": eager_bytes / fused_bytes}

# %% compile-and-check
compiled_chain = torch.compile(chain)
print("same as eager:", torch.allclose(compiled_chain(x, y), chain(x, y), atol=1e-5))

# %% measure glue=bandwidth
def median_ms(fn):
    for _ in range(3):  # warm-up
        fn(x, y)
    timer = benchmark.Timer(stmt="fn(x, y)", globals={"fn": fn, "x": x, "y": y})
    return timer.blocked_autorange(min_run_time=2.0).median * 1e3


times = {"eager": median_ms(chain), "torch.compile": median_ms(compiled_chain)}
moved = {"eager": eager_bytes, "torch.compile": fused_bytes}

rows = [[name, f"{moved[name] / 1e9:.2f}", f"{ms:.3f}", f"{moved[name] / (ms / 1e3) / 1e9:.0f}"]
        for name, ms in times.items()]
print(tabulate(rows, headers=["variant", "GB moved", "median ms", "effective GB/s"]))
print(f"speed-up: {times['eager'] / times['torch.compile']:.1f}x")
bandwidth = {"eager_ms": times["eager"], "compiled_ms": times["torch.compile"],
             "eager_gbps": eager_bytes / (times["eager"] / 1e3) / 1e9,
             "compiled_gbps": fused_bytes / (times["torch.compile"] / 1e3) / 1e9,
             "speedup": times["eager"] / times["torch.compile"]}
