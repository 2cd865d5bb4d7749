# /// capture
# gpus = 0
# timeout = 600     # about 4 min on 16 cores: a first CPU compile, six more
# exclusive = true  # nothing else on the machine while it times
# ///

# %% machine glue=machine
import os
import platform
import re
import subprocess
import sysconfig
import time

import torch
from torch._inductor import cpp_builder, cpu_vec_isa

import timing

# Every tensor here is on the CPU: time with the host's clock, no CUDA sync.
timing.CUDA = False


def cpu_model():
    """The model name the kernel reports, and the CPU's vector extensions."""
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read()
    except OSError:
        return platform.processor() or platform.machine(), []
    name = re.search(r"^model name\s*:\s*(.+)$", info, re.M)
    flags = set(re.search(r"^flags\s*:(.*)$", info, re.M)[1].split())
    wanted = ["avx2", "avx512f", "avx512_bf16", "amx_tile"]
    return name[1].strip(), [f for f in wanted if f in flags]


def compiler():
    """The C++ compiler Inductor calls, by the first line it prints."""
    try:
        cxx = cpp_builder.get_cpp_compiler()
        run = subprocess.run([cxx, "--version"], capture_output=True,
                             text=True)
    except Exception as error:  # no compiler: Inductor fails the same way
        return f"none ({type(error).__name__})"
    return run.stdout.splitlines()[0]


model, flags = cpu_model()
isa = cpu_vec_isa.pick_vec_isa()
headers = os.path.join(sysconfig.get_paths()["include"], "Python.h")
machine = {
    "cpu": model,
    "flags": " ".join(flags),
    "cores": os.cpu_count(),
    "threads": torch.get_num_threads(),
    "torch": torch.__version__,
    "compiler": compiler(),
    "headers": os.path.exists(headers),
    "isa": str(isa),
    "lanes": isa.nelements(torch.float32),
}
print(f"CPU                  {machine['cpu']}")
print(f"vector extensions    {machine['flags']}")
print(f"logical CPUs         {machine['cores']}")
print(f"torch threads        {machine['threads']}")
print(f"torch                {machine['torch']}")
print(f"C++ compiler         {machine['compiler']}")
print(f"Python.h             {machine['headers']}")
print(f"OpenMP, MKL, oneDNN  {torch.backends.openmp.is_available()}, "
      f"{torch.backends.mkl.is_available()}, "
      f"{torch.backends.mkldnn.is_available()}")
print(f"Inductor's ISA       {machine['isa']}, "
      f"{machine['lanes']} float32 lanes a vector")

# %% setup
from unittest import mock

import torch.nn.functional as F
from tabulate import tabulate
from torch import nn
from torch._dynamo.utils import counters
from torch._inductor.graph import GraphLowering
from torch._inductor.utils import run_and_get_code

torch.manual_seed(0)
torch.set_grad_enabled(False)  # inference throughout
torch._dynamo.config.recompile_limit = 16  # several variants below
THREADS = torch.get_num_threads()


