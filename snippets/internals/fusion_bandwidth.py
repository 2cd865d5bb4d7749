# /// capture
# gpus = 1
# timeout = 300
# exclusive = true
# ///

# %% setup
import torch
from tabulate import tabulate
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

import timing

device = "cuda" if torch.cuda.is_available() else "cpu"


def chain(x, y):
    a = x * 1.5
    b = a + y
    c = torch.sin(b)
    d = c * a
    e = torch.exp(-d)
    f = e - y
    return torch.relu(f)


# 64 Mi float32 values, 256 MiB per tensor, on a GPU; a CPU, far slower,
# gets 4 Mi, so that the cells below take seconds there too
n = (64 if device == "cuda" else 4) * 1024 * 1024
x = torch.randn(n, device=device)
y = torch.randn(n, device=device)

# %% count-eager-traffic glue=traffic
class CountTraffic(TorchDispatchMode):
    """Counts the ATen operators eager mode runs and the bytes each one
    reads and writes."""

    def __init__(self):
        super().__init__()
        self.ops, self.bytes = [], 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        tensors = [t for t in tree_leaves((args, kwargs))
                   if isinstance(t, torch.Tensor)]
        inputs = {id(t): t for t in tensors}  # each tensor once
        outputs = [t for t in tree_leaves(out)
                   if isinstance(t, torch.Tensor)]
        self.ops.append(func.__name__)
        self.bytes += sum(t.nbytes for t in [*inputs.values(), *outputs])
        return out


with CountTraffic() as counter:
    chain(x, y)

eager_bytes = counter.bytes
# a fused kernel reads x and y once and writes the result once
fused_bytes = x.nbytes + y.nbytes + x.nbytes
print("eager runs", len(counter.ops), "kernels:", ", ".join(counter.ops))
print(f"eager moves {eager_bytes / 1e9:.2f} GB, "
      f"one fused kernel {fused_bytes / 1e9:.2f} GB")
traffic = {"eager_kernels": len(counter.ops), "eager_gb": eager_bytes / 1e9,
           "fused_gb": fused_bytes / 1e9, "ratio": eager_bytes / fused_bytes}

# %% compile-and-check
compiled_chain = torch.compile(chain)
print("same as eager:",
      torch.allclose(compiled_chain(x, y), chain(x, y), atol=1e-5))

# %% measure glue=bandwidth
# Back to back: 20 calls queued between two CUDA events, time per call;
# 15 rounds, eager and compiled interleaved, each warmed first.
calls = 20 if device == "cuda" else 2  # a CPU is far slower
times = timing.compare({"eager": lambda: chain(x, y),
                        "compiled": lambda: compiled_chain(x, y)},
                       "back_to_back", calls=calls)
moved = {"eager": eager_bytes, "compiled": fused_bytes}
gbps = {k: moved[k] / (t["ms"] / 1e3) / 1e9 for k, t in times.items()}

rows = [[name, f"{moved[name] / 1e9:.2f}",
         f"{t['ms']:.3f} ({t['p10']:.3f}–{t['p90']:.3f})",
         f"{gbps[name]:.0f}"] for name, t in times.items()]
print(tabulate(rows, headers=["variant", "GB moved", "back to back ms",
                              "effective GB/s"]))
speedup = times["eager"]["ms"] / times["compiled"]["ms"]
print(f"speed-up: {speedup:.1f}x")
bandwidth = {"eager": times["eager"], "compiled": times["compiled"],
             "eager_ms": times["eager"]["ms"],
             "compiled_ms": times["compiled"]["ms"],
             "eager_gbps": gbps["eager"], "compiled_gbps": gbps["compiled"],
             "speedup": speedup}
