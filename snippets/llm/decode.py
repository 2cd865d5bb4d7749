# /// capture
# gpus = 1
# timeout = 360     # about 35 s on an H100: two cold compiles of one decoding step, then timing
# exclusive = true
# ///

# %% setup
import torch
from tabulate import tabulate
from torch._dynamo.utils import counters

from timing import CUDA, compare, first_call, latency
from model import (POSITIONS, VOCAB, build, decode, decode_one, device,
                   prefill)

torch.set_grad_enabled(False)
# every compile below starts cold, as in a new process
torch.compiler.config.force_disable_caches = True
model = build()
prompt = torch.randint(VOCAB, (1, 16), device=device)
# decode NEW tokens after the prompt
START, NEW = prompt.shape[1], (128 if CUDA else 16)
first = prefill(model, prompt)  # eager; the cache now holds the prompt
eager_step = lambda token, pos: decode_one(model, token, pos)  # noqa: E731
reference = decode(eager_step, first, START, NEW)


def speed(step):
    """Greedy decoding of NEW tokens, timed as a whole: tokens per second,
    with the spread.

    Generating an answer is one request, so this is latency from idle: one
    synchronised decoding of NEW tokens per round, after two untimed ones, in
    ten rounds (as many runs as before the guide named its measures, which
    keeps the file's runtime)."""
    m = latency(lambda: decode(step, first, START, NEW), rounds=10, warmup=2)
    return {"tok_s": NEW / m["ms"] * 1000,
            "tok_s_p10": NEW / m["p90"] * 1000,
            "tok_s_p90": NEW / m["p10"] * 1000,
            "ms_per_token": m["ms"] / NEW, "rounds": m["rounds"],
            "measure": m["measure"]}


def agreement(step):
    """How many of the NEW tokens match eager decoding, counted from the
    first one."""
    tokens = decode(step, first, START, NEW)
    same = (tokens == reference)[0].int().cumprod(0).sum().item()
    return {"same_tokens": same, "of": NEW}


# %% eager glue=eager
eager = speed(eager_step)
print(f"eager: {eager['tok_s']:,.0f} tokens/s "
      f"({eager['tok_s_p10']:,.0f}–{eager['tok_s_p90']:,.0f}), "
      f"{eager['ms_per_token']:.2f} ms per token "
      f"(latency from idle of the whole decoding, "
      f"{eager['rounds']} rounds)")

# %% compiled glue=compiled
# Each mode is its own torch.compile of decode_one. Dynamo keeps one compiled
# entry per backend on the function, so the default mode's step stays usable
# after reduce-overhead is compiled (for the comparison in the next cell);
# with the caches off, the second compile still starts from nothing but the
# process's warm state.
compiled = {"eager": {"compile_s": None, **eager, "graphs": 0,
                      "cudagraph_skips": 0, "same_tokens": NEW, "of": NEW}}
steps = {"eager": eager_step}
for mode in ("default", "reduce-overhead"):
    step_fn = torch.compile(decode_one, mode=mode, fullgraph=True)
    step = lambda token, pos, step_fn=step_fn: (  # noqa: E731
        step_fn(model, token, pos))
    counters.clear()
    compile_s = first_call(
        lambda: step(first, POSITIONS[START : START + 1]))
    result = {"compile_s": compile_s, **speed(step), **agreement(step)}
    # read afresh, after the compile
    result["graphs"] = counters["stats"]["unique_graphs"]
    result["cudagraph_skips"] = counters["inductor"]["cudagraph_skips"]
    compiled[mode] = result
    steps[mode] = step

print(tabulate([[mode,
                 "—" if r["compile_s"] is None else f"{r['compile_s']:.1f}",
                 f"{r['tok_s']:,.0f}",
                 f"{r['tok_s_p10']:,.0f}–{r['tok_s_p90']:,.0f}",
                 f"{r['ms_per_token']:.2f}", r["graphs"],
                 r["cudagraph_skips"], f"{r['same_tokens']}/{r['of']}"]
                for mode, r in compiled.items()],
               headers=["decoding step", "compile (s)", "tokens/s",
                        "p10–p90", "ms/token", "graphs", "CUDA graph skips",
                        "same tokens as eager"]))
print(f"tokens/s and ms/token: latency from idle of decoding {NEW} tokens, "
      f"{eager['rounds']} rounds each")

# %% per-step glue=per_step
# One decoding step at a fixed position, timed back to back: 20 steps queued
# between two CUDA events per round, the three steps interleaved in 15
# rounds. This is the GPU time per step of a loop in which the host runs
# ahead of the GPU, or the host's time per step where the host is the slower
# of the two. The decoding loop above never waits for the GPU between steps
# either (the next token stays on the GPU), so its time per token should come
# out close.
pos = POSITIONS[START : START + 1]
per_step = compare({name: (lambda s=s: s(first, pos))
                    for name, s in steps.items()}, "back_to_back")
for name, m in per_step.items():
    # the latency figure above, for comparison
    m["whole_ms_per_token"] = compiled[name]["ms_per_token"]
print(tabulate([[name, f"{m['ms']:.3f}", f"{m['p10']:.3f}–{m['p90']:.3f}",
                 f"{m['whole_ms_per_token']:.3f}",
                 f"{per_step['eager']['ms'] / m['ms']:.1f}×"]
                for name, m in per_step.items()],
               headers=["decoding step", "back to back (ms)", "p10–p90",
                        "ms/token, whole decoding", "eager ÷ this"]))

# %% chart
import matplotlib.pyplot as plt

# one bar a row, large type: readable on a phone
names = list(compiled)[::-1]
fig, ax = plt.subplots(figsize=(4.2, 2.8))
values = [compiled[n]["tok_s"] for n in names]
bars = ax.barh(names, values, color="#3f51b5",
               xerr=[[compiled[n]["tok_s"] - compiled[n]["tok_s_p10"]
                      for n in names],
                     [compiled[n]["tok_s_p90"] - compiled[n]["tok_s"]
                      for n in names]],
               capsize=4)
ax.bar_label(bars, fmt="%.0f", fontsize=10, padding=4)
ax.set_xlabel("tokens per second (batch 1)")
ax.tick_params(labelsize=10)
ax.margins(x=0.25)
fig.suptitle(f"greedy decoding, {NEW} tokens,\n"
             f"latency from idle, {device}", fontsize=10)
fig.tight_layout()
