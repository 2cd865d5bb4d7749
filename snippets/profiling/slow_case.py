# /// capture
# gpus = 1
# timeout = 240     # about 25 s on an H100: one compile, timings and two short profiles
# exclusive = true
# ///

# %% setup
import re

import torch
from tabulate import tabulate
from torch import nn

from profiles import kernels, profiled, top
from timing import first_call, measure, spread

device = "cuda" if torch.cuda.is_available() else "cpu"
dtype = torch.bfloat16 if device == "cuda" else torch.float32
# One large MLP layer on 8192 tokens: two big matrix products and a GELU between them.
WIDTH, HIDDEN, TOKENS = (4096, 16384, 8192) if device == "cuda" else (256, 1024, 512)
torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(WIDTH, HIDDEN), nn.GELU(), nn.Linear(HIDDEN, WIDTH)).to(device, dtype).eval()
x = torch.randn(TOKENS, WIDTH, device=device, dtype=dtype)
torch.set_grad_enabled(False)

# %% no-speedup glue=slow
compiled = torch.compile(mlp)
slow = {"compile_s": first_call(lambda: compiled(x)), "eager": measure(lambda: mlp(x)),
        "compiled": measure(lambda: compiled(x))}
slow["speedup"] = slow["eager"]["ms"] / slow["compiled"]["ms"]
print(f"eager:    {spread(slow['eager'])}")
print(f"compiled: {spread(slow['compiled'])}  (first call {slow['compile_s']:.1f} s)")
print(f"speedup:  {slow['speedup']:.2f}×")

# %% why glue=why
# Where the GPU's time goes: matrix-multiplication kernels (cuBLAS or CUTLASS, in eager and
# compiled code alike) against everything else, the only part fusion can shorten.
MATMUL = re.compile(r"gemm|nvjet|cutlass|xmma|wgmma|matmul|addmm|aten::mm|aten::linear", re.I)
why = {}
for name, fn in (("eager", lambda: mlp(x)), ("compiled", lambda: compiled(x))):
    prof = profiled(fn)
    found = kernels(prof)
    matmul_us = sum(e.time_range.elapsed_us() for e in found if MATMUL.search(e.name)) / prof.calls
    total_us = sum(e.time_range.elapsed_us() for e in found) / prof.calls
    why[name] = {"total_us": total_us, "matmul_us": matmul_us, "other_us": total_us - matmul_us,
                 "matmul_share": matmul_us / total_us}
    print(f"{name}:")
    print(tabulate([(k, f"{n:g}", f"{us:.1f}", f"{share:.0%}") for k, n, us, share in top(prof, count=5)],
                   headers=["kernel", "per call", "µs per call", "share"]))
    print()
print(tabulate([[name, f"{w['total_us']:.0f}", f"{w['matmul_us']:.0f}", f"{w['other_us']:.0f}",
                 f"{w['matmul_share']:.0%}"] for name, w in why.items()],
               headers=["", "kernels (µs per call)", "matrix products", "everything else", "matrix share"]))
why["fusion_saved_us"] = why["eager"]["other_us"] - why["compiled"]["other_us"]
