# /// capture
# gpus = 1
# timeout = 420     # about 70 s on an H100: six cold compiles of the prompt pass (prefill)
# exclusive = true
# ///

# %% setup
import torch
import torch.nn.functional as F
from tabulate import tabulate
from torch._dynamo.utils import counters

from timing import first_call, measure
from model import POSITIONS, VOCAB, build, device

torch.set_grad_enabled(False)
torch.compiler.config.force_disable_caches = True  # every compile below starts cold, as in a new process
model = build()
LENGTHS = [7, 19, 33, 50, 64, 90, 128]  # prompt lengths of successive requests
prompts = [torch.randint(VOCAB, (1, n), device=device) for n in LENGTHS]


def prefill_logits(model, prompt):
    """The prompt pass: fill the cache for every prompt position, return the last position's logits."""
    return model(prompt, POSITIONS[: prompt.shape[1]])[:, -1]


def serve(run):
    """Send every prompt once, timing each first call; then count graphs and time a steady prefill."""
    torch._dynamo.reset()
    counters.clear()
    try:
        first_s = [first_call(lambda: run(p)) for p in prompts]
    except Exception as exc:  # reported, so that the other ways are still measured
        print(f"failed: {type(exc).__name__}: {str(exc).splitlines()[0]}")
        return {"error": type(exc).__name__}
    graphs = counters["stats"]["unique_graphs"]  # afresh, after the compiles
    steady = measure(lambda: run(prompts[3]), warmup=3, repeats=20)  # a 50-token prompt
    return {"graphs": graphs, "first_s": first_s, "total_first_s": sum(first_s), **steady}


# %% default glue=automatic
# The default: the first length is compiled static; the second one fails a guard and is
# compiled again with the length as a symbol; the later lengths reuse that graph.
compiled = torch.compile(prefill_logits)
automatic = serve(lambda p: compiled(model, p))

# %% mark-dynamic glue=marked
# mark_dynamic says ahead of time that dimension 1 (the length) will vary: one graph from the start.
compiled = torch.compile(prefill_logits)


def run_marked(prompt):
    torch._dynamo.mark_dynamic(prompt, 1)
    return compiled(model, prompt)


marked = serve(run_marked)

# %% buckets glue=bucketed
# Padding buckets: pad each prompt to the next of a few lengths and compile each bucket
# static (dynamic=False). The padding goes after the prompt, so causal attention keeps the
# prompt's own logits unchanged; the answer is read at the last real position.
BUCKETS = (32, 64, 128)
compiled_static = torch.compile(lambda model, padded: model(padded, POSITIONS[: padded.shape[1]]), dynamic=False)


def run_bucketed(prompt):
    n = prompt.shape[1]
    size = next(b for b in BUCKETS if b >= n)
    padded = F.pad(prompt, (0, size - n))  # token 0 as padding
    return compiled_static(model, padded)[:, n - 1]


bucketed = serve(run_bucketed)

# %% compare glue=same_logits
results = {"default": automatic, "mark_dynamic": marked, "buckets": bucketed}
print(tabulate([[name, r["graphs"], " ".join(f"{s:.2f}" for s in r["first_s"]), f"{r['total_first_s']:.1f}",
                 f"{r['ms']:.2f}", f"{r['p10']:.2f}–{r['p90']:.2f}"] if "error" not in r else [name, "failed"]
                for name, r in results.items()],
               headers=["prompt lengths", "graphs", "first call per request (s)", "total (s)",
                        "50-token prefill (ms)", "p10–p90 (ms)"]))
print("requests:", ", ".join(map(str, LENGTHS)), "tokens; buckets:", ", ".join(map(str, BUCKETS)))

# the three ways give the same next-token logits for every prompt (up to rounding)
eager_logits = [prefill_logits(model, p) for p in prompts]
padded_logits = [run_bucketed(p) for p in prompts]
same_logits = max((a.float() - b.float()).abs().max().item() for a, b in zip(eager_logits, padded_logits))
print(f"largest difference between padded-bucket and eager logits: {same_logits:.3g}")