def rms_norm(x, weight, eps=1e-6):
    """RMSNorm in plain tensor operations, as many models write it."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


class FeedForward(nn.Module):
    """A LLaMA-style block: RMSNorm, a SwiGLU MLP, the residual."""

    def __init__(self, dim, hidden):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.gate = nn.Linear(dim, hidden, bias=False)
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        y = rms_norm(x, self.weight)
        return x + self.down(F.silu(self.gate(y)) * self.up(y))


def call_and_get_code(fn, *args):
    """fn(*args), and the modules Inductor wrote meanwhile: what
    run_and_get_code returns, without first forgetting every compiled
    function (it calls torch._dynamo.reset())."""
    codes = []
    with mock.patch.object(GraphLowering, "save_output_code", codes.append):
        out = fn(*args)
    return out, codes


def row(name, m, base=None):
    """A table row: median (p10-p90) in ms, and the speedup over base."""
    times = f"{m['ms']:.3f} ({m['p10']:.3f}–{m['p90']:.3f})"
    ratio = [f"{base['ms'] / m['ms']:.2f}×"] if base else []
    return [name, times] + ratio


# %% kernel glue=kernel
x = torch.randn(4096, 1024)
w = torch.randn(1024)
started = time.perf_counter()
out, (code,) = run_and_get_code(torch.compile(rms_norm), x, w)
first_s = time.perf_counter() - started
assert torch.allclose(out, rms_norm(x, w), atol=1e-5)

source = code[code.index('extern "C"'):code.index("''')")]
# For reading: the index casts go, and so do lines that are only a brace.
cast = r"static_cast<(?:int64_t|long)>\(([^()]*)\)"
lines = [re.sub(cast, r"\1", line) for line in source.splitlines()]
shown = [line for line in lines if line.strip() not in ("{", "}")]
end = next((i for i, s in enumerate(shown) if "out_ptr0[" in s), 24)
print("\n".join(shown[:end + 1]))
print("    ...")
kernel = {
    "first_s": first_s,
    "kernels": len(re.findall(r"^cpp_fused_\w+ = ", code, re.M)),
    "omp": source.count("#pragma omp"),
    "step": int(re.search(r"x1\+=(\d+)L?\)", "\n".join(lines))[1]),
}

# %% fused glue=fused
fused = torch.compile(rms_norm)
times = timing.compare({"eager": lambda: rms_norm(x, w),
                        "compiled": lambda: fused(x, w)},
                       "back_to_back", rounds=15, calls=10)
print(tabulate([row(name, m, times["eager"]) for name, m in times.items()],
               headers=["RMSNorm, 4096×1024", "back to back ms",
                        "vs eager"]))
fused = dict(times, speedup=times["eager"]["ms"] / times["compiled"]["ms"])

# %% block glue=block
ffn = FeedForward(512, 1536).eval()
tokens = torch.randn(512, 512)
compiled = torch.compile(ffn)
out, (block_code,) = call_and_get_code(compiled, tokens)
assert torch.allclose(out, ffn(tokens), atol=1e-4)
calls = re.findall(r"(extern_kernels\.\w+|cpp_fused_\w+)\(", block_code)
print("the compiled block calls, in order:")
print("\n".join("  " + name for name in calls))

# The three matrix products alone, on inputs of the same shapes.
y = rms_norm(tokens, ffn.weight)
h = F.silu(ffn.gate(y)) * ffn.up(y)
times = timing.compare(
    {"eager": lambda: ffn(tokens), "compiled": lambda: compiled(tokens),
     "products": lambda: (ffn.gate(y), ffn.up(y), ffn.down(h))},
    "back_to_back", rounds=15, calls=10)
print(tabulate([row(name, m, times["eager"]) for name, m in times.items()],
               headers=["block, 512 rows", "back to back ms", "vs eager"]))
block = dict(times, speedup=times["eager"]["ms"] / times["compiled"]["ms"],
             share=times["products"]["ms"] / times["eager"]["ms"],
             library=sum(c.startswith("extern") for c in calls),
             generated=sum(c.startswith("cpp_fused") for c in calls))

# %% threads glue=threads
def regions(code):
    """The OpenMP parallel regions that the generated kernels open."""
    found = sorted(set(re.findall(r"#pragma omp parallel.*", code)))
    return "; ".join(line.strip() for line in found) or "none"


counts = {"one": 1, "four": min(4, THREADS), "all": THREADS}
opened = {THREADS: regions(block_code)}
before = counters["stats"]["unique_graphs"]
# Compile each count afresh: no cached code from another count.
with torch._inductor.config.patch(fx_graph_cache=False):
    for n in sorted(set(counts.values()) - {THREADS}):
        torch.set_num_threads(n)
        _, codes = call_and_get_code(compiled, tokens)
        opened[n] = regions(codes[0]) if codes else "not recompiled"
torch.set_num_threads(THREADS)
graphs = counters["stats"]["unique_graphs"] - before
for n in sorted(opened):
    print(f"compiled at {n:>2} thread(s): {opened[n]}")
print(f"graphs compiled for the other thread counts: {graphs}")


def at(n):
    def step():
        if torch.get_num_threads() != n:
            torch.set_num_threads(n)
        compiled(tokens)
    return step


times = timing.compare({name: at(n) for name, n in counts.items()},
                       "back_to_back", rounds=15, calls=5)
torch.set_num_threads(THREADS)
print(tabulate([row(f"{n} thread(s)", times[name], times["one"])
                for name, n in counts.items()],
               headers=["compiled block", "back to back ms", "vs 1 thread"]))
threads = {name: dict(times[name], threads=n, regions=opened[n])
           for name, n in counts.items()}
threads.update(graphs=graphs, new=len(set(counts.values())) - 1,
               scaling=times["one"]["ms"] / times["all"]["ms"])

# %% freezing glue=freezing
# Its own options keep its code apart from `compiled`'s; the setting must
# also be on while TorchDynamo traces, so that weights become constants.
frozen = torch.compile(ffn, options={"freezing": True})
with torch._inductor.config.patch(freezing=True):
    started = time.perf_counter()
    out, (code,) = call_and_get_code(frozen, tokens)
    freeze_s = time.perf_counter() - started
assert torch.allclose(out, ffn(tokens), atol=1e-4)
found = r"extern_kernels\.\w+|torch\.ops\.(?!inductor\.)\w+\.\w+"
ops = {"compiled": sorted(set(re.findall(found, block_code))),
       "frozen": sorted(set(re.findall(found, code)))}
for name, names in ops.items():
    print(f"library calls, {name}: {', '.join(names)}")

times = timing.compare({"compiled": lambda: compiled(tokens),
                        "frozen": lambda: frozen(tokens)},
                       "back_to_back", rounds=15, calls=10)
print(tabulate([row(name, m, times["compiled"])
                for name, m in times.items()],
               headers=["block, 512 rows", "back to back ms",
                        "vs compiled"]))
freezing = dict(times, compile_s=freeze_s, ops=", ".join(ops["frozen"]),
                speedup=times["compiled"]["ms"] / times["frozen"]["ms"])

# Frozen weights are constants: a later change to the module misses them.
reference = ffn(tokens)
ffn.down.weight.mul_(2)
follows = {name: not torch.allclose(fn(tokens), reference, atol=1e-4)
           for name, fn in (("eager", ffn), ("compiled", compiled),
                            ("frozen", frozen))}
ffn.down.weight.div_(2)
print("after doubling down.weight, the output changed:", follows)
freezing["follows"] = follows

# %% cpp-wrapper glue=wrapper
# Four small blocks, one row: many short kernels, so the host's work shows.
small = nn.Sequential(*[FeedForward(128, 384) for _ in range(4)]).eval()
one = torch.randn(1, 128)
wrapped = {"python": torch.compile(small),
           "cpp": torch.compile(small, options={"cpp_wrapper": True})}
compile_s, codes = {}, {}
for name, fn in wrapped.items():
    started = time.perf_counter()
    _, (codes[name],) = call_and_get_code(fn, one)
    compile_s[name] = time.perf_counter() - started
    entry = r"^\s*(def call\(|void inductor_entry_impl\()"
    print(f"{name} wrapper: {re.search(entry, codes[name], re.M)[1]}...")
calls = re.findall(r"^\s+(?:extern_kernels\.\w+|cpp_fused_\w+)\(",
                   codes["python"], re.M)
print(f"calls in the Python wrapper's call(): {len(calls)}")

times = timing.compare({"eager": lambda: small(one),
                        "python": lambda: wrapped["python"](one),
                        "cpp": lambda: wrapped["cpp"](one)},
                       "back_to_back", rounds=15, calls=200)
rows = [["eager", "", *row("", times["eager"])[1:]]]
rows += [[f"{name} wrapper", f"{compile_s[name]:.1f}",
          *row("", times[name], times["eager"])[1:]] for name in wrapped]
print(tabulate(rows, headers=["4 blocks, 1 row", "first call s",
                              "back to back ms", "vs eager"]))
wrapper = {name: dict(times[name], **({"compile_s": compile_s[name]}
                                      if name in compile_s else {}))
           for name in times}
wrapper["calls"] = len(calls)
wrapper["saved_us"] = 1000 * (times["python"]["ms"] - times["cpp"]["ms"])
