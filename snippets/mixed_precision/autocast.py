# /// capture
# gpus = 1
# timeout = 360     # about 60 s on an H100: six compiles of a small block, timings
# exclusive = true
# ///

# %% setup
import copy

import torch
from tabulate import tabulate
from torch import nn
from torch._dynamo.utils import counters

import timing

torch.manual_seed(0)
# several compiled variants of one block below
torch._dynamo.config.recompile_limit = 16
block = nn.Sequential(nn.Linear(2048, 8192), nn.GELU(),
                      nn.Linear(8192, 2048),
                      nn.LayerNorm(2048)).cuda().eval()
x = torch.randn(8192, 2048, device="cuda")
with torch.no_grad():
    # float64: the yardstick for every error below
    reference = copy.deepcopy(block).double()(x.double())


def autocast(dtype):
    return torch.autocast("cuda", dtype)


# %% variants
compiled = torch.compile(block)


def inside(dtype):
    """Autocast inside the compiled function: the region carries its own
    precision."""
    @torch.compile
    def run(t):
        with autocast(dtype):
            return block(t)
    return run


bf16_inside, fp16_inside = inside(torch.bfloat16), inside(torch.float16)
# weights and activations in bfloat16, no autocast
block_bf16 = copy.deepcopy(block).to(torch.bfloat16)
compiled_bf16 = torch.compile(block_bf16)
x_bf16 = x.to(torch.bfloat16)


def outside(fn, dtype):
    def run(t):
        with autocast(dtype):
            return fn(t)
    return run


variants = {  # key: (what the table calls it, one call)
    "fp32_eager": ("float32, eager", lambda: block(x)),
    "fp32_compiled": ("float32, compiled", lambda: compiled(x)),
    "bf16_eager": ("bf16 autocast, eager",
                   lambda: outside(block, torch.bfloat16)(x)),
    "bf16_outside": ("bf16 autocast outside, compiled",
                     lambda: outside(compiled, torch.bfloat16)(x)),
    "bf16_inside": ("bf16 autocast inside, compiled",
                    lambda: bf16_inside(x)),
    "fp16_inside": ("fp16 autocast inside, compiled",
                    lambda: fp16_inside(x)),
    "bf16_weights": ("bf16 weights, compiled",
                     lambda: compiled_bf16(x_bf16)),
}

# %% compare glue=precision
with torch.no_grad():
    errors = {}
    for key, (_, run) in variants.items():
        out = run()
        errors[key] = ((out.double() - reference).abs().max()
                       / reference.abs().max()).item()
    times = timing.compare({key: run for key, (_, run) in variants.items()},
                           "back_to_back", rounds=15, calls=10)
base = times["fp32_eager"]["ms"]
print(tabulate([(label,
                 f"{times[key]['ms']:.3f} "
                 f"({times[key]['p10']:.3f}–{times[key]['p90']:.3f})",
                 f"{base / times[key]['ms']:.2f}×", f"{errors[key]:.1e}")
                for key, (label, _) in variants.items()],
               headers=["variant", "back to back ms", "vs float32 eager",
                        "max error / max |ref|"]))
precision = {key: dict(times[key], speedup=base / times[key]["ms"],
                       error=errors[key])
             for key in variants}

# %% guards glue=guards


def graphs_of(fn, calls):
    """Dynamo graphs compiled while calling fn under each autocast setting in
    turn."""
    # read afresh: compiling replaces counter objects
    before = counters["stats"]["unique_graphs"]
    with torch.no_grad():
        for dtype in calls:
            if dtype is None:
                fn(x)
            else:
                with autocast(dtype):
                    fn(x)
    return counters["stats"]["unique_graphs"] - before


# forget the graphs compiled above, so each count starts from none
torch._dynamo.reset()
settings = (None, torch.bfloat16, torch.float16, None)
guards = {"outside": graphs_of(torch.compile(block), settings),
          "inside": graphs_of(inside(torch.bfloat16), settings)}
print("called without autocast, under bf16, under fp16, without again:")
print(f"  autocast outside the compiled block: {guards['outside']} graph(s)")
print(f"  autocast inside the compiled function: "
      f"{guards['inside']} graph(s)")

# %% upcast glue=upcast
from torch._inductor.utils import run_and_get_code


def pointwise(a, b):
    return torch.nn.functional.gelu(a) * b + a


a, b = (torch.randn(1 << 22, device="cuda", dtype=torch.bfloat16)
        for _ in range(2))
exact = pointwise(a.double(), b.double())


def error_of(out):
    return ((out.double() - exact).abs().max() / exact.abs().max()).item()


upcast = {"eager": {"error": error_of(pointwise(a, b))}}
for name, flag in (("compiled", True), ("no_upcast", False)):
    torch._dynamo.reset()
    with torch._inductor.config.patch(
            {"triton.codegen_upcast_to_fp32": flag}):
        out, code = run_and_get_code(torch.compile(pointwise), a, b)
    kernel = "\n".join(code)
    upcast[name] = {"error": error_of(out),
                    "to_float32": kernel.count(".to(tl.float32)")}
for name, result in upcast.items():
    casts = (f", {result['to_float32']} casts to float32 in the kernel"
             if "to_float32" in result else "")
    label = {"no_upcast": "compiled, no upcast"}.get(name, name)
    print(f"{label:<20} max error / max |exact| "
          f"{result['error']:.1e}{casts}")
