# /// capture
# gpus = 1
# timeout = 420     # about 55 s on an H100 (up to 150): max-autotune tunes kernels while compiling
# exclusive = true
# ///

# %% setup
import functools
import re
from collections import Counter
from unittest import mock

import torch
from tabulate import tabulate
from torch._dynamo.utils import counters
from torch._inductor.graph import GraphLowering

from timing import CUDA, compare, first_call
from model import (POSITIONS, VOCAB, build, decode, decode_one, device,
                   prefill)

torch.set_grad_enabled(False)
model = build()
prompt = torch.randint(VOCAB, (1, 16), device=device)
START, NEW = prompt.shape[1], (128 if CUDA else 16)
first = prefill(model, prompt)
reference = decode(lambda token, pos: decode_one(model, token, pos),
                   first, START, NEW)


def compile_step(mode):
    """Compile the decoding step with `mode`: the step, what its first call
    did, and the code Inductor wrote.

    torch._inductor.utils.run_and_get_code(fn, *args) keeps the code the same
    way, but it starts with torch._dynamo.reset(), which would throw away the
    step compiled before this one.
    """
    step_fn = torch.compile(decode_one, mode=mode, fullgraph=True)
    step = lambda token, pos: step_fn(model, token, pos)  # noqa: E731
    counters.clear()
    code = []
    with mock.patch.object(GraphLowering, "save_output_code", code.append):
        compile_s = first_call(
            lambda: step(first, POSITIONS[START : START + 1]))
    tokens = decode(step, first, START, NEW)
    same = (tokens == reference)[0].int().cumprod(0).sum().item()
    return step, {
        "compile_s": compile_s,
        # read afresh, after the compile
        "graphs": counters["stats"]["unique_graphs"],
        # matrix products that reached Inductor's matmul lowering, where
        # max-autotune would time candidate kernels, and how many such
        # choices it timed ("select_algorithm")
        "mm_lowered": sum(counters["aten_mm_info"].values()),
        "mm_autotuned": counters["inductor"]["select_algorithm_autotune"],
        # runs of a generated kernel with other launch parameters
        # (coordinate descent tuning)
        "coordesc_runs": counters["inductor"]["coordesc_tuning_bench"],
        # a compile found in the FX graph cache lowers and tunes nothing:
        # the three counts above read 0
        # (the capture starts with an empty cache folder)
        "cache_hits": counters["inductor"]["fxgraph_cache_hit"],
        "same_tokens": same, "of": NEW,
        # index (from 0) of the first token unlike eager's
        "first_diff": same if same < NEW else None,
    }, "\n".join(code)


def read_kernels(code):
    """What one compiled step launches, read from the code Inductor generated
    for it."""
    # the kernels it wrote
    generated = re.findall(r"^(\w+) = async_compile\.\w+\(", code, re.M)
    launches = Counter(re.findall(r"^\s+((?:triton|cpp)_\w+)(?:\.run)?\(",
                                  code, re.M))
    # calls of library kernels
    library = Counter(re.findall(
        r"^\s+(?:\w+ = )?((?:extern_kernels|torch\.ops\.\w+|aten)\.\w+)"
        r"(?:\.\w+)?\(",
        code, re.M))
    # names list the fused ops
    with_mm = [n for n in generated
               if {"mm", "bmm", "addmm"} & set(n.split("_"))]
    short = lambda name: (  # noqa: E731
        name if len(name) <= 60 else name[:59] + "…")
    return {
        "generated": len(generated), "launches": sum(launches.values()),
        "mm_generated": len(with_mm),
        "mm_launches": sum(launches[n] for n in with_mm),
        "mm_reductions": sum(
            launches[n] for n in with_mm
            if n.startswith(("triton_red_", "triton_per_"))),
        "library": dict(library),
        "library_mm": sum(
            c for name, c in library.items()
            if name.rsplit(".", 1)[-1] in ("mm", "addmm", "bmm")),
        "mm_names": [short(n) for n in with_mm],
    }


# %% max-autotune
# The same decoding step as in decode.py, compiled with mode="max-autotune".
# Inductor's code for it says which kernels one step launches: kernels it
# generated (Triton on a GPU; the name lists the operations fused into each,
# "red" marks a reduction) and library calls.
ma_step, autotuned, ma_code = compile_step("max-autotune")
kernels = {"max-autotune": read_kernels(ma_code)}
k = kernels["max-autotune"]
print(f"first call {autotuned['compile_s']:.1f} s, "
      f"{autotuned['graphs']} graph")
print(f"one step: {k['launches']} launches of {k['generated']} "
      f"generated kernels, {k['mm_launches']} of them matrix products "
      f"({k['mm_reductions']} reductions); "
      f"library matrix products: {k['library_mm']}")
