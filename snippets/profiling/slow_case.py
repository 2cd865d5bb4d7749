# /// capture
# gpus = 1
# timeout = 240     # about 35 s on an H100: three compiles, timings and two short profiles
# exclusive = true
# ///

# %% setup
import re
from pathlib import Path

import torch
import torch.nn.functional as F
from tabulate import tabulate
from torch import nn

from profiles import kernels, profiled, top
from timing import compare, first_call, overlap, spread

device = "cuda" if torch.cuda.is_available() else "cpu"
dtype = torch.bfloat16 if device == "cuda" else torch.float32
# One large MLP layer on 8192 tokens: two big matrix products and a GELU
# between them.
WIDTH, HIDDEN, TOKENS = ((4096, 16384, 8192) if device == "cuda"
                         else (256, 1024, 512))
torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(WIDTH, HIDDEN), nn.GELU(),
                    nn.Linear(HIDDEN, WIDTH)).to(device, dtype).eval()
x = torch.randn(TOKENS, WIDTH, device=device, dtype=dtype)
torch.set_grad_enabled(False)

# %% no-speedup glue=slow
# Timed back to back: 20 calls queued between two CUDA events, the GPU's time
# per call, eager and compiled interleaved in rounds.
compiled = torch.compile(mlp)
slow = {"compile_s": first_call(lambda: compiled(x))}
slow.update(compare(
    {"eager": lambda: mlp(x), "compiled": lambda: compiled(x)},
    measure="back_to_back"))
slow["speedup"] = slow["eager"]["ms"] / slow["compiled"]["ms"]
slow["overlap"] = overlap(slow["eager"], slow["compiled"])
print(f"eager:    {spread(slow['eager'])}")
print(f"compiled: {spread(slow['compiled'])}  "
      f"(first call {slow['compile_s']:.1f} s)")
print(f"speedup:  {slow['speedup']:.2f}×; the ranges "
      f"{'overlap' if slow['overlap'] else 'do not overlap'}")

# %% why glue=why
# Where the GPU's time goes: matrix-multiplication kernels (cuBLAS or
# CUTLASS, in eager and compiled code alike) against everything else, the
# only part fusion can shorten.
MATMUL = re.compile(r"gemm|nvjet|cutlass|xmma|wgmma|matmul|addmm|aten::mm"
                    r"|aten::linear", re.I)
why = {}
for name, fn in (("eager", lambda: mlp(x)),
                 ("compiled", lambda: compiled(x))):
    prof = profiled(fn)
    found = kernels(prof)
    matmul_us = sum(e.time_range.elapsed_us() for e in found
                    if MATMUL.search(e.name)) / prof.calls
    total_us = sum(e.time_range.elapsed_us() for e in found) / prof.calls
    why[name] = {"total_us": total_us, "matmul_us": matmul_us,
                 "other_us": total_us - matmul_us,
                 "matmul_share": matmul_us / total_us}
    print(f"{name}:")
    print(tabulate([(k, f"{n:g}", f"{us:.1f}", f"{share:.0%}")
                    for k, n, us, share in top(prof, count=5)],
                   headers=["kernel", "per call", "µs per call", "share"]))
    print()
print(tabulate([[name, f"{w['total_us']:.0f}", f"{w['matmul_us']:.0f}",
                 f"{w['other_us']:.0f}", f"{w['matmul_share']:.0%}"]
                for name, w in why.items()],
               headers=["", "kernels (µs per call)", "matrix products",
                        "everything else", "matrix share"]))
why["fusion_saved_us"] = (why["eager"]["other_us"]
                          - why["compiled"]["other_us"])

# %% gelu-kernel glue=gelu
# The one kernel that is not a matrix product: the GELU, alone, on the
# layer's hidden activation, each variant timed back to back (its kernel is
# far longer than a call's launch). Eager runs ATen's elementwise kernel;
# compiled, Inductor generates a Triton kernel. Its block size and warps come
# from a heuristic on its size (size_hints in the source); with
# coordinate_descent_tuning, its first run also benchmarks neighbouring
# configs (block size and warps doubled or halved) and keeps the fastest. The
# source names the kernel; the config it runs with is on the kernel object.
from torch._inductor.codecache import PyCodeCache
from torch._inductor.utils import run_and_get_code

hidden = mlp[0](x)  # the GELU's input: [TOKENS, HIDDEN]


def gelu_default(t):
    return F.gelu(t)


# the same code, a function of its own: a compilation of its own
def gelu_coordinate_descent(t):
    return F.gelu(t)


gelu_compiled, gelu_tuned = (torch.compile(gelu_default),
                             torch.compile(gelu_coordinate_descent))
first = {}


def compile_both():
    first["compiled"] = first_call(lambda: gelu_compiled(hidden))
    # compile and first call, tuned
    with torch._inductor.config.patch(coordinate_descent_tuning=True):
        first["coordinate_descent"] = first_call(
            lambda: gelu_tuned(hidden))


# The generated modules' source, in order of compilation. run_and_get_code
# starts with torch._dynamo.reset(), which drops the compiled code of the
# cells above.
_, codes = run_and_get_code(compile_both)


def kernel_config(code):
    """The generated kernel of a module's source and, for a Triton kernel,
    the config it runs with."""
    name = re.search(r"^(\w+) = async_compile\.\w+\(", code, re.M).group(1)
    module = next(m for m in PyCodeCache.modules
                  if Path(m.__file__).read_text() == code)
    found = {"kernel": name}
    launchers = getattr(getattr(module, name), "launchers", None)
    # Triton: one launcher left once the first call has picked its config
    if launchers:
        config = launchers[0].config
        found.update(config.kwargs, num_warps=config.num_warps,
                     num_stages=config.num_stages)
        hints = re.search(r"size_hints=(\{[^}]*\})", code)
        found["size_hints"] = hints.group(1) if hints else None
    return found


gelu = {"config": dict(zip(("compiled", "coordinate_descent"),
                           map(kernel_config, codes)))}
timed = compare({"eager": lambda: F.gelu(hidden),
                 "compiled": lambda: gelu_compiled(hidden),
                 "coordinate_descent": lambda: gelu_tuned(hidden)},
                measure="back_to_back")
# read the input once, write the output once
moved = 2 * hidden.numel() * hidden.element_size()
for name, t in timed.items():
    gelu[name] = dict(t, us=t["ms"] * 1000, p10_us=t["p10"] * 1000,
                      p90_us=t["p90"] * 1000,
                      tb_s=moved / (t["ms"] / 1000) / 1e12,
                      first_call_s=first.get(name))
    g = gelu[name]
    print(f"{name:19} {g['us']:8.1f} µs per call "
          f"({g['p10_us']:.1f}–{g['p90_us']:.1f}, back to back), "
          f"{g['tb_s']:.2f} TB/s"
          + (f"; first call {g['first_call_s']:.1f} s"
             if g["first_call_s"] else ""))
for name, config in gelu["config"].items():
    settings = (", ".join(f"{k}={v}" for k, v in config.items()
                          if k != "kernel")
                or "C++, no launch config")
    print(f"{name}: {config['kernel']}: {settings}")
gelu["slowdown"] = gelu["compiled"]["ms"] / gelu["eager"]["ms"]
gelu["tuned_slowdown"] = (gelu["coordinate_descent"]["ms"]
                          / gelu["eager"]["ms"])