print(f"matrix products that reached the matmul lowering: "
      f"{autotuned['mm_lowered']}, "
      f"choices timed by autotuning: {autotuned['mm_autotuned']}, "
      f"coordinate-descent runs of generated kernels: "
      f"{autotuned['coordesc_runs']}")
print("generated kernels holding a matrix product:", *k["mm_names"],
      sep="\n  ")

# %% settings glue=settings
# What the mode sets (torch._inductor.list_mode_options), beside each
# setting's default. max_autotune covers matrix products too, so
# max_autotune_gemm stays at its default. coordinate_descent_tuning also
# tells Inductor to rewrite a matrix product with a single row (batch 1, one
# token) as a multiply-and-sum, which it generates as a reduction kernel: no
# matmul is left for autotuning to time.
mode_options = torch._inductor.list_mode_options("max-autotune")
FLAGS = ("max_autotune", "max_autotune_gemm", "coordinate_descent_tuning",
         "triton.cudagraphs")
settings = {}
for flag in FLAGS:
    default = functools.reduce(getattr, flag.split("."),
                               torch._inductor.config)
    settings[flag.replace(".", "_")] = {
        "default": default,
        "max-autotune": mode_options.get(flag, default),
    }
settings["mode_options"] = ", ".join(
    f"{flag}={value}" for flag, value in mode_options.items())
print(tabulate([[flag, settings[flag.replace(".", "_")]["default"],
                 settings[flag.replace(".", "_")]["max-autotune"]]
                for flag in FLAGS],
               headers=["torch._inductor.config", "default",
                        'mode="max-autotune"']))

# %% reduce-overhead glue=kernels
# reduce-overhead compiles the same step with none of those settings, only
# CUDA graphs (the step that decode.py times). Compiled second in this
# process, it is here to compare kernels and times with max-autotune's in the
# same process.
ro_step, reduce_overhead, ro_code = compile_step("reduce-overhead")
kernels["reduce-overhead"] = read_kernels(ro_code)
rows = [["compile, first call (s)",
         *(f"{r['compile_s']:.1f}" for r in (autotuned, reduce_overhead))]]
for key, label in [("launches", "generated kernel launches per step"),
                   ("mm_launches", "of which: matrix products"),
                   ("mm_reductions", "of which: reduction kernels"),
                   ("library_mm", "library matrix products per step")]:
    rows.append([label, kernels["max-autotune"][key],
                 kernels["reduce-overhead"][key]])
rows += [[label, autotuned[key], reduce_overhead[key]] for key, label in [
    ("mm_lowered", "matrix products lowered as matmul"),
    ("mm_autotuned", "matmul choices autotuned"),
    ("coordesc_runs", "coordinate-descent runs"),
    ("same_tokens", f"same tokens as eager (of {NEW})")]]
print(tabulate(rows, headers=["", "max-autotune", "reduce-overhead"]))
print("library calls of reduce-overhead's step:",
      kernels["reduce-overhead"]["library"])

# %% timing glue=autotuned,reduce_overhead,per_step
# Decoding NEW tokens is one request: latency from idle, ten rounds after two
# untimed runs (the runs the file made before the guide named its measures),
# the two modes interleaved. One step, back to back (20 steps queued per
# round, 15 rounds, interleaved), is the GPU time per step: the measure that
# compares the kernels themselves.
steps = {"reduce-overhead": ro_step, "max-autotune": ma_step}
whole = compare({name: (lambda s=s: decode(s, first, START, NEW))
                 for name, s in steps.items()},
                "latency", rounds=10, warmup=2)
pos = POSITIONS[START : START + 1]
per_step = compare({name: (lambda s=s: s(first, pos))
                    for name, s in steps.items()}, "back_to_back")
for name, r in (("max-autotune", autotuned),
                ("reduce-overhead", reduce_overhead)):
    m = whole[name]
    r.update(tok_s=NEW / m["ms"] * 1000, tok_s_p10=NEW / m["p90"] * 1000,
             tok_s_p90=NEW / m["p10"] * 1000, ms_per_token=m["ms"] / NEW,
             rounds=m["rounds"], measure=m["measure"])
print(tabulate([[name, f"{r['tok_s']:,.0f}",
                 f"{r['tok_s_p10']:,.0f}–{r['tok_s_p90']:,.0f}",
                 f"{r['ms_per_token']:.3f}", f"{per_step[name]['ms']:.3f}",
                 f"{per_step[name]['p10']:.3f}–"
                 f"{per_step[name]['p90']:.3f}"]
                for name, r in (("max-autotune", autotuned),
                                ("reduce-overhead", reduce_overhead))],
               headers=["decoding step", "tokens/s", "p10–p90", "ms/token",
                        "one step, back to back (ms)", "p10–p90"]))
print(f"tokens/s: latency from idle of decoding {NEW} tokens, "
      f"{whole['max-autotune']['rounds']} rounds; "
      f"one step: back to back, "
      f"{per_step['max-autotune']['rounds']} rounds")
